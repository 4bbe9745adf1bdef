//! The cycle tracker: a state machine fed one record at a time, keeping only the open
//! cycle and bounded summaries, so that it runs in constant memory on logs of any length.

use super::classify::{
    Marker, abort_cause, android_exit_wall, booting_apic, classify, is_boot_line, suspended_for,
    utc_seconds,
};
use super::finish::{
    begin_resume, exit_evidence, finish_cycle, keep_largest, note_failed_device, wall_of,
};
use super::held::HeldRecord;
use super::model::*;
use super::open::Open;

use crate::analysis::limits::{CPU_BRINGUPS_KEPT, CPUS_KEPT, CYCLES_KEPT};
use crate::parse::reader::{Clock, Record, Time};

/// A backwards step of the monotonic clock larger than this starts a new segment: two
/// excerpts pasted together, or a new boot.
const BACKWARDS_TOLERANCE_US: i64 = 1_000_000;

/// Splits a stream of kernel records into boots and suspend/resume cycles.
#[derive(Debug, Default)]
pub struct CycleTracker {
    boot: usize,
    seen_records: bool,
    last_time: Option<Time>,
    last_event: Option<Event>,
    current: Option<Open>,
    done: Vec<Cycle>,
    /// Records since a stamp stepped back, held (at most [`HELD_MAX`]) until the log shows
    /// whether it moved to a new clock (a new boot, another excerpt pasted after this one)
    /// or the lines were only printed out of order (a CPU whose clock was not yet in step).
    held: Vec<HeldRecord>,
    cycles_not_kept: u64,
    cpu_lines_not_kept: u64,
    /// CPU bring-ups of the cycles kept, over the whole log.
    bringups_kept: usize,
    /// Android's wall time of an entry printed on the line before it.
    pending_wall_entry: Option<(Event, f64)>,
}

/// Lines stamped far back that are all held before the log is taken to have moved to a new
/// clock: more than a CPU prints while it comes up.
const HELD_MAX: usize = 16;

impl CycleTracker {
    /// A tracker that has seen no record yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed one record. Records from user space are ignored.
    ///
    /// A stamp far behind the last one is a new clock only when the log says so: a boot
    /// banner, a line only a boot prints, a cycle marker other than a CPU's bring-up, or
    /// more than `HELD_MAX` lines that stay behind. A line that comes back to the old
    /// timeline shows the lines before it were printed out of order: they keep their
    /// meaning and lose their stamps.
    pub fn push(&mut self, record: &Record) {
        if !record.is_kernel() {
            return;
        }
        let stamped = record.time.is_some() && !record.continuation;
        if !stamped {
            if self.held.is_empty() {
                self.process(record, classify(record.message));
            } else {
                self.hold(record, false);
            }
            return;
        }
        let marker = classify(record.message);
        let behind = self.seen_records
            && marker != Some(Marker::BootBanner)
            && record.time.is_some_and(|t| self.jumped_back(t));
        if !behind {
            self.release(false);
            self.process(record, marker);
            return;
        }
        let new_clock = marker.is_some_and(|m| !m.of_bringup()) || is_boot_line(record.message);
        self.hold(record, new_clock);
    }

    /// Hold a record behind the old timeline; release the held lines on a new clock when
    /// `new_clock` says so or too many are held.
    fn hold(&mut self, record: &Record, new_clock: bool) {
        self.held.push(HeldRecord::of(record));
        if new_clock || self.held.len() > HELD_MAX {
            self.release(true);
        }
    }

    /// Process the held records, on a new boot with their stamps or, printed out of order,
    /// without them.
    #[inline]
    fn release(&mut self, new_clock: bool) {
        if self.held.is_empty() {
            return;
        }
        if new_clock && self.restoring_image() {
            // The kernel saved in a hibernation image goes on after the boot that read it
            // back, on that boot's clock: the same cycle, its resume.
            self.last_event = None;
            self.last_time = None;
        } else if new_clock {
            self.start_new_boot();
        }
        for held in std::mem::take(&mut self.held) {
            let record = held.record(new_clock);
            self.process(&record, classify(record.message));
        }
    }

    /// One record, once it is known which timeline it belongs to.
    fn process(&mut self, record: &Record, marker: Option<Marker>) {
        if !record.continuation {
            self.track_time(record, marker);
        }
        if let Some(marker) = marker {
            self.apply(marker, record);
        }
        if let Some(open) = self.current.as_mut().filter(|o| !o.resumed) {
            if open.abort_details.len() < ABORT_DETAILS_KEPT {
                if let Some(cause) = abort_cause(record.message) {
                    open.abort_details.push(AbortDetail {
                        line: record.line,
                        cause,
                        text: record.message.to_string(),
                    });
                }
            }
        }
        if !record.continuation && record.time.is_some() {
            self.last_event = Some(Event::of(record));
        }
    }

    /// Close the cycle still open and return every cycle found.
    pub fn finish(mut self) -> Vec<Cycle> {
        // Held lines at the very end: nothing says the clock changed, so they were printed
        // out of order, kept without their stamps.
        self.release(false);
        if let Some(open) = self.current.as_mut() {
            open.cycle.open_at_end = true;
        }
        self.close();
        self.done
    }

    /// True while a hibernation has made its image and shows nothing of a resume yet.
    fn restoring_image(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|o| o.image_created.is_some() && !o.resumed)
    }

    /// True when `time` is well before the last stamp on the same monotonic clock.
    fn jumped_back(&self, time: Time) -> bool {
        self.last_time.is_some_and(|last| {
            last.clock == Clock::Monotonic
                && time.clock == Clock::Monotonic
                && last.micros.saturating_sub(time.micros) > BACKWARDS_TOLERANCE_US
        })
    }

    fn start_new_boot(&mut self) {
        self.close();
        self.boot += 1;
        self.last_event = None;
        self.last_time = None;
    }

    /// Boot detection by banner, and gap tracking inside an open cycle.
    fn track_time(&mut self, record: &Record, marker: Option<Marker>) {
        let Some(time) = record.time else { return };
        if marker == Some(Marker::BootBanner) && self.seen_records {
            self.start_new_boot();
        }
        self.seen_records = true;
        self.last_time = Some(time);
        if let (Some(open), Some(prev)) = (self.current.as_mut(), self.last_event) {
            let now = Event::of(record);
            if let Some(us) = time.kernel_since(prev.time.unwrap_or(time)) {
                keep_largest(
                    &mut open.pending_gaps,
                    Gap {
                        from: prev,
                        to: now,
                        us: us.max(0),
                    },
                );
            }
        }
    }

    fn close(&mut self) {
        if let Some(mut open) = self.current.take() {
            // A log that ends, or goes on to the next attempt, before any line of a resume:
            // the suspend half runs to its last record.
            if !open.resumed && open.cycle.entry.is_some() && open.cycle.resume_evidence.is_none() {
                open.cycle.last_suspend_record = self.last_event;
            }
            // Once a bound stops one cycle, every later one goes uncounted too: the cycles
            // kept are the log's first ones.
            let fits = self.cycles_not_kept == 0
                && self.done.len() < CYCLES_KEPT
                && self.bringups_kept + open.cycle.cpus.len() <= CPU_BRINGUPS_KEPT;
            if fits {
                self.bringups_kept += open.cycle.cpus.len();
                self.done.push(finish_cycle(open));
            } else {
                self.cycles_not_kept += 1;
            }
        }
    }

    /// Cycles after the first [`CYCLES_KEPT`] (or after the first whose CPU bring-ups pass
    /// [`CPU_BRINGUPS_KEPT`]), and lines about CPUs beyond the first [`CPUS_KEPT`] of a
    /// cycle, that were read but not kept.
    pub(crate) fn not_kept(&self) -> (u64, u64) {
        (self.cycles_not_kept, self.cpu_lines_not_kept)
    }

    fn open(&mut self, record: &Record) -> &mut Open {
        let boot = self.boot;
        self.current.get_or_insert_with(|| Open::new(boot, record))
    }

    fn apply(&mut self, marker: Marker, record: &Record) {
        use Marker::*;
        let event = Event::of(record);
        // Lines that belong to the cycle open, if any, and start none.
        match marker {
            WallEntry => {
                self.pending_wall_entry = wall_of(record.message).map(|w| (event, w));
                return;
            }
            WallExit => {
                if let Some(open) = self.current.as_mut() {
                    open.wall_exit = wall_of(record.message).map(|w| (event, w));
                }
                return;
            }
            Done if !self.current.as_ref().is_some_and(|o| o.split_thaw) => return,
            _ => {}
        }
        let ends_old_style = matches!(
            marker,
            SuspendExit | Resume(ResumeEvidence::AndroidExit) | Done
        );
        if !ends_old_style && self.current.as_ref().is_some_and(|o| o.thawed_old_style) {
            self.close();
        }
        // A new entry closes a cycle that already resumed, was abandoned, or has gone past
        // the point where its own entry is printed: `PM: suspend entry` comes first, so one
        // after an entry, a freeze or a platform sleep starts the next attempt. An
        // older-style entry (`Syncing filesystems`, `Preparing system for sleep`) is a step of
        // the same attempt until the attempt has frozen tasks or slept.
        let under_way = |o: &Open| {
            o.resumed
                || o.freeze_start.is_some()
                || o.freeze_end.is_some()
                || o.platform_sleep.is_some()
                || o.disable_start.is_some()
                || o.cycle.aborted.is_some()
        };
        let closes = |o: &Open| match marker {
            SuspendEntry(_) => under_way(o) || o.cycle.entry.is_some(),
            OldSuspendEntry(_) => under_way(o),
            _ => false,
        };
        if self.current.as_ref().is_some_and(closes) {
            self.close();
        }
        // A second resume start without an entry between: two excerpts pasted together.
        let repeated = match marker {
            LowLevelResume(_) => self
                .current
                .as_ref()
                .is_some_and(|o| o.cycle.low_level_resume.is_some()),
            EnableCpus => self
                .current
                .as_ref()
                .is_some_and(|o| o.cycle.enable_start.is_some()),
            _ => false,
        };
        if repeated {
            self.close();
        }
        if marker == BootBanner {
            return;
        }
        let last_event = self.last_event;
        let pending_wall_entry = if matches!(marker, SuspendEntry(_) | OldSuspendEntry(_)) {
            self.pending_wall_entry.take()
        } else {
            None
        };
        let open = self.open(record);
        open.cycle.last_line = record.line;
        let pending = std::mem::take(&mut open.pending_gaps);
        for gap in pending {
            keep_largest(&mut open.gaps, gap);
        }
        if matches!(marker, SuspendEntry(_) | OldSuspendEntry(_)) && open.cycle.entry.is_none() {
            // `PM: suspend entry 2016-03-01 16:26:06.254544580 UTC` carries its own wall time;
            // `PM: PM: suspend entry ...` came on the line before.
            let own = record
                .message
                .strip_prefix("PM: suspend entry ")
                .and_then(utc_seconds)
                .map(|w| (event, w));
            open.wall_entry = own.or(pending_wall_entry);
        }
        match marker {
            BootBanner | WallEntry | WallExit => {}
            SuspendEntry(mode) => {
                open.cycle.entry = Some(event);
                open.cycle.legacy_markers = false;
                open.cycle.mode = open.cycle.mode.or(mode);
                open.new_wording = true;
            }
            OldSuspendEntry(mode) => {
                if open.cycle.entry.is_none() {
                    open.cycle.entry = Some(event);
                    open.cycle.legacy_markers = true;
                }
                open.cycle.mode = open.cycle.mode.or(mode);
            }
            FreezeStart => {
                open.freeze_start.get_or_insert(event);
            }
            Hibernation => open.cycle.mode = Some(SleepMode::Hibernate),
            HibernationImage => {
                open.cycle.mode = Some(SleepMode::Hibernate);
                open.image_created.get_or_insert(event);
            }
            ModeOnly(mode) => open.cycle.mode = open.cycle.mode.or(mode),
            NoirqSuspended if !open.resumed => open.noirq_suspended = Some(event),
            NoirqSuspended => {}
            FreezeEnd => open.freeze_end = Some(event),
            PlatformSleep(mode) => {
                open.platform_sleep.get_or_insert(event);
                open.cycle.mode = open.cycle.mode.or(mode);
            }
            DisableCpus => {
                open.disable_start.get_or_insert(event);
            }
            CpuOffline(cpu) => {
                open.last_offline = Some(event);
                let new = !open.offlined.contains(&cpu);
                if new && open.offlined.len() < CPUS_KEPT {
                    open.offlined.insert(cpu);
                    open.cycle.offlined.push(cpu);
                } else if new {
                    self.cpu_lines_not_kept += 1;
                }
            }
            LowLevelResume(mode) => {
                begin_resume(open, last_event, event, ResumeEvidence::LowLevelResume);
                open.cycle.mode = open.cycle.mode.or(mode);
                open.cycle.low_level_resume.get_or_insert(event);
            }
            EnableCpus => {
                begin_resume(open, last_event, event, ResumeEvidence::CpuBringup);
                open.cycle.enable_start.get_or_insert(event);
            }
            Booting(cpu) => {
                begin_resume(open, last_event, event, ResumeEvidence::CpuBringup);
                let apic = booting_apic(record.message);
                match open.cpu(cpu) {
                    Some(c) => {
                        c.booting = Some(event);
                        c.apic = apic;
                    }
                    None => self.cpu_lines_not_kept += 1,
                }
            }
            CpuUp(cpu) => {
                begin_resume(open, last_event, event, ResumeEvidence::CpuBringup);
                match open.cpu(cpu) {
                    Some(c) => c.up = Some(event),
                    None => self.cpu_lines_not_kept += 1,
                }
            }
            EnableEnd => open.cycle.enable_end = Some(event),
            CpuError(cpu, error) if open.cycle.failures.len() < CPUS_KEPT => {
                open.cycle.failures.push(CpuFailure {
                    cpu,
                    error,
                    line: record.line,
                })
            }
            CpuError(..) => self.cpu_lines_not_kept += 1,
            Wake(mode) => {
                begin_resume(open, last_event, event, ResumeEvidence::PlatformWake);
                open.cycle.wake.get_or_insert(event);
                open.cycle.mode = open.cycle.mode.or(mode);
            }
            EcInterruptUnblocked => {
                begin_resume(open, last_event, event, ResumeEvidence::EcUnblocked);
                if open.cycle.wake.is_some() {
                    open.cycle.ec_unblock.get_or_insert(event);
                }
            }
            EcEventUnblocked => {
                open.ec_event.get_or_insert(event);
            }
            ThawStart => {
                open.thaw_start.get_or_insert(event);
            }
            ThawDone => open.thaw_done = Some(event),
            SplitThawStart => {
                open.thaw_start.get_or_insert(event);
                open.split_thaw = true;
            }
            OldThawDone | Done => {
                open.split_thaw = false;
                open.thaw_done = Some(event);
                if !open.new_wording {
                    open.cycle.exit = Some(event);
                    open.thawed_old_style = true;
                    exit_evidence(open, event);
                }
            }
            Resume(evidence) => {
                begin_resume(open, last_event, event, evidence);
                let timekeeping = evidence == ResumeEvidence::Timekeeping;
                let asleep = suspended_for(record.message)
                    .filter(|_| timekeeping && open.cycle.asleep.is_none());
                if let Some(seconds) = asleep {
                    open.cycle.asleep = Some(Asleep {
                        seconds,
                        source: AsleepSource::Timekeeping,
                        line: record.line,
                    });
                }
                if evidence == ResumeEvidence::AndroidExit {
                    open.wall_exit = android_exit_wall(record.message).map(|w| (event, w));
                    if !open.new_wording && open.cycle.exit.is_none() {
                        open.cycle.exit = Some(event);
                        open.thawed_old_style = true;
                    }
                }
            }
            DeviceFailed => note_failed_device(open, record),
            SuspendExit => {
                if open.thawed_old_style {
                    // The cycle's real exit: it is not a cycle of the older kernels after all.
                    open.cycle.legacy_markers &= open.cycle.entry.is_some() && !open.new_wording;
                }
                open.cycle.exit = Some(event);
                if let Some(w) = record
                    .message
                    .strip_prefix("PM: suspend exit ")
                    .and_then(utc_seconds)
                {
                    open.wall_exit = Some((event, w));
                }
                exit_evidence(open, event);
                self.close();
            }
            Aborted => {
                note_failed_device(open, record);
                let cause = abort_cause(record.message).unwrap_or(AbortCause::DeviceOrWakeup);
                // A hibernation thaws its devices after making the image: a failure to
                // write it still abandons the attempt.
                let image_lost = cause == AbortCause::Image && open.image_created.is_some();
                if open.cycle.aborted.is_none() && (!open.resumed || image_lost) {
                    open.cycle.resume_evidence = None;
                    open.cycle.aborted = Some(self::Aborted {
                        line: record.line,
                        event,
                        message: record.message.to_string(),
                        cause,
                        details: Vec::new(),
                    });
                }
            }
        }
    }
}
