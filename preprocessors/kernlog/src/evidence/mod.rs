//! Stage 3, evidence: what one side of a test shows, a plain log or a capture bundle.
//!
//! * [`bundle`]: the files of the bundle `kernlog capture` writes, as models that parse from
//!   and render to their text;
//! * [`side`]: one input of `check`, `compare` or `report` ([`Evidence`]), its log analysed and
//!   its kernel named.

pub mod bundle;
pub mod side;

pub use side::{BundleContents, Evidence, KernelId, register_differences};
