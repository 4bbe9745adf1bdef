//! "the log shows each resume whole": a PASS needs the lines that show the outcome, so a
//! log with records missing or out of order, a resume without its thaw, debug lines that
//! stop, or a bundle whose `capture.yaml` and log tell different cycles, gives no PASS.
//! Each gap is told with its line; the verdict becomes UNKNOWN, never a PASS the lines
//! left out could have turned into a FAIL.

use crate::analysis::Analysis;
use crate::analysis::resume::Cycle;
use crate::evidence::BundleContents;
use crate::evidence::bundle::Outcome;

use super::attempts::{Attempt, attempt};
use super::{Item, Status, Window};

/// The item's name.
pub(super) const NAME: &str = "the log shows each resume whole";

/// Whether the command line asks for the kernel's MTRR debug output.
fn asks_mtrr_debug(analysis: &Analysis) -> bool {
    analysis
        .kernel
        .cmdline
        .as_deref()
        .is_some_and(|c| c.split_whitespace().any(|w| w == "mtrr=debug"))
}

/// What is missing from each resumed window, with the lines that show it.
fn window_gaps(analysis: &Analysis, windows: &[Window]) -> (Vec<String>, Vec<u64>) {
    let (mut gaps, mut lines) = (Vec::new(), Vec::new());
    // Every record of a log with suspend attempts counts, the boot's too: an attempt made up
    // between two resumes, or one without a bring-up, holds no window but may hide what was
    // moved there, and records cut out just before the first attempt that is left may have
    // held a whole attempt.
    let from = if analysis.cycles.is_empty() {
        u64::MAX
    } else {
        0
    };
    let breaks = analysis.input.sequence.breaks_in(&(from..u64::MAX));
    if let Some(&first) = breaks.first() {
        gaps.push(format!(
            "the kernel's record numbers skip, repeat or step back, or a line without one \
             stands between its records, at line {first}{} (records lost, cut out or put in, \
             or two reads joined)",
            if breaks.len() > 1 {
                format!(" and {} more places", breaks.len() - 1)
            } else {
                String::new()
            }
        ));
        lines.extend(breaks);
    }
    let has_runs = !analysis.mtrr.runs.is_empty();
    for w in windows {
        let n = w.index + 1;
        let c = w.cycle;
        if c.thaw_missing() {
            gaps.push(format!(
                "cycle {n} brings CPUs up without its `Enabling non-boot CPUs` line, so which \
                 CPUs came back, and how, is not shown"
            ));
            lines.extend(
                c.cpus
                    .iter()
                    .filter_map(|cpu| cpu.booting.or(cpu.up))
                    .map(|e| e.line),
            );
        }
        let unread: Vec<u64> = analysis
            .mtrr
            .unread
            .iter()
            .copied()
            .filter(|l| w.contains(*l))
            .collect();
        if let Some(first) = unread.first() {
            gaps.push(format!(
                "cycle {n} has {} MTRR debug line{} that do not read as the debug patch prints \
                 them (first at line {first}): edited or cut short",
                unread.len(),
                if unread.len() == 1 { "" } else { "s" }
            ));
            lines.extend(unread);
        }
        let runs_in = analysis.mtrr.runs.iter().any(|r| w.contains(r.line));
        if has_runs && !runs_in {
            gaps.push(format!(
                "cycle {n} has no MTRR debug line, though the log has them elsewhere"
            ));
        }
    }
    (gaps, lines)
}

/// `mtrr=debug` on the command line of a log that starts at boot prints the MTRR table
/// there (kernels since 6.2): a log without it lost lines.
fn debug_table_gap(analysis: &Analysis) -> Option<String> {
    let from_boot = analysis.kernel.release.is_some();
    (from_boot && asks_mtrr_debug(analysis) && analysis.mtrr.boot_tables.is_empty()).then(|| {
        "the command line has mtrr=debug and the log starts at boot, but the MTRR table that \
         mtrr=debug prints there is missing"
            .to_string()
    })
}

/// Which capture cycle each of the log's cycles belongs to (by index into the analysis's
/// cycles), `None` for attempts before the capture's first request. capture.yaml records,
/// for each cycle, the number of the first record after its request (`log_from_seq`).
/// Without those numbers (captures before they were recorded) the log must hold one
/// attempt per cycle, in order; else no cycle of the log can be tied to one of capture.yaml
/// (`None`).
pub(super) fn capture_numbers(
    analysis: &Analysis,
    captured: &BundleContents,
) -> Option<Vec<Option<u32>>> {
    let cycles = &captured.capture.cycles;
    let anchors: Option<Vec<u64>> = cycles.iter().map(|c| c.log_from_seq).collect();
    match anchors {
        Some(anchors) if !anchors.is_empty() => Some(
            analysis
                .cycles
                .iter()
                .map(|c| {
                    let seq = c.first_seq?;
                    // The last capture cycle requested before this attempt began.
                    let i = anchors.iter().rposition(|&a| a <= seq)?;
                    Some(cycles[i].n)
                })
                .collect(),
        ),
        _ => (analysis.cycles.len() == cycles.len())
            .then(|| cycles.iter().map(|c| Some(c.n)).collect()),
    }
}

/// Capture cycles that the log does not show as one attempt each.
fn capture_gaps(analysis: &Analysis, captured: &BundleContents) -> Vec<String> {
    let cycles = &captured.capture.cycles;
    let Some(numbers) = capture_numbers(analysis, captured) else {
        let in_log = analysis.cycles.len();
        return vec![format!(
            "the log shows {in_log} suspend attempt{}, capture.yaml records {} cycle{}, and \
             does not tie its cycles to the log's records",
            if in_log == 1 { "" } else { "s" },
            cycles.len(),
            if cycles.len() == 1 { "" } else { "s" }
        )];
    };
    let mut gaps = Vec::new();
    for c in cycles {
        let attempts: Vec<&Cycle> = numbers
            .iter()
            .zip(&analysis.cycles)
            .filter(|(n, _)| **n == Some(c.n))
            .map(|(_, cycle)| cycle)
            .collect();
        let count = attempts.len();
        let settled = c.outcome.settled();
        if count > 1 || (count == 0 && settled == Outcome::Resumed) {
            gaps.push(format!(
                "capture cycle {} has {count} suspend attempt{} in the log where capture.yaml \
                 records one",
                c.n,
                if count == 1 { "" } else { "s" }
            ));
        }
        // A cycle recorded as not resumed leaves its MSR dump out of the judgement: the log
        // must not show its attempt as an ordinary resume.
        if let [cycle] = attempts[..] {
            let came_back = matches!(
                attempt(cycle),
                Attempt::Resumed | Attempt::ResumedWithoutBringup
            );
            if came_back && settled != Outcome::Resumed {
                let line = cycle.entry.map_or(cycle.last_line, |e| e.line);
                gaps.push(format!(
                    "capture cycle {} is recorded as {}, but the log shows its attempt (line \
                     {line}) slept and resumed, so what capture read after it is not judged",
                    c.n,
                    settled.name()
                ));
            }
        }
    }
    gaps
}

/// The item: PASS when nothing the outcome rests on is missing, SKIP (and no PASS of the
/// whole) when something is.
pub(super) fn completeness_item(
    analysis: &Analysis,
    windows: &[Window],
    captured: Option<&BundleContents>,
) -> Item {
    let (mut gaps, mut lines) = window_gaps(analysis, windows);
    gaps.extend(debug_table_gap(analysis));
    let not_kept = analysis.input.not_kept;
    if not_kept.any() {
        gaps.push(format!(
            "the log holds more than the analysis keeps ({} cycles, {} CPU lines, {} MTRR items \
             not kept), and what was not kept could hold a failure",
            not_kept.cycles, not_kept.cpu_lines, not_kept.mtrr
        ));
    }
    if let Some(c) = captured {
        gaps.extend(capture_gaps(analysis, c));
    }
    lines.sort_unstable();
    lines.dedup();
    if gaps.is_empty() {
        Item {
            name: NAME,
            status: Status::Pass,
            reason: if analysis.input.sequence.numbered > 0 {
                "the kernel's record numbers run without a gap from the first suspend on, and \
                 each resume has its thaw line (and its MTRR debug lines, where the log has any)"
            } else {
                "each resume has its thaw line (and its MTRR debug lines, where the log has \
                 any); the log's format numbers no records, so lines cut out are not seen"
            }
            .into(),
            lines,
        }
    } else {
        Item {
            name: NAME,
            status: Status::Skip,
            reason: format!("not shown: {}", gaps.join("; ")),
            lines,
        }
    }
}
