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

/// The JSON document of `kernlog analyze --json`, version [`SCHEMA_VERSION`]: one log's
/// analysis, made of plain data (field by field in the crate README).
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct Document {
    /// [`SCHEMA_VERSION`], so that a reader can tell the layout it gets.
    pub schema: u32,
    /// What the input was made of.
    pub input: InputDoc,
    /// One entry a suspend attempt, in log order.
    pub cycles: Vec<CycleDoc>,
    /// The MTRR state at boot, its `/proc/mtrr` dumps and its changes across resume.
    pub mtrr: MtrrDoc,
    /// trace-cmd `function_graph` statistics; `null` when the input has no trace lines.
    pub trace: Option<TraceDoc>,
    /// Delay-loop speed probes, in the order they finished.
    pub probes: Vec<ProbeDoc>,
    /// The findings drawn from the cycles and the MTRRs.
    pub findings: Vec<FindingDoc>,
}

/// One delay-loop speed probe of one CPU.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct ProbeDoc {
    /// The probe point the log names.
    pub point: String,
    /// The CPU it ran on.
    pub cpu: u32,
    /// How long it took; `null` when its lines carry no usable stamps.
    pub ms: Option<f64>,
    /// The line where it started.
    pub start_line: u64,
    /// The line where it ended.
    pub end_line: u64,
}

/// What the input was made of.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct InputDoc {
    /// The most common stamped format (a [`Format`](crate::parse::record::Format) name), or
    /// `unstamped`.
    pub format: &'static str,
    /// Every format seen, with its count of records.
    pub formats: Vec<FormatCount>,
    /// Lines read: every line is a record, stamped or not.
    pub records: u64,
    /// Records from the kernel.
    pub kernel_records: u64,
    /// Records from user space (journal and syslog inputs).
    pub user_records: u64,
    /// The coarsest resolution of a stamped kernel record, in seconds; `null` when none is stamped.
    pub timestamp_resolution_s: Option<f64>,
    /// Kernel records stamped with a logger's time of reading (journalctl's realtime outputs,
    /// syslog without the kernel's stamp): no duration is measured from them.
    pub logger_stamped_records: u64,
    /// Read but not kept, as the limits in kernlog's README say.
    pub not_kept: NotKept,
}

/// One format and how many records had it.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FormatCount {
    /// The format's name.
    pub format: &'static str,
    /// Its records.
    pub records: u64,
}

/// One suspend attempt: its outcome, its figures, its CPUs and phases.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CycleDoc {
    /// Position in the log, from 0.
    pub index: usize,
    /// Boot segment it belongs to, from 0 (a new banner or a clock reset starts one).
    pub boot: usize,
    /// `deep`, `s2idle`, `shallow` or `hibernate`; `null` when the log does not say.
    pub mode: Option<SleepMode>,
    /// First line of the attempt.
    pub first_line: u64,
    /// Last line of the attempt.
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
    /// Last record before the resume (for a hibernation, its image's creation) minus the suspend
    /// entry; `null` for an aborted attempt.
    pub suspend_ms: Option<f64>,
    /// Suspend exit minus `Low-level resume complete` (or the first line of the way back when
    /// there is no such line).
    pub resume_ms: Option<f64>,
    /// The last `CPUn is up` minus `Enabling non-boot CPUs`.
    pub enable_phase_ms: Option<f64>,
    /// The first EC interrupt unblocked after `Waking up from system sleep state`, from that line.
    pub ec_wake_to_unblock_ms: Option<f64>,
    /// Secondary CPUs brought up, in log order.
    pub cpus: Vec<CpuDoc>,
    /// CPUs that did not come back: a bring-up begun without its `CPUn is up`, or a CPU
    /// taken down for the suspend and not brought up again.
    pub cpus_not_up: Vec<u32>,
    /// CPUs the kernel failed to bring up, with their error.
    pub cpu_errors: Vec<CpuErrorDoc>,
    /// The phases of suspend and resume the log shows, in order.
    pub phases: Vec<PhaseDoc>,
    /// The longest silences between two lines, longest first, at most five.
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
    /// The line it names: the line that shows the resume, the abort, or the suspend entry.
    pub line: u64,
}

/// The time asleep and where the log tells it.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct AsleepDoc {
    /// Seconds asleep.
    pub seconds: f64,
    /// `timekeeping` or `wall_clock`.
    pub source: AsleepSource,
    /// The line it was read from.
    pub line: u64,
}

/// One device that failed a step.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FailedDeviceDoc {
    /// The device's name as the kernel prints it.
    pub device: String,
    /// The step as the kernel names it: `suspend async`, `resume`, `thaw`, `suspend callback`.
    pub step: String,
    /// The error number the kernel gives.
    pub error: i32,
    /// The line that says so.
    pub line: u64,
}

/// The line that abandoned a suspend attempt.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct AbortedDoc {
    /// The aborting line's number.
    pub line: u64,
    /// Its text.
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
    /// The line's number.
    pub line: u64,
    /// Its text.
    pub text: String,
}

/// The MTRR updates of one resume: per step, and the secondary CPUs' share in all.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MtrrUpdatesDoc {
    /// MTRR runs per step of the bring-up, as in [`MtrrDoc::rendezvous`] but for this cycle.
    pub steps: Vec<StepDoc>,
    /// Every run after the boot CPU's own restore: the rendezvous that bring the APs back.
    pub after_boot_cpu: usize,
    /// Secondary CPUs brought up in the cycle.
    pub aps: usize,
}

/// One secondary CPU's bring-up.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CpuDoc {
    /// The CPU's number.
    pub cpu: u32,
    /// Its APIC id as the log prints it (`0x2`), when the log does.
    pub apic: Option<String>,
    /// `CPUn is up` minus its `Booting` line.
    pub bringup_ms: Option<f64>,
    /// `CPUn is up` minus `Enabling non-boot CPUs`.
    pub up_after_enable_ms: Option<f64>,
    /// Its `Booting Node N Processor n` line.
    pub booting_line: Option<u64>,
    /// Its `CPUn is up` line.
    pub up_line: Option<u64>,
}

/// A CPU the kernel failed to bring up.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CpuErrorDoc {
    /// The CPU's number.
    pub cpu: u32,
    /// The error number the kernel gives.
    pub error: i32,
    /// The line that says so.
    pub line: u64,
}

/// One phase of suspend or resume, between two lines the kernel prints.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct PhaseDoc {
    /// The phase.
    pub name: PhaseName,
    /// When it started, in seconds on the log's clock.
    pub start_s: Option<f64>,
    /// When it ended.
    pub end_s: Option<f64>,
    /// How long it lasted.
    pub ms: Option<f64>,
    /// Its first line.
    pub start_line: u64,
    /// Its last line.
    pub end_line: u64,
}

/// A silence: no line between two consecutive lines for a while.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct GapDoc {
    /// The line before the silence.
    pub from_line: u64,
    /// The line after it.
    pub to_line: u64,
    /// When it began, in seconds on the log's clock.
    pub start_s: Option<f64>,
    /// How long it lasted.
    pub ms: f64,
}

/// trace-cmd `function_graph` statistics.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct TraceDoc {
    /// Trace lines read.
    pub lines: u64,
    /// Per traced function, the largest total first.
    pub functions: Vec<FunctionDoc>,
    /// Per task (`name-pid`): the outermost calls seen, the largest total first.
    pub tasks: Vec<FunctionDoc>,
}

/// Calls and durations of one function or task.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FunctionDoc {
    /// The function's or task's name.
    pub name: String,
    /// Calls with a duration.
    pub calls: u64,
    /// Their total duration.
    pub total_ms: f64,
    /// The longest.
    pub max_ms: f64,
    /// The shortest.
    pub min_ms: f64,
}

/// One finding: what the log shows and where.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FindingDoc {
    /// The kind's stable id (`slow-cpu-bringup`, `mtrr-boot-cpu-restored`, ...).
    pub id: &'static str,
    /// One sentence with the figures.
    pub summary: String,
    /// The lines that show it.
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
