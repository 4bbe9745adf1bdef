//! One cycle's MTRRs as the log shows them: the one join of MTRR runs and warnings to the
//! cycle they belong to, and the one rule of which CPUs came back changed, shared by the
//! findings, the checklist and the comparison. Boot-time runs and warnings, before the
//! first suspend, belong to no cycle: they are not resume trouble.

use std::collections::HashSet;
use std::ops::Range;

use crate::analysis::mtrr::{MtrrLog, MtrrRun, MtrrWarning, changed_cpus};
use crate::analysis::resume::Cycle;

/// The lines the fix prints when it restored MTRRs on resume, whole, as a start and an end
/// with the list of CPUs between them: v3's (`mtrr: CPUs 1,3,5,7 resumed with changed MTRRs,
/// restored early`), v2's (`MTRRs of CPUs 1-7 differed from the saved state, restored each
/// as it came up`) and v1's (`mtrr: your CPUs had unexpected MTRR settings on resume`, no
/// list), which the notebook's MacBook captures show. Whole, because a line that only
/// contains those words may be a task's report, whose name and file name any user chooses.
const FIX_DIAGNOSTICS: [(&str, &str); 3] = [
    ("mtrr: CPUs ", " resumed with changed MTRRs, restored early"),
    (
        "MTRRs of CPUs ",
        " differed from the saved state, restored each as it came up",
    ),
    ("mtrr: your CPUs had unexpected MTRR settings on resume", ""),
];

/// Whether a log line is one of the fix's diagnostics ([`FIX_DIAGNOSTICS`]).
pub(crate) fn is_fix_diagnostic(text: &str) -> bool {
    let text = text.trim_end();
    FIX_DIAGNOSTICS.iter().any(|(start, end)| {
        let cpus = text.strip_prefix(start).and_then(|t| t.strip_suffix(end));
        match cpus {
            Some(cpus) if end.is_empty() => cpus.is_empty(),
            Some(cpus) => is_cpu_list(cpus),
            None => false,
        }
    })
}

/// `1,3,5-7`: the kernel's `%*pbl` list of CPUs.
fn is_cpu_list(text: &str) -> bool {
    let number = |n: &str| !n.is_empty() && n.len() <= 5 && n.bytes().all(|b| b.is_ascii_digit());
    text.split(',').all(|part| match part.split_once('-') {
        Some((from, to)) => number(from) && number(to),
        None => number(part),
    })
}

/// The log lines that belong to cycle `index`: from its `PM: suspend entry` (or, in a log
/// without one, from the line after the cycle before it ends) up to, not including, the
/// first line of the cycle after it.
pub fn cycle_lines(cycles: &[Cycle], index: usize) -> Option<Range<u64>> {
    let cycle = cycles.get(index)?;
    let start = match (cycle.entry, index.checked_sub(1)) {
        (Some(entry), _) => entry.line,
        (None, Some(previous)) => cycles[previous].last_line.saturating_add(1),
        (None, None) => 0,
    };
    let end = cycles.get(index + 1).map_or(u64::MAX, |n| n.first_line);
    Some(start..end)
}

/// The MTRR runs and warnings of one cycle.
#[derive(Debug, Clone)]
pub struct CycleMtrr<'a> {
    /// The cycle.
    pub cycle: &'a Cycle,
    /// Its lines (see [`cycle_lines`]).
    pub lines: Range<u64>,
    /// The cycle's runs (one per CPU per rendezvous), in log order.
    pub runs: Vec<&'a MtrrRun>,
    /// The cycle's MTRR warnings, in log order.
    pub warnings: Vec<&'a MtrrWarning>,
}

impl<'a> CycleMtrr<'a> {
    /// Cycle `index` of `cycles`, its runs and warnings taken from `mtrr`.
    pub fn of(cycles: &'a [Cycle], mtrr: &'a MtrrLog, index: usize) -> Option<CycleMtrr<'a>> {
        let lines = cycle_lines(cycles, index)?;
        Some(CycleMtrr {
            cycle: &cycles[index],
            runs: mtrr
                .runs
                .iter()
                .filter(|r| lines.contains(&r.line))
                .collect(),
            warnings: mtrr
                .warnings
                .iter()
                .filter(|w| lines.contains(&w.line))
                .collect(),
            lines,
        })
    }

    /// Every cycle of a log.
    pub fn all(cycles: &'a [Cycle], mtrr: &'a MtrrLog) -> Vec<CycleMtrr<'a>> {
        (0..cycles.len())
            .filter_map(|i| CycleMtrr::of(cycles, mtrr, i))
            .collect()
    }

    /// The secondary CPUs the firmware handed back changed: the first run of each after the
    /// thaw (`Enabling non-boot CPUs`) that found its MTRRs changed. CPUs put online by hand
    /// after a resume are ordinary hotplug, and a cycle without a thaw has none.
    pub fn aps_changed(&self) -> Vec<&'a MtrrRun> {
        let Some(thaw) = self.cycle.enable_start.map(|e| e.line) else {
            return Vec::new();
        };
        let mut seen = HashSet::new();
        self.runs
            .iter()
            .copied()
            .filter(|r| r.cpu != 0 && r.line > thaw)
            .filter(|r| seen.insert(r.cpu) && r.changed())
            .collect()
    }

    /// The boot CPU's runs that found its MTRRs changed (its restore on resume).
    pub fn boot_cpu_changed(&self) -> Vec<&'a MtrrRun> {
        self.runs
            .iter()
            .copied()
            .filter(|r| r.cpu == 0 && r.changed())
            .collect()
    }

    /// Every CPU with a run in the cycle that found its MTRRs changed, ascending; `None`
    /// where the cycle has no run at all (no `mtrr=debug` lines to tell).
    pub fn changed_cpus(&self) -> Option<Vec<u32>> {
        (!self.runs.is_empty()).then(|| changed_cpus(self.runs.iter().copied()))
    }
}

#[cfg(test)]
mod tests {
    use super::is_fix_diagnostic;

    #[test]
    fn each_version_of_the_fix_has_its_diagnostic_recognised() {
        // As each version prints it (v3 in the QEMU lab's mixed case, v2 and v1 as their
        // patches print them), after the kernel log's own prefix is taken off.
        for line in [
            "mtrr: CPUs 1,3,5,7 resumed with changed MTRRs, restored early",
            "mtrr: CPUs 1-7 resumed with changed MTRRs, restored early",
            "MTRRs of CPUs 1-7 differed from the saved state, restored each as it came up",
            "mtrr: your CPUs had unexpected MTRR settings on resume",
        ] {
            assert!(is_fix_diagnostic(line), "{line}");
        }
        for line in [
            "mtrr: your CPUs had inconsistent variable MTRR settings",
            "mtrr: probably your BIOS does not setup all CPUs.",
            "MTRR default type: write-back",
            // A task named `mtrr: CPUs 1-7` whose file is named like the rest (fourth
            // attacker review), and lists that are not the kernel's.
            "mtrr: CPUs 1-7[2869] bad frame in rt_sigreturn frame:fffffffffffffff8 ip:401654 sp:0 orax:f in resumed with changed MTRRs, restored early[1654,401000+78000]",
            "mtrr: CPUs  resumed with changed MTRRs, restored early",
            "mtrr: CPUs 1-7 x resumed with changed MTRRs, restored early",
            "MTRRs of CPUs 1,,3 differed from the saved state, restored each as it came up",
            "mtrr: your CPUs had unexpected MTRR settings on resume, or not",
        ] {
            assert!(!is_fix_diagnostic(line), "{line}");
        }
    }
}
