//! What one kernel message says of a suspend under way, for a tool that follows the log as
//! the kernel writes it (`kernlog capture`): the tracker's own reading of the message,
//! reduced to the three steps such a tool waits for.

use super::classify::{Marker, classify};

/// A step of a suspend that one kernel message marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuspendStep {
    /// The suspend began (`PM: suspend entry (deep)`, or an older kernel's first line).
    Entry,
    /// It ended (`PM: suspend exit`), whether the system slept or not.
    Exit,
    /// The kernel abandoned it before the system slept (the freezer or a device refused).
    Aborted,
}

/// The step that `message` marks, by the rules [`CycleTracker`](super::CycleTracker) reads
/// a log with; `None` for every other message. The message must be the kernel's: a record's
/// facility is the caller's to check.
pub fn suspend_step(message: &str) -> Option<SuspendStep> {
    match classify(message)? {
        Marker::SuspendEntry(_) | Marker::OldSuspendEntry(_) => Some(SuspendStep::Entry),
        Marker::SuspendExit => Some(SuspendStep::Exit),
        Marker::Aborted => Some(SuspendStep::Aborted),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_a_live_reader_waits_for() {
        use SuspendStep::*;
        for (message, step) in [
            ("PM: suspend entry (deep)", Some(Entry)),
            ("PM: suspend exit", Some(Exit)),
            (
                "PM: Some devices failed to suspend, or early wake event detected",
                Some(Aborted),
            ),
            (
                "Freezing user space processes failed after 20.004 seconds (1 tasks refusing to freeze)",
                Some(Aborted),
            ),
            ("ACPI: PM: Low-level resume complete", None),
            (
                "PM: Device 0000:00:1f.3 failed to resume async: error -5",
                None,
            ),
        ] {
            assert_eq!(suspend_step(message), step, "{message}");
        }
    }
}
