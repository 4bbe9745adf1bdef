//! What a capture bundle adds to the checklist: the outcome of every cycle as
//! `kernlog capture` recorded it (a machine that never came back leaves no log lines of
//! its resume), and every CPU's MSRs after each resume, compared value by value.

use std::collections::HashMap;

use crate::evidence::bundle::{CpuMtrrs, MtrrRegisters, Outcome};
use crate::evidence::{BundleContents, register_differences};

use super::attempts::plural;
use super::{Item, Status};

/// The cycles `capture.yaml` records as not resumed, told as such; `true` when one of
/// them never came back (or was left `suspending`).
pub(super) fn not_resumed(captured: &BundleContents) -> (Vec<String>, bool) {
    let capture = &captured.capture;
    let mut told = Vec::new();
    let mut hung = false;
    for c in &capture.cycles {
        let outcome = c.outcome.settled();
        if outcome == Outcome::Resumed {
            continue;
        }
        hung |= outcome == Outcome::DidNotResume;
        let left = if c.outcome == Outcome::Suspending {
            " (capture.yaml left at `suspending`: the machine never came back to rewrite it)"
        } else {
            ""
        };
        let detail = c
            .detail
            .as_deref()
            .map(|d| format!(": {}", d.trim()))
            .unwrap_or_default();
        told.push(format!(
            "capture cycle {} {}{left}{detail}",
            c.n,
            outcome.name().replace('-', " ")
        ));
    }
    let recorded = capture.cycles.len();
    if (recorded as u64) < u64::from(capture.cycles_requested) {
        told.push(format!(
            "{recorded} of {} requested cycles recorded",
            capture.cycles_requested
        ));
    }
    (told, hung)
}

/// A dump's readable registers by CPU: one lookup per CPU, however many the dump lists.
fn by_cpu(dump: &[CpuMtrrs]) -> HashMap<u32, &MtrrRegisters> {
    dump.iter()
        .filter_map(|c| Some((c.cpu, c.registers.as_ref().ok()?)))
        .collect()
}

/// Compares every CPU of each dump after a resume with `reference(n, cpu)`; the item's
/// reason tells the differences, or the CPUs whose MSRs could not be read.
fn compare_dumps<'a>(
    captured: &'a BundleContents,
    name: &'static str,
    against: &str,
    reference: impl Fn(&HashMap<u32, &'a MtrrRegisters>, u32) -> Option<&'a MtrrRegisters>,
) -> Item {
    let (mut differ, mut unshown, mut compared) = (Vec::new(), Vec::new(), 0usize);
    // Every CPU that was online must be in every dump: a dump that leaves CPUs out shows
    // nothing of them (a dump of CPU 0 alone would compare CPU 0 with itself).
    let online = captured.capture.cpus_online.iter().copied().chain([0]);
    let online: std::collections::BTreeSet<u32> = online.collect();
    // Capture takes a dump after every resume: a resumed cycle without one shows nothing.
    for c in &captured.capture.cycles {
        if c.outcome == Outcome::Resumed && !captured.after.iter().any(|(n, _)| *n == c.n) {
            unshown.push(format!("resume {} (no dump after it)", c.n));
        }
    }
    for (n, dump) in &captured.after {
        let index = by_cpu(dump);
        let listed: std::collections::BTreeSet<u32> = dump.iter().map(|c| c.cpu).collect();
        let absent: Vec<String> = online.difference(&listed).map(u32::to_string).collect();
        if !absent.is_empty() {
            unshown.push(format!(
                "CPU {} online but missing from the dump after resume {n}",
                absent.join(", ")
            ));
        }
        for cpu in dump {
            let Ok(regs) = &cpu.registers else {
                unshown.push(format!("CPU {} after resume {n}", cpu.cpu));
                continue;
            };
            let Some(reference) = reference(&index, cpu.cpu) else {
                unshown.push(format!(
                    "CPU {} after resume {n} ({against} not read)",
                    cpu.cpu
                ));
                continue;
            };
            compared += 1;
            for d in register_differences(regs, reference) {
                differ.push(format!("CPU {} after resume {n}: {d}", cpu.cpu));
            }
        }
    }
    let resumes = captured.after.len();
    let (status, reason) = if !differ.is_empty() {
        (
            Status::Fail,
            format!("captured MSRs differ from {against}: {}", differ.join("; ")),
        )
    } else if !unshown.is_empty() {
        (
            Status::Skip,
            format!("not compared: {}", unshown.join(", ")),
        )
    } else if compared == 0 {
        (Status::Skip, "no CPU in the captured MSR dumps".to_string())
    } else {
        (
            Status::Pass,
            format!(
                "captured MSRs: {compared} CPU dumps after {resumes} resume{} equal to {against}, \
                 every register",
                plural(resumes)
            ),
        )
    };
    Item {
        name,
        status,
        reason,
        lines: Vec::new(),
    }
}

/// "every CPU consistent with the boot CPU" from the dumps after each resume; `None`
/// when the bundle has none.
pub(super) fn consistency_item(captured: &BundleContents) -> Option<Item> {
    if captured.after.is_empty() {
        return None;
    }
    Some(compare_dumps(
        captured,
        "every CPU consistent with the boot CPU",
        "the boot CPU's",
        |dump, _| dump.get(&0).copied(),
    ))
}

/// "MTRRs as before the suspend": each CPU after each resume against its own dump before
/// the first suspend; `None` without both dumps.
pub(super) fn as_before_item(captured: &BundleContents) -> Option<Item> {
    let boot = by_cpu(captured.boot.as_deref()?);
    if captured.after.is_empty() {
        return None;
    }
    Some(compare_dumps(
        captured,
        "MTRRs as before the suspend",
        "its values before the first suspend",
        move |_, cpu| boot.get(&cpu).copied(),
    ))
}
