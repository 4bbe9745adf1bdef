//! What the log says about the MTRRs: boot tables, `/proc/mtrr` dumps, the per-CPU runs of
//! the debug patch with their register changes, warnings, and the checks derived from them.

use super::decode::{DefType, FixedRange, MemType, VariableRange, decode_fixed};
use super::proc::ProcMtrrEntry;

/// A boot-time `mtrr=debug` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BootTable {
    pub line: u64,
    pub default_type: Option<MemType>,
    pub fixed_enabled: Option<bool>,
    pub variable_enabled: Option<bool>,
    pub fixed: Vec<FixedRange>,
    pub variable: Vec<VariableRange>,
    pub disabled: Vec<u32>,
    /// The `MTRR map:` summary line and its entries, when the kernel prints one.
    pub map_summary: Option<String>,
    pub map: Vec<(u64, u64, MemType)>,
}

/// One register rewrite reported by the debug patch.
#[derive(Debug, Clone, PartialEq)]
pub enum RegisterChange {
    Variable {
        reg: u32,
        line: u64,
        before: Option<VariableRange>,
        after: Option<VariableRange>,
    },
    Fixed {
        /// Index into [`FIXED_MSRS`](super::FIXED_MSRS).
        msr: usize,
        line: u64,
        before: u64,
        after: u64,
    },
}

/// One pass of the kernel's MTRR set routine on one CPU: `disable:` .. `enable:`.
#[derive(Debug, Clone, PartialEq)]
pub struct MtrrRun {
    pub cpu: u32,
    pub line: u64,
    pub time_us: Option<i64>,
    /// The `changes:` flags as printed (`VFT`, `___`); `None` if the line is missing.
    pub flags: Option<String>,
    /// IA32_MTRR_DEF_TYPE as found (the `disable:` line's old value).
    pub deftype_before: Option<DefType>,
    /// IA32_MTRR_DEF_TYPE as written back (the `enable:` line's new value).
    pub deftype_after: Option<DefType>,
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
    pub line: u64,
    pub text: String,
}

/// A debug-patch line whose `[bits ...]` field is not the XOR of old and new: a sign of a
/// garbled capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitsMismatch {
    pub line: u64,
}

/// Everything MTRR-related found in a log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MtrrLog {
    pub boot_tables: Vec<BootTable>,
    pub proc_dumps: Vec<Vec<ProcMtrrEntry>>,
    pub runs: Vec<MtrrRun>,
    pub warnings: Vec<MtrrWarning>,
    pub bits_mismatches: Vec<BitsMismatch>,
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
