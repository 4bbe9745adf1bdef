//! The bounds on what one analysis keeps, so that its memory stays flat on input of any
//! length (a log piped in without end, a hostile file). What a bound leaves out is counted in
//! [`NotKept`], which the summary and the JSON document report.

use serde::Serialize;

/// Suspend/resume cycles kept from one log.
pub const CYCLES_KEPT: usize = 1_000;

/// CPUs kept per cycle (brought up, taken offline, failed): the kernel's largest `NR_CPUS`.
pub const CPUS_KEPT: usize = 8192;

/// CPU bring-ups kept from one log, over all its cycles (four cycles of the largest
/// machine, a thousand of 32 CPUs): the memory of a log of many cycles of many CPUs stays
/// bounded below what [`CYCLES_KEPT`] alone allows. The cycles after the one that would pass
/// it are counted, not kept.
pub const CPU_BRINGUPS_KEPT: usize = 32_768;

/// Delay-loop probes kept (and probes open at once).
pub const PROBES_KEPT: usize = 8192;

/// MTRR items kept: set-state runs (and runs open at once), warnings, `/proc/mtrr` dumps,
/// boot tables, `[bits ...]` mismatches, each list on its own.
pub const MTRR_ITEMS_KEPT: usize = 8192;

/// Distinct names kept in each trace statistic (functions, calls, tasks, histograms).
pub const TRACE_NAMES_KEPT: usize = 65_536;

/// Parts of one MTRR item kept: register changes of a run, entries of a dump or a table.
pub const MTRR_PARTS_KEPT: usize = 1024;

/// What the analysis read but did not keep, because a bound above was reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NotKept {
    /// Cycles after the first [`CYCLES_KEPT`], or after [`CPU_BRINGUPS_KEPT`] bring-ups.
    pub cycles: u64,
    /// Lines about CPUs beyond the first [`CPUS_KEPT`] of a cycle.
    pub cpu_lines: u64,
    /// Probes beyond [`PROBES_KEPT`].
    pub probes: u64,
    /// MTRR items and parts beyond [`MTRR_ITEMS_KEPT`] and [`MTRR_PARTS_KEPT`].
    pub mtrr: u64,
    /// Trace lines whose name or CPU was beyond [`TRACE_NAMES_KEPT`] or [`CPUS_KEPT`].
    pub trace: u64,
}

impl NotKept {
    /// True when any bound was reached.
    pub fn any(&self) -> bool {
        *self != NotKept::default()
    }
}

/// Push `item` unless `list` holds `cap` items already; count it in `not_kept` then.
pub(crate) fn push_capped<T>(list: &mut Vec<T>, item: T, cap: usize, not_kept: &mut u64) {
    if list.len() < cap {
        list.push(item);
    } else {
        *not_kept += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_list_counts_instead_of_growing() {
        let (mut list, mut not_kept) = (Vec::new(), 0);
        for i in 0..5 {
            push_capped(&mut list, i, 3, &mut not_kept);
        }
        assert_eq!((list, not_kept), (vec![0, 1, 2], 2));
        assert!(!NotKept::default().any());
        assert!(
            NotKept {
                probes: 1,
                ..NotKept::default()
            }
            .any()
        );
    }
}
