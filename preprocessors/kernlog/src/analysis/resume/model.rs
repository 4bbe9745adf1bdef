//! What a suspend/resume cycle is made of: events on the log's clock, phases, per-CPU
//! bring-up, gaps, and the figures derived from them.

use serde::Serialize;

use crate::parse::reader::{Record, Time};

/// How far two stamps of a span may step back and still count as no time at all: the
/// kernel's clock read on different CPUs, a few microseconds apart.
pub const STEP_BACK_TOLERANCE_US: i64 = 1000;

/// How many of the largest gaps each cycle keeps.
pub const GAPS_KEPT: usize = 5;

/// A marked point of the log: line number and time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// Its line number, from 1.
    pub line: u64,
    /// Its stamp, when the line has one.
    pub time: Option<Time>,
}

impl Event {
    pub(super) fn of(record: &Record) -> Self {
        Event {
            line: record.line,
            time: record.time,
        }
    }

    /// Milliseconds the kernel took from `earlier` to `self`; `None` without times, across
    /// clocks, on a logger's clock, or where the stamps step back by more than
    /// [`STEP_BACK_TOLERANCE_US`] (they time nothing). Smaller steps back (stamps taken on
    /// different CPUs) count as zero.
    pub fn ms_since(&self, earlier: &Event) -> Option<f64> {
        let us = self.time?.kernel_since(earlier.time?)?;
        (us >= -STEP_BACK_TOLERANCE_US).then(|| us.max(0) as f64 / 1000.0)
    }
}

/// The sleep state a cycle entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SleepMode {
    /// Suspend to RAM (ACPI S3).
    Deep,
    /// Suspend to idle.
    S2idle,
    /// Standby (ACPI S1).
    Shallow,
    /// Hibernation (suspend to disk): the image is written and the machine powers off; the
    /// resume is a new boot that reads the image back.
    Hibernate,
}

/// The named spans of a cycle, in the order they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PhaseName {
    /// Freezing user space and freezable kernel threads.
    Freeze,
    /// From the end of the freeze to the platform's sleep entry.
    DeviceSuspend,
    /// `Disabling non-boot CPUs ...` to the last CPU offline.
    DisableCpus,
    /// `Low-level resume complete` to `Enabling non-boot CPUs ...`.
    LowLevelResume,
    /// `Enabling non-boot CPUs ...` to the last `CPUn is up` (or `End enabling non-boot CPUs`).
    EnableCpus,
    /// `Waking up from system sleep state` to `ACPI: EC: interrupt unblocked`.
    PlatformWake,
    /// `ACPI: EC: interrupt unblocked` to `ACPI: EC: event unblocked`.
    EcUnblock,
    /// From the EC unblock to the thaw of tasks.
    DeviceResume,
    /// `OOM killer enabled.` / `Restarting tasks` to `Restarting tasks ... done`.
    Thaw,
}

/// One named span with its ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// Which span.
    pub name: PhaseName,
    /// The line that starts it.
    pub start: Event,
    /// The line that ends it.
    pub end: Event,
}

impl PhaseName {
    /// The name used in JSON and summaries (`enable_cpus`).
    pub fn name(self) -> &'static str {
        match self {
            PhaseName::Freeze => "freeze",
            PhaseName::DeviceSuspend => "device_suspend",
            PhaseName::DisableCpus => "disable_cpus",
            PhaseName::LowLevelResume => "low_level_resume",
            PhaseName::EnableCpus => "enable_cpus",
            PhaseName::PlatformWake => "platform_wake",
            PhaseName::EcUnblock => "ec_unblock",
            PhaseName::DeviceResume => "device_resume",
            PhaseName::Thaw => "thaw",
        }
    }
}

impl SleepMode {
    /// The name the kernel uses in `PM: suspend entry (deep)` (`hibernate` for hibernation).
    pub fn name(self) -> &'static str {
        match self {
            SleepMode::Deep => "deep",
            SleepMode::S2idle => "s2idle",
            SleepMode::Shallow => "shallow",
            SleepMode::Hibernate => "hibernate",
        }
    }
}

impl Phase {
    /// Its length in milliseconds of kernel time; `None` without usable stamps.
    pub fn ms(&self) -> Option<f64> {
        self.end.ms_since(&self.start)
    }
}

/// The bring-up of one secondary CPU on resume.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuBringup {
    /// The CPU's number.
    pub cpu: u32,
    /// `0x2` as printed on the Booting line (x86 only).
    pub apic: Option<String>,
    /// `Booting Node N Processor n` (or the architecture's line for it).
    pub booting: Option<Event>,
    /// `CPUn is up`.
    pub up: Option<Event>,
}

impl CpuBringup {
    /// `CPUn is up` minus that CPU's Booting line; `None` where the stamps step back.
    pub fn bringup_ms(&self) -> Option<f64> {
        if self.stamps_step_back() {
            return None;
        }
        self.up?.ms_since(self.booting.as_ref()?)
    }

    /// Whether the `is up` line is stamped before the Booting line (or so far from it that
    /// no span fits): both lines are the boot CPU's, one after the other, so such stamps
    /// were edited or broken, and time nothing.
    pub fn stamps_step_back(&self) -> bool {
        let (Some(up), Some(booting)) = (
            self.up.and_then(|e| e.time),
            self.booting.and_then(|e| e.time),
        ) else {
            return false;
        };
        up.clock == booting.clock && up.since(booting).is_none_or(|us| us < 0)
    }
}

/// An `Error taking CPU%d up: %d` line.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuFailure {
    /// The CPU's number.
    pub cpu: u32,
    /// The error number the kernel gives.
    pub error: i32,
    /// The line that says so.
    pub line: u64,
}

/// Silence between two consecutive kernel records.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    /// The last record before the silence.
    pub from: Event,
    /// The first record after it.
    pub to: Event,
    /// Its length in microseconds.
    pub us: i64,
}

/// One suspend/resume cycle, complete or as much of it as the log shows.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Cycle {
    /// 0-based index of the boot (segment) the cycle belongs to.
    pub boot: usize,
    /// The sleep state, when the log names it.
    pub mode: Option<SleepMode>,
    /// The cycle's first line.
    pub first_line: u64,
    /// The kmsg sequence number of the first line, in a `/dev/kmsg` log: how a capture's
    /// cycles are found in its log.
    pub first_seq: Option<u64>,
    /// The cycle's last line.
    pub last_line: u64,
    /// `PM: suspend entry` (or the older `PM: Syncing filesystems`).
    pub entry: Option<Event>,
    /// `PM: suspend exit` (or the older `Restarting tasks ... done.`).
    pub exit: Option<Event>,
    /// True when `entry` and `exit` are the older markers of kernels before about 4.15,
    /// which print no `PM: suspend entry` / `PM: suspend exit`.
    pub legacy_markers: bool,
    /// The first line that abandoned the attempt (`PM: Device X failed to suspend`, `PM:
    /// Some devices failed to suspend`, `Freezing ... failed`): the system never slept, so
    /// the cycle has no resume figures.
    pub aborted: Option<Aborted>,
    /// `ACPI: Low-level resume complete` (or `resume from suspend-to-idle`).
    pub low_level_resume: Option<Event>,
    /// `Enabling non-boot CPUs ...`.
    pub enable_start: Option<Event>,
    /// `End enabling non-boot CPUs` (older kernels).
    pub enable_end: Option<Event>,
    /// `Waking up from system sleep state`.
    pub wake: Option<Event>,
    /// The first `ACPI: EC: interrupt unblocked` after the wake.
    pub ec_unblock: Option<Event>,
    /// Last record before the resume began: the end of the suspend half.
    pub last_suspend_record: Option<Event>,
    /// The spans the log shows, in the order they happen.
    pub phases: Vec<Phase>,
    /// Secondary CPUs brought up on resume, in log order.
    pub cpus: Vec<CpuBringup>,
    /// CPUs taken offline for the suspend.
    pub offlined: Vec<u32>,
    /// CPUs the kernel failed to bring up.
    pub failures: Vec<CpuFailure>,
    /// The largest gaps, longest first, at most [`GAPS_KEPT`].
    pub gaps: Vec<Gap>,
    /// The first line that shows the system came back, and what it is.
    pub resume_evidence: Option<(Event, ResumeEvidence)>,
    /// Devices that failed a step of the suspend or resume, in log order, at most
    /// [`FAILED_DEVICES_KEPT`]; `failed_devices_not_kept` counts the others.
    pub failed_devices: Vec<DeviceFailure>,
    /// Failed devices beyond those kept.
    pub failed_devices_not_kept: u64,
    /// The time asleep, where the log says it.
    pub asleep: Option<Asleep>,
    /// The log ended while this cycle was open: nothing after it says whether it came back.
    pub open_at_end: bool,
}

/// How many failed devices each cycle keeps.
pub const FAILED_DEVICES_KEPT: usize = 16;

/// A line that shows the system came back from the sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResumeEvidence {
    /// `Low-level resume complete`, `resume from suspend-to-idle`.
    LowLevelResume,
    /// `Enabling non-boot CPUs`, a CPU booted or up.
    CpuBringup,
    /// `Waking up from system sleep state`.
    PlatformWake,
    /// `PM: Restoring platform NVS memory` (S1, S3, a hibernation image's restore).
    NvsRestored,
    /// The timekeeping line of the wake (`PM: Timekeeping suspended for ...`).
    Timekeeping,
    /// The EC's interrupt unblocked (suspend-to-idle).
    EcUnblocked,
    /// A resume step of the devices (`PM: noirq resume of devices complete after ...`,
    /// `PM: resume of devices complete after ...`, `PM: Finishing wakeup.`).
    DevicesResumed,
    /// Android's `suspend: exit suspend, ret = 0`.
    AndroidExit,
    /// The attempt's exit (`PM: suspend exit`, `Restarting tasks ... done.`).
    Exit,
}

impl ResumeEvidence {
    /// The evidence in words.
    pub fn describe(self) -> &'static str {
        match self {
            ResumeEvidence::LowLevelResume => "the low-level resume",
            ResumeEvidence::CpuBringup => "the CPU bring-up",
            ResumeEvidence::PlatformWake => "the platform's wake",
            ResumeEvidence::NvsRestored => "the platform NVS memory restored",
            ResumeEvidence::Timekeeping => "the timekeeping line of the wake",
            ResumeEvidence::EcUnblocked => "the EC's interrupt unblocked",
            ResumeEvidence::DevicesResumed => "the devices' resume",
            ResumeEvidence::AndroidExit => "the exit line `suspend: exit suspend, ret = 0`",
            ResumeEvidence::Exit => "the attempt's exit",
        }
    }
}

/// A device that failed a step of the suspend or resume (`PM: Device 00:0a failed to thaw:
/// error -5`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFailure {
    /// The line that says so.
    pub line: u64,
    /// The device's name as the kernel prints it.
    pub device: String,
    /// The step as the kernel words it (`suspend async`, `resume`, `thaw`, ...).
    pub step: String,
    /// The error number the kernel gives.
    pub error: i32,
}

/// Where the log tells the time asleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AsleepSource {
    /// `PM: Timekeeping suspended for N seconds`, older `Suspended for N seconds`.
    Timekeeping,
    /// Android's UTC wall time in `PM: suspend entry`/`exit`: the wall times' difference
    /// minus the kernel stamps' difference of the two lines.
    WallClock,
}

/// The time asleep of one cycle and where the log tells it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Asleep {
    /// Seconds asleep.
    pub seconds: f64,
    /// Where the log tells it.
    pub source: AsleepSource,
    /// The line it was read from.
    pub line: u64,
}

/// What became of an attempt, as far as the log shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutcomeState {
    /// A line of the way back shows the system came back.
    Resumed,
    /// A line abandoned the attempt before the system slept.
    Aborted,
    /// A new boot or another attempt follows without a resume line.
    DidNotResume,
    /// The log ends before any resume line.
    Suspending,
}

/// An attempt's outcome and the line that decides it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Resumed, aborted, or no resume line.
    pub state: OutcomeState,
    /// Why, in words: the abort's cause, the resume's evidence, or what follows.
    pub cause: String,
    /// The line that decides it: the one that shows the resume, the abort, or the entry.
    pub line: u64,
}

/// Why a suspend attempt was abandoned.
#[derive(Debug, Clone, PartialEq)]
pub struct Aborted {
    /// The aborting line's number.
    pub line: u64,
    /// The aborting line's place in time.
    pub event: Event,
    /// Its text.
    pub message: String,
    /// What abandoned the attempt.
    pub cause: AbortCause,
    /// The lines that tell more, in log order, at most [`ABORT_DETAILS_KEPT`]: tasks that
    /// refused to freeze, devices whose suspend callback failed, active wakeup sources.
    pub details: Vec<AbortDetail>,
}

/// How many lines of detail an aborted attempt keeps.
pub const ABORT_DETAILS_KEPT: usize = 8;

/// What abandoned a suspend attempt, as far as its lines tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum AbortCause {
    /// The freezer gave up: tasks refused to freeze.
    Freezer,
    /// A device's suspend callback failed.
    Device,
    /// A wakeup event arrived while the system went down.
    Wakeup,
    /// `Some devices failed to suspend, or early wake event detected` with nothing around
    /// it that tells which.
    DeviceOrWakeup,
    /// A hibernation image could not be made or written (`PM: Not enough free swap`).
    Image,
}

impl AbortCause {
    /// The cause in words, for the summary.
    pub fn describe(self) -> &'static str {
        match self {
            AbortCause::Freezer => "the freezer gave up: tasks refused to freeze",
            AbortCause::Device => "a device's suspend callback failed",
            AbortCause::Wakeup => "a wakeup event was pending",
            AbortCause::DeviceOrWakeup => {
                "a device failed to suspend or a wakeup event arrived (the log does not say which)"
            }
            AbortCause::Image => "the hibernation image could not be made or written",
        }
    }
}

/// One line that tells more about an aborted attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct AbortDetail {
    /// Its number.
    pub line: u64,
    /// The cause it points at.
    pub cause: AbortCause,
    /// Its text.
    pub text: String,
}

impl Cycle {
    /// `PM: suspend exit` minus `PM: suspend entry`; `None` when the log has not both.
    pub fn suspend_span_ms(&self) -> Option<f64> {
        if self.legacy_markers {
            return None;
        }
        self.exit?.ms_since(self.entry.as_ref()?)
    }

    /// On kernels without `PM: suspend entry`/`exit`: `Restarting tasks ... done.` minus
    /// `PM: Syncing filesystems`, the nearest span such a log has.
    pub fn sync_to_restart_ms(&self) -> Option<f64> {
        if !self.legacy_markers {
            return None;
        }
        self.exit?.ms_since(self.entry.as_ref()?)
    }

    /// The last `CPUn is up` of the resume (or `End enabling non-boot CPUs`).
    pub fn enable_finished(&self) -> Option<Event> {
        self.enable_end
            .or_else(|| self.cpus.iter().filter_map(|c| c.up).max_by_key(|e| e.line))
    }

    /// The last `CPUn is up` minus `Enabling non-boot CPUs ...`.
    pub fn enable_phase_ms(&self) -> Option<f64> {
        self.enable_finished()?
            .ms_since(self.enable_start.as_ref()?)
    }

    /// First `ACPI: EC: interrupt unblocked` after `Waking up from system sleep state`.
    pub fn ec_wake_to_unblock_ms(&self) -> Option<f64> {
        self.ec_unblock?.ms_since(self.wake.as_ref()?)
    }

    /// `CPUn is up` minus `Enabling non-boot CPUs ...` for one CPU.
    pub fn up_after_enable_ms(&self, cpu: &CpuBringup) -> Option<f64> {
        if cpu.stamps_step_back() {
            return None;
        }
        cpu.up?.ms_since(self.enable_start.as_ref()?)
    }

    /// Kernel time of the suspend half: entry to the last record before resume (for a
    /// hibernation, to the image's creation); `None` for an aborted attempt, which never
    /// slept.
    pub fn suspend_ms(&self) -> Option<f64> {
        if self.aborted.is_some() {
            return None;
        }
        self.last_suspend_record?.ms_since(self.entry.as_ref()?)
    }

    /// An aborted attempt: entry to the line that abandoned it.
    pub fn time_to_abort_ms(&self) -> Option<f64> {
        let aborted = self.aborted.as_ref()?;
        aborted.event.ms_since(self.entry.as_ref()?)
    }

    /// Kernel time of the resume half: `Low-level resume complete` (or the first line that
    /// shows the system back) to the exit; `None` for an aborted attempt.
    pub fn resume_ms(&self) -> Option<f64> {
        if self.aborted.is_some() {
            return None;
        }
        let start = self
            .low_level_resume
            .or_else(|| self.resume_evidence.map(|(e, _)| e))?;
        self.exit?.ms_since(&start)
    }

    /// What became of the attempt: aborted, resumed (and the line that shows it), or no
    /// resume line, with the log going on or ending there.
    pub fn outcome(&self) -> Outcome {
        if let Some(a) = &self.aborted {
            return Outcome {
                state: OutcomeState::Aborted,
                cause: a.cause.describe().to_string(),
                line: a.line,
            };
        }
        if let Some((event, evidence)) = self.resume_evidence {
            return Outcome {
                state: OutcomeState::Resumed,
                cause: format!("the log shows {}", evidence.describe()),
                line: event.line,
            };
        }
        let from = self.entry.map_or(self.first_line, |e| e.line);
        if self.open_at_end {
            Outcome {
                state: OutcomeState::Suspending,
                cause: "the log ends before any resume line".to_string(),
                line: from,
            }
        } else {
            Outcome {
                state: OutcomeState::DidNotResume,
                cause: "no resume line before the next attempt or boot".to_string(),
                line: from,
            }
        }
    }

    /// CPUs whose Booting line has no `CPUn is up`, and CPUs taken offline that never
    /// came back (when the log shows both halves).
    pub(crate) fn cpus_not_up(&self) -> Vec<u32> {
        let mut missing: Vec<u32> = self
            .cpus
            .iter()
            .filter(|c| c.up.is_none())
            .map(|c| c.cpu)
            .collect();
        if self.enable_start.is_some() && self.exit.is_some() {
            let up: std::collections::HashSet<u32> = self
                .cpus
                .iter()
                .filter(|c| c.up.is_some())
                .map(|c| c.cpu)
                .collect();
            missing.extend(self.offlined.iter().filter(|cpu| !up.contains(cpu)));
        }
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// True when a suspend attempt (its entry or its low-level resume is in the log) takes
    /// CPUs down or brings them up before its exit, but the log has no `Enabling non-boot
    /// CPUs` line for it: which CPUs came back, and how, is not shown. CPUs put online by
    /// hand after the exit, or outside any attempt, are ordinary hotplug.
    pub fn thaw_missing(&self) -> bool {
        let exit = self.exit.map_or(u64::MAX, |e| e.line);
        let attempt = self.entry.is_some() || self.low_level_resume.is_some();
        attempt
            && self.enable_start.is_none()
            && (!self.offlined.is_empty()
                || self
                    .cpus
                    .iter()
                    .filter_map(|c| c.booting.or(c.up))
                    .any(|e| e.line < exit))
    }

    /// True when the log shows the resume: the low-level resume, CPUs enabled or up, the
    /// platform's wake, or the exit of an attempt that was not aborted.
    pub fn resumed(&self) -> bool {
        self.outcome().state == OutcomeState::Resumed
    }

    /// The phase of that name, if both its ends are in the log.
    pub fn phase(&self, name: PhaseName) -> Option<&Phase> {
        self.phases.iter().find(|p| p.name == name)
    }
}
