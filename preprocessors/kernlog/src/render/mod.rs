//! Stage 5, rendering: models and verdicts as text for people and programs.
//!
//! * [`document`]: the JSON document of `kernlog analyze --json`;
//! * [`summary`]: the plain-text summary of `kernlog analyze`;
//! * [`checklist`], [`comparison`], [`reply`]: what `check`, `compare` and `report` print;
//! * [`safe_text`]: the one rule that makes text from a log safe to print.

pub mod checklist;
pub mod comparison;
pub mod document;
pub mod reply;
pub mod safe_text;
pub mod summary;
