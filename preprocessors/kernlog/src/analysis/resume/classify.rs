//! What one kernel message means to the cycle tracker: entry, freeze, CPUs going down and
//! up, wake, thaw, exit, or a failure that abandons the attempt. Pure functions of the text.

use std::sync::LazyLock;

use memchr::memmem;

use super::model::{AbortCause, SleepMode};
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
}

pub(super) fn classify(m: &str) -> Option<Marker> {
    use Marker::*;
    // Dispatch on the first byte: most lines of a long log start with none of these.
    match m.as_bytes().first()? {
        b'L' if m.starts_with("Linux version ") => Some(BootBanner),
        b'P' => classify_pm(m),
        // `Freezing of tasks failed after 20.003 seconds`; `... aborted after 0.000 seconds`
        // when a wakeup event arrives while tasks freeze (Android kernels).
        b'F' if m.starts_with("Freezing") && (m.contains(" failed") || m.contains(" aborted")) => {
            Some(Aborted)
        }
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
pub(super) fn classify_device_pm(m: &str) -> Option<Marker> {
    // Every line that is no marker comes here: first the cheap test that it ends with an
    // error number (` -16`), then one precompiled search.
    let digits = m.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !m[..m.len() - digits].ends_with(" -") {
        return None;
    }
    static DEVICE_PM: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b": PM: "));
    let at = DEVICE_PM.find(m.as_bytes())?;
    let rest = &m[at + ": PM: ".len()..];
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

/// What a line tells of why an attempt aborts: a task the freezer could not freeze
/// (`task:fuse state:D ...`), a device's failed suspend callback, an active wakeup source or
/// a pending wakeup (`PM: Wakeup pending, aborting suspend`, `PM: last active wakeup source:
/// ...`). The aborting line itself names its own cause.
pub(super) fn abort_cause(m: &str) -> Option<AbortCause> {
    // Most lines start with none of these bytes: only the cheap device test runs on them.
    match m.as_bytes().first()? {
        b't' if m.starts_with("task:") && m.contains(" state:") => Some(AbortCause::Freezer),
        b'F' if m.starts_with("Freezing") && m.contains(" aborted") => Some(AbortCause::Wakeup),
        b'F' if m.starts_with("Freezing") && m.contains(" failed") => Some(AbortCause::Freezer),
        b'P' if m.starts_with("PM: Wakeup pending") || m.contains("wakeup source") => {
            Some(AbortCause::Wakeup)
        }
        b'P' if m.starts_with("PM: Device ") && m.contains("failed to suspend")
            || m.starts_with("PM: dpm_run_callback()") && m.contains(" returns -") =>
        {
            Some(AbortCause::Device)
        }
        b'P' => None,
        _ => classify_device_pm(m).map(|_| AbortCause::Device),
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
    } else if rest.starts_with("Preallocating image memory")
        || rest.starts_with("Creating hibernation image")
        || rest.starts_with("Creating image")
    {
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
