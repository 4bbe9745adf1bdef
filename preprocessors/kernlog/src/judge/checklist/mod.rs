//! The tester's checklist: does a log taken with the patched kernel show the fix working,
//! and doing no harm?
//!
//! [`check`] turns an [`Analysis`] into items that pass, fail or do not apply, each with its
//! reason and the lines that show it, and an overall verdict.

use crate::analysis::findings::{SLOW_BRINGUP_MS, seconds};
use crate::analysis::resume::Cycle;
use crate::analysis::{Analysis, KERNEL_STAMPED_CAPTURE};
use crate::evidence::{BundleContents, Evidence};

mod attempts;
mod bundle_items;
mod completeness;
mod dump_agreement;
mod mtrr_items;

pub use attempts::{Attempt, attempt};
use attempts::{attempts_item, devices_item, not_resumed, plural};
use mtrr_items::{consistency_item, diagnostic_item, warnings_item};

pub(crate) use crate::analysis::cycle_mtrr::is_fix_diagnostic;

/// Outcome of one checklist item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// The log shows the item holds.
    Pass,
    /// The log shows it does not.
    Fail,
    /// The log has no data for this item (e.g. no `mtrr=debug` output).
    Skip,
    /// Worth a look, but no failure of the fix or of the attempt (a device that failed to
    /// resume).
    Warn,
}

impl Status {
    /// `PASS`, `FAIL`, `SKIP` or `WARN`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::Warn => "WARN",
        }
    }
}

/// One item of the checklist.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// What is checked, in a few words (`CPU bring-up time`).
    pub name: &'static str,
    /// The item's outcome.
    pub status: Status,
    /// Why, with the figures.
    pub reason: String,
    /// The lines that show it.
    pub lines: Vec<u64>,
}

/// The overall outcome: the first word of the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overall {
    /// Nothing failed and the log showed the MTRR outcome (`mtrr=debug` lines).
    Pass,
    /// An item failed.
    Fail,
    /// Nothing failed, but the log did not show what the verdict would claim: the MTRR
    /// outcome without `mtrr=debug`, or no attempt that resumed with a CPU bring-up.
    Unknown,
}

impl Overall {
    /// `PASS`, `FAIL` or `UNKNOWN`.
    pub fn label(self) -> &'static str {
        match self {
            Overall::Pass => "PASS",
            Overall::Fail => "FAIL",
            Overall::Unknown => "UNKNOWN",
        }
    }
}

/// The whole checklist and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Checklist {
    /// The items, in a fixed order.
    pub items: Vec<Item>,
    /// The first word of the verdict.
    pub overall: Overall,
    /// One line: PASS, FAIL or UNKNOWN, a colon, and what the log showed.
    pub verdict: String,
}

/// How to show the MTRR outcome when the log does not.
pub(crate) const MTRR_HINT: &str = "to show it, boot with mtrr=debug and the debug patch (and \
                             capture the MSRs with `kernlog capture` too)";

/// Limits of the checklist.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Longest acceptable bring-up of one secondary CPU.
    pub max_bringup_ms: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bringup_ms: SLOW_BRINGUP_MS,
        }
    }
}

/// One resumed cycle and the lines of the log that belong to it
/// ([`Analysis::cycle_lines`]): MTRR runs and warnings are judged cycle by cycle, so that
/// boot-time messages before the first suspend are not taken for resume trouble.
#[derive(Debug, Clone)]
struct Window<'a> {
    /// The cycle's index in the analysis.
    index: usize,
    cycle: &'a Cycle,
    lines: std::ops::Range<u64>,
    /// Where the resume proper begins: runs of the boot CPU before it are its restore.
    resume_line: u64,
}

impl Window<'_> {
    fn contains(&self, line: u64) -> bool {
        self.lines.contains(&line)
    }
}

fn windows(analysis: &Analysis) -> Vec<Window<'_>> {
    let mut out = Vec::new();
    for (i, c) in analysis.cycles.iter().enumerate() {
        if c.aborted.is_some() || (c.enable_start.is_none() && c.cpus.is_empty()) {
            continue; // aborted, or no CPU bring-up: nothing of this cycle to check
        }
        let Some(resume) = c.low_level_resume.or(c.enable_start).or_else(|| {
            c.cpus
                .iter()
                .filter_map(|cpu| cpu.booting.or(cpu.up))
                .min_by_key(|e| e.line)
        }) else {
            continue;
        };
        let Some(lines) = analysis.cycle_lines(i) else {
            continue;
        };
        out.push(Window {
            index: i,
            cycle: c,
            lines,
            resume_line: resume.line,
        });
    }
    out
}

/// Check a log's analysis.
pub fn check(analysis: &Analysis, limits: Limits) -> Checklist {
    check_with(analysis, limits, None)
}

/// Check a log or a bundle: a bundle's `capture.yaml` tells cycles that never came back,
/// and its MSR dumps show every CPU's MTRRs after each resume.
pub fn check_evidence(evidence: &Evidence, limits: Limits) -> Checklist {
    check_with(&evidence.analysis, limits, evidence.captured.as_ref())
}

fn check_with(analysis: &Analysis, limits: Limits, captured: Option<&BundleContents>) -> Checklist {
    let windows = windows(analysis);
    let mut attempts = attempts_item(&analysis.cycles);
    let mut told = not_resumed(&analysis.cycles);
    if let Some(c) = captured {
        let (more, hung) = bundle_items::not_resumed(c);
        if hung {
            attempts.status = Status::Fail;
        } else if !more.is_empty() && attempts.status == Status::Pass {
            attempts.status = Status::Skip;
        }
        if !more.is_empty() {
            let log = std::mem::take(&mut attempts.reason);
            attempts.reason = format!("in the log, {log}; in capture.yaml, {}", more.join("; "));
        }
        told.extend(more);
    }
    if windows.is_empty() {
        let (overall, verdict) = if attempts.status == Status::Fail {
            (Overall::Fail, format!("FAIL: {}", told.join("; ")))
        } else if told.is_empty() {
            (
                Overall::Unknown,
                "UNKNOWN: no suspend attempt in the log, so nothing of the fix was shown; \
                 capture a suspend and resume with `kernlog capture`, dmesg, or \
                 journalctl -k -b -o short-monotonic"
                    .to_string(),
            )
        } else {
            (
                Overall::Unknown,
                format!(
                    "UNKNOWN: no attempt resumed with a CPU bring-up, so nothing of the fix was \
                     shown: {}",
                    told.join("; ")
                ),
            )
        };
        let mut items = vec![attempts];
        items.extend(Some(devices_item(&analysis.cycles)).filter(|i| i.status == Status::Warn));
        return Checklist {
            items,
            overall,
            verdict,
        };
    }
    let resumed: Vec<&Cycle> = windows.iter().map(|w| w.cycle).collect();
    let logger_times = analysis.input.logger_stamped_records > 0;
    let bringup = bringup_item(&resumed, limits, logger_times);
    let untimed = bringup.status == Status::Skip;
    let diagnostic: Vec<u64> = analysis
        .mtrr
        .warnings
        .iter()
        .filter(|w| is_fix_diagnostic(&w.text))
        .map(|w| w.line)
        .collect();
    let (diagnostic_item, restores) = diagnostic_item(analysis, &windows, &diagnostic);
    // The debug lines show the values at the time of each run; the dumps, where a bundle
    // has them, every register of every CPU once the resume was over.
    let mut dumps = captured.and_then(bundle_items::consistency_item);
    // Dumps that contradict the log's own debug lines show nothing of either.
    if let (Some(item), Some(c)) = (dumps.as_mut(), captured) {
        let (told, lines) = dump_agreement::contradictions(analysis, &windows, c);
        if !told.is_empty() {
            let contradiction = format!(
                "the captured MSRs contradict the log's MTRR debug lines: {}",
                told.join("; ")
            );
            item.reason = if item.status == Status::Fail {
                format!("{}; {contradiction}", item.reason)
            } else {
                contradiction
            };
            item.status = Status::Fail;
            item.lines = lines;
        }
    }
    // Where the bundle has dumps, they have the last word: debug lines that pass do not
    // outvote dumps that differ or leave a resume out.
    let consistency = match (restores, dumps) {
        (None, Some(item)) => item,
        (Some(_), Some(item)) if item.status != Status::Pass => item,
        _ => consistency_item(analysis, &windows),
    };
    let as_before = captured.and_then(bundle_items::as_before_item);
    let from_dumps = restores.is_none() && consistency.reason.starts_with("captured MSRs");
    let consistent = consistency.status == Status::Pass
        && as_before.as_ref().is_none_or(|i| i.status == Status::Pass);
    let mut items = vec![
        attempts,
        bringup,
        cpus_back_item(&resumed),
        diagnostic_item,
        consistency,
    ];
    items.extend(as_before);
    items.push(warnings_item(analysis, &windows));
    items.push(devices_item(&analysis.cycles));
    let whole = completeness::completeness_item(analysis, &windows, captured);
    let whole_reason = (whole.status != Status::Pass).then(|| whole.reason.clone());
    items.push(whole);
    let failed: Vec<&str> = items
        .iter()
        .filter(|i| i.status == Status::Fail)
        .map(|i| i.name)
        .collect();
    let n = windows.len();
    let shown = format!("{n} resume{} with a CPU bring-up", plural(n));
    let (overall, verdict) = match restores {
        _ if !failed.is_empty() => (Overall::Fail, format!("FAIL: {}", failed.join(", "))),
        Some(r) if consistent && r.changed > 0 => (
            Overall::Pass,
            format!(
                "PASS: the fix restored the MTRRs: on {shown}, mtrr=debug showed secondary \
                 CPUs back with changed MTRRs in {} with the diagnostic each time, and every CPU \
                 with the boot CPU's values",
                r.changed
            ),
        ),
        Some(_) if consistent => (
            Overall::Pass,
            format!(
                "PASS: not affected: on {shown}, mtrr=debug showed every \
                 secondary CPU back with its MTRRs and every CPU with the boot CPU's values"
            ),
        ),
        // A kernel without the fix ends a resume with the same values: the dumps show the
        // state after it, not that the fix made it.
        None if consistent && from_dumps => (
            Overall::Unknown,
            format!(
                "UNKNOWN: MTRRs as they should be after each resume, but not what made them \
                 so: on {shown}, the captured MSRs showed every CPU with the boot CPU's \
                 values{}, as a kernel without the fix also leaves them; whether the firmware \
                 changed them on resume, and the fix restored them, is shown only by mtrr=debug \
                 with the debug patch",
                if items
                    .iter()
                    .any(|i| i.name == "MTRRs as before the suspend")
                {
                    " and its own values before the first suspend"
                } else {
                    ""
                }
            ),
        ),
        Some(_) => (
            Overall::Unknown,
            format!(
                "UNKNOWN: nothing failed on {shown}, but not every CPU's MTRR values were shown \
                 beside the boot CPU's (see above)"
            ),
        ),
        None => {
            let diag = if diagnostic.is_empty() {
                String::new()
            } else {
                " (the fix's diagnostic is there, but not what changed)".to_string()
            };
            (
                Overall::Unknown,
                format!(
                    "UNKNOWN: MTRR outcome unknown: nothing failed on {shown}, but the log has \
                     no mtrr=debug lines{diag}; {MTRR_HINT}"
                ),
            )
        }
    };
    // A PASS rests on lines the log must show: where some are missing, the lines left
    // out could have held a failure.
    let (overall, mut verdict) = match whole_reason {
        Some(gap) if overall == Overall::Pass => (
            Overall::Unknown,
            format!(
                "UNKNOWN: nothing failed on {shown}, but the log does not show each resume \
                 whole ({gap})"
            ),
        ),
        _ => (overall, verdict),
    };
    if overall != Overall::Fail && untimed {
        verdict.push_str("; the CPU bring-up could not be timed (see above)");
    }
    if !told.is_empty() {
        verdict.push_str(&format!("; not tested: {}", told.join("; ")));
    }
    Checklist {
        items,
        overall,
        verdict,
    }
}

/// `logger_times`: the log's stamps are a logger's times of reading, which time nothing.
fn bringup_item(cycles: &[&Cycle], limits: Limits, logger_times: bool) -> Item {
    let mut slowest: Option<(f64, u32, u64)> = None;
    let mut measured = 0;
    let mut slow_lines = Vec::new();
    let mut stepped_back: Vec<(u32, u64)> = Vec::new();
    for c in cycles {
        for cpu in &c.cpus {
            if cpu.stamps_step_back() {
                stepped_back.push((cpu.cpu, cpu.up.map_or(0, |e| e.line)));
                continue;
            }
            let ms = cpu.bringup_ms().or_else(|| c.up_after_enable_ms(cpu));
            if let Some(ms) = ms {
                measured += 1;
                if slowest.is_none_or(|(s, _, _)| ms > s) {
                    slowest = Some((ms, cpu.cpu, cpu.up.map_or(0, |e| e.line)));
                }
                if ms > limits.max_bringup_ms {
                    slow_lines.extend(cpu.up.map(|e| e.line));
                }
            }
        }
    }
    let stepped: Vec<String> = stepped_back
        .iter()
        .map(|(cpu, line)| format!("CPU{cpu} (line {line})"))
        .collect();
    let Some((ms, cpu, line)) = slowest else {
        let reason = if !stepped.is_empty() {
            format!(
                "the time stamps step back: the `is up` line of {} is stamped before its \
                 Booting line, so no bring-up is timed",
                stepped.join(", ")
            )
        } else if logger_times {
            format!(
                "the log's times are when the logger (journald, syslogd) read the lines, not \
                 the kernel's; {KERNEL_STAMPED_CAPTURE}"
            )
        } else {
            "the log has no timed per-CPU bring-up (Booting and CPUn is up lines)".to_string()
        };
        return Item {
            name: "CPU bring-up time",
            status: Status::Skip,
            reason,
            lines: Vec::new(),
        };
    };
    let limit = seconds(limits.max_bringup_ms);
    if slow_lines.is_empty() && !stepped.is_empty() {
        return Item {
            name: "CPU bring-up time",
            status: Status::Skip,
            reason: format!(
                "the time stamps step back: the `is up` line of {} is stamped before its \
                 Booting line, so those bring-ups time nothing and the item is not judged \
                 ({measured} others timed, slowest {})",
                stepped.join(", "),
                seconds(ms)
            ),
            lines: stepped_back.iter().map(|&(_, line)| line).collect(),
        };
    }
    if slow_lines.is_empty() {
        Item {
            name: "CPU bring-up time",
            status: Status::Pass,
            reason: format!(
                "{measured} CPU bring-ups, slowest CPU{cpu} in {} (limit {limit})",
                seconds(ms)
            ),
            lines: vec![line],
        }
    } else {
        Item {
            name: "CPU bring-up time",
            status: Status::Fail,
            reason: format!(
                "{} of {measured} CPU bring-ups took longer than {limit}, slowest CPU{cpu} in {}",
                slow_lines.len(),
                seconds(ms)
            ),
            lines: slow_lines,
        }
    }
}

fn cpus_back_item(cycles: &[&Cycle]) -> Item {
    let mut missing = Vec::new();
    let mut lines = Vec::new();
    for c in cycles {
        // "CPUn is up" is the thaw's line: CPUs put online by hand after a resume (no
        // "Enabling non-boot CPUs") print none, and only an error says they failed.
        if c.enable_start.is_some() {
            missing.extend(c.cpus_not_up());
        }
        lines.extend(c.failures.iter().map(|f| f.line));
        missing.extend(c.failures.iter().map(|f| f.cpu));
    }
    missing.sort_unstable();
    missing.dedup();
    if missing.is_empty() && cycles.iter().all(|c| c.cpus.is_empty()) {
        Item {
            name: "every CPU came back",
            status: Status::Skip,
            reason: "the log names no secondary CPU coming up".into(),
            lines,
        }
    } else if missing.is_empty() {
        Item {
            name: "every CPU came back",
            status: Status::Pass,
            reason: "no CPU failed to come up".into(),
            lines,
        }
    } else {
        let list: Vec<String> = missing.iter().map(u32::to_string).collect();
        Item {
            name: "every CPU came back",
            status: Status::Fail,
            reason: format!("CPU {} did not come back up", list.join(", ")),
            lines,
        }
    }
}

#[cfg(test)]
mod tests;
