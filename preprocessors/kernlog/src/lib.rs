//! Parse and analyse what a Linux suspend/resume leaves behind.
//!
//! The data flows one way, a folder a stage, each usable on its own:
//!
//! 1. [`parse`]: text into records ([`parse::record`] one line, [`parse::reader`] a stream);
//! 2. [`analysis`]: records into models (cycles, MTRRs, traces, probes) in one pass, and the
//!    findings drawn from them;
//! 3. [`evidence`]: what one side of a test shows, a log or a capture bundle;
//! 4. [`judge`]: the tester's checklist and the comparison of two sides;
//! 5. [`render`]: the JSON document, the summary and what `check`, `compare` and `report`
//!    print, all through one safe-text rule.
//!
//! ```
//! let log = "\
//! [   60.352899] Enabling non-boot CPUs ...
//! [   60.353038] smpboot: Booting Node 0 Processor 1 APIC 0x2
//! [   60.370186] CPU1 is up
//! ";
//! let analysis = kernlog::analyze_str(log);
//! let cycle = &analysis.cycles[0];
//! assert_eq!(cycle.cpus[0].bringup_ms(), Some(17.148));
//! ```

pub mod analysis;
pub mod evidence;
pub mod judge;
pub mod parse;
pub mod render;

pub use analysis::{Analysis, Analyzer, analyze, analyze_str};
