//! The checklist's MTRR items, judged from the debug patch's `MTRR cpu N ...` lines
//! (`mtrr=debug`): the fix's diagnostic against what the secondary CPUs came back with,
//! every CPU's values against the boot CPU's, and the kernel's MTRR warnings.

use std::collections::BTreeMap;

use crate::analysis::Analysis;
use crate::analysis::cycle_mtrr::CycleMtrr;
use crate::analysis::mtrr::{MtrrRun, RegisterChange, VariableRange};

use super::attempts::plural;
use super::{Item, Status, Window, is_fix_diagnostic};

/// With `mtrr=debug`: in each window, the first run of every secondary CPU after the resume
/// began that found its MTRRs changed: the CPUs the firmware handed back changed, which the
/// fix must restore and report (`None` without debug lines in the log). The boot CPU is left
/// out: it is restored first, before anything else runs on it, with or without the fix.
pub(super) fn aps_changed_per_window<'a>(
    analysis: &'a Analysis,
    windows: &[Window],
) -> Option<Vec<Vec<&'a MtrrRun>>> {
    if analysis.mtrr.runs.is_empty() {
        return None;
    }
    Some(
        windows
            .iter()
            .map(|w| {
                CycleMtrr::of(&analysis.cycles, &analysis.mtrr, w.index)
                    .map(|c| c.aps_changed())
                    .unwrap_or_default()
            })
            .collect(),
    )
}

/// "resume 2, 4" for the 0-based window indices given.
fn resume_list(indices: &[usize]) -> String {
    let list: Vec<String> = indices.iter().map(|i| (i + 1).to_string()).collect();
    format!("resume{} {}", plural(indices.len()), list.join(", "))
}

/// How the diagnostic item came out: `changed` resumes of `total` needed a restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Restores {
    pub changed: usize,
    pub total: usize,
}

pub(super) fn diagnostic_item(
    analysis: &Analysis,
    windows: &[Window],
    diagnostic: &[u64],
) -> (Item, Option<Restores>) {
    let name = "diagnostic if and only if the MTRRs changed";
    let Some(changed) = aps_changed_per_window(analysis, windows) else {
        let reason = if diagnostic.is_empty() {
            "no diagnostic, and no mtrr=debug lines to show whether the MTRRs changed"
        } else {
            "the fix's diagnostic is there, but no mtrr=debug lines to show what changed"
        };
        let item = Item {
            name,
            status: Status::Skip,
            reason: reason.into(),
            lines: diagnostic.to_vec(),
        };
        return (item, None);
    };
    let mut lines: Vec<u64> = changed.iter().flatten().map(|r| r.line).collect();
    let (mut missing, mut spurious, mut changed_count) = (Vec::new(), Vec::new(), 0);
    let (mut late, mut unanchored) = (Vec::new(), Vec::new());
    for (i, (w, ap_runs)) in windows.iter().zip(&changed).enumerate() {
        let c = w.cycle;
        if c.thaw_missing() {
            unanchored.push(i);
        }
        let ap_lines = ap_runs;
        let present: Vec<u64> = diagnostic
            .iter()
            .copied()
            .filter(|l| w.contains(*l))
            .collect();
        changed_count += usize::from(!ap_lines.is_empty());
        match (!ap_lines.is_empty(), !present.is_empty()) {
            (true, false) => missing.push(i),
            (false, true) => spurious.push(i),
            _ => {}
        }
        if !present.is_empty() {
            late.extend(restored_after_up(w, ap_runs));
        }
        lines.extend(present);
    }
    lines.sort_unstable();
    let n = windows.len();
    let (status, reason) = if !late.is_empty() {
        let told: Vec<String> = late
            .iter()
            .map(|(cpu, run, up)| {
                format!("CPU {cpu} at line {run}, after its `is up` at line {up}")
            })
            .collect();
        lines.extend(late.iter().flat_map(|(_, run, up)| [*run, *up]));
        lines.sort_unstable();
        (
            Status::Fail,
            format!(
                "the diagnostic is there, but secondary CPUs had their MTRRs restored only once \
                 they were up, as without the fix: {}",
                told.join("; ")
            ),
        )
    } else if !missing.is_empty() {
        (
            Status::Fail,
            format!(
                "secondary CPUs came back with changed MTRRs but the diagnostic is missing \
                 ({} of {n}): is the fix (v2 or v3) applied?",
                resume_list(&missing)
            ),
        )
    } else if !spurious.is_empty() {
        (
            Status::Fail,
            format!(
                "the diagnostic is present although every secondary CPU came back with its \
                 MTRRs ({} of {n})",
                resume_list(&spurious)
            ),
        )
    } else if !unanchored.is_empty() {
        (
            Status::Skip,
            format!(
                "{} of {n} brings CPUs up without its `Enabling non-boot CPUs` line: which \
                 secondary CPUs came back changed is not shown",
                resume_list(&unanchored)
            ),
        )
    } else if changed_count == 0 {
        (
            Status::Pass,
            format!(
                "every secondary CPU came back with its MTRRs and there is no diagnostic \
                 ({n} resume{})",
                plural(n)
            ),
        )
    } else {
        (
            Status::Pass,
            format!(
                "secondary CPUs came back with changed MTRRs in {changed_count} of {n} \
                 resume{}, each time with the diagnostic, and only then",
                plural(n)
            ),
        )
    };
    let item = Item {
        name,
        status,
        reason,
        lines,
    };
    let restores = Restores {
        changed: changed_count,
        total: n,
    };
    (item, Some(restores))
}

/// The secondary CPUs of `runs` (each CPU's first run after the thaw, changed) whose run
/// came after the CPU's own `CPUn is up`: restored late, as a kernel without the fix does
/// once every CPU is up. As (CPU, the run's line, the `is up` line).
fn restored_after_up(w: &Window, runs: &[&MtrrRun]) -> Vec<(u32, u64, u64)> {
    let up: std::collections::HashMap<u32, u64> = w
        .cycle
        .cpus
        .iter()
        .filter_map(|c| Some((c.cpu, c.up?.line)))
        .collect();
    runs.iter()
        .filter_map(|r| {
            let up = *up.get(&r.cpu)?;
            (r.line > up).then_some((r.cpu, r.line, up))
        })
        .collect()
}

/// A register the debug lines name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Register {
    DefType,
    Variable(u32),
    Fixed(usize),
}

/// A register's value as the debug lines show it after a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    Raw(u64),
    Variable(Option<VariableRange>),
}

impl Register {
    pub(super) fn name(self) -> String {
        match self {
            Register::DefType => "MTRRdefType".into(),
            Register::Variable(n) => format!("variable {n}"),
            Register::Fixed(i) => crate::analysis::mtrr::FIXED_MSRS
                .get(i)
                .map_or_else(|| format!("fixed {i}"), |m| m.name.to_string()),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Raw(v) => write!(f, "{v:#018x}"),
            Value::Variable(Some(r)) => write!(f, "{r}"),
            Value::Variable(None) => f.write_str("disabled"),
        }
    }
}

/// The values that `runs` (one CPU's, in log order) left in its registers, as far as the
/// lines show them: the type register written back, and every register rewritten.
pub(super) fn values_after<'a>(
    runs: impl Iterator<Item = &'a MtrrRun>,
) -> BTreeMap<Register, Value> {
    let mut out = BTreeMap::new();
    for run in runs {
        if let Some(d) = run.deftype_after {
            out.insert(Register::DefType, Value::Raw(d.raw));
        }
        for change in &run.changes {
            let (reg, value) = match change {
                RegisterChange::Variable { reg, after, .. } => {
                    (Register::Variable(*reg), Value::Variable(*after))
                }
                RegisterChange::Fixed { msr, after, .. } => {
                    (Register::Fixed(*msr), Value::Raw(*after))
                }
            };
            out.insert(reg, value);
        }
    }
    out
}

pub(super) fn consistency_item(analysis: &Analysis, windows: &[Window]) -> Item {
    let name = "every CPU consistent with the boot CPU";
    let Some(changed) = aps_changed_per_window(analysis, windows) else {
        return Item {
            name,
            status: Status::Skip,
            reason: "no mtrr=debug lines, so no CPU's MTRR values to compare".into(),
            lines: Vec::new(),
        };
    };
    let m = &analysis.mtrr;
    if !m.bits_mismatches.is_empty() {
        return Item {
            name,
            status: Status::Fail,
            reason: "some MTRR debug lines are garbled (old XOR new differs from the bits shown)"
                .into(),
            lines: m.bits_mismatches.iter().map(|b| b.line).collect(),
        };
    }
    // Every run writes the kernel's saved state and prints the registers it had to
    // rewrite: after a CPU's last run, the values it shows are the ones it holds. Each
    // secondary CPU must have had a run after its Booting line, and its values must be
    // the boot CPU's wherever both were shown.
    let (mut differ, mut unshown, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cpus_compared, mut values_compared) = (0usize, 0usize);
    let mut unshown_after_restore = false;
    for (i, (w, ap_lines)) in windows.iter().zip(&changed).enumerate() {
        let bp = values_after(m.runs.iter().filter(|r| r.cpu == 0 && w.contains(r.line)));
        for cpu in w.cycle.cpus.iter().filter(|c| c.cpu != 0) {
            let from = cpu
                .booting
                .or(w.cycle.enable_start)
                .map_or(w.lines.start, |e| e.line);
            let runs: Vec<&MtrrRun> = m
                .runs
                .iter()
                .filter(|r| r.cpu == cpu.cpu && r.line > from && w.contains(r.line))
                .collect();
            let Some(last) = runs.last() else {
                unshown.push(format!("CPU {} (resume {})", cpu.cpu, i + 1));
                // A restore was seen: a secondary CPU came back changed, or the boot CPU's
                // own restore rewrote it; every CPU then had to be checked.
                unshown_after_restore |= !ap_lines.is_empty()
                    || m.runs.iter().any(|r| {
                        r.cpu == 0 && r.changed() && w.contains(r.line) && r.line <= w.resume_line
                    });
                continue;
            };
            let ap = values_after(runs.iter().copied());
            cpus_compared += 1;
            for (reg, value) in &ap {
                let Some(bp_value) = bp.get(reg) else {
                    continue;
                };
                values_compared += 1;
                if bp_value != value {
                    differ.push(format!(
                        "CPU {} (resume {}) {} {value}, boot CPU {bp_value}",
                        cpu.cpu,
                        i + 1,
                        reg.name()
                    ));
                    lines.push(last.line);
                }
            }
        }
    }
    let (status, reason) = if !differ.is_empty() {
        (
            Status::Fail,
            format!("values differ: {}", differ.join("; ")),
        )
    } else if unshown_after_restore {
        (
            Status::Fail,
            format!(
                "{} never had its MTRRs checked after the resume: they may still differ",
                unshown.join(", ")
            ),
        )
    } else if !unshown.is_empty() {
        (
            Status::Skip,
            format!(
                "{} had no MTRR debug line after it came up: its values are not shown",
                unshown.join(", ")
            ),
        )
    } else if cpus_compared == 0 || values_compared == 0 {
        (
            Status::Skip,
            "no secondary CPU's MTRR values shown beside the boot CPU's".to_string(),
        )
    } else {
        (
            Status::Pass,
            format!(
                "{cpus_compared} secondary CPU bring-up{} checked after coming up, \
                 {values_compared} register values equal to the boot CPU's",
                plural(cpus_compared)
            ),
        )
    };
    Item {
        name,
        status,
        reason,
        lines,
    }
}

pub(super) fn warnings_item(analysis: &Analysis, windows: &[Window]) -> Item {
    // From the first judged cycle on. One that opens the log without an entry line owns the
    // log from its start, but a warning before the cycle's own first line is the boot's.
    let first = windows
        .first()
        .map_or(0, |w| match (w.cycle.entry, w.index) {
            (None, 0) => w.cycle.first_line,
            _ => w.lines.start,
        });
    let (lines, before): (Vec<u64>, Vec<u64>) = analysis
        .mtrr
        .warnings
        .iter()
        .filter(|w| !is_fix_diagnostic(&w.text))
        .map(|w| w.line)
        .partition(|l| *l >= first);
    let boot_note = if before.is_empty() {
        String::new()
    } else {
        format!(
            "; {} earlier, before the first suspend, not counted (boot-time)",
            before.len()
        )
    };
    if lines.is_empty() {
        Item {
            name: "no new warnings",
            status: Status::Pass,
            reason: format!("no MTRR warning besides the fix's diagnostic{boot_note}"),
            lines,
        }
    } else {
        Item {
            name: "no new warnings",
            status: Status::Fail,
            reason: format!("{} MTRR warning(s) in the log{boot_note}", lines.len()),
            lines,
        }
    }
}
