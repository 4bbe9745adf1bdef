//! What a reader should know about a log, each with its evidence. Where a finding is
//! explained is the caller's business (the CLI links each kind to a page of its notebook).

use crate::analysis::cycle_mtrr::{CycleMtrr, is_fix_diagnostic};
use crate::analysis::mtrr::{MtrrLog, MtrrRun};
use crate::analysis::resume::Cycle;

/// A secondary CPU that needs longer than this to come up is slow: a healthy x86 laptop
/// brings one up in 10-20 ms.
pub const SLOW_BRINGUP_MS: f64 = 100.0;

/// A wake-to-EC-unblock gap longer than this is the T2 Mac signature.
pub(crate) const SLOW_EC_UNBLOCK_MS: f64 = 1000.0;

/// The kinds of findings, each with a stable identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// `slow-cpu-bringup`: a secondary CPU took more than [`SLOW_BRINGUP_MS`] to come up.
    SlowCpuBringup,
    /// `mtrr-boot-cpu-restored`: the boot CPU's MTRRs were found modified after resume and
    /// rewritten.
    MtrrBootCpuRestored,
    /// `mtrr-aps-inconsistent`: secondary CPUs disagreed with the boot CPU's MTRRs, or the kernel
    /// said they were inconsistent.
    MtrrApsInconsistent,
    /// `mtrr-resume-diagnostic`: the fix's one-line diagnostic is in the log.
    MtrrResumeDiagnostic,
    /// `ec-wake-gap`: more than a second from the wake to the EC's interrupt unblock (T2 Macs).
    EcWakeGap,
    /// `cpu-not-up`: a CPU did not come back, or the kernel failed to bring one up.
    CpuNotUp,
}

impl FindingKind {
    /// Every kind, for documentation and link checking.
    pub const ALL: [FindingKind; 6] = [
        FindingKind::SlowCpuBringup,
        FindingKind::MtrrBootCpuRestored,
        FindingKind::MtrrApsInconsistent,
        FindingKind::MtrrResumeDiagnostic,
        FindingKind::EcWakeGap,
        FindingKind::CpuNotUp,
    ];

    /// The stable identifier, as in the JSON document (`slow-cpu-bringup`, ...).
    pub fn id(self) -> &'static str {
        match self {
            FindingKind::SlowCpuBringup => "slow-cpu-bringup",
            FindingKind::MtrrBootCpuRestored => "mtrr-boot-cpu-restored",
            FindingKind::MtrrApsInconsistent => "mtrr-aps-inconsistent",
            FindingKind::MtrrResumeDiagnostic => "mtrr-resume-diagnostic",
            FindingKind::EcWakeGap => "ec-wake-gap",
            FindingKind::CpuNotUp => "cpu-not-up",
        }
    }
}

/// Where a reader learns more about each kind of finding: an address, or none.
pub type Links<'a> = &'a dyn Fn(FindingKind) -> Option<String>;

/// No links: findings without an address.
pub(crate) fn no_links(_: FindingKind) -> Option<String> {
    None
}

/// One thing worth knowing, with the line numbers that show it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Finding {
    /// Which kind.
    pub kind: FindingKind,
    /// One sentence with the figures.
    pub summary: String,
    /// The lines that show it.
    pub lines: Vec<u64>,
}

/// Derive the findings from the cycles and the MTRR report of a log.
pub fn findings(cycles: &[Cycle], mtrr: &MtrrLog) -> Vec<Finding> {
    let mut out = Vec::new();
    for (index, cycle) in cycles.iter().enumerate() {
        let n = index + 1;
        slow_bringup(n, cycle, &mut out);
        not_up(n, cycle, &mut out);
        let slow_ms = cycle
            .ec_wake_to_unblock_ms()
            .filter(|&ms| ms > SLOW_EC_UNBLOCK_MS);
        if let (Some(ms), Some(wake), Some(unblock)) = (slow_ms, cycle.wake, cycle.ec_unblock) {
            out.push(Finding {
                kind: FindingKind::EcWakeGap,
                summary: format!(
                    "cycle {n}: {} from waking up from the sleep state to the EC interrupt unblock \
                     (the T2 Mac signature)",
                    seconds(ms)
                ),
                lines: vec![wake.line, unblock.line],
            });
        }
    }
    mtrr_findings(cycles, mtrr, &mut out);
    out
}

fn slow_bringup(n: usize, cycle: &Cycle, out: &mut Vec<Finding>) {
    let slow: Vec<_> = cycle
        .cpus
        .iter()
        .filter_map(|c| Some((c, c.bringup_ms()?)))
        .filter(|(_, ms)| *ms > SLOW_BRINGUP_MS)
        .collect();
    let Some((worst, worst_ms)) = slow.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return;
    };
    let mut lines: Vec<u64> = cycle.enable_start.map(|e| e.line).into_iter().collect();
    lines.extend(slow.iter().filter_map(|(c, _)| c.up.map(|e| e.line)));
    let total = cycle
        .enable_phase_ms()
        .map(|ms| format!(", {} for all of them", seconds(ms)))
        .unwrap_or_default();
    out.push(Finding {
        kind: FindingKind::SlowCpuBringup,
        summary: format!(
            "cycle {n}: {} of {} secondary CPUs took over {} ms to come up (slowest CPU{}, {}){total}",
            slow.len(),
            cycle.cpus.len(),
            SLOW_BRINGUP_MS,
            worst.cpu,
            seconds(*worst_ms)
        ),
        lines,
    });
}

fn not_up(n: usize, cycle: &Cycle, out: &mut Vec<Finding>) {
    let missing = cycle.cpus_not_up();
    if missing.is_empty() && cycle.failures.is_empty() {
        return;
    }
    let mut lines: Vec<u64> = cycle.failures.iter().map(|f| f.line).collect();
    lines.extend(
        cycle
            .cpus
            .iter()
            .filter(|c| missing.binary_search(&c.cpu).is_ok())
            .filter_map(|c| c.booting.map(|e| e.line)),
    );
    lines.sort_unstable();
    lines.dedup();
    let mut down = missing;
    down.extend(cycle.failures.iter().map(|f| f.cpu));
    down.sort_unstable();
    down.dedup();
    out.push(Finding {
        kind: FindingKind::CpuNotUp,
        summary: format!("cycle {n}: {} did not come back up", cpus(&down)),
        lines,
    });
}

/// The MTRR findings, cycle by cycle ([`CycleMtrr`], the rule the checklist uses): what
/// the kernel rewrote at boot, before the first suspend, is no resume's doing.
fn mtrr_findings(cycles: &[Cycle], mtrr: &MtrrLog, out: &mut Vec<Finding>) {
    let per_cycle = CycleMtrr::all(cycles, mtrr);
    let bp_runs: Vec<&MtrrRun> = per_cycle
        .iter()
        .flat_map(|c| c.boot_cpu_changed())
        .collect();
    if let Some(first) = bp_runs.first() {
        let what = first.describe();
        out.push(Finding {
            kind: FindingKind::MtrrBootCpuRestored,
            summary: format!(
                "the boot CPU's MTRRs had been modified and were rewritten{}",
                what.first()
                    .map(|w| format!(" ({w}, ...)"))
                    .unwrap_or_default()
            ),
            lines: bp_runs.iter().map(|r| r.line).collect(),
        });
    }
    let ap_runs: Vec<&MtrrRun> = per_cycle.iter().flat_map(|c| c.aps_changed()).collect();
    let warnings: Vec<u64> = per_cycle
        .iter()
        .flat_map(|c| c.warnings.iter())
        .filter(|w| w.text.contains("inconsistent"))
        .map(|w| w.line)
        .collect();
    if !ap_runs.is_empty() || !warnings.is_empty() {
        let mut aps: Vec<u32> = ap_runs.iter().map(|r| r.cpu).collect();
        aps.sort_unstable();
        aps.dedup();
        let mut lines: Vec<u64> = ap_runs.iter().map(|r| r.line).collect();
        lines.extend(warnings);
        lines.sort_unstable();
        let summary = if aps.is_empty() {
            "the kernel found the CPUs' MTRRs inconsistent".to_string()
        } else {
            format!(
                "secondary {} disagreed with the boot CPU's MTRR state and had to be rewritten",
                cpus(&aps)
            )
        };
        out.push(Finding {
            kind: FindingKind::MtrrApsInconsistent,
            summary,
            lines,
        });
    }
    let diagnostic: Vec<u64> = per_cycle
        .iter()
        .flat_map(|c| c.warnings.iter())
        .filter(|w| is_fix_diagnostic(&w.text))
        .map(|w| w.line)
        .collect();
    if !diagnostic.is_empty() {
        out.push(Finding {
            kind: FindingKind::MtrrResumeDiagnostic,
            summary: "the kernel reports MTRRs modified across resume and restored them early \
                      on each CPU (the fix is active)"
                .to_string(),
            lines: diagnostic,
        });
    }
}

/// `16.567 s` / `603.984 ms`.
pub fn seconds(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.3} s", ms / 1000.0)
    } else {
        format!("{ms:.3} ms")
    }
}

/// `CPU 3`, `CPUs 1 and 6`, `CPUs 1, 6 and 7`.
fn cpus(items: &[u32]) -> String {
    let names: Vec<String> = items.iter().map(u32::to_string).collect();
    match names.as_slice() {
        [] => "no CPU".to_string(),
        [one] => format!("CPU {one}"),
        [rest @ .., last] => format!("CPUs {} and {last}", rest.join(", ")),
    }
}
