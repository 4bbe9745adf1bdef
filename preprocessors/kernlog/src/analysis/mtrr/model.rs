//! What the log says about the MTRRs: boot tables, `/proc/mtrr` dumps, the per-CPU runs of
//! the debug patch with their register changes, warnings, and the checks derived from them.

use super::decode::{DefType, FixedRange, MemType, VariableRange, decode_fixed};
use super::proc::ProcMtrrEntry;

/// A boot-time `mtrr=debug` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BootTable {
    /// The table's first line.
    pub line: u64,
    /// The default memory type, when the table prints it.
    pub default_type: Option<MemType>,
    /// Whether the fixed ranges are enabled, when the table says.
    pub fixed_enabled: Option<bool>,
    /// Whether the variable ranges are enabled, when the table says.
    pub variable_enabled: Option<bool>,
    /// The fixed ranges of the first MiB.
    pub fixed: Vec<FixedRange>,
    /// The variable ranges in use.
    pub variable: Vec<VariableRange>,
    /// The variable registers the table shows as disabled.
    pub disabled: Vec<u32>,
    /// The `MTRR map:` summary line and its entries, when the kernel prints one.
    pub map_summary: Option<String>,
    /// The `MTRR map:` entries: first address, last address, memory type.
    pub map: Vec<(u64, u64, MemType)>,
}

/// One register rewrite reported by the debug patch.
#[derive(Debug, Clone, PartialEq)]
pub enum RegisterChange {
    /// A variable base/mask pair rewritten.
    Variable {
        /// The register's number.
        reg: u32,
        /// The line that shows it.
        line: u64,
        /// The range before; `None` when it was disabled.
        before: Option<VariableRange>,
        /// The range after; `None` when it is disabled.
        after: Option<VariableRange>,
    },
    /// A fixed-range MSR rewritten.
    Fixed {
        /// Index into [`FIXED_MSRS`](super::FIXED_MSRS).
        msr: usize,
        /// The line that shows it.
        line: u64,
        /// The MSR's value before.
        before: u64,
        /// Its value after.
        after: u64,
    },
}

/// One pass of the kernel's MTRR set routine on one CPU: `disable:` .. `enable:`.
#[derive(Debug, Clone, PartialEq)]
pub struct MtrrRun {
    /// The CPU it ran on.
    pub cpu: u32,
    /// Its first line (`disable:`).
    pub line: u64,
    /// Its stamp in microseconds on the log's clock, when the line has one.
    pub time_us: Option<i64>,
    /// The `changes:` flags as printed (`VFT`, `___`); `None` if the line is missing.
    pub flags: Option<String>,
    /// IA32_MTRR_DEF_TYPE as found (the `disable:` line's old value).
    pub deftype_before: Option<DefType>,
    /// IA32_MTRR_DEF_TYPE as written back (the `enable:` line's new value).
    pub deftype_after: Option<DefType>,
    /// The registers it rewrote, in log order.
    pub changes: Vec<RegisterChange>,
}

impl MtrrRun {
    /// True when the CPU's registers differed from the state being written.
    pub fn changed(&self) -> bool {
        self.flags
            .as_deref()
            .is_some_and(|f| f.chars().any(|c| c != '_'))
            || !self.changes.is_empty()
    }

    /// The differences in words, one line each.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(b), Some(a)) = (self.deftype_before, self.deftype_after) {
            if self.flags.as_deref().is_some_and(|f| f.contains('T')) {
                if b.default_type != a.default_type {
                    out.push(format!(
                        "default type: {} -> {}",
                        b.default_type, a.default_type
                    ));
                } else {
                    out.push(format!("MTRRdefType: {:#x} -> {:#x}", b.raw, a.raw));
                }
            }
        }
        for change in &self.changes {
            if let RegisterChange::Variable {
                reg, before, after, ..
            } = change
            {
                out.push(format!(
                    "variable {reg}: {} -> {}",
                    describe_range(before),
                    describe_range(after)
                ));
            }
        }
        let fixed = self.changes.iter().filter_map(|c| match c {
            RegisterChange::Fixed {
                msr, before, after, ..
            } => Some((*msr, *before, *after)),
            RegisterChange::Variable { .. } => None,
        });
        for (b, a) in fixed_differences(fixed) {
            out.push(format!(
                "fixed {:#07X}-{:#07X}: {} -> {}",
                b.start, b.end, b.mem_type, a.mem_type
            ));
        }
        out
    }
}

fn describe_range(range: &Option<VariableRange>) -> String {
    match range {
        Some(r) => r.to_string(),
        None => "disabled".to_string(),
    }
}

/// Sub-ranges of the first MiB whose type changed, given `(msr index, before, after)`
/// register values; adjacent sub-ranges with the same change are merged, across MSRs too.
pub fn fixed_differences(
    registers: impl IntoIterator<Item = (usize, u64, u64)>,
) -> Vec<(FixedRange, FixedRange)> {
    let mut pairs: Vec<(FixedRange, FixedRange)> = registers
        .into_iter()
        .filter_map(|(msr, before, after)| {
            Some((decode_fixed(msr, before)?, decode_fixed(msr, after)?))
        })
        .flat_map(|(b, a)| b.into_iter().zip(a))
        .filter(|(b, a)| b.mem_type != a.mem_type)
        .collect();
    pairs.sort_by_key(|(b, _)| b.start);
    let mut out: Vec<(FixedRange, FixedRange)> = Vec::new();
    for (rb, ra) in pairs {
        match out.last_mut() {
            Some((pb, pa))
                if pb.end + 1 == rb.start
                    && pb.mem_type == rb.mem_type
                    && pa.mem_type == ra.mem_type =>
            {
                pb.end = rb.end;
                pa.end = ra.end;
            }
            _ => out.push((rb, ra)),
        }
    }
    out
}

/// A line of kernel text that mentions a problem with the MTRRs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MtrrWarning {
    /// Its number.
    pub line: u64,
    /// Its text.
    pub text: String,
}

/// A debug-patch line whose `[bits ...]` field is not the XOR of old and new: a sign of a
/// garbled capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitsMismatch {
    /// Its number.
    pub line: u64,
}

/// Everything MTRR-related found in a log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MtrrLog {
    /// The boot-time `mtrr=debug` tables, in log order.
    pub boot_tables: Vec<BootTable>,
    /// The `/proc/mtrr` dumps, in log order.
    pub proc_dumps: Vec<Vec<ProcMtrrEntry>>,
    /// The runs of the debug patch, in log order.
    pub runs: Vec<MtrrRun>,
    /// The kernel's MTRR warnings, in log order.
    pub warnings: Vec<MtrrWarning>,
    /// Debug lines whose `[bits ...]` field does not match.
    pub bits_mismatches: Vec<BitsMismatch>,
    /// Lines that start like the debug patch's (`MTRR cpu N `) but do not read as one of
    /// its lines: edited, or cut short.
    pub unread: Vec<u64>,
    /// Items and parts read but not kept (see [`crate::analysis::limits`]).
    pub not_kept: u64,
}

impl MtrrLog {
    /// Each CPU's runs, in log order, CPUs ascending: one pass however many CPUs.
    pub(crate) fn runs_by_cpu(&self) -> std::collections::BTreeMap<u32, Vec<&MtrrRun>> {
        let mut by_cpu: std::collections::BTreeMap<u32, Vec<&MtrrRun>> = Default::default();
        for run in &self.runs {
            by_cpu.entry(run.cpu).or_default().push(run);
        }
        by_cpu
    }

    /// CPUs that had at least one run, ascending.
    pub fn cpus(&self) -> Vec<u32> {
        let mut cpus: Vec<u32> = self.runs.iter().map(|r| r.cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    }

    /// CPUs (including the boot CPU) whose registers had to be rewritten at least once.
    pub fn changed_cpus(&self) -> Vec<u32> {
        changed_cpus(&self.runs)
    }

    /// Secondary CPUs whose registers disagreed with the boot CPU's saved state.
    pub(crate) fn inconsistent_aps(&self) -> Vec<u32> {
        self.changed_cpus()
            .into_iter()
            .filter(|c| *c != 0)
            .collect()
    }
}

/// The CPUs of `runs` that found their registers changed, ascending, each once.
pub fn changed_cpus<'a>(runs: impl IntoIterator<Item = &'a MtrrRun>) -> Vec<u32> {
    let mut cpus: Vec<u32> = runs
        .into_iter()
        .filter(|r| r.changed())
        .map(|r| r.cpu)
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}
