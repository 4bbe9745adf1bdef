//! The JSON document of `kernlog analyze --json` (schema in the crate README).
//!
//! These types are the stable, documented face of an [`Analysis`]: times in seconds,
//! durations in milliseconds rounded to the microsecond, addresses as `"0x..."` strings,
//! memory types in the kernel's words, `null` where the log has no data.

use serde::Serialize;

use crate::analysis::Analysis;
use crate::analysis::findings::{Links, no_links};
use crate::analysis::limits::NotKept;
use crate::analysis::resume::{
    AbortCause, AsleepSource, Cycle, Event, OutcomeState, PhaseName, SleepMode,
};
use crate::analysis::trace::{Durations, TraceStats};
use crate::parse::reader::Time;

mod mtrr_docs;

use mtrr_docs::mtrr_doc;
pub use mtrr_docs::{
    BootTableDoc, CpuChangesDoc, DefTypeDoc, FixedChangeDoc, FixedDoc, MapDoc, MtrrDoc, RangeDoc,
    RunDoc, StepDoc, VariableChangeDoc, WarningDoc,
};

/// Version of the document layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 3;

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct Document {
    pub schema: u32,
    pub input: InputDoc,
    pub cycles: Vec<CycleDoc>,
    pub mtrr: MtrrDoc,
    pub trace: Option<TraceDoc>,
    pub probes: Vec<ProbeDoc>,
    pub findings: Vec<FindingDoc>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct ProbeDoc {
    pub point: String,
    pub cpu: u32,
    pub ms: Option<f64>,
    pub start_line: u64,
    pub end_line: u64,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct InputDoc {
    pub format: &'static str,
    pub formats: Vec<FormatCount>,
    pub records: u64,
    pub kernel_records: u64,
    pub user_records: u64,
    pub timestamp_resolution_s: Option<f64>,
    pub logger_stamped_records: u64,
    /// Read but not kept, as the limits in kernlog's README say.
    pub not_kept: NotKept,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FormatCount {
    pub format: &'static str,
    pub records: u64,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CycleDoc {
    pub index: usize,
    pub boot: usize,
    pub mode: Option<SleepMode>,
    pub first_line: u64,
    pub last_line: u64,
    /// `PM: suspend exit` minus `PM: suspend entry`; `null` when either line is missing.
    pub suspend_span_ms: Option<f64>,
    /// Older kernels: `Restarting tasks ... done.` minus `PM: Syncing filesystems`.
    pub sync_to_restart_ms: Option<f64>,
    /// What became of the attempt, and why.
    pub outcome: OutcomeDoc,
    /// The attempt was abandoned before the system slept (no resume figures then).
    pub aborted: Option<AbortedDoc>,
    /// Entry to the line that abandoned the attempt.
    pub time_to_abort_ms: Option<f64>,
    /// The time asleep, where the log says it.
    pub asleep: Option<AsleepDoc>,
    /// Devices that failed a step of the suspend or resume.
    pub failed_devices: Vec<FailedDeviceDoc>,
    /// Failed devices beyond the first 16 of the cycle, counted only.
    pub failed_devices_not_kept: u64,
    pub suspend_ms: Option<f64>,
    pub resume_ms: Option<f64>,
    pub enable_phase_ms: Option<f64>,
    pub ec_wake_to_unblock_ms: Option<f64>,
    pub cpus: Vec<CpuDoc>,
    pub cpus_not_up: Vec<u32>,
    pub cpu_errors: Vec<CpuErrorDoc>,
    pub phases: Vec<PhaseDoc>,
    pub gaps: Vec<GapDoc>,
    /// MTRR set-state runs of this cycle with `mtrr=debug` (see
    /// [`crate::analysis::rendezvous_per_step`]); `null` without debug lines or bring-up.
    pub mtrr_updates: Option<MtrrUpdatesDoc>,
}

/// What became of an attempt.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct OutcomeDoc {
    /// `resumed`, `aborted`, `did_not_resume` or `suspending`.
    pub state: OutcomeState,
    /// Why, in words: the abort's cause, the line that shows the resume, or what follows.
    pub cause: String,
    pub line: u64,
}

/// The time asleep and where the log tells it.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct AsleepDoc {
    pub seconds: f64,
    /// `timekeeping` or `wall_clock`.
    pub source: AsleepSource,
    pub line: u64,
}

/// One device that failed a step.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FailedDeviceDoc {
    pub device: String,
    /// The step as the kernel names it: `suspend async`, `resume`, `thaw`, `suspend callback`.
    pub step: String,
    pub error: i32,
    pub line: u64,
}

/// The line that abandoned a suspend attempt.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct AbortedDoc {
    pub line: u64,
    pub message: String,
    /// `freezer`, `device`, `wakeup`, or `device-or-wakeup` when the lines do not say which.
    pub cause: AbortCause,
    /// Lines that tell more (tasks that refused to freeze, failed devices, wakeup sources).
    pub details: Vec<AbortDetailDoc>,
}

/// One line that tells why an attempt aborted.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct AbortDetailDoc {
    pub line: u64,
    pub text: String,
}

/// The MTRR updates of one resume: per step, and the secondary CPUs' share in all.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MtrrUpdatesDoc {
    pub steps: Vec<StepDoc>,
    /// Every run after the boot CPU's own restore: the rendezvous that bring the APs back.
    pub after_boot_cpu: usize,
    /// Secondary CPUs brought up in the cycle.
    pub aps: usize,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CpuDoc {
    pub cpu: u32,
    pub apic: Option<String>,
    pub bringup_ms: Option<f64>,
    pub up_after_enable_ms: Option<f64>,
    pub booting_line: Option<u64>,
    pub up_line: Option<u64>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CpuErrorDoc {
    pub cpu: u32,
    pub error: i32,
    pub line: u64,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct PhaseDoc {
    pub name: PhaseName,
    pub start_s: Option<f64>,
    pub end_s: Option<f64>,
    pub ms: Option<f64>,
    pub start_line: u64,
    pub end_line: u64,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct GapDoc {
    pub from_line: u64,
    pub to_line: u64,
    pub start_s: Option<f64>,
    pub ms: f64,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct TraceDoc {
    pub lines: u64,
    pub functions: Vec<FunctionDoc>,
    pub tasks: Vec<FunctionDoc>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FunctionDoc {
    pub name: String,
    pub calls: u64,
    pub total_ms: f64,
    pub max_ms: f64,
    pub min_ms: f64,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FindingDoc {
    pub id: &'static str,
    pub summary: String,
    pub lines: Vec<u64>,
    /// Where the finding is explained, when the caller gave links.
    pub see: Option<String>,
}

impl Document {
    /// The document for an analysis (findings without links).
    pub fn new(analysis: &Analysis) -> Self {
        Self::with_links(analysis, &no_links)
    }

    /// The document for an analysis, each finding with the address `links` gives.
    pub fn with_links(analysis: &Analysis, links: Links) -> Self {
        let input = &analysis.input;
        Document {
            schema: SCHEMA_VERSION,
            input: InputDoc {
                format: input.main_format().name(),
                formats: input
                    .formats()
                    .map(|(f, n)| FormatCount {
                        format: f.name(),
                        records: n,
                    })
                    .collect(),
                records: input.records,
                kernel_records: input.kernel_records,
                user_records: input.user_records,
                timestamp_resolution_s: input.resolution_us.map(|us| us as f64 / 1e6),
                logger_stamped_records: input.logger_stamped_records,
                not_kept: input.not_kept,
            },
            cycles: analysis
                .cycles
                .iter()
                .enumerate()
                .map(|(i, c)| cycle_doc(analysis, i, c))
                .collect(),
            mtrr: mtrr_doc(analysis),
            trace: (analysis.trace.lines > 0).then(|| trace_doc(&analysis.trace)),
            probes: analysis
                .probes
                .iter()
                .map(|p| ProbeDoc {
                    point: p.point.clone(),
                    cpu: p.cpu,
                    ms: p.ms().map(round_ms),
                    start_line: p.start.line,
                    end_line: p.end.line,
                })
                .collect(),
            findings: analysis
                .findings
                .iter()
                .map(|f| FindingDoc {
                    id: f.kind.id(),
                    summary: f.summary.clone(),
                    lines: f.lines.clone(),
                    see: links(f.kind),
                })
                .collect(),
        }
    }
}

/// Milliseconds rounded to the microsecond, so that JSON carries no float noise.
pub(crate) fn round_ms(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

fn secs(t: Option<Time>) -> Option<f64> {
    t.map(|t| (t.micros as f64) / 1e6)
}

fn event_secs(e: &Event) -> Option<f64> {
    secs(e.time)
}

fn cycle_doc(analysis: &Analysis, index: usize, c: &Cycle) -> CycleDoc {
    CycleDoc {
        mtrr_updates: mtrr_updates_doc(analysis, index, c),
        index,
        boot: c.boot,
        mode: c.mode,
        first_line: c.first_line,
        last_line: c.last_line,
        suspend_span_ms: c.suspend_span_ms().map(round_ms),
        sync_to_restart_ms: c.sync_to_restart_ms().map(round_ms),
        aborted: c.aborted.as_ref().map(|a| AbortedDoc {
            line: a.line,
            message: a.message.clone(),
            cause: a.cause,
            details: a
                .details
                .iter()
                .map(|d| AbortDetailDoc {
                    line: d.line,
                    text: d.text.clone(),
                })
                .collect(),
        }),
        outcome: {
            let o = c.outcome();
            OutcomeDoc {
                state: o.state,
                cause: o.cause,
                line: o.line,
            }
        },
        time_to_abort_ms: c.time_to_abort_ms().map(round_ms),
        asleep: c.asleep.map(|a| AsleepDoc {
            seconds: (a.seconds * 1e6).round() / 1e6,
            source: a.source,
            line: a.line,
        }),
        failed_devices: c
            .failed_devices
            .iter()
            .map(|d| FailedDeviceDoc {
                device: d.device.clone(),
                step: d.step.clone(),
                error: d.error,
                line: d.line,
            })
            .collect(),
        failed_devices_not_kept: c.failed_devices_not_kept,
        suspend_ms: c.suspend_ms().map(round_ms),
        resume_ms: c.resume_ms().map(round_ms),
        enable_phase_ms: c.enable_phase_ms().map(round_ms),
        ec_wake_to_unblock_ms: c.ec_wake_to_unblock_ms().map(round_ms),
        cpus: c
            .cpus
            .iter()
            .map(|cpu| CpuDoc {
                cpu: cpu.cpu,
                apic: cpu.apic.clone(),
                bringup_ms: cpu.bringup_ms().map(round_ms),
                up_after_enable_ms: c.up_after_enable_ms(cpu).map(round_ms),
                booting_line: cpu.booting.map(|e| e.line),
                up_line: cpu.up.map(|e| e.line),
            })
            .collect(),
        cpus_not_up: c.cpus_not_up(),
        cpu_errors: c
            .failures
            .iter()
            .map(|f| CpuErrorDoc {
                cpu: f.cpu,
                error: f.error,
                line: f.line,
            })
            .collect(),
        phases: c
            .phases
            .iter()
            .map(|p| PhaseDoc {
                name: p.name,
                start_s: event_secs(&p.start),
                end_s: event_secs(&p.end),
                ms: p.ms().map(round_ms),
                start_line: p.start.line,
                end_line: p.end.line,
            })
            .collect(),
        gaps: c
            .gaps
            .iter()
            .map(|g| GapDoc {
                from_line: g.from.line,
                to_line: g.to.line,
                start_s: event_secs(&g.from),
                ms: round_ms(g.us as f64 / 1000.0),
            })
            .collect(),
    }
}

fn mtrr_updates_doc(analysis: &Analysis, index: usize, c: &Cycle) -> Option<MtrrUpdatesDoc> {
    if !analysis.mtrr.runs.iter().any(|r| r.flags.is_some()) {
        return None;
    }
    let steps = crate::analysis::rendezvous_per_step(analysis, index)?;
    let after_boot_cpu = steps.iter().skip(1).map(|(_, n)| n).sum();
    Some(MtrrUpdatesDoc {
        steps: steps
            .into_iter()
            .map(|(step, checks)| StepDoc { step, checks })
            .collect(),
        after_boot_cpu,
        aps: c.cpus.len(),
    })
}

/// Trace durations carry nanoseconds: keep them.
fn trace_ms(us: f64) -> f64 {
    (us * 1000.0).round() / 1e6
}

fn function_doc(name: &str, d: &Durations) -> FunctionDoc {
    FunctionDoc {
        name: name.to_string(),
        calls: d.calls,
        total_ms: trace_ms(d.total_us),
        max_ms: trace_ms(d.max_us),
        min_ms: trace_ms(d.min_us),
    }
}

fn trace_doc(t: &TraceStats) -> TraceDoc {
    let mut tasks: Vec<_> = t.tasks.iter().collect();
    tasks.sort_by(|a, b| b.1.total_us.total_cmp(&a.1.total_us).then(a.0.cmp(b.0)));
    TraceDoc {
        lines: t.lines,
        functions: t
            .by_total()
            .into_iter()
            .map(|(n, d)| function_doc(n, d))
            .collect(),
        tasks: tasks.into_iter().map(|(n, d)| function_doc(n, d)).collect(),
    }
}
