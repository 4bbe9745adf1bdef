//! Two sides of a test, before and after a patch (bundles or logs), figure by figure:
//! median, min and max over the cycles of each side, the ratio of the medians and a
//! verdict against a threshold, with warnings where the sides differ in more than the
//! patch and where a side has no durations to compare.

mod sameness;
mod stats;

pub use sameness::differences;
pub use stats::Stats;

use crate::analysis::Analysis;
use crate::analysis::cycle_mtrr::CycleMtrr;
use crate::analysis::findings::FindingKind;
use crate::analysis::resume::Cycle;
use crate::evidence::Evidence;
use crate::judge::checklist::{Checklist, Limits, Status, check_evidence};

/// The figures compared, per resumed cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Figure {
    /// `Enabling non-boot CPUs` to the last `CPUn is up`.
    BringupPhase,
    /// The slowest secondary CPU's Booting line to its `CPUn is up`.
    SlowestCpu,
    /// `PM: suspend entry` to `PM: suspend exit`.
    SuspendSpan,
    /// With `mtrr=debug`: the CPUs whose MTRRs the kernel found changed and rewrote in the
    /// cycle (the boot CPU's restore and the secondary CPUs' checks): the MTRR finding of
    /// each cycle, as a count.
    ChangedCpus,
}

impl Figure {
    /// Every figure, in the order a comparison shows them.
    pub const ALL: [Figure; 4] = [
        Figure::BringupPhase,
        Figure::SlowestCpu,
        Figure::SuspendSpan,
        Figure::ChangedCpus,
    ];

    /// The figure's name in the comparison (`bring-up phase`).
    pub fn name(self) -> &'static str {
        match self {
            Figure::BringupPhase => "bring-up phase",
            Figure::SlowestCpu => "slowest CPU",
            Figure::SuspendSpan => "suspend span",
            Figure::ChangedCpus => "CPUs with changed MTRRs",
        }
    }

    /// True for durations (milliseconds), false for counts.
    pub(crate) fn is_duration(self) -> bool {
        self != Figure::ChangedCpus
    }

    /// The figure of cycle `index` of `analysis`: milliseconds, or a count.
    pub fn of(self, analysis: &Analysis, index: usize) -> Option<f64> {
        let c = analysis.cycles.get(index)?;
        match self {
            Figure::ChangedCpus => CycleMtrr::of(&analysis.cycles, &analysis.mtrr, index)?
                .changed_cpus()
                .map(|cpus| cpus.len() as f64),
            Figure::BringupPhase => c.enable_phase_ms(),
            Figure::SlowestCpu => c
                .cpus
                .iter()
                .filter_map(|cpu| cpu.bringup_ms())
                .max_by(f64::total_cmp),
            Figure::SuspendSpan => c.suspend_span_ms(),
        }
    }
}

/// Where AFTER stands against BEFORE on one figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// AFTER's median is lower by more than the threshold (fewer, for a count).
    Faster,
    /// AFTER's median is higher by more than the threshold (more, for a count).
    Slower,
    /// Within the threshold.
    Same,
    /// A side has no value.
    Unknown,
}

impl Change {
    /// `FASTER`, `SLOWER`, `SAME` or `UNKNOWN`.
    pub fn label(self) -> &'static str {
        match self {
            Change::Faster => "FASTER",
            Change::Slower => "SLOWER",
            Change::Same => "SAME",
            Change::Unknown => "UNKNOWN",
        }
    }

    /// The label for a figure: FEWER and MORE for a count.
    pub(crate) fn label_for(self, figure: Figure) -> &'static str {
        match (figure.is_duration(), self) {
            (false, Change::Faster) => "FEWER",
            (false, Change::Slower) => "MORE",
            _ => self.label(),
        }
    }
}

/// One figure on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Which figure.
    pub figure: Figure,
    /// BEFORE's values; `None` when no cycle of the side has one.
    pub before: Option<Stats>,
    /// AFTER's values.
    pub after: Option<Stats>,
    /// AFTER's median over BEFORE's.
    pub ratio: Option<f64>,
    /// Where AFTER stands.
    pub change: Change,
}

/// What one side shows of the MTRRs: the checklist's MTRR items and the MTRR findings.
#[derive(Debug, Clone, PartialEq)]
pub struct MtrrSide {
    /// `(item name, status, reason)` of the checklist's MTRR items.
    pub items: Vec<(&'static str, Status, String)>,
    /// `(finding id, count)`.
    pub findings: Vec<(&'static str, usize)>,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// BEFORE's inputs, by name.
    pub before: String,
    /// AFTER's inputs.
    pub after: String,
    /// Resumed cycles with a CPU bring-up, per side.
    pub cycles: (usize, usize),
    /// The change of a median that counts, in per cent.
    pub threshold_pct: f64,
    /// One row a figure, in [`Figure::ALL`] order.
    pub rows: Vec<Row>,
    /// BEFORE's and AFTER's MTRR items and findings.
    pub mtrr: (MtrrSide, MtrrSide),
    /// What to weigh before trusting the verdict: sides that differ in more than the patch
    /// (machine, command line, ...), a side of few cycles or one boot, logs whose times are
    /// a logger's, failed attempts.
    pub warnings: Vec<String>,
    /// The first row with values on both sides decides; `Unknown` when none has.
    pub change: Change,
    /// One line: FASTER, SLOWER, SAME or UNKNOWN, a colon, and on what.
    pub verdict: String,
}

const MTRR_FINDINGS: [FindingKind; 3] = [
    FindingKind::MtrrBootCpuRestored,
    FindingKind::MtrrApsInconsistent,
    FindingKind::MtrrResumeDiagnostic,
];

/// The MTRR items of a side's checklists (the worst status of each item over the side's
/// inputs, with that input's reason) and its MTRR findings, summed.
fn mtrr_side(side: &[&Evidence], lists: &[Checklist]) -> MtrrSide {
    let rank = |s: Status| match s {
        Status::Fail => 3,
        Status::Warn => 2,
        Status::Skip => 1,
        Status::Pass => 0,
    };
    let mut items: Vec<(&'static str, Status, String)> = Vec::new();
    for (e, list) in side.iter().zip(lists) {
        let mtrr_items = list.items.iter().filter(|i| {
            i.name.contains("MTRR")
                || i.name.contains("diagnostic")
                || i.name.contains("CPU consistent")
        });
        for i in mtrr_items {
            let reason = if side.len() > 1 {
                format!("{} ({})", i.reason, e.name)
            } else {
                i.reason.clone()
            };
            match items.iter_mut().find(|(n, _, _)| *n == i.name) {
                Some(kept) if rank(i.status) > rank(kept.1) => *kept = (i.name, i.status, reason),
                Some(_) => {}
                None => items.push((i.name, i.status, reason)),
            }
        }
    }
    let findings = MTRR_FINDINGS
        .iter()
        .map(|k| {
            let n = side
                .iter()
                .map(|e| e.analysis.findings.iter().filter(|f| f.kind == *k).count())
                .sum();
            (k.id(), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    MtrrSide { items, findings }
}

/// The indices of the cycles of an input that resumed with a CPU bring-up: the ones with
/// figures.
pub(crate) fn resumed_indices(e: &Evidence) -> Vec<usize> {
    let resumed =
        |c: &Cycle| c.aborted.is_none() && (c.enable_start.is_some() || !c.cpus.is_empty());
    (0..e.analysis.cycles.len())
        .filter(|i| resumed(&e.analysis.cycles[*i]))
        .collect()
}

/// The cycles of an input that resumed with a CPU bring-up.
pub fn resumed(e: &Evidence) -> Vec<&Cycle> {
    resumed_indices(e)
        .into_iter()
        .map(|i| &e.analysis.cycles[i])
        .collect()
}

/// The resumed cycles of a side's inputs, together, as (analysis, cycle index).
fn pooled<'a>(side: &[&'a Evidence]) -> Vec<(&'a Analysis, usize)> {
    side.iter()
        .flat_map(|e| resumed_indices(e).into_iter().map(|i| (&e.analysis, i)))
        .collect()
}

/// `figure` over pooled cycles.
fn values(figure: Figure, cycles: &[(&Analysis, usize)]) -> Vec<f64> {
    cycles
        .iter()
        .filter_map(|(a, i)| figure.of(a, *i))
        .collect()
}

/// Each figure of one side alone, over the resumed cycles of its inputs.
pub(crate) fn side_stats(side: &[&Evidence]) -> Vec<(Figure, Option<Stats>)> {
    let cycles = pooled(side);
    Figure::ALL
        .iter()
        .map(|&f| (f, Stats::of(&values(f, &cycles))))
        .collect()
}

/// Why a side has no durations, when its times are a logger's.
fn untimed(e: &Evidence, side: &str) -> Option<String> {
    (e.analysis.input.logger_stamped_records > 0).then(|| {
        format!(
            "{side} ({}) has a logger's times (journald or syslog read the lines after the \
             resume), not the kernel's: it has no durations to compare; {}",
            e.name,
            crate::analysis::KERNEL_STAMPED_CAPTURE
        )
    })
}

/// Compare `before` and `after`; `threshold_pct` is the change in a median that counts.
pub fn compare(before: &Evidence, after: &Evidence, threshold_pct: f64) -> Comparison {
    compare_sides(&[before], &[after], threshold_pct)
}

/// "a" or "a, b (2 boots)": the inputs of a side.
fn side_name(side: &[&Evidence]) -> String {
    let names: Vec<&str> = side.iter().map(|e| e.name.as_str()).collect();
    match names.len() {
        1 => names[0].to_string(),
        n => format!("{} ({n} boots)", names.join(", ")),
    }
}

/// Compare two sides of one or more inputs each (several boots of each kernel): the cycles
/// of a side's inputs are pooled.
pub(crate) fn compare_sides(
    before: &[&Evidence],
    after: &[&Evidence],
    threshold_pct: f64,
) -> Comparison {
    let (cb, ca) = (pooled(before), pooled(after));
    let t = threshold_pct / 100.0;
    let rows: Vec<Row> = Figure::ALL
        .iter()
        .map(|&figure| {
            let (b, a) = (
                Stats::of(&values(figure, &cb)),
                Stats::of(&values(figure, &ca)),
            );
            let ratio = match (b, a) {
                (Some(b), Some(a)) if b.median > 0.0 => Some(a.median / b.median),
                _ => None,
            };
            let change = match ratio {
                None => Change::Unknown,
                Some(r) if r < 1.0 - t => Change::Faster,
                Some(r) if r > 1.0 + t => Change::Slower,
                Some(_) => Change::Same,
            };
            Row {
                figure,
                before: b,
                after: a,
                ratio,
                change,
            }
        })
        .collect();
    let mut warnings = Vec::new();
    if let (Some(b), Some(a)) = (before.first(), after.first()) {
        warnings = differences(b, a);
    }
    let lists = |side: &[&Evidence]| -> Vec<Checklist> {
        side.iter()
            .map(|e| check_evidence(e, Limits::default()))
            .collect()
    };
    let (lb, la) = (lists(before), lists(after));
    for (side, lists, label, n) in [
        (before, &lb, "BEFORE", cb.len()),
        (after, &la, "AFTER", ca.len()),
    ] {
        for e in side {
            warnings.extend(untimed(e, label));
        }
        if n < 3 {
            warnings.push(format!(
                "{label} has {n} resumed cycle{} with a CPU bring-up: resume times change from \
                 cycle to cycle and boot to boot, capture several (kernlog capture --cycles 5)",
                if n == 1 { "" } else { "s" }
            ));
        }
        let boots: usize = side
            .iter()
            .map(|e| {
                let mut b: Vec<usize> = resumed(e).iter().map(|c| c.boot).collect();
                b.dedup();
                b.len()
            })
            .sum();
        if boots == 1 {
            warnings.push(format!(
                "{label} is one boot: the resume time, and which CPUs come back with changed \
                 MTRRs, can change from one boot to the next, so boot each kernel several times"
            ));
        }
        for (e, list) in side.iter().zip(lists.iter()) {
            if let Some(item) = list.items.first().filter(|i| i.status != Status::Pass) {
                let of = if side.len() > 1 {
                    format!(" ({})", e.name)
                } else {
                    String::new()
                };
                warnings.push(format!("{label}{of}: {}", item.reason));
            }
        }
    }
    let decisive = rows
        .iter()
        .find(|r| r.figure.is_duration() && r.change != Change::Unknown);
    let change = decisive.map_or(Change::Unknown, |r| r.change);
    let verdict = match decisive {
        Some(r) => format!(
            "{}: {} median {} before, {} after (ratio {:.3}, threshold {threshold_pct}%)",
            r.change.label(),
            r.figure.name(),
            crate::analysis::findings::seconds(r.before.map_or(0.0, |s| s.median)),
            crate::analysis::findings::seconds(r.after.map_or(0.0, |s| s.median)),
            r.ratio.unwrap_or(0.0)
        ),
        None => {
            let why = if warnings.iter().any(|w| w.contains("logger's times")) {
                "a side has no durations (a logger's times)"
            } else {
                "no figure has a value on both sides"
            };
            format!("UNKNOWN: nothing to compare: {why}")
        }
    };
    Comparison {
        before: side_name(before),
        after: side_name(after),
        cycles: (cb.len(), ca.len()),
        threshold_pct,
        rows,
        mtrr: (mtrr_side(before, &lb), mtrr_side(after, &la)),
        warnings,
        change,
        verdict,
    }
}

#[cfg(test)]
mod tests;
