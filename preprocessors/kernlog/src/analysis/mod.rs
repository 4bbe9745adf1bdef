//! Stage 2, analysis: records in, models out, one record at a time and in bounded memory.
//!
//! * [`resume`]: suspend/resume cycles, their phases and each CPU's bring-up;
//! * [`mtrr`]: MTRR values decoded, and what the kernel printed about them;
//! * [`trace`]: `trace-cmd report` statistics; [`probes`]: delay-loop speed probes;
//! * [`banner`]: the kernel the log names; [`sequence`]: kmsg records missing or out of order; [`cycle_mtrr`]: each cycle's MTRR runs, and which
//!   CPUs came back changed;
//! * [`pass`]: the one pass that feeds them all ([`Analyzer`]), with [`findings`] drawn from
//!   the result and [`limits`] on what is kept.

pub mod banner;
pub mod cycle_mtrr;
pub mod findings;
pub mod limits;
pub mod mtrr;
pub mod pass;
pub mod probes;
pub mod resume;
pub mod sequence;
pub mod trace;

pub(crate) use pass::KERNEL_STAMPED_CAPTURE;
pub use pass::{Analysis, Analyzer, InputSummary, analyze, analyze_str, rendezvous_per_step};
