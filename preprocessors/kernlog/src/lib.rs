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
//! The front door is the handful of names at the root: [`analyze`] (or [`analyze_str`], or an
//! [`Analyzer`] fed record by record) for one log, [`check`], [`compare`] and [`report`] for
//! the [`Evidence`] of one or more sides, and [`Document`] for the analysis as JSON. Each of
//! them is the same function the `kernlog` command calls.
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

#![warn(missing_docs)]

pub mod analysis;
pub mod evidence;
pub mod judge;
pub mod parse;
pub mod render;

pub use analysis::{Analysis, Analyzer, analyze, analyze_str};
pub use evidence::Evidence;
pub use judge::checklist::{Checklist, Limits, Overall};
pub use judge::compare::Comparison;
pub use render::document::Document;

/// The tester's checklist for one side, a log or a capture bundle: PASS, FAIL or SKIP per
/// item and an overall verdict, as `kernlog check` prints it (`to_string()`). For an
/// [`Analysis`] alone, without a bundle's dumps, [`judge::checklist::check`] does the same.
///
/// A log without the MTRR debug output cannot show whether the fix restored the MTRRs, so
/// its verdict is UNKNOWN even when every CPU came up in time:
///
/// ```
/// use kernlog::{Evidence, Limits, Overall};
///
/// let log = b"\
/// [  100.000000] Enabling non-boot CPUs ...
/// [  100.000100] smpboot: Booting Node 0 Processor 1 APIC 0x2
/// [  100.012000] CPU1 is up
/// ";
/// let evidence = Evidence::from_log("resume.log", log)?;
/// let list = kernlog::check(&evidence, Limits::default());
/// assert_eq!(list.overall, Overall::Unknown);
/// assert!(list.verdict.starts_with("UNKNOWN: MTRR outcome unknown"));
/// assert!(list.to_string().contains("[PASS] CPU bring-up time"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn check(evidence: &Evidence, limits: Limits) -> Checklist {
    judge::checklist::check_evidence(evidence, limits)
}

/// Two sides compared, `before` and `after` a patch: the median, minimum and maximum of each
/// figure over the resumed cycles, their ratio, the MTRR findings of each side and a verdict,
/// as `kernlog compare` prints it (`to_string()`). A median that moves by more than
/// `threshold_pct` per cent counts as a change.
pub fn compare(before: &Evidence, after: &Evidence, threshold_pct: f64) -> Comparison {
    judge::compare::compare(before, after, threshold_pct)
}

/// The plain-text report of `kernlog report`, for a reply on the kernel list: with two or
/// more inputs the first side is the baseline without the patch, and consecutive inputs of
/// one kernel release are one side; `threshold_pct` is as for [`compare`].
pub fn report(inputs: &[Evidence], threshold_pct: f64) -> String {
    render::reply::render_reply(inputs, threshold_pct)
}
