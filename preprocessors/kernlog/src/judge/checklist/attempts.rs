//! What became of each suspend attempt of the log: resumed, aborted before it slept, or
//! never back. The checklist tells every attempt that did not resume as such, instead of
//! passing over it.

use crate::analysis::resume::{Cycle, OutcomeState};

use super::{Item, Status};

/// What the log shows of one suspend attempt.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Attempt {
    /// Slept and came back, with the secondary CPUs brought up again.
    Resumed,
    /// Came back, but the log has no CPU bring-up (s2idle keeps the CPUs online, or the
    /// lines are missing): nothing of the fix to check there.
    ResumedWithoutBringup,
    /// Abandoned before the system slept (freezer, a device's suspend callback, a pending
    /// wakeup).
    Aborted {
        /// The line that abandoned it.
        line: u64,
        /// Its text.
        message: String,
    },
    /// The log shows the suspend entry, nothing of a resume after it, and then another
    /// attempt or a new boot: the machine did not come back.
    DidNotResume {
        /// The suspend entry's line.
        line: u64,
    },
    /// The log ends during the attempt: cut off there, or the machine never came back; the
    /// log alone cannot tell which.
    LogEnds {
        /// The suspend entry's line.
        line: u64,
    },
}

/// The outcome of `cycle`, from the cycle's own (see [`Cycle::outcome`]).
pub fn attempt(cycle: &Cycle) -> Attempt {
    if let Some(a) = &cycle.aborted {
        return Attempt::Aborted {
            line: a.line,
            message: a.message.clone(),
        };
    }
    let outcome = cycle.outcome();
    match (outcome.state, cycle.entry) {
        (OutcomeState::DidNotResume, Some(entry)) => Attempt::DidNotResume { line: entry.line },
        (OutcomeState::Suspending, Some(entry)) => Attempt::LogEnds { line: entry.line },
        _ if cycle.enable_start.is_none() && cycle.cpus.is_empty() => {
            Attempt::ResumedWithoutBringup
        }
        _ => Attempt::Resumed,
    }
}

/// The item "no device failed to suspend or resume": a warning for each device a failure
/// line names (a device that failed to resume does not make the attempt fail), PASS when
/// there is none.
pub fn devices_item(cycles: &[Cycle]) -> Item {
    let name = "no device failed to suspend or resume";
    let mut told = Vec::new();
    let mut lines = Vec::new();
    for (i, c) in cycles.iter().enumerate() {
        for d in &c.failed_devices {
            told.push(format!(
                "attempt {}: {} failed to {} (error {}, line {})",
                i + 1,
                d.device,
                d.step,
                d.error,
                d.line
            ));
            lines.push(d.line);
        }
        if c.failed_devices_not_kept > 0 {
            told.push(format!(
                "attempt {}: {} more failed devices",
                i + 1,
                c.failed_devices_not_kept
            ));
        }
    }
    let (status, reason) = if told.is_empty() {
        (
            Status::Pass,
            "no failed suspend or resume step of a device in the log".to_string(),
        )
    } else {
        (Status::Warn, told.join("; "))
    };
    Item {
        name,
        status,
        reason,
        lines,
    }
}

/// "attempt 2 aborted at line 40 (PM: Some devices failed to suspend)" and the like, for
/// every attempt that did not resume with a bring-up; empty when all did.
pub fn not_resumed(cycles: &[Cycle]) -> Vec<String> {
    cycles
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let n = i + 1;
            match attempt(c) {
                Attempt::Resumed => None,
                Attempt::ResumedWithoutBringup => Some(format!(
                    "attempt {n} resumed without a CPU bring-up in the log (lines {}-{})",
                    c.first_line, c.last_line
                )),
                Attempt::Aborted { line, message } => Some(format!(
                    "attempt {n} aborted at line {line}, before it slept ({})",
                    message.trim()
                )),
                Attempt::DidNotResume { line } => Some(format!(
                    "attempt {n} did not resume (suspend at line {line}, and the next attempt \
                     or boot with no resume line before it)"
                )),
                Attempt::LogEnds { line } => Some(format!(
                    "the log ends during attempt {n} (suspend at line {line}): cut off there, or \
                     the machine never came back; the log of the boot after it \
                     (journalctl -k -b -1 shows the one before) or a capture bundle tells which"
                )),
            }
        })
        .collect()
}

/// The item "every attempt resumed": FAIL for an attempt that never came back (a hang is a
/// failure), SKIP when some were aborted, had no bring-up or were cut off by the end of the
/// log (not tested), PASS otherwise.
pub fn attempts_item(cycles: &[Cycle]) -> Item {
    let name = "every attempt resumed";
    let outcomes: Vec<Attempt> = cycles.iter().map(attempt).collect();
    let lines = outcomes
        .iter()
        .filter_map(|a| match a {
            Attempt::Aborted { line, .. }
            | Attempt::DidNotResume { line }
            | Attempt::LogEnds { line } => Some(*line),
            _ => None,
        })
        .collect();
    let told = not_resumed(cycles);
    let resumed = outcomes.iter().filter(|a| **a == Attempt::Resumed).count();
    let status = if outcomes
        .iter()
        .any(|a| matches!(a, Attempt::DidNotResume { .. }))
    {
        Status::Fail
    } else if outcomes.is_empty() {
        Status::Skip
    } else if told.is_empty() {
        Status::Pass
    } else {
        Status::Skip
    };
    let reason = if outcomes.is_empty() {
        "no suspend attempt in the log".to_string()
    } else if told.is_empty() {
        format!(
            "{resumed} of {} attempt{} slept and resumed",
            outcomes.len(),
            plural(outcomes.len())
        )
    } else {
        format!(
            "{resumed} of {} resumed with a CPU bring-up; {}",
            outcomes.len(),
            told.join("; ")
        )
    };
    Item {
        name,
        status,
        reason,
        lines,
    }
}

/// "s" unless `n` is 1.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze_str;

    #[test]
    fn each_outcome_is_told() {
        let log = "\
[   10.000000] PM: suspend entry (deep)
[   10.100000] Freezing user space processes
[   30.100000] Freezing user space processes failed after 20.000 seconds (1 tasks refusing to freeze, wq_busy=0):
[   30.200000] PM: suspend exit
[   40.000000] PM: suspend entry (deep)
[   40.100000] Enabling non-boot CPUs ...
[   40.100100] smpboot: Booting Node 0 Processor 1 APIC 0x2
[   40.102000] CPU1 is up
[   40.200000] PM: suspend exit
[   50.000000] PM: suspend entry (deep)
[   50.000100] PM: Syncing filesystems ... done.
[    0.000000] Linux version 7.3.4 (builder@host) #1 SMP PREEMPT_DYNAMIC
";
        let a = analyze_str(log);
        let outcomes: Vec<Attempt> = a.cycles.iter().map(attempt).collect();
        assert!(
            matches!(outcomes[0], Attempt::Aborted { line: 3, .. }),
            "{outcomes:?}"
        );
        assert_eq!(outcomes[1], Attempt::Resumed);
        assert_eq!(outcomes[2], Attempt::DidNotResume { line: 10 });
        let item = attempts_item(&a.cycles);
        assert_eq!(item.status, Status::Fail, "{item:?}");
        assert!(item.reason.starts_with("1 of 3 resumed"), "{}", item.reason);
        assert!(item.reason.contains("attempt 1 aborted at line 3"));
        assert!(item.reason.contains("attempt 3 did not resume"));
        assert_eq!(item.lines, vec![3, 10]);
    }

    #[test]
    fn a_log_that_ends_during_an_attempt_is_no_failure() {
        // Cut off right after the entry: nothing shows whether the machine came back.
        let log = "\
[   40.000000] PM: suspend entry (deep)
[   40.000100] Filesystems sync: 0.001 seconds
[   40.001000] Freezing user space processes
";
        let a = analyze_str(log);
        assert_eq!(attempt(&a.cycles[0]), Attempt::LogEnds { line: 1 });
        let item = attempts_item(&a.cycles);
        assert_eq!(item.status, Status::Skip, "{item:?}");
        assert!(
            item.reason.contains("the log ends during attempt 1"),
            "{}",
            item.reason
        );
        assert!(!item.reason.contains("did not resume"), "{}", item.reason);
    }
}
