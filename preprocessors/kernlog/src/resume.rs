//! Suspend/resume cycles: boots, phases, per-CPU bring-up, gaps.
//!
//! [`CycleTracker`] is a state machine fed one kernel [`Record`] at a time. It keeps only
//! the cycle being read plus bounded summaries, so it runs in constant memory on logs of
//! any length. Both the wording of current kernels (`PM: suspend entry (deep)` ..
//! `PM: suspend exit`) and the older one (`PM: Syncing filesystems` .. `Restarting tasks
//! ... done.`) are understood; a log excerpt that starts in the middle of a resume still
//! yields a (partial) cycle.

use serde::Serialize;

use crate::reader::{Clock, Record, Time};

/// How many of the largest gaps each cycle keeps.
pub const GAPS_KEPT: usize = 5;

/// A backwards step of the monotonic clock larger than this starts a new segment: two
/// excerpts pasted together, or a new boot.
const BACKWARDS_TOLERANCE_US: i64 = 1_000_000;

/// A marked point of the log: line number and time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    pub line: u64,
    pub time: Option<Time>,
}

impl Event {
    fn of(record: &Record) -> Self {
        Event {
            line: record.line,
            time: record.time,
        }
    }

    /// Milliseconds from `earlier` to `self`; `None` without times or across clocks.
    /// Tiny negative steps (stamps from different CPUs) count as zero.
    pub fn ms_since(&self, earlier: &Event) -> Option<f64> {
        let us = self.time?.since(earlier.time?)?;
        Some(us.max(0) as f64 / 1000.0)
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
}

/// The named spans of a cycle, in the order they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
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
    pub name: PhaseName,
    pub start: Event,
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
    /// The name the kernel uses in `PM: suspend entry (deep)`.
    pub fn name(self) -> &'static str {
        match self {
            SleepMode::Deep => "deep",
            SleepMode::S2idle => "s2idle",
            SleepMode::Shallow => "shallow",
        }
    }
}

impl Phase {
    pub fn ms(&self) -> Option<f64> {
        self.end.ms_since(&self.start)
    }
}

/// The bring-up of one secondary CPU on resume.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuBringup {
    pub cpu: u32,
    /// `0x2` as printed on the Booting line (x86 only).
    pub apic: Option<String>,
    pub booting: Option<Event>,
    pub up: Option<Event>,
}

impl CpuBringup {
    /// `CPUn is up` minus that CPU's Booting line.
    pub fn bringup_ms(&self) -> Option<f64> {
        self.up?.ms_since(self.booting.as_ref()?)
    }
}

/// An `Error taking CPU%d up: %d` line.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuFailure {
    pub cpu: u32,
    pub error: i32,
    pub line: u64,
}

/// Silence between two consecutive kernel records.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    pub from: Event,
    pub to: Event,
    pub us: i64,
}

/// One suspend/resume cycle, complete or as much of it as the log shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cycle {
    /// 0-based index of the boot (segment) the cycle belongs to.
    pub boot: usize,
    pub mode: Option<SleepMode>,
    pub first_line: u64,
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
    pub low_level_resume: Option<Event>,
    pub enable_start: Option<Event>,
    /// `End enabling non-boot CPUs` (older kernels).
    pub enable_end: Option<Event>,
    pub wake: Option<Event>,
    pub ec_unblock: Option<Event>,
    /// Last record before the resume began: the end of the suspend half.
    pub last_suspend_record: Option<Event>,
    pub phases: Vec<Phase>,
    pub cpus: Vec<CpuBringup>,
    pub offlined: Vec<u32>,
    pub failures: Vec<CpuFailure>,
    /// The largest gaps, longest first, at most [`GAPS_KEPT`].
    pub gaps: Vec<Gap>,
}

/// Why a suspend attempt was abandoned.
#[derive(Debug, Clone, PartialEq)]
pub struct Aborted {
    pub line: u64,
    pub message: String,
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
        cpu.up?.ms_since(self.enable_start.as_ref()?)
    }

    /// Kernel time of the suspend half: entry to the last record before resume.
    pub fn suspend_ms(&self) -> Option<f64> {
        self.last_suspend_record?.ms_since(self.entry.as_ref()?)
    }

    /// Kernel time of the resume half: `Low-level resume complete` to the exit; `None` for
    /// an aborted attempt.
    pub fn resume_ms(&self) -> Option<f64> {
        if self.aborted.is_some() {
            return None;
        }
        self.exit?.ms_since(self.low_level_resume.as_ref()?)
    }

    /// CPUs whose Booting line has no `CPUn is up`, and CPUs taken offline that never
    /// came back (when the log shows both halves).
    pub fn cpus_not_up(&self) -> Vec<u32> {
        let mut missing: Vec<u32> = self
            .cpus
            .iter()
            .filter(|c| c.up.is_none())
            .map(|c| c.cpu)
            .collect();
        if self.enable_start.is_some() && self.exit.is_some() {
            for cpu in &self.offlined {
                if !self.cpus.iter().any(|c| c.cpu == *cpu && c.up.is_some()) {
                    missing.push(*cpu);
                }
            }
        }
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// The phase of that name, if both its ends are in the log.
    pub fn phase(&self, name: PhaseName) -> Option<&Phase> {
        self.phases.iter().find(|p| p.name == name)
    }
}

/// What a record means to the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    BootBanner,
    SuspendEntry(Option<SleepMode>),
    OldSuspendEntry(Option<SleepMode>),
    FreezeStart,
    FreezeEnd,
    PlatformSleep(Option<SleepMode>),
    DisableCpus,
    CpuOffline(u32),
    LowLevelResume(Option<SleepMode>),
    EnableCpus,
    Booting(u32),
    CpuUp(u32),
    EnableEnd,
    CpuError(u32, i32),
    Wake(Option<SleepMode>),
    EcInterruptUnblocked,
    EcEventUnblocked,
    ThawStart,
    ThawDone,
    OldThawDone,
    SuspendExit,
    /// A device or the freezer refused: the attempt was abandoned before the system slept.
    Aborted,
}

fn classify(m: &str) -> Option<Marker> {
    use Marker::*;
    // Dispatch on the first byte: most lines of a long log start with none of these.
    match m.as_bytes().first()? {
        b'L' if m.starts_with("Linux version ") => Some(BootBanner),
        b'P' => classify_pm(m),
        b'F' if m.starts_with("Freezing") && m.contains(" failed") => Some(Aborted),
        b'F' if m.starts_with("Freezing user space processes") => Some(FreezeStart),
        b'F' if m.starts_with("Freezing remaining freezable tasks") => {
            Some(if m.contains("completed") || m.ends_with("done.") {
                FreezeEnd
            } else {
                FreezeStart
            })
        }
        b'A' => classify_acpi(m),
        b'D' if m.starts_with("Disabling non-boot CPUs") => Some(DisableCpus),
        b's' => {
            let rest = m.strip_prefix("smpboot: ")?;
            if let Some(cpu) = cpu_number_between(rest, "CPU ", " is now offline") {
                Some(CpuOffline(cpu))
            } else {
                booting_cpu(rest).map(Booting)
            }
        }
        b'C' => {
            if let Some(cpu) = cpu_number_between(m, "CPU", " is up") {
                Some(CpuUp(cpu))
            } else {
                cpu_number_between(m, "CPU ", " is now offline").map(CpuOffline)
            }
        }
        b'E' if m.starts_with("Enabling non-boot CPUs") => Some(EnableCpus),
        b'E' if m.starts_with("End enabling non-boot CPUs") => Some(EnableEnd),
        b'E' => {
            let rest = m.strip_prefix("Error taking CPU")?;
            let (cpu, err) = rest.split_once(" up: ")?;
            Some(CpuError(cpu.parse().ok()?, err.trim().parse().ok()?))
        }
        b'B' => booting_cpu(m).map(Booting),
        b'O' if m == "OOM killer enabled." => Some(ThawStart),
        b'R' if m == "Restarting tasks: Starting" => Some(ThawStart),
        b'R' if m == "Restarting tasks: Done" => Some(ThawDone),
        b'R' if m.starts_with("Restarting tasks ...") && m.ends_with("done.") => Some(OldThawDone),
        _ => None,
    }
    .or_else(|| classify_device_pm(m))
}

/// A device's own PM line (`port dw-apb-uart.3:0.0: PM: failed to suspend: error -16`,
/// `nvidia 0000:01:00.0: PM: pci_pm_suspend(): nv_pmops_suspend [nvidia] returns -5`): a
/// suspend callback that failed abandons the attempt. Failed resume callbacks do not.
fn classify_device_pm(m: &str) -> Option<Marker> {
    let (_, rest) = m.split_once(": PM: ")?;
    if rest.starts_with("failed to suspend") {
        return Some(Marker::Aborted);
    }
    let (callback, error) = rest.rsplit_once(" returns -")?;
    let failed = !error.is_empty() && error.bytes().all(|b| b.is_ascii_digit());
    (failed && callback.contains("suspend") && !callback.contains("resume"))
        .then_some(Marker::Aborted)
}

fn classify_pm(m: &str) -> Option<Marker> {
    use Marker::*;
    let rest = m.strip_prefix("PM: ")?;
    if rest.contains("failed to suspend")
        || rest.starts_with("Some devices failed to suspend")
        || (rest.contains("suspend of devices")
            && (rest.contains("failed") || rest.contains("aborted")))
    {
        Some(Aborted)
    } else if let Some(mode) = rest.strip_prefix("suspend entry") {
        Some(SuspendEntry(mode_in_parens(mode)))
    } else if rest == "suspend exit" {
        Some(SuspendExit)
    } else if rest.starts_with("Syncing filesystems") {
        Some(OldSuspendEntry(None))
    } else if let Some(what) = rest.strip_prefix("Preparing system for ") {
        // `for sleep (mem)` (4.x), `for mem sleep` (3.x).
        Some(OldSuspendEntry(
            mode_in_parens(what.trim_start_matches("sleep")).or_else(|| mode_word(what)),
        ))
    } else if let Some(what) = rest.strip_prefix("Entering ") {
        // `PM: Entering mem sleep` (3.x): the platform is about to sleep.
        mode_word(what).map(|mode| PlatformSleep(Some(mode)))
    } else if rest.starts_with("suspend-to-idle") {
        Some(PlatformSleep(Some(SleepMode::S2idle)))
    } else if rest.starts_with("resume from suspend-to-idle") {
        Some(LowLevelResume(Some(SleepMode::S2idle)))
    } else {
        None
    }
}

fn classify_acpi(m: &str) -> Option<Marker> {
    use Marker::*;
    let rest = m.strip_prefix("ACPI: ")?;
    if rest == "EC: interrupt unblocked" {
        return Some(EcInterruptUnblocked);
    }
    if rest == "EC: event unblocked" {
        return Some(EcEventUnblocked);
    }
    let rest = rest.strip_prefix("PM: ").unwrap_or(rest);
    if rest.starts_with("Low-level resume complete") {
        Some(LowLevelResume(None))
    } else if let Some(state) = rest.strip_prefix("Preparing to enter system sleep state S") {
        // S5 is power-off, printed at shutdown: no cycle of its own.
        (state.trim() != "5").then_some(PlatformSleep(acpi_state_mode(state)))
    } else {
        rest.strip_prefix("Waking up from system sleep state S")
            .map(|state| Wake(acpi_state_mode(state)))
    }
}

/// True for the messages that mark a suspend/resume step (entry, freeze, CPU bring-up,
/// wake, thaw, exit, ...): the lines a log view keeps visible.
pub fn is_marker(message: &str) -> bool {
    classify(message).is_some()
}

fn mode_in_parens(rest: &str) -> Option<SleepMode> {
    let inner = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    match inner {
        "deep" | "mem" => Some(SleepMode::Deep),
        "s2idle" | "freeze" => Some(SleepMode::S2idle),
        "shallow" | "standby" => Some(SleepMode::Shallow),
        _ => None,
    }
}

/// `mem sleep`, `freeze sleep`, `standby sleep`: the older kernels' words for the mode.
fn mode_word(rest: &str) -> Option<SleepMode> {
    mode_in_parens(&format!("({})", rest.strip_suffix(" sleep")?))
}

fn acpi_state_mode(rest: &str) -> Option<SleepMode> {
    match rest.trim() {
        "3" => Some(SleepMode::Deep),
        "1" => Some(SleepMode::Shallow),
        _ => None,
    }
}

fn cpu_number_between(m: &str, prefix: &str, suffix: &str) -> Option<u32> {
    m.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()
}

/// `smpboot: Booting Node 0 Processor 3 APIC 0x6`, `Booting Node 0 Processor 3 APIC 0x6`,
/// or the older `Booting processor 3 APIC 0x6 ip 0x...`.
fn booting_cpu(m: &str) -> Option<u32> {
    let rest = m.strip_prefix("smpboot: ").unwrap_or(m);
    let rest = rest.strip_prefix("Booting ")?;
    let after = match rest.split_once("Processor ") {
        Some((_, after)) => after,
        None => rest.strip_prefix("processor ")?,
    };
    after.split(' ').next()?.parse().ok()
}

fn booting_apic(m: &str) -> Option<String> {
    let (_, after) = m.split_once(" APIC ")?;
    let apic = after.split(' ').next()?;
    apic.starts_with("0x").then(|| apic.to_string())
}

/// Splits a stream of kernel records into boots and suspend/resume cycles.
#[derive(Debug, Default)]
pub struct CycleTracker {
    boot: usize,
    seen_records: bool,
    last_time: Option<Time>,
    last_event: Option<Event>,
    current: Option<Open>,
    done: Vec<Cycle>,
    /// A record whose stamp stepped back, held until the next stamped record shows whether
    /// the log moved to a new clock (a new boot, or another excerpt pasted after this one)
    /// or the line was only printed out of order (a CPU whose clock was not yet in step).
    held: Option<HeldRecord>,
}

/// An owned copy of the fields of a [`Record`] that the tracker reads.
#[derive(Debug)]
struct HeldRecord {
    line: u64,
    time: Time,
    resolution_us: u64,
    format: crate::record::Format,
    message: String,
}

impl HeldRecord {
    fn of(record: &Record, time: Time) -> Self {
        HeldRecord {
            line: record.line,
            time,
            resolution_us: record.resolution_us,
            format: record.format,
            message: record.message.to_string(),
        }
    }

    /// The record again, with its stamp or, for a line printed out of order, without one.
    fn record(&self, keep_time: bool) -> Record<'_> {
        Record {
            line: self.line,
            time: keep_time.then_some(self.time),
            resolution_us: self.resolution_us,
            format: self.format,
            level: None,
            caller: None,
            host: None,
            origin: crate::record::Origin::Kernel,
            message: &self.message,
            continuation: false,
        }
    }
}

#[derive(Debug)]
struct Open {
    cycle: Cycle,
    /// The newest-wording entry was seen: wait for `PM: suspend exit`.
    new_wording: bool,
    /// `Restarting tasks ... done.` ended the cycle the older way; a `PM: suspend exit`
    /// right after it still belongs to it (kernels print both when the entry is not shown).
    thawed_old_style: bool,
    resumed: bool,
    /// Gaps up to the last marker, and gaps after it (dropped if no marker follows).
    gaps: Vec<Gap>,
    pending_gaps: Vec<Gap>,
    freeze_start: Option<Event>,
    freeze_end: Option<Event>,
    platform_sleep: Option<Event>,
    disable_start: Option<Event>,
    last_offline: Option<Event>,
    ec_event: Option<Event>,
    thaw_start: Option<Event>,
    thaw_done: Option<Event>,
}

impl Open {
    fn new(boot: usize, first: &Record) -> Self {
        Open {
            cycle: Cycle {
                boot,
                first_line: first.line,
                last_line: first.line,
                ..Cycle::default()
            },
            new_wording: false,
            thawed_old_style: false,
            resumed: false,
            gaps: Vec::new(),
            pending_gaps: Vec::new(),
            freeze_start: None,
            freeze_end: None,
            platform_sleep: None,
            disable_start: None,
            last_offline: None,
            ec_event: None,
            thaw_start: None,
            thaw_done: None,
        }
    }
}

impl CycleTracker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed one record. Records from user space are ignored.
    pub fn push(&mut self, record: &Record) {
        if !record.is_kernel() {
            return;
        }
        if let Some(time) = record.time.filter(|_| !record.continuation) {
            if let Some(held) = self.held.take() {
                // Still behind the old timeline: the log moved to a new clock at the held
                // line. Back on it: the held line was only printed out of order.
                let new_clock = self.jumped_back(time);
                if new_clock {
                    self.start_new_boot();
                }
                self.process(&held.record(new_clock));
            }
            let marker = classify(record.message);
            if self.seen_records && self.jumped_back(time) && marker != Some(Marker::BootBanner) {
                self.held = Some(HeldRecord::of(record, time));
                return;
            }
        }
        self.process(record);
    }

    /// One record, once it is known which timeline it belongs to.
    fn process(&mut self, record: &Record) {
        let marker = classify(record.message);
        if !record.continuation {
            self.track_time(record, marker);
        }
        if let Some(marker) = marker {
            self.apply(marker, record);
        }
        if !record.continuation && record.time.is_some() {
            self.last_event = Some(Event::of(record));
        }
    }

    /// Close the cycle still open and return every cycle found.
    pub fn finish(mut self) -> Vec<Cycle> {
        // A held line at the very end: nothing says the clock changed, so it is a line
        // printed out of order, kept without its stamp.
        if let Some(held) = self.held.take() {
            self.process(&held.record(false));
        }
        self.close();
        self.done
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
            if let Some(us) = time.since(prev.time.unwrap_or(time)) {
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
            // A log that ends before any resume: the suspend half runs to its last record.
            if !open.resumed && open.cycle.entry.is_some() {
                open.cycle.last_suspend_record = self.last_event;
            }
            self.done.push(finish_cycle(open));
        }
    }

    fn open(&mut self, record: &Record) -> &mut Open {
        let boot = self.boot;
        self.current.get_or_insert_with(|| Open::new(boot, record))
    }

    fn apply(&mut self, marker: Marker, record: &Record) {
        use Marker::*;
        let event = Event::of(record);
        if marker != SuspendExit && self.current.as_ref().is_some_and(|o| o.thawed_old_style) {
            self.close();
        }
        // A new entry closes a cycle that already resumed or already had an entry; an
        // older-style entry (`Syncing filesystems`, `Preparing system for sleep`) is a step of
        // the same attempt until the attempt has frozen tasks or slept.
        let closes = |o: &Open| match marker {
            SuspendEntry(_) => o.resumed || o.cycle.entry.is_some(),
            OldSuspendEntry(_) => {
                o.resumed
                    || o.freeze_start.is_some()
                    || o.platform_sleep.is_some()
                    || o.cycle.aborted.is_some()
            }
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
        let open = self.open(record);
        open.cycle.last_line = record.line;
        let pending = std::mem::take(&mut open.pending_gaps);
        for gap in pending {
            keep_largest(&mut open.gaps, gap);
        }
        match marker {
            BootBanner => {}
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
                if !open.cycle.offlined.contains(&cpu) {
                    open.cycle.offlined.push(cpu);
                }
            }
            LowLevelResume(mode) => {
                begin_resume(open, last_event);
                open.cycle.mode = open.cycle.mode.or(mode);
                open.cycle.low_level_resume.get_or_insert(event);
            }
            EnableCpus => {
                begin_resume(open, last_event);
                open.cycle.enable_start.get_or_insert(event);
            }
            Booting(cpu) => {
                begin_resume(open, last_event);
                let apic = booting_apic(record.message);
                match open.cycle.cpus.iter_mut().find(|c| c.cpu == cpu) {
                    Some(c) => {
                        c.booting = Some(event);
                        c.apic = apic;
                    }
                    None => open.cycle.cpus.push(CpuBringup {
                        cpu,
                        apic,
                        booting: Some(event),
                        up: None,
                    }),
                }
            }
            CpuUp(cpu) => {
                begin_resume(open, last_event);
                match open.cycle.cpus.iter_mut().find(|c| c.cpu == cpu) {
                    Some(c) => c.up = Some(event),
                    None => open.cycle.cpus.push(CpuBringup {
                        cpu,
                        apic: None,
                        booting: None,
                        up: Some(event),
                    }),
                }
            }
            EnableEnd => open.cycle.enable_end = Some(event),
            CpuError(cpu, error) => open.cycle.failures.push(CpuFailure {
                cpu,
                error,
                line: record.line,
            }),
            Wake(mode) => {
                begin_resume(open, last_event);
                open.cycle.wake.get_or_insert(event);
                open.cycle.mode = open.cycle.mode.or(mode);
            }
            EcInterruptUnblocked => {
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
            OldThawDone => {
                open.thaw_done = Some(event);
                if !open.new_wording {
                    open.cycle.exit = Some(event);
                    open.thawed_old_style = true;
                }
            }
            SuspendExit => {
                if open.thawed_old_style {
                    // The cycle's real exit: it is not a cycle of the older kernels after all.
                    open.cycle.legacy_markers &= open.cycle.entry.is_some() && !open.new_wording;
                }
                open.cycle.exit = Some(event);
                self.close();
            }
            Aborted => {
                if open.cycle.aborted.is_none() && !open.resumed {
                    open.cycle.aborted = Some(self::Aborted {
                        line: record.line,
                        message: record.message.to_string(),
                    });
                }
            }
        }
    }
}

fn begin_resume(open: &mut Open, last: Option<Event>) {
    if !open.resumed {
        open.resumed = true;
        if open.cycle.entry.is_some() {
            open.cycle.last_suspend_record = last;
        }
    }
}

fn keep_largest(gaps: &mut Vec<Gap>, gap: Gap) {
    if gaps.len() == GAPS_KEPT && gaps.last().is_some_and(|g| g.us >= gap.us) {
        return;
    }
    let pos = gaps.partition_point(|g| g.us >= gap.us);
    gaps.insert(pos, gap);
    gaps.truncate(GAPS_KEPT);
}

fn finish_cycle(open: Open) -> Cycle {
    let mut cycle = open.cycle;
    cycle.gaps = open.gaps;
    let mut phases = Vec::new();
    let mut span = |name, start: Option<Event>, end: Option<Event>| {
        if let (Some(start), Some(end)) = (start, end)
            && end.line >= start.line
        {
            phases.push(Phase { name, start, end });
        }
    };
    span(PhaseName::Freeze, open.freeze_start, open.freeze_end);
    let sleep_entry = match (open.platform_sleep, open.disable_start) {
        (Some(a), Some(b)) => Some(if a.line < b.line { a } else { b }),
        (a, b) => a.or(b),
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
        open.ec_event.or(cycle.ec_unblock),
        open.thaw_start,
    );
    span(PhaseName::Thaw, open.thaw_start, open.thaw_done);
    cycle.phases = phases;
    cycle
        .cpus
        .sort_by_key(|c| c.booting.or(c.up).map(|e| e.line));
    cycle
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::RecordReader;

    fn cycles(text: &str) -> Vec<Cycle> {
        let mut reader = RecordReader::new(text.as_bytes());
        let mut tracker = CycleTracker::new();
        while let Some(r) = reader.next_record() {
            tracker.push(&r.unwrap());
        }
        tracker.finish()
    }

    const NEW: &str = "\
[  100.000000] PM: suspend entry (deep)
[  100.100000] Freezing user space processes
[  100.200000] Freezing remaining freezable tasks completed (elapsed 0.001 seconds)
[  101.000000] ACPI: PM: Preparing to enter system sleep state S3
[  101.100000] Disabling non-boot CPUs ...
[  101.200000] smpboot: CPU 1 is now offline
[  101.300000] ACPI: PM: Low-level resume complete
[  101.400000] Enabling non-boot CPUs ...
[  101.500000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[  103.500000] CPU1 is up
[  103.600000] ACPI: PM: Waking up from system sleep state S3
[  103.700000] ACPI: EC: interrupt unblocked
[  104.000000] ACPI: EC: event unblocked
[  105.000000] OOM killer enabled.
[  105.100000] Restarting tasks: Done
[  105.200000] PM: suspend exit
";

    #[test]
    fn a_device_suspend_callback_that_fails_aborts_a_resume_callback_does_not() {
        let failed = "\
[   10.000000] Freezing user space processes
[   10.500000] apple-drm soc:display-subsystem: PM: dpm_run_callback(): platform_pm_suspend returns -22
";
        assert_eq!(cycles(failed)[0].aborted.as_ref().map(|a| a.line), Some(2));
        let resume_error = "\
[   10.000000] Freezing user space processes
[   10.100000] Disabling non-boot CPUs ...
[   20.000000] Enabling non-boot CPUs ...
[   20.500000] nvme 0000:01:00.0: PM: pci_pm_resume+0x0/0xe0 returns -5
[   20.600000] port serial8250: PM: failed to suspend: error -16
";
        assert!(cycles(resume_error)[0].aborted.is_none());
        assert_eq!(classify_device_pm("x: PM: cb suspend returns -"), None);
        assert_eq!(
            classify_device_pm("x: PM: cb suspend returns -5 then"),
            None
        );
    }

    #[test]
    fn older_entry_lines_of_one_attempt_make_one_cycle_with_its_mode() {
        let log = "\
[   10.000000] PM: Syncing filesystems ... done.
[   10.100000] PM: Preparing system for sleep (mem)
[   10.200000] Freezing user space processes ... (elapsed 0.001 seconds) done.
[   12.000000] Restarting tasks ... done.
[   20.000000] PM: Syncing filesystems ... done.
[   20.100000] PM: Preparing system for mem sleep
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 2, "{cs:#?}");
        assert_eq!(cs[0].mode, Some(SleepMode::Deep));
        assert_eq!(cs[0].sync_to_restart_ms(), Some(2000.0));
        assert_eq!(cs[1].mode, Some(SleepMode::Deep));
        let debug =
            "[1.0] PM: suspend entry (s2idle)\n[1.1] PM: Preparing system for sleep (s2idle)\n";
        assert_eq!(cycles(debug).len(), 1);
    }

    #[test]
    fn suspend_exit_after_old_style_thaw_ends_the_same_cycle() {
        let log = "\
[   10.000000] Enabling non-boot CPUs ...
[   10.050000] CPU1 is up
[   10.300000] Restarting tasks ... done.
[   10.400000] PM: suspend exit
[   30.000000] PM: suspend entry (s2idle)
[   40.000000] PM: resume from suspend-to-idle
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 2, "{cs:#?}");
        assert_eq!(cs[0].exit.map(|e| e.line), Some(4));
        assert!(!cs[0].legacy_markers);
        assert_eq!(cs[1].mode, Some(SleepMode::S2idle));
    }

    #[test]
    fn new_wording_cycle() {
        let c = &cycles(NEW)[0];
        assert_eq!(c.mode, Some(SleepMode::Deep));
        assert_eq!(c.suspend_span_ms(), Some(5200.0));
        assert_eq!(c.enable_phase_ms(), Some(2100.0));
        assert_eq!(c.ec_wake_to_unblock_ms(), Some(100.0));
        assert_eq!(c.cpus[0].bringup_ms(), Some(2000.0));
        assert_eq!(c.cpus[0].apic.as_deref(), Some("0x2"));
        assert_eq!(c.suspend_ms(), Some(1200.0));
        assert_eq!(c.resume_ms(), Some(3900.0));
        let names: Vec<_> = c.phases.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                PhaseName::Freeze,
                PhaseName::DeviceSuspend,
                PhaseName::DisableCpus,
                PhaseName::LowLevelResume,
                PhaseName::EnableCpus,
                PhaseName::PlatformWake,
                PhaseName::EcUnblock,
                PhaseName::DeviceResume,
                PhaseName::Thaw,
            ]
        );
        assert_eq!(c.gaps[0].us, 2_000_000);
        assert_eq!(c.gaps[0].to.line, 10);
        assert!(c.cpus_not_up().is_empty());
    }

    #[test]
    fn old_wording_cycles_and_a_cpu_that_failed() {
        let log = "\
[   10.000000] PM: Syncing filesystems ... done.
[   10.100000] Freezing user space processes ... (elapsed 0.001 seconds) done.
[   10.200000] Disabling non-boot CPUs ...
[   10.300000] CPU 1 is now offline
[   10.400000] CPU 2 is now offline
[   10.500000] ACPI: Low-level resume complete
[   10.600000] Enabling non-boot CPUs ...
[   10.700000] Booting processor 1 APIC 0x1 ip 0x6000
[   10.800000] CPU1 is up
[   10.900000] Booting processor 2 APIC 0x2 ip 0x6000
[   11.900000] Error taking CPU2 up: -5
[   12.000000] Restarting tasks ... done.
[   20.000000] PM: Syncing filesystems ... done.
[   21.000000] Restarting tasks ... done.
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 2);
        // No `PM: suspend entry`/`exit`: no suspend span, but the older markers' span.
        assert_eq!(cs[0].suspend_span_ms(), None);
        assert_eq!(cs[0].sync_to_restart_ms(), Some(2000.0));
        assert_eq!(cs[0].cpus_not_up(), [2]);
        assert_eq!(cs[0].failures[0].error, -5);
        assert_eq!(cs[0].cpus[0].bringup_ms(), Some(100.0));
        assert_eq!(cs[1].sync_to_restart_ms(), Some(1000.0));
    }

    #[test]
    fn a_log_that_stays_on_the_earlier_clock_starts_a_new_boot() {
        let log = "\
[  500.000000] Enabling non-boot CPUs ...
[  500.100000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[    1.000000] Enabling non-boot CPUs ...
[    1.100000] CPU1 is up
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[1].boot, 1);
        assert_eq!(cs[0].cpus_not_up(), [1]);
        assert_eq!(cs[1].enable_start.map(|e| e.line), Some(3));
        assert!(cs.iter().all(|c| c.gaps.iter().all(|g| g.us >= 0)));
    }

    #[test]
    fn a_line_stamped_out_of_order_keeps_the_resume_whole() {
        // A secondary CPU prints with its clock not yet in step: the stamp falls back near
        // zero for one line and the timeline goes on. One resume, every CPU up, bring-up
        // times from the good stamps; the stray line's stamp is dropped.
        let log = "\
[  500.000000] Enabling non-boot CPUs ...
[  500.100000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[    0.008000] Calibrating delay loop (skipped) already calibrated this CPU
[  500.150000] CPU1 is up
[  500.200000] smpboot: Booting Node 0 Processor 2 APIC 0x4
[  500.260000] CPU2 is up
[    0.009000] CPU3 is up
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 1, "{cs:#?}");
        let c = &cs[0];
        assert_eq!(c.boot, 0);
        assert_eq!(c.cpus[0].bringup_ms(), Some(50.0));
        assert_eq!(c.cpus[1].bringup_ms(), Some(60.0));
        // The last line, out of order at the end of the log: CPU3 came up, time unknown.
        assert!(c.cpus_not_up().is_empty());
        assert_eq!(c.cpus[2].up.and_then(|e| e.time), None);
        assert!(c.gaps.iter().all(|g| g.us >= 0));
    }

    #[test]
    fn arm_style_resume_without_booting_lines() {
        let log = "\
[   50.000000] Enabling non-boot CPUs ...
[   50.010000] Detected PIPT I-cache on CPU1
[   50.020000] CPU1 is up
[   50.040000] CPU2 is up
";
        let c = &cycles(log)[0];
        assert_eq!(c.cpus.len(), 2);
        assert_eq!(c.cpus[0].bringup_ms(), None);
        assert_eq!(c.up_after_enable_ms(&c.cpus[1]), Some(40.0));
        assert_eq!(c.enable_phase_ms(), Some(40.0));
    }

    #[test]
    fn two_resume_excerpts_make_two_cycles() {
        let log = "\
[   10.000000] ACPI: PM: Low-level resume complete
[   10.100000] Enabling non-boot CPUs ...
[   10.200000] CPU1 is up
[   20.000000] ACPI: PM: Low-level resume complete
[   20.100000] Enabling non-boot CPUs ...
[   20.400000] CPU1 is up
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0].enable_phase_ms(), Some(100.0));
        assert_eq!(cs[1].enable_phase_ms(), Some(300.0));
    }

    #[test]
    fn s2idle_mode() {
        let log = "\
[   1.000000] PM: suspend entry (s2idle)
[   2.000000] PM: suspend-to-idle
[   9.000000] PM: resume from suspend-to-idle
[  10.000000] PM: suspend exit
";
        let c = &cycles(log)[0];
        assert_eq!(c.mode, Some(SleepMode::S2idle));
        assert_eq!(c.suspend_span_ms(), Some(9000.0));
    }

    #[test]
    fn power_off_is_not_a_cycle() {
        let log = "\
[   10.000000] PM: suspend entry (deep)
[   10.100000] ACPI: PM: Preparing to enter system sleep state S3
[   10.200000] ACPI: PM: Low-level resume complete
[   10.300000] PM: suspend exit
[   16.403976] ACPI: PM: Preparing to enter system sleep state S5
[   16.405806] reboot: Power down
";
        assert_eq!(cycles(log).len(), 1);
    }

    #[test]
    fn an_aborted_attempt_is_no_resume_and_later_cycles_are_unaffected() {
        let log = "\
[  100.000000] PM: suspend entry (deep)
[  100.100000] PM: Device 0000:00:14.0 failed to suspend async: error -16
[  100.200000] PM: Some devices failed to suspend, or early wake event detected
[  100.300000] PM: suspend exit
[  200.000000] PM: suspend entry (deep)
[  200.500000] ACPI: PM: Low-level resume complete
[  200.600000] Enabling non-boot CPUs ...
[  200.610000] CPU1 is up
[  201.000000] PM: suspend exit
";
        let cs = cycles(log);
        assert_eq!(cs.len(), 2);
        let aborted = cs[0].aborted.as_ref().expect("first attempt aborted");
        assert_eq!(aborted.line, 2);
        assert_eq!(cs[0].resume_ms(), None);
        assert!(cs[1].aborted.is_none());
        assert_eq!(cs[1].resume_ms(), Some(500.0));
        assert_eq!(cs[1].enable_phase_ms(), Some(10.0));
    }
}
