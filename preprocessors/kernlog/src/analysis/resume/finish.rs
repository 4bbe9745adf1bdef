//! What the tracker notes of a cycle's steps (the resume begun, the exit, failed devices)
//! and, at its end, the figures and phases derived from what it collected.

use super::classify::utc_seconds;
use super::kernel_pm::{PmFailure, pm_failure};
use super::model::*;
use super::open::Open;
use crate::parse::reader::Record;

/// Mark the resume begun at `event` (the first line of the way back, `evidence` of what it
/// is): the suspend half ends with `last`, the record before it, or for a hibernation with
/// the image's creation.
pub(super) fn begin_resume(
    open: &mut Open,
    last: Option<Event>,
    event: Event,
    evidence: ResumeEvidence,
) {
    if open.cycle.aborted.is_none() {
        open.cycle.resume_evidence.get_or_insert((event, evidence));
    }
    if !open.resumed {
        open.resumed = true;
        if open.cycle.entry.is_some() {
            open.cycle.last_suspend_record = open.image_created.or(last);
        }
    }
}

pub(super) fn keep_largest(gaps: &mut Vec<Gap>, gap: Gap) {
    if gaps.len() == GAPS_KEPT && gaps.last().is_some_and(|g| g.us >= gap.us) {
        return;
    }
    let pos = gaps.partition_point(|g| g.us >= gap.us);
    gaps.insert(pos, gap);
    gaps.truncate(GAPS_KEPT);
}

pub(super) fn finish_cycle(open: Open) -> Cycle {
    let mut cycle = open.cycle;
    cycle.gaps = open.gaps;
    let walls = match (open.wall_entry, open.wall_exit) {
        (Some(entry), Some(exit)) if cycle.asleep.is_none() && exit.0.line > entry.0.line => {
            exit.0.ms_since(&entry.0).map(|ms| (entry.1, exit, ms))
        }
        _ => None,
    };
    if let Some((entry_wall, (exit, exit_wall), kernel_ms)) = walls {
        let seconds = exit_wall - entry_wall - kernel_ms / 1000.0;
        if seconds >= 0.0 && seconds.is_finite() {
            cycle.asleep = Some(Asleep {
                seconds,
                source: AsleepSource::WallClock,
                line: exit.line,
            });
        }
    }
    if let Some(aborted) = cycle.aborted.as_mut() {
        aborted.details = open.abort_details;
        aborted.details.retain(|d| d.line != aborted.line);
        // A generic line (`Some devices failed to suspend, or early wake event detected`)
        // takes its cause from the lines around it.
        if aborted.cause == AbortCause::DeviceOrWakeup {
            if let Some(told) = aborted.details.first() {
                aborted.cause = told.cause;
            }
        }
    }
    let mut phases = Vec::new();
    let mut span = |name, start: Option<Event>, end: Option<Event>| {
        if let (Some(start), Some(end)) = (start, end) {
            if end.line >= start.line {
                phases.push(Phase { name, start, end });
            }
        }
    };
    span(PhaseName::Freeze, open.freeze_start, open.freeze_end);
    // The platform's sleep entry or the CPUs going down, whichever is first; without
    // either (suspend-to-idle of 3.x kernels), the last step down of the devices.
    let sleep_entry = match (open.platform_sleep, open.disable_start) {
        (Some(a), Some(b)) => Some(if a.line < b.line { a } else { b }),
        (a, b) => a.or(b).or(open.noirq_suspended),
    };
    span(PhaseName::DeviceSuspend, open.freeze_end, sleep_entry);
    span(
        PhaseName::DisableCpus,
        open.disable_start,
        open.last_offline,
    );
    span(
        PhaseName::LowLevelResume,
        cycle.low_level_resume,
        cycle.enable_start,
    );
    span(
        PhaseName::EnableCpus,
        cycle.enable_start,
        cycle.enable_finished(),
    );
    span(PhaseName::PlatformWake, cycle.wake, cycle.ec_unblock);
    span(PhaseName::EcUnblock, cycle.ec_unblock, open.ec_event);
    span(
        PhaseName::DeviceResume,
        open.ec_event.or(cycle.ec_unblock).or(cycle.wake),
        open.thaw_start,
    );
    span(PhaseName::Thaw, open.thaw_start, open.thaw_done);
    cycle.phases = phases;
    cycle
        .cpus
        .sort_by_key(|c| c.booting.or(c.up).map(|e| e.line));
    cycle
}

/// The exit of an attempt that was not aborted shows it came back, when nothing else did.
pub(super) fn exit_evidence(open: &mut Open, event: Event) {
    if open.cycle.aborted.is_none() {
        open.cycle
            .resume_evidence
            .get_or_insert((event, ResumeEvidence::Exit));
    }
}

/// Keep the device a failure line names (at most [`FAILED_DEVICES_KEPT`] a cycle).
pub(super) fn note_failed_device(open: &mut Open, record: &Record) {
    let Some(PmFailure::Device(d)) = pm_failure(None, record.message) else {
        return;
    };
    if open.cycle.failed_devices.len() < FAILED_DEVICES_KEPT {
        open.cycle.failed_devices.push(DeviceFailure {
            line: record.line,
            device: d.device,
            step: d.step,
            error: d.error,
        });
    } else {
        open.cycle.failed_devices_not_kept += 1;
    }
}

/// The wall time of `PM: PM: suspend entry 2020-06-07 16:27:41.246277668 UTC` (or exit).
pub(super) fn wall_of(message: &str) -> Option<f64> {
    let rest = message.strip_prefix("PM: PM: suspend ")?;
    let (_, when) = rest.split_once(' ')?;
    utc_seconds(when)
}
