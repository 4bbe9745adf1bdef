//! The kernel's own words for a suspend that failed: an attempt abandoned (the freezer gave
//! up, a wakeup was pending, devices failed to suspend, a hibernation image could not be
//! made or written) and a device whose callback failed at one step.
//!
//! Other text reaches the kernel's log too: a task's name (its `comm`, at most 15
//! characters) leads the kernel's segfault line (`PM: fail[4242]: segfault at 0 ...`), and
//! root can write any line to `/dev/kmsg`. So a message counts only when the whole of it has
//! the kernel's form: a fixed start longer than a task's name, the kernel's own words in
//! place, and the error number at the very end where the form puts one; and, when the
//! record carries its facility, only when that facility is the kernel's (0).

use super::model::AbortCause;

/// What one kernel message says of a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PmFailure {
    /// The attempt is abandoned before the system slept.
    Abort(AbortCause),
    /// A device's callback failed at one step (`suspend async`, `resume`, `thaw`, ...); a
    /// failed suspend-side step also abandons the attempt.
    Device(FailedDevice),
}

/// A device that failed one step of a suspend or resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailedDevice {
    /// The device as the kernel names it (`0000:00:01.3`, `nouveau 0000:01:00.0`).
    pub device: String,
    /// The step as the kernel names it: `suspend async`, `resume`, `thaw`, ...
    pub step: String,
    /// The error number (`-16`).
    pub error: i32,
}

impl FailedDevice {
    /// True for a step of the way down (suspend, freeze, quiesce, poweroff, prepare): its
    /// failure abandons the attempt.
    pub fn suspending(&self) -> bool {
        [
            "suspend",
            "freeze",
            "quiesce",
            "poweroff",
            "prepare",
            "hibernate",
        ]
        .iter()
        .any(|s| self.step.starts_with(s))
    }
}

impl PmFailure {
    /// True when the failure abandons the attempt.
    pub(crate) fn aborts(&self) -> bool {
        match self {
            PmFailure::Abort(_) => true,
            PmFailure::Device(d) => d.suspending(),
        }
    }

    /// Why the attempt is abandoned, when it is.
    pub(crate) fn abort_cause(&self) -> Option<AbortCause> {
        match self {
            PmFailure::Abort(cause) => Some(*cause),
            PmFailure::Device(d) => d.suspending().then_some(AbortCause::Device),
        }
    }
}

/// What one record's message says of a failed suspend or resume, when the message has the
/// kernel's form; `facility` is the record's syslog facility when the record carries one
/// (`/dev/kmsg`'s `prio >> 3`), and any but the kernel's (0) is no kernel message.
pub(crate) fn pm_failure(facility: Option<u8>, message: &str) -> Option<PmFailure> {
    if facility.is_some_and(|f| f != 0) {
        return None;
    }
    let m = message.trim_end();
    match m.as_bytes().first()? {
        b'F' => freezer(m).map(PmFailure::Abort),
        b'P' => pm_line(m).or_else(|| device_line(m)),
        b's' if m.starts_with("suspend: exit suspend, ret = ") => android_exit(m),
        _ => device_line(m),
    }
}

/// `Freezing of tasks failed after 20.003 seconds (...)`, `Freezing user space processes
/// aborted after 0.004 seconds (...)`, the older `Freezing of tasks aborted`.
fn freezer(m: &str) -> Option<AbortCause> {
    let rest = [
        "Freezing of tasks ",
        "Freezing user space processes ",
        "Freezing remaining freezable tasks ",
        "Freezing of user space ",
    ]
    .iter()
    .find_map(|start| m.strip_prefix(start))?;
    // 2.6 kernels print two spaces: `Freezing of user space  aborted`.
    let rest = rest.trim_start_matches(' ');
    let (cause, after) = if let Some(after) = rest.strip_prefix("failed") {
        (AbortCause::Freezer, after)
    } else {
        (AbortCause::Wakeup, rest.strip_prefix("aborted")?)
    };
    if after.is_empty() {
        return Some(cause);
    }
    let seconds = after.strip_prefix(" after ")?;
    let (number, tail) = seconds.split_once(' ')?;
    (is_decimal(number) && tail.starts_with("seconds")).then_some(cause)
}

/// Lines of the PM core that start `PM: `.
fn pm_line(m: &str) -> Option<PmFailure> {
    let rest = m.strip_prefix("PM: ")?;
    let rest = rest.strip_prefix("hibernation: ").unwrap_or(rest);
    let abort = |cause| Some(PmFailure::Abort(cause));
    match rest {
        "Some devices failed to suspend"
        | "Some devices failed to suspend, or early wake event detected"
        | "Some devices failed to power down" => return abort(AbortCause::DeviceOrWakeup),
        "Wakeup pending, aborting suspend" => return abort(AbortCause::Wakeup),
        "Not enough free swap"
        | "Cannot get swap writer"
        | "Cannot find swap device, try swapon -a" => {
            return abort(AbortCause::Image);
        }
        _ => {}
    }
    for phase in ["", "late ", "noirq ", "early "] {
        if let Some(after) = rest
            .strip_prefix(phase)
            .and_then(|r| r.strip_prefix("suspend of devices "))
        {
            if after == "failed" {
                return abort(AbortCause::DeviceOrWakeup);
            }
            let msecs = after
                .strip_prefix("aborted after ")?
                .strip_suffix(" msecs")?;
            return is_decimal(msecs).then_some(PmFailure::Abort(AbortCause::DeviceOrWakeup));
        }
    }
    // `PM: Error -12 creating hibernation image` (older: `creating image`).
    let image_error = rest
        .strip_prefix("Error ")
        .and_then(|after| after.split_once(' '))
        .filter(|(number, what)| {
            error_number(number).is_some()
                && (*what == "creating hibernation image" || *what == "creating image")
        });
    if image_error.is_some() {
        return abort(AbortCause::Image);
    }
    // `PM: Device 0000:00:01.3 failed to suspend async: error -16` (before 5.x).
    let (device, step) = rest.strip_prefix("Device ")?.split_once(" failed to ")?;
    failed_step(device, step)
}

/// `nouveau 0000:01:00.0: PM: failed to resume async: error -110` (5.x on), and a failed
/// suspend callback, `nvidia 0000:01:00.0: PM: pci_pm_suspend(): nv_pmops_suspend [nvidia]
/// returns -5` or `PM: dpm_run_callback(): pci_pm_suspend returns -5`, which abandons the
/// attempt (the `failed to` line after it names the device). Callback lines without `PM: `
/// (3.x) and failed resume callbacks only echo the `failed to` line.
fn device_line(m: &str) -> Option<PmFailure> {
    // Every message comes here: a cheap test first, the error number at the end.
    if !m.as_bytes().last()?.is_ascii_digit() {
        return None;
    }
    let failed = m
        .split_once(": PM: ")
        .filter(|(device, _)| device_name(device, 2))
        .and_then(|(device, rest)| Some((device, rest.strip_prefix("failed to ")?)));
    if let Some((device, step)) = failed {
        return failed_step(device, step);
    }
    let rest = match m.split_once(": PM: ") {
        Some((device, rest)) if device_name(device, 2) => rest,
        _ => m.strip_prefix("PM: ")?,
    };
    let (function, rest) = rest.split_once("(): ")?;
    let (callback, error) = rest.rsplit_once(" returns ")?;
    let error = error_number(error)?;
    let symbol = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'/' | b'.'))
    };
    let module_ok = |s: &str| match s.split_once(' ') {
        None => symbol(s),
        Some((name, module)) => {
            symbol(name)
                && module
                    .strip_prefix('[')
                    .and_then(|m| m.strip_suffix(']'))
                    .is_some_and(symbol)
        }
    };
    if !symbol(function) || !module_ok(callback) || error >= 0 {
        return None;
    }
    let resume = callback.contains("resume") || function.contains("resume");
    let suspend = callback.contains("suspend") || function.contains("suspend");
    (suspend && !resume).then_some(PmFailure::Abort(AbortCause::Device))
}

/// `suspend: exit suspend, ret = -16 (2012-09-17 08:09:34.164855730 UTC)`: an Android
/// kernel's end of an attempt that failed (`ret = 0` is a resume, not a failure).
fn android_exit(m: &str) -> Option<PmFailure> {
    let rest = m.strip_prefix("suspend: exit suspend, ret = ")?;
    let (ret, when) = rest.split_once(' ')?;
    let ret = error_number(ret)?;
    let ok_time = when.starts_with('(') && when.ends_with(" UTC)");
    (ret < 0 && ok_time).then_some(PmFailure::Abort(AbortCause::DeviceOrWakeup))
}

/// `suspend async: error -16` after `failed to `, for `device`.
fn failed_step(device: &str, step: &str) -> Option<PmFailure> {
    let (step, error) = step.split_once(": error ")?;
    let error = error_number(error)?;
    let words_ok = !step.is_empty()
        && step.len() <= 24
        && step.bytes().all(|b| b.is_ascii_lowercase() || b == b' ');
    (words_ok && device_name(device, 2) && error < 0).then(|| {
        PmFailure::Device(FailedDevice {
            device: device.to_string(),
            step: step.to_string(),
            error,
        })
    })
}

/// A device as the kernel names it: up to `words` words (driver and bus id), none empty,
/// none with a bracket, colon-space or parenthesis (the marks a task's name is followed by).
fn device_name(name: &str, words: usize) -> bool {
    let parts: Vec<&str> = name.split(' ').collect();
    !name.is_empty()
        && name.len() <= 96
        && parts.len() <= words
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_graphic() && !matches!(b, b'[' | b']' | b'(' | b')' | b'"'))
        })
}

/// `-16`, `0`: a decimal error number that fits an `i32`.
fn error_number(text: &str) -> Option<i32> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || digits.len() > 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `20.003`, `5`: digits with at most one point.
fn is_decimal(text: &str) -> bool {
    let (int, frac) = text.split_once('.').unwrap_or((text, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(m: &str) -> FailedDevice {
        match pm_failure(None, m) {
            Some(PmFailure::Device(d)) => d,
            other => panic!("{m}: {other:?}"),
        }
    }

    #[test]
    fn the_kernels_abort_lines_count() {
        for (m, cause) in [
            (
                "PM: Some devices failed to suspend, or early wake event detected",
                AbortCause::DeviceOrWakeup,
            ),
            (
                "PM: Some devices failed to suspend",
                AbortCause::DeviceOrWakeup,
            ),
            ("PM: Wakeup pending, aborting suspend", AbortCause::Wakeup),
            (
                "PM: noirq suspend of devices failed",
                AbortCause::DeviceOrWakeup,
            ),
            (
                "PM: suspend of devices aborted after 5.016 msecs",
                AbortCause::DeviceOrWakeup,
            ),
            (
                "Freezing of tasks failed after 20.003 seconds (1 tasks refusing to freeze, wq_busy=0):",
                AbortCause::Freezer,
            ),
            (
                "Freezing of tasks aborted after 0.000 seconds",
                AbortCause::Wakeup,
            ),
            (
                "Freezing user space processes failed after 20.004 seconds (1 tasks refusing to freeze, wq_busy=0):",
                AbortCause::Freezer,
            ),
            ("Freezing of user space aborted", AbortCause::Wakeup),
            ("PM: Not enough free swap", AbortCause::Image),
            (
                "PM: Error -12 creating hibernation image",
                AbortCause::Image,
            ),
        ] {
            assert_eq!(pm_failure(None, m), Some(PmFailure::Abort(cause)), "{m}");
            assert_eq!(pm_failure(Some(0), m), Some(PmFailure::Abort(cause)), "{m}");
        }
    }

    #[test]
    fn failed_devices_are_named_with_their_step_and_error() {
        let d = device("PM: Device 0000:00:01.3 failed to suspend async: error -16");
        assert_eq!(
            (d.device.as_str(), d.step.as_str(), d.error),
            ("0000:00:01.3", "suspend async", -16)
        );
        assert!(d.suspending());
        let d = device("nouveau 0000:01:00.0: PM: failed to resume async: error -110");
        assert_eq!(
            (d.device.as_str(), d.step.as_str(), d.error),
            ("nouveau 0000:01:00.0", "resume async", -110)
        );
        assert!(!d.suspending());
        assert!(!device("PM: Device 00:0a failed to thaw: error -5").suspending());
        let device_abort = Some(PmFailure::Abort(AbortCause::Device));
        for m in [
            "nvidia 0000:01:00.0: PM: pci_pm_suspend(): nv_pmops_suspend [nvidia] returns -5",
            "PM: dpm_run_callback(): pci_pm_suspend returns -5",
        ] {
            assert_eq!(pm_failure(None, m), device_abort, "{m}");
        }
        for m in [
            "PM: dpm_run_callback(): pci_pm_resume+0x0/0xe0 returns -110",
            "pci_pm_suspend(): sdhci_pci_suspend+0x0/0xd0 returns -16",
        ] {
            assert_eq!(pm_failure(None, m), None, "{m}");
        }
    }

    #[test]
    fn a_task_named_like_the_kernels_words_forges_nothing() {
        // A task's name is at most 15 characters, and the kernel's text follows it.
        for forged in [
            "PM: fail[4242]: segfault at 0 ip 000055d1c0a0 sp 00007ffd error 6 in a.out[55d1+1000]",
            "PM: fail[4242]: segfault at 0 ip 0 sp 0 error 4 in a[400000+1000] likely on CPU 0 (core 0, socket 0)",
            "Freezing failed[77]: segfault at 0 ip 0 sp 0 error 4 in x[1000+1000]",
            "Freezing of tas[7]: segfault at 0 ip 0 sp 0 error 4 in failed after 1 seconds[1+1]",
            "PM: Device x[12]: segfault at 0 ip 0 sp 0 error 4 in failed to suspend: error -5",
            "a: PM: failed t[1]: segfault at 0 ip 0 sp 0 error 4 in a[1+1]",
            "x(): a_suspend[1234]: segfault at 0 ip 0 sp 0 error 4 in returns -5",
            "PM: x(): a_susp[1234]: segfault at 0 ip 0 sp 0 error 4 in returns -5",
            "task:PM: Some dev state:D stack:0 pid:12 ppid:1 flags:0x00004000",
            "PM: Some devi (4242): drop_caches: 3",
            "PM: Some devices failed to suspend, or early wake event detected and more",
            "audit: type=1400 msg='PM: Some devices failed to suspend'",
        ] {
            assert_eq!(pm_failure(None, forged), None, "{forged}");
        }
    }

    #[test]
    fn only_the_kernels_facility_counts() {
        let m = "PM: Some devices failed to suspend, or early wake event detected";
        assert_eq!(pm_failure(Some(1), m), None);
        assert_eq!(pm_failure(Some(3), m), None);
        assert!(pm_failure(Some(0), m).is_some());
    }

    #[test]
    fn resume_lines_and_successes_are_no_failure() {
        for m in [
            "PM: resume of devices complete after 111.609 msecs",
            "suspend: exit suspend, ret = 0 (2012-09-17 08:09:34.164855730 UTC)",
            "PM: suspend exit",
            "ACPI: PM: Waking up from system sleep state S3",
            "Freezing user space processes completed (elapsed 0.001 seconds)",
        ] {
            assert_eq!(pm_failure(None, m), None, "{m}");
        }
        assert!(
            pm_failure(
                None,
                "suspend: exit suspend, ret = -16 (2012-09-17 08:09:34.1 UTC)"
            )
            .is_some()
        );
    }
}
