//! Suspend/resume cycles: boots, phases, per-CPU bring-up, gaps.
//!
//! [`CycleTracker`] is a state machine fed one kernel [`Record`](crate::parse::reader::Record) at a time. It keeps only
//! the cycle being read plus bounded summaries, so it runs in constant memory on logs of
//! any length. Both the wording of current kernels (`PM: suspend entry (deep)` ..
//! `PM: suspend exit`) and the older one (`PM: Syncing filesystems` .. `Restarting tasks
//! ... done.`) are understood; a log excerpt that starts in the middle of a resume still
//! yields a (partial) cycle.
//!
//! Three steps, a module each: `classify` reads what a message means, the tracker
//! ([`CycleTracker`]) builds cycles from those meanings, and the model ([`Cycle`] and its
//! parts) holds what was found and the figures derived from it.

mod classify;
mod finish;
mod held;
mod kernel_pm;
mod model;
mod open;
mod step;
mod tracker;

pub use classify::is_marker;
pub use model::{
    ABORT_DETAILS_KEPT, AbortCause, AbortDetail, Aborted, Asleep, AsleepSource, CpuBringup,
    CpuFailure, Cycle, DeviceFailure, Event, FAILED_DEVICES_KEPT, GAPS_KEPT, Gap, Outcome,
    OutcomeState, Phase, PhaseName, ResumeEvidence, SleepMode,
};
pub use step::{SuspendStep, suspend_step};
pub use tracker::CycleTracker;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_states;
