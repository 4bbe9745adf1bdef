//! The tester's checklist: does a log taken with the patched kernel show the fix working,
//! and doing no harm?
//!
//! [`check`] turns an [`Analysis`] into items that pass, fail or do not apply, each with its
//! reason and the lines that show it, and an overall verdict.

use crate::analysis::{Analysis, KERNEL_STAMPED_CAPTURE};
use crate::findings::{SLOW_BRINGUP_MS, seconds};
use crate::resume::Cycle;

/// The message the fix prints once when it restored the MTRRs early on resume.
pub const FIX_DIAGNOSTIC: &str = "MTRR settings on resume";

/// Outcome of one checklist item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    /// The log has no data for this item (e.g. no `mtrr=debug` output).
    Skip,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

/// One item of the checklist.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: &'static str,
    pub status: Status,
    pub reason: String,
    pub lines: Vec<u64>,
}

/// The whole checklist and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Checklist {
    pub items: Vec<Item>,
    /// True when no item failed.
    pub passed: bool,
    /// One line: PASS or FAIL and why.
    pub verdict: String,
}

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
            cycle: c,
            lines,
            resume_line: resume.line,
        });
    }
    out
}

/// Check a log's analysis.
pub fn check(analysis: &Analysis, limits: Limits) -> Checklist {
    let windows = windows(analysis);
    if windows.is_empty() {
        let item = Item {
            name: "resume found",
            status: Status::Fail,
            reason: "no CPU bring-up of a resume in the log: capture a suspend and resume \
                     (journalctl -k -b -o short-monotonic, or dmesg)"
                .into(),
            lines: Vec::new(),
        };
        return Checklist {
            items: vec![item],
            passed: false,
            verdict: "FAIL: nothing to check".into(),
        };
    }
    let resumed: Vec<&Cycle> = windows.iter().map(|w| w.cycle).collect();
    let logger_times = analysis.input.logger_stamped_records > 0;
    let mut items = vec![
        bringup_item(&resumed, limits, logger_times),
        cpus_back_item(&resumed),
    ];
    let diagnostic: Vec<u64> = analysis
        .mtrr
        .warnings
        .iter()
        .filter(|w| w.text.contains(FIX_DIAGNOSTIC))
        .map(|w| w.line)
        .collect();
    items.push(diagnostic_item(analysis, &windows, &diagnostic));
    items.push(consistency_item(analysis, &windows));
    items.push(warnings_item(analysis, &windows));
    let passed = items.iter().all(|i| i.status != Status::Fail);
    let untimed = items[0].status == Status::Skip;
    let verdict = if !passed {
        let failed: Vec<&str> = items
            .iter()
            .filter(|i| i.status == Status::Fail)
            .map(|i| i.name)
            .collect();
        format!("FAIL: {}", failed.join(", "))
    } else if diagnostic.is_empty() && untimed {
        "PASS: nothing failed, but the CPU bring-up could not be timed (see above)".to_string()
    } else if diagnostic.is_empty() {
        "PASS: not affected (the MTRRs were not found changed on resume)".to_string()
    } else {
        "PASS: the fix restored the MTRRs as the CPUs came online".to_string()
    };
    Checklist {
        items,
        passed,
        verdict,
    }
}

/// `logger_times`: the log's stamps are a logger's times of reading, which time nothing.
fn bringup_item(cycles: &[&Cycle], limits: Limits, logger_times: bool) -> Item {
    let mut slowest: Option<(f64, u32, u64)> = None;
    let mut measured = 0;
    let mut slow_lines = Vec::new();
    for c in cycles {
        for cpu in &c.cpus {
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
    let Some((ms, cpu, line)) = slowest else {
        let reason = if logger_times {
            format!(
                "the log's times are when the logger (journald, syslogd) read the lines, not \
                 the kernel's; {KERNEL_STAMPED_CAPTURE}"
            )
        } else {
            "the log has no time stamps for the CPU bring-up".to_string()
        };
        return Item {
            name: "CPU bring-up time",
            status: Status::Skip,
            reason,
            lines: Vec::new(),
        };
    };
    let limit = seconds(limits.max_bringup_ms);
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
        missing.extend(c.cpus_not_up());
        lines.extend(c.failures.iter().map(|f| f.line));
        missing.extend(c.failures.iter().map(|f| f.cpu));
    }
    missing.sort_unstable();
    missing.dedup();
    if missing.is_empty() {
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

/// With `mtrr=debug`: the boot CPU's restores in each window that found its MTRRs changed
/// (`None` without debug lines in the log).
fn bp_changed_per_window(analysis: &Analysis, windows: &[Window]) -> Option<Vec<Vec<u64>>> {
    let runs = &analysis.mtrr.runs;
    if runs.is_empty() {
        return None;
    }
    Some(
        windows
            .iter()
            .map(|w| {
                runs.iter()
                    .filter(|r| r.cpu == 0 && r.changed())
                    .filter(|r| w.contains(r.line) && r.line <= w.resume_line)
                    .map(|r| r.line)
                    .collect()
            })
            .collect(),
    )
}

/// "resume 2, 4" for the 0-based window indices given.
fn resume_list(indices: &[usize]) -> String {
    let list: Vec<String> = indices.iter().map(|i| (i + 1).to_string()).collect();
    format!(
        "resume{} {}",
        if indices.len() == 1 { "" } else { "s" },
        list.join(", ")
    )
}

fn diagnostic_item(analysis: &Analysis, windows: &[Window], diagnostic: &[u64]) -> Item {
    let name = "diagnostic if and only if the MTRRs changed";
    let Some(changed) = bp_changed_per_window(analysis, windows) else {
        return Item {
            name,
            status: Status::Skip,
            reason: if diagnostic.is_empty() {
                "no diagnostic; boot with mtrr=debug to see whether the MTRRs changed".into()
            } else {
                "diagnostic present; boot with mtrr=debug to confirm the MTRRs changed".into()
            },
            lines: diagnostic.to_vec(),
        };
    };
    let mut lines: Vec<u64> = changed.iter().flatten().copied().collect();
    let (mut missing, mut spurious, mut changed_count) = (Vec::new(), Vec::new(), 0);
    for (i, (w, bp_lines)) in windows.iter().zip(&changed).enumerate() {
        let present: Vec<u64> = diagnostic
            .iter()
            .copied()
            .filter(|l| w.contains(*l))
            .collect();
        changed_count += usize::from(!bp_lines.is_empty());
        match (!bp_lines.is_empty(), !present.is_empty()) {
            (true, false) => missing.push(i),
            (false, true) => spurious.push(i),
            _ => {}
        }
        lines.extend(present);
    }
    lines.sort_unstable();
    let n = windows.len();
    let (status, reason) = if !missing.is_empty() {
        (
            Status::Fail,
            format!(
                "the boot CPU's MTRRs changed but the diagnostic is missing ({} of {n}): \
                 is the fix applied?",
                resume_list(&missing)
            ),
        )
    } else if !spurious.is_empty() {
        (
            Status::Fail,
            format!(
                "the diagnostic is present although the boot CPU's MTRRs did not change ({} of {n})",
                resume_list(&spurious)
            ),
        )
    } else if changed_count == 0 {
        (
            Status::Pass,
            format!(
                "the MTRRs did not change and there is no diagnostic ({n} resume{})",
                if n == 1 { "" } else { "s" }
            ),
        )
    } else {
        (
            Status::Pass,
            format!(
                "the boot CPU's MTRRs changed in {changed_count} of {n} resume{}, each time with \
                 the diagnostic, and only then",
                if n == 1 { "" } else { "s" }
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

fn consistency_item(analysis: &Analysis, windows: &[Window]) -> Item {
    let name = "every CPU consistent with the boot CPU";
    let Some(changed) = bp_changed_per_window(analysis, windows) else {
        return Item {
            name,
            status: Status::Skip,
            reason: "no mtrr=debug change lines in the log".into(),
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
    // After a resume whose boot CPU needed a restore, each AP brought up must have been
    // checked after its Booting line, within the same resume.
    let mut unchecked = Vec::new();
    let mut checked_resumes = 0;
    for (i, (w, bp_lines)) in windows.iter().zip(&changed).enumerate() {
        if bp_lines.is_empty() {
            continue;
        }
        checked_resumes += 1;
        for cpu in &w.cycle.cpus {
            let from = cpu
                .booting
                .or(w.cycle.enable_start)
                .map_or(w.lines.start, |e| e.line);
            if !m
                .runs
                .iter()
                .any(|r| r.cpu == cpu.cpu && r.line > from && w.contains(r.line))
            {
                unchecked.push(format!("CPU {} (resume {})", cpu.cpu, i + 1));
            }
        }
    }
    if checked_resumes == 0 {
        Item {
            name,
            status: Status::Pass,
            reason: "the boot CPU needed no restore, so the APs keep the usual single update"
                .into(),
            lines: Vec::new(),
        }
    } else if unchecked.is_empty() {
        Item {
            name,
            status: Status::Pass,
            reason: format!(
                "every secondary CPU had its MTRRs checked after it came up ({checked_resumes} \
                 resume{} with a restore)",
                if checked_resumes == 1 { "" } else { "s" }
            ),
            lines: Vec::new(),
        }
    } else {
        Item {
            name,
            status: Status::Fail,
            reason: format!(
                "{} never had its MTRRs checked after the resume: they may still differ",
                unchecked.join(", ")
            ),
            lines: Vec::new(),
        }
    }
}

fn warnings_item(analysis: &Analysis, windows: &[Window]) -> Item {
    let first = windows.first().map_or(0, |w| w.lines.start);
    let (lines, before): (Vec<u64>, Vec<u64>) = analysis
        .mtrr
        .warnings
        .iter()
        .filter(|w| !w.text.contains(FIX_DIAGNOSTIC))
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

/// The checklist as text, one item a line, and the verdict last.
pub fn render_checklist(list: &Checklist) -> String {
    let mut out = String::new();
    for item in &list.items {
        let lines: Vec<String> = item.lines.iter().take(8).map(u64::to_string).collect();
        out.push_str(&format!(
            "[{}] {}: {}{}\n",
            item.status.label(),
            item.name,
            item.reason,
            if lines.is_empty() {
                String::new()
            } else {
                format!(" (lines {})", lines.join(", "))
            }
        ));
    }
    out.push_str(&list.verdict);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
