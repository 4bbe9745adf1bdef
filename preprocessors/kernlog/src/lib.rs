//! Parse and analyse what a Linux suspend/resume leaves behind.
//!
//! The data flows one way, and every stage is usable on its own:
//!
//! * [`record`]: one line of `dmesg`, `journalctl`, syslog or `/dev/kmsg` text, recognised
//!   in place ([`record::parse_line`], pure, never fails);
//! * [`reader`]: a streaming [`reader::RecordReader`] over any `BufRead` that places each
//!   line on a clock, in constant memory;
//! * [`resume`], [`mtrr`], [`trace`], [`probes`]: the analyses, each fed one record at a time;
//! * [`captures`]: the small non-log captures of an investigation (call counts, bisect log, ...);
//! * [`analysis`]: one pass that runs them all, and [`findings`] drawn from the result;
//! * [`bundle`]: the capture bundle `kernlog capture` writes (models, reading, writing);
//! * [`report`] (the JSON document) and [`summary`] (plain text) to present it.
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
pub mod bundle;
pub mod captures;
pub mod checklist;
pub mod compare;
pub mod evidence;
pub mod findings;
pub mod limits;
mod mail;
pub mod mtrr;
pub mod probes;
pub mod reader;
pub mod record;
pub mod reply;
pub mod report;
pub mod resume;
pub mod summary;
pub mod terminal;
pub mod trace;

pub use analysis::{Analysis, Analyzer, analyze, analyze_str};
