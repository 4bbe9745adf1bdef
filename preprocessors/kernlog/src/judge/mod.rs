//! Stage 4, judging: verdicts drawn from the evidence.
//!
//! * [`checklist`]: does the patched kernel's log show the fix working, and no harm done;
//! * [`compare`]: two sides of a test, figure by figure, against a threshold.

pub mod checklist;
pub mod compare;
