//! The tester's checklist: does a log taken with the patched kernel show the fix working,
//! and doing no harm?
//!
//! [`check`] turns an [`Analysis`] into items that pass, fail or do not apply, each with its
//! reason and the lines that show it, and an overall verdict.

use crate::analysis::Analysis;
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

/// Check a log's analysis.
pub fn check(analysis: &Analysis, limits: Limits) -> Checklist {
    let resumed: Vec<&Cycle> = analysis
        .cycles
        .iter()
        .filter(|c| c.enable_start.is_some() || !c.cpus.is_empty())
        .collect();
    if resumed.is_empty() {
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
    let mut items = vec![bringup_item(&resumed, limits), cpus_back_item(&resumed)];
    let diagnostic: Vec<u64> = analysis
        .mtrr
        .warnings
        .iter()
        .filter(|w| w.text.contains(FIX_DIAGNOSTIC))
        .map(|w| w.line)
        .collect();
    items.push(diagnostic_item(analysis, &diagnostic));
    items.push(consistency_item(analysis, &resumed));
    items.push(warnings_item(analysis));
    let passed = items.iter().all(|i| i.status != Status::Fail);
    let verdict = if !passed {
        let failed: Vec<&str> = items
            .iter()
            .filter(|i| i.status == Status::Fail)
            .map(|i| i.name)
            .collect();
        format!("FAIL: {}", failed.join(", "))
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

fn bringup_item(cycles: &[&Cycle], limits: Limits) -> Item {
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
        return Item {
            name: "CPU bring-up time",
            status: Status::Skip,
            reason: "the log has no time stamps for the CPU bring-up".into(),
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

/// With `mtrr=debug`: was the boot CPU found changed after the boot, on resume?
fn bp_changed_on_resume(analysis: &Analysis) -> Option<(bool, Vec<u64>)> {
    let runs = &analysis.mtrr.runs;
    if runs.is_empty() {
        return None;
    }
    // Runs before the first Booting or Enabling line are boot-CPU restores of a resume when
    // the log has a resume; boot-time checks happen in a log with no cycle.
    let first_resume_line = analysis
        .cycles
        .iter()
        .filter_map(|c| c.low_level_resume.or(c.enable_start).map(|e| e.line))
        .min();
    let changed: Vec<u64> = runs
        .iter()
        .filter(|r| r.cpu == 0 && r.changed())
        .filter(|r| first_resume_line.is_none_or(|l| r.line <= l))
        .map(|r| r.line)
        .collect();
    Some((!changed.is_empty(), changed))
}

fn diagnostic_item(analysis: &Analysis, diagnostic: &[u64]) -> Item {
    let name = "diagnostic if and only if the MTRRs changed";
    match bp_changed_on_resume(analysis) {
        None => Item {
            name,
            status: Status::Skip,
            reason: if diagnostic.is_empty() {
                "no diagnostic; boot with mtrr=debug to see whether the MTRRs changed".into()
            } else {
                "diagnostic present; boot with mtrr=debug to confirm the MTRRs changed".into()
            },
            lines: diagnostic.to_vec(),
        },
        Some((changed, mut lines)) => {
            lines.extend_from_slice(diagnostic);
            lines.sort_unstable();
            let present = !diagnostic.is_empty();
            let (status, reason) = match (changed, present) {
                (true, true) => (
                    Status::Pass,
                    "the boot CPU's MTRRs changed and the diagnostic is present",
                ),
                (false, false) => (
                    Status::Pass,
                    "the MTRRs did not change and there is no diagnostic",
                ),
                (true, false) => (
                    Status::Fail,
                    "the boot CPU's MTRRs changed but the diagnostic is missing: is the fix applied?",
                ),
                (false, true) => (
                    Status::Fail,
                    "the diagnostic is present although the boot CPU's MTRRs did not change",
                ),
            };
            Item {
                name,
                status,
                reason: reason.into(),
                lines,
            }
        }
    }
}

fn consistency_item(analysis: &Analysis, cycles: &[&Cycle]) -> Item {
    let name = "every CPU consistent with the boot CPU";
    let Some((bp_changed, _)) = bp_changed_on_resume(analysis) else {
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
    if !bp_changed {
        return Item {
            name,
            status: Status::Pass,
            reason: "the boot CPU needed no restore, so the APs keep the usual single update"
                .into(),
            lines: Vec::new(),
        };
    }
    // Each AP brought up must have been checked after its Booting line.
    let mut unchecked = Vec::new();
    for c in cycles {
        for cpu in &c.cpus {
            let from = cpu.booting.or(c.enable_start).map_or(0, |e| e.line);
            if !m.runs.iter().any(|r| r.cpu == cpu.cpu && r.line > from) {
                unchecked.push(cpu.cpu);
            }
        }
    }
    if unchecked.is_empty() {
        Item {
            name,
            status: Status::Pass,
            reason: "every secondary CPU had its MTRRs checked after it came up".into(),
            lines: Vec::new(),
        }
    } else {
        let list: Vec<String> = unchecked.iter().map(u32::to_string).collect();
        Item {
            name,
            status: Status::Fail,
            reason: format!(
                "CPU {} never had its MTRRs checked after the resume: they may still differ",
                list.join(", ")
            ),
            lines: Vec::new(),
        }
    }
}

fn warnings_item(analysis: &Analysis) -> Item {
    let lines: Vec<u64> = analysis
        .mtrr
        .warnings
        .iter()
        .filter(|w| !w.text.contains(FIX_DIAGNOSTIC))
        .map(|w| w.line)
        .collect();
    if lines.is_empty() {
        Item {
            name: "no new warnings",
            status: Status::Pass,
            reason: "no MTRR warning besides the fix's diagnostic".into(),
            lines,
        }
    } else {
        Item {
            name: "no new warnings",
            status: Status::Fail,
            reason: format!("{} MTRR warning(s) in the log", lines.len()),
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
mod tests {
    use super::*;
    use crate::analyze_str;

    const HEALTHY: &str = "\
[  100.000000] Enabling non-boot CPUs ...
[  100.000100] smpboot: Booting Node 0 Processor 1 APIC 0x2
[  100.012000] CPU1 is up
";

    fn statuses(text: &str) -> Vec<Status> {
        check(&analyze_str(text), Limits::default())
            .items
            .iter()
            .map(|i| i.status)
            .collect()
    }

    #[test]
    fn healthy_log_passes_as_not_affected() {
        let list = check(&analyze_str(HEALTHY), Limits::default());
        assert!(list.passed);
        assert!(list.verdict.contains("not affected"), "{}", list.verdict);
    }

    #[test]
    fn each_failure_reason() {
        // Slow bring-up.
        let slow = HEALTHY.replace("100.012000", "102.500000");
        assert_eq!(statuses(&slow)[0], Status::Fail);
        // A CPU that did not come back.
        let lost = format!(
            "{HEALTHY}[  100.020000] smpboot: Booting Node 0 Processor 2 APIC 0x4\n[  110.000000] Error taking CPU2 up: -5\n"
        );
        assert_eq!(statuses(&lost)[1], Status::Fail);
        // MTRR warning.
        let warned = format!(
            "{HEALTHY}[  100.013000] mtrr: your CPUs had inconsistent variable MTRR settings\n"
        );
        assert_eq!(statuses(&warned)[4], Status::Fail);
        // Boot CPU changed (mtrr=debug) but no diagnostic.
        let changed = format!(
            "[  99.000000] MTRR cpu 0 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]\n\
             [  99.000001] MTRR cpu 0 changes:__T\n\
             [  99.000002] MTRR cpu 0 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]\n\
             [  99.500000] ACPI: PM: Low-level resume complete\n{HEALTHY}"
        );
        let s = statuses(&changed);
        assert_eq!(s[2], Status::Fail, "missing diagnostic");
        assert_eq!(s[3], Status::Fail, "CPU 1 never checked");
        // Diagnostic without a change.
        let spurious = format!(
            "[  99.000000] MTRR cpu 0 disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]\n\
             [  99.000001] MTRR cpu 0 changes:___\n\
             [  99.500000] ACPI: PM: Low-level resume complete\n{HEALTHY}[  100.013000] mtrr: your CPUs had unexpected MTRR settings on resume\n"
        );
        assert_eq!(statuses(&spurious)[2], Status::Fail);
        // No resume at all.
        let none = check(&analyze_str("[ 1.000000] hello\n"), Limits::default());
        assert!(!none.passed);
    }
}
