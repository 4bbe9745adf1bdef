//! `kernlog capture`: suspend and resume the machine N times and write the bundle of
//! `kernlog::evidence::bundle` as it goes: the kernel's log from `/dev/kmsg`, every CPU's MTRRs
//! before the first suspend and after each resume, and `capture.yaml`, rewritten before
//! each suspend and after each resume.

mod folder;
mod host;
mod kmsg;
mod owner;
mod parent;
mod system;
mod writer;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use kernlog::evidence::bundle::{
    self, Capture, CapturedCycle, CpuMtrrs, Method, Outcome, Sleep, Verdict, Wake,
};
use kernlog::render::safe_text::one_line;

use folder::BundleDir;
pub use host::{Host, RealHost};
use writer::Writer;

/// How often the kernel's log is looked at while waiting for a resume.
const POLL: Duration = Duration::from_millis(200);

/// The options of `kernlog capture`.
#[derive(clap::Args)]
pub struct CaptureArgs {
    /// Suspend/resume cycles to run (1 to 99).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=99))]
    cycles: u32,
    /// systemd: `systemctl suspend`, the path of daily use; sysfs: write `mem` to
    /// /sys/power/state (systems without systemd, such as a busybox initramfs).
    #[arg(long, value_enum, default_value_t = MethodArg::Systemd)]
    method: MethodArg,
    /// Hibernate instead of suspending to RAM: the kernel writes its image to swap and
    /// powers off, and the next boot restores it (`systemctl hibernate`, or `disk` to
    /// /sys/power/state). Needs active swap and a boot that restores the image.
    #[arg(long, conflicts_with = "mem_sleep")]
    hibernate: bool,
    /// Seconds after each suspend request at which the RTC alarm wakes the machine.
    #[arg(long, value_name = "SECONDS", default_value_t = 20)]
    wake_after: u64,
    /// Seconds after a suspend request by which the resume must have finished; a cycle
    /// that takes longer is recorded as did-not-resume and ends the capture.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    timeout: u64,
    /// What the kernel is, for the bundle's manifest (e.g. "7.3.4 with v2 of the fix");
    /// by default the kernel release.
    #[arg(long)]
    label: Option<String>,
    /// Write /sys/power/mem_sleep before the first suspend (deep: suspend to RAM, S3).
    #[arg(long, value_enum)]
    mem_sleep: Option<MemSleep>,
    /// The bundle's folder, which capture creates (it must not exist); by default
    /// kernlog-capture-RELEASE-DATE in the current folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum MethodArg {
    Systemd,
    Sysfs,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum MemSleep {
    Deep,
    S2idle,
}

/// Runs a capture on `host`; `command` is the command line, recorded in the manifest.
/// Progress goes to `progress`. Returns the bundle's folder and the verdict. Errors before
/// the folder was created leave nothing behind; once it exists, what was written stays and
/// is handed to the invoking user, whatever the outcome.
pub fn run(
    args: &CaptureArgs,
    host: &mut dyn Host,
    command: String,
    progress: &mut dyn Write,
) -> Result<(PathBuf, Verdict)> {
    let method = match args.method {
        MethodArg::Systemd => Method::Systemd,
        MethodArg::Sysfs => Method::Sysfs,
    };
    let sleep = if args.hibernate {
        Sleep::Hibernate
    } else {
        Sleep::Suspend
    };
    if args.wake_after == 0 || args.timeout <= args.wake_after {
        bail!(
            "--timeout ({} s) must be longer than --wake-after ({} s), which must be at least 1",
            args.timeout,
            args.wake_after
        );
    }
    let owner = owner::invoking_user(
        host.var("SUDO_UID").as_deref(),
        host.var("SUDO_GID").as_deref(),
    )?;
    system::check_ready(host, method, sleep)?;
    let kernel = system::kernel(host)?;
    let started = bundle::utc_stamp(unix_seconds(host));
    let out = args.out.clone().unwrap_or_else(|| {
        let stamp = started.replace(':', "");
        let release = kernel.release.replace(['/', ' '], "_");
        PathBuf::from(format!("kernlog-capture-{release}-{stamp}"))
    });
    let capture = Capture {
        format: bundle::FORMAT.to_string(),
        tool: format!("kernlog {}", env!("CARGO_PKG_VERSION")),
        started,
        label: args.label.clone().unwrap_or_else(|| kernel.release.clone()),
        method,
        sleep,
        wake: Wake::Rtc,
        wake_after_s: args.wake_after,
        timeout_s: args.timeout,
        machine: system::machine(host),
        // Read again once --mem-sleep is written.
        mem_sleep: None,
        hibernation_mode: (sleep == Sleep::Hibernate)
            .then(|| system::read_trimmed(host, "sys/power/disk"))
            .flatten(),
        cpus_online: system::cpus_online(host),
        cycles_requested: args.cycles,
        cycles: Vec::new(),
        // Set from the cycles at every checkpoint.
        verdict: Verdict::Complete,
        kernel,
    };
    host.catch_signals().map_err(anyhow::Error::msg)?;
    let dir = BundleDir::create(&out, owner)?;
    let filled = fill(&dir, capture, command, args, host, progress)
        .with_context(|| format!("the capture stopped; what it wrote is in {}", out.display()));
    let handed = owner.map_or(Ok(()), |owner| dir.hand_back(owner));
    match (filled, handed) {
        (Ok(verdict), Ok(())) => Ok((out, verdict)),
        (Err(e), Ok(())) | (Ok(_), Err(e)) => Err(e),
        (Err(e), Err(h)) => Err(anyhow::anyhow!("{e:#}; and {h:#}")),
    }
}

/// Writes the bundle into its new folder `dir`: the files before the first suspend, then
/// the cycles.
fn fill(
    dir: &BundleDir,
    mut capture: Capture,
    command: String,
    args: &CaptureArgs,
    host: &mut dyn Host,
    progress: &mut dyn Write,
) -> Result<Verdict> {
    if let Some(mode) = args.mem_sleep {
        let word = match mode {
            MemSleep::Deep => "deep",
            MemSleep::S2idle => "s2idle",
        };
        std::fs::write(host.path("sys/power/mem_sleep"), word)
            .with_context(|| format!("cannot write {word} to /sys/power/mem_sleep"))?;
    }
    capture.mem_sleep = system::read_trimmed(host, "sys/power/mem_sleep");
    let (method, sleep) = (capture.method, capture.sleep);
    let mut w = Writer::create(dir, capture, command, &host.path("dev/kmsg"))?;
    if let Ok(text) = std::fs::read_to_string(host.path("proc/mtrr")) {
        w.add_file(
            bundle::PROC_MTRR,
            "proc-mtrr",
            "/proc/mtrr before the first suspend",
            text.as_bytes(),
        )?;
    }
    w.add_dump(
        bundle::MTRR_BOOT,
        "before the first suspend",
        &read_mtrrs(host),
    )?;
    w.checkpoint()?;
    writeln!(
        progress,
        "kernlog capture: writing {}",
        one_line(&dir.path().display().to_string())
    )?;
    for n in 1..=args.cycles {
        if let Some(signal) = host.stop_signal() {
            bail!("stopped by {signal} before cycle {n}");
        }
        // What the kernel logged before this request belongs to no cycle of it.
        w.kmsg.drain()?;
        w.kmsg.start_cycle();
        w.capture.cycles.push(CapturedCycle {
            n,
            requested: bundle::utc_stamp(unix_seconds(host)),
            outcome: Outcome::Suspending,
            detail: None,
            mtrr: None,
            log_from_seq: w.kmsg.next_seq,
            wakeup_events: None,
        });
        w.checkpoint()?;
        writeln!(
            progress,
            "kernlog capture: cycle {n} of {}: {} ({}, RTC alarm in {} s)",
            args.cycles,
            match sleep {
                Sleep::Suspend => "suspending",
                Sleep::Hibernate => "hibernating",
            },
            match method {
                Method::Systemd => format!("systemctl {}", sleep.verb()),
                Method::Sysfs => format!("{} to /sys/power/state", sleep.state()),
            },
            args.wake_after
        )?;
        let counted = system::wakeup_counts(host);
        let (outcome, detail) = one_cycle(host, &mut w, (method, sleep), args, n)?;
        let woken = counted.map(|before| system::wakeup_events(host, &before));
        if outcome == Outcome::Resumed {
            let path = bundle::mtrr_after_cycle(n);
            w.add_dump(&path, &format!("after resume {n}"), &read_mtrrs(host))?;
            set_last(&mut w, |c| c.mtrr = Some(path));
        }
        set_last(&mut w, |c| {
            c.outcome = outcome;
            c.detail = detail.clone();
            c.wakeup_events = woken;
        });
        w.checkpoint()?;
        // The detail quotes the kernel's log: one line, its controls made visible.
        let detail = detail
            .map(|d| format!(": {}", one_line(&d)))
            .unwrap_or_default();
        let woken_by = match w.capture.cycles.last().and_then(|c| c.woken_by()) {
            Some(by) if outcome == Outcome::Resumed => format!(" (woken by: {})", one_line(&by)),
            _ => String::new(),
        };
        writeln!(
            progress,
            "kernlog capture: cycle {n}: {}{woken_by}{detail}",
            outcome.name()
        )?;
        if outcome == Outcome::DidNotResume {
            break;
        }
    }
    w.checkpoint()?;
    Ok(w.capture.verdict.clone())
}

fn set_last(w: &mut Writer, change: impl FnOnce(&mut CapturedCycle)) {
    if let Some(cycle) = w.capture.cycles.last_mut() {
        change(cycle);
    }
}

/// One suspend or hibernation request (cycle `n`) and the wait for its resume, read from
/// the kernel's log.
fn one_cycle(
    host: &mut dyn Host,
    w: &mut Writer,
    (method, sleep): (Method, Sleep),
    args: &CaptureArgs,
    n: u32,
) -> Result<(Outcome, Option<String>)> {
    let alarm = host.path(system::WAKEALARM);
    // A stale alarm must be cleared before the kernel takes a new one.
    let set = std::fs::write(&alarm, "0")
        .and_then(|()| std::fs::write(&alarm, format!("+{}", args.wake_after)));
    if let Err(e) = set {
        return Ok((
            Outcome::Aborted,
            Some(format!("cannot set the RTC alarm: {e}")),
        ));
    }
    let requested = host.now();
    let request = host.request_suspend(method, sleep);
    w.kmsg.drain()?;
    stop_if_asked(host, w, &alarm, n)?;
    if let Err(e) = request {
        let _ = std::fs::write(&alarm, "0");
        let detail = match &w.kmsg.marks.failure {
            Some(line) => format!("{e}; the kernel: {line}"),
            None => e,
        };
        return Ok((Outcome::Aborted, Some(detail)));
    }
    let timeout = Duration::from_secs(args.timeout);
    while !w.kmsg.marks.exited {
        let waited = host.now().duration_since(requested).unwrap_or_default();
        if waited >= timeout {
            break;
        }
        host.pause(POLL);
        w.kmsg.drain()?;
        stop_if_asked(host, w, &alarm, n)?;
    }
    // Woken otherwise (lid, key), the machine would keep an alarm for later.
    let _ = std::fs::write(&alarm, "0");
    let waited = host.now().duration_since(requested).unwrap_or_default();
    let marks = &w.kmsg.marks;
    // The kernel's own words for the start and the end of the attempt.
    let (entry, exit) = match sleep {
        Sleep::Suspend => ("PM: suspend entry", "PM: suspend exit"),
        Sleep::Hibernate => (
            "PM: hibernation: hibernation entry",
            "PM: hibernation: hibernation exit",
        ),
    };
    Ok(match (marks.entered, marks.exited, &marks.failure) {
        (_, true, Some(line)) => (Outcome::Aborted, Some(format!("the kernel: {line}"))),
        (_, true, None) if waited > timeout => (
            Outcome::DidNotResume,
            Some(format!(
                "the resume finished {} s after the request, later than --timeout {} s",
                waited.as_secs(),
                args.timeout
            )),
        ),
        (_, true, None) => (Outcome::Resumed, None),
        (false, false, _) => (
            Outcome::Aborted,
            Some(format!(
                "no {} began within {} s (no `{entry}` in the kernel's log; with systemd, \
                 see `systemd-inhibit --list`)",
                match sleep {
                    Sleep::Suspend => "suspend",
                    Sleep::Hibernate => "hibernation",
                },
                args.timeout
            )),
        ),
        (true, false, _) => (
            Outcome::DidNotResume,
            Some(format!(
                "no `{exit}` in the kernel's log within {} s",
                args.timeout
            )),
        ),
    })
}

/// Ends the capture in cycle `n` when a signal asked it to stop: the alarm cleared, the
/// kernel's log brought up to date, `capture.yaml` left saying the cycle is `suspending`.
fn stop_if_asked(host: &dyn Host, w: &mut Writer, alarm: &std::path::Path, n: u32) -> Result<()> {
    let Some(signal) = host.stop_signal() else {
        return Ok(());
    };
    let _ = std::fs::write(alarm, "0");
    w.checkpoint()?;
    bail!(
        "stopped by {signal} in cycle {n}, before the kernel's log showed its resume \
         (capture.yaml leaves the cycle `suspending`)"
    )
}

/// Every online CPU's MTRRs.
fn read_mtrrs(host: &dyn Host) -> Vec<CpuMtrrs> {
    system::cpus_online(host)
        .into_iter()
        .map(|cpu| CpuMtrrs {
            cpu,
            registers: bundle::read_registers(|msr| host.read_msr(cpu, msr)),
        })
        .collect()
}

/// The command line as a shell would take it back: words with anything but plain
/// characters in single quotes.
pub fn command_line(words: impl IntoIterator<Item = String>) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c);
    words
        .into_iter()
        .map(|w| {
            if !w.is_empty() && w.chars().all(plain) {
                w
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn unix_seconds(host: &dyn Host) -> u64 {
    host.now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod planted;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod wakeup_tests;
