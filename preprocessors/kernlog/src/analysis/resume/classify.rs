//! What one kernel message means to the cycle tracker: entry, freeze, CPUs going down and
//! up, wake, thaw, exit, or a failure that abandons the attempt. Pure functions of the text.

use std::sync::LazyLock;

use memchr::memmem;

use super::kernel_pm::{PmFailure, pm_failure};
use super::model::{AbortCause, ResumeEvidence, SleepMode};
use crate::parse::reader::unix_seconds;
use crate::parse::record::parse_utc_time;
/// What a record means to the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Marker {
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
    /// A line only a hibernation prints (image memory, image creation): the attempt is one.
    Hibernation,
    /// A device or the freezer refused: the attempt was abandoned before the system slept.
    Aborted,
    /// A device failed a step of the resume (`failed to resume async: error -110`).
    DeviceFailed,
    /// `PM: Entering mem sleep` (3.x): the mode, printed before the devices suspend.
    ModeOnly(Option<SleepMode>),
    /// `Restarting tasks ...` without its `done.`, which older kernels print apart.
    SplitThawStart,
    /// `done.` on a record of its own: the end of a split line.
    Done,
    /// A line only the way back prints.
    Resume(ResumeEvidence),
    /// `PM: noirq suspend of devices complete after N msecs`: the last step down.
    NoirqSuspended,
    /// `PM: Creating hibernation image`: a hibernation's suspend half ends here.
    HibernationImage,
    /// Android's `PM: PM: suspend entry 2020-06-07 16:27:41.246277668 UTC` (the wall time
    /// of an entry printed apart from it) and the same for the exit.
    WallEntry,
    WallExit,
}

pub(super) fn classify(m: &str) -> Option<Marker> {
    use Marker::*;
    // Dispatch on the first byte: most lines of a long log start with none of these.
    match m.as_bytes().first()? {
        b'L' if m.starts_with("Linux version ") => Some(BootBanner),
        b'P' => classify_pm(m),
        // `Freezing of tasks failed after 20.003 seconds`; `... aborted after 0.000 seconds`
        // when a wakeup event arrives while tasks freeze (Android kernels).
        b'F' if pm_failure(None, m).is_some() => Some(Aborted),
        b'F' if m.starts_with("Freezing user space processes") => Some(FreezeStart),
        b'F' if m.starts_with("Freezing remaining freezable tasks") => {
            // The elapsed time is printed only once the freeze is done; the `done.` after it
            // may be wrapped onto the next line or cut off.
            Some(
                if m.contains("completed") || m.ends_with("done.") || m.contains("(elapsed ") {
                    FreezeEnd
                } else {
                    FreezeStart
                },
            )
        }
        b'A' => classify_acpi(m),
        b'D' if m.starts_with("Disabling non-boot CPUs") => Some(DisableCpus),
        b's' if m.starts_with("suspend: exit suspend, ret = ") => {
            if pm_failure(None, m).is_some() {
                Some(Aborted)
            } else {
                android_exit_wall(m).map(|_| Resume(ResumeEvidence::AndroidExit))
            }
        }
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
        // Older kernels print the `done.` apart when another line comes between, and another
        // driver's text may join the open line (`Restarting tasks ... mmc0: ...`).
        b'R' if m.starts_with("Restarting tasks ...") => Some(SplitThawStart),
        b'd' if m == "done." => Some(Done),
        b'S' => suspended_for(m).map(|_| Resume(ResumeEvidence::Timekeeping)),
        _ => None,
    }
    .or_else(|| classify_device_pm(m))
}

/// `Suspended for 2.580 seconds` (3.x) and `PM: Timekeeping suspended for 12.178 seconds`:
/// the seconds the timekeeping was suspended, printed on the way back.
pub(super) fn suspended_for(m: &str) -> Option<f64> {
    let rest = m
        .strip_prefix("Suspended for ")
        .or_else(|| m.strip_prefix("PM: Timekeeping suspended for "))?;
    let number = rest.strip_suffix(" seconds")?;
    let (int, frac) = number.split_once('.')?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 12 && t.bytes().all(|b| b.is_ascii_digit());
    (digits(int) && digits(frac)).then(|| number.parse().ok())?
}

/// The UTC wall time of an Android exit line, `suspend: exit suspend, ret = 0 (2012-09-17
/// 08:09:34.164855730 UTC)`, as seconds since the epoch.
pub(super) fn android_exit_wall(m: &str) -> Option<f64> {
    let when = m
        .strip_prefix("suspend: exit suspend, ret = 0 (")?
        .strip_suffix(')')?;
    utc_seconds(when)
}

/// `2016-03-01 16:26:05.961222028 UTC` as seconds since the epoch; `None` unless the text
/// is exactly that (the form Android kernels print).
pub(super) fn utc_seconds(text: &str) -> Option<f64> {
    parse_utc_time(text).map(|wall| unix_seconds(&wall))
}

/// A device's own PM line (`port dw-apb-uart.3:0.0: PM: failed to suspend: error -16`,
/// `nvidia 0000:01:00.0: PM: pci_pm_suspend(): nv_pmops_suspend [nvidia] returns -5`): a
/// suspend callback that failed abandons the attempt. Failed resume callbacks do not.
pub(super) fn classify_device_pm(m: &str) -> Option<Marker> {
    // Every line that is no marker comes here: first the cheap test that it ends with an
    // error number (` -16`), then one precompiled search.
    let digits = m.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !m[..m.len() - digits].ends_with(" -") {
        return None;
    }
    static RETURNS: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"(): "));
    static FAILED: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b" failed to "));
    let bytes = m.as_bytes();
    if RETURNS.find(bytes).is_none() && FAILED.find(bytes).is_none() {
        return None;
    }
    device_marker(pm_failure(None, m)?)
}

fn device_marker(failure: PmFailure) -> Option<Marker> {
    Some(if failure.aborts() {
        Marker::Aborted
    } else {
        Marker::DeviceFailed
    })
}

fn classify_pm(m: &str) -> Option<Marker> {
    use Marker::*;
    let rest = m.strip_prefix("PM: ")?;
    if let Some(failure) = pm_failure(None, m) {
        device_marker(failure)
    } else if let Some(hibernation) = classify_hibernation(rest) {
        Some(hibernation)
    } else if let Some(mode) = rest.strip_prefix("suspend entry") {
        Some(SuspendEntry(mode_in_parens(mode)))
    } else if rest == "suspend exit" || rest.starts_with("suspend exit ") {
        // Android kernels add the wall time: `PM: suspend exit 2016-03-01 16:26:05.96 UTC`.
        Some(SuspendExit)
    } else if rest.starts_with("Syncing filesystems") {
        Some(OldSuspendEntry(None))
    } else if let Some(what) = rest.strip_prefix("Preparing system for ") {
        // `for sleep (mem)` (4.x), `for mem sleep` (3.x).
        Some(OldSuspendEntry(
            mode_in_parens(what.trim_start_matches("sleep")).or_else(|| mode_word(what)),
        ))
    } else if let Some(what) = rest.strip_prefix("Entering ") {
        // `PM: Entering mem sleep` (3.x): printed before the devices suspend, so it names
        // the mode and no step.
        mode_word(what).map(|mode| ModeOnly(Some(mode)))
    } else if let Some(wall) = rest.strip_prefix("PM: suspend ") {
        // Android: `PM: PM: suspend entry 2020-06-07 16:27:41.246277668 UTC`.
        match wall.split_once(' ') {
            Some(("entry", when)) if utc_seconds(when).is_some() => Some(WallEntry),
            Some(("exit", when)) if utc_seconds(when).is_some() => Some(WallExit),
            _ => None,
        }
    } else if rest == "Restoring platform NVS memory" {
        Some(Resume(ResumeEvidence::NvsRestored))
    } else if rest == "Finishing wakeup." || devices_step(rest, "resume") {
        Some(Resume(ResumeEvidence::DevicesResumed))
    } else if devices_step(rest, "noirq suspend") {
        Some(NoirqSuspended)
    } else if rest.starts_with("Timekeeping suspended for ") {
        suspended_for(m).map(|_| Resume(ResumeEvidence::Timekeeping))
    } else if rest.starts_with("suspend-to-idle") {
        Some(PlatformSleep(Some(SleepMode::S2idle)))
    } else if rest.starts_with("resume from suspend-to-idle") {
        Some(LowLevelResume(Some(SleepMode::S2idle)))
    } else {
        None
    }
}

/// `noirq resume of devices complete after 61.589 msecs` for `step` `noirq resume` (and
/// `resume`, `early resume` for `resume`): one step of the devices, finished.
fn devices_step(rest: &str, step: &str) -> bool {
    let steps: &[&str] = if step == "resume" {
        &["resume", "noirq resume", "early resume"]
    } else {
        &[step]
    };
    steps.iter().any(|s| {
        rest.strip_prefix(s)
            .and_then(|r| r.strip_prefix(" of devices complete after "))
            .and_then(|r| r.strip_suffix(" msecs"))
            .is_some_and(|n| {
                let (int, frac) = n.split_once('.').unwrap_or((n, "0"));
                !int.is_empty()
                    && !frac.is_empty()
                    && int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
            })
    })
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
    if rest == "Restoring platform NVS memory" {
        return Some(Resume(ResumeEvidence::NvsRestored));
    }
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

/// What a line tells of why an attempt aborts: a task the freezer could not freeze
/// (`task:fuse state:D ...`), a device's failed suspend callback, an active wakeup source or
/// a pending wakeup (`PM: Wakeup pending, aborting suspend`, `PM: last active wakeup source:
/// ...`). The aborting line itself names its own cause.
pub(super) fn abort_cause(m: &str) -> Option<AbortCause> {
    // Most lines start with none of these bytes: only the cheap device test runs on them.
    match m.as_bytes().first()? {
        b't' if m.starts_with("task:") && m.contains(" state:") => Some(AbortCause::Freezer),
        b'P' | b'A'
            if [
                "PM: last active wakeup source: ",
                "PM: active wakeup source: ",
                "Abort: Pending Wakeup Sources: ",
            ]
            .iter()
            .any(|start| m.starts_with(start)) =>
        {
            Some(AbortCause::Wakeup)
        }
        // The generic line (`Some devices failed to suspend, or early wake event detected`)
        // tells no cause of its own.
        b'F' | b'P' | b's' => pm_failure(None, m)
            .and_then(|f| f.abort_cause())
            .filter(|c| *c != AbortCause::DeviceOrWakeup),
        _ => classify_device_pm(m)
            .filter(|marker| *marker == Marker::Aborted)
            .map(|_| AbortCause::Device),
    }
}

/// True for a line only a boot prints near its start (the command line, the firmware's
/// memory map, arm's first line): with a stamp reset, it shows a new boot even where the
/// `Linux version` banner was not captured.
pub(super) fn is_boot_line(m: &str) -> bool {
    [
        "Command line: ",
        "Kernel command line: ",
        "BIOS-provided physical RAM map",
        "Booting Linux on physical CPU",
    ]
    .iter()
    .any(|start| m.starts_with(start))
}

impl Marker {
    /// Markers a CPU's bring-up prints: on a line stamped far back they may be the CPU's
    /// clock not yet in step; every other marker there starts or moves a cycle on a new clock.
    pub(super) fn of_bringup(self) -> bool {
        matches!(
            self,
            Marker::Booting(_) | Marker::CpuUp(_) | Marker::CpuError(..) | Marker::EnableEnd
        )
    }
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

/// Hibernation's own `PM:` lines: `Hibernation mode set to 'platform'` and (5.x on)
/// `hibernation: hibernation entry` begin one, `hibernation: hibernation exit` ends it, and
/// the image lines (`Preallocating image memory`, `Creating hibernation image`) mark the
/// attempt under way as a hibernation.
fn classify_hibernation(rest: &str) -> Option<Marker> {
    use Marker::*;
    let hibernate = Some(SleepMode::Hibernate);
    let rest = rest.strip_prefix("hibernation: ").unwrap_or(rest);
    if rest.starts_with("Hibernation mode set to") {
        Some(OldSuspendEntry(hibernate))
    } else if rest.starts_with("hibernation entry") {
        Some(SuspendEntry(hibernate))
    } else if rest.starts_with("hibernation exit") {
        Some(SuspendExit)
    } else if rest.starts_with("Creating hibernation image") || rest.starts_with("Creating image") {
        Some(HibernationImage)
    } else if rest.starts_with("Preallocating image memory") {
        Some(Hibernation)
    } else {
        None
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

pub(super) fn booting_apic(m: &str) -> Option<String> {
    let (_, after) = m.split_once(" APIC ")?;
    let apic = after.split(' ').next()?;
    apic.starts_with("0x").then(|| apic.to_string())
}
