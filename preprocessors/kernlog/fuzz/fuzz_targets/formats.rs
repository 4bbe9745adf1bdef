//! Structure-aware: suspend/resume records written in every format kernlog reads (dmesg
//! plain, -T, --time-format iso, --reltime (anchors and signed steps), kmsg, journalctl short, short-iso,
//! short-monotonic, with and without the host column, syslog, stamps near zero amid others,
//! another writer's bytes glued before a stamp, a capture tool's date before a raw dmesg line, mail quotes, a
//! quoted-printable mail body), with fuzzer-chosen fields that may hold multi-byte text, odd
//! numbers and stamps that step back, LF or CR LF line ends. No panic, no negative duration, and every line read as
//! a record (outside quoted-printable bodies, which join lines at soft breaks).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Format {
    Plain,
    Ctime,
    Iso,
    Reltime,
    /// `--reltime`'s step from the line above, `+` or `-` as `seconds` is even or odd.
    ReltimeStep,
    Kmsg,
    /// A record user space wrote to `/dev/kmsg` (facility 1): never the kernel's word.
    KmsgUser,
    JournalShort,
    JournalIso,
    JournalMonotonic,
    /// `journalctl --no-hostname -o short-precise`: the ident right after the time.
    JournalPreciseNoHost,
    /// `journalctl --no-hostname -o short-monotonic`.
    JournalMonotonicNoHost,
    /// A stamp near zero: a CPU whose clock is not yet in step, in the middle of a resume.
    NearZero,
    /// Another UART writer's bytes (`field`) glued before the kernel's stamp.
    Glued,
    Syslog,
    CaptureDated,
    /// A dmesg line in a quoted-printable mail body, with a soft break where `field` says.
    MailQuotedPrintable,
}

#[derive(Debug, Arbitrary)]
enum Message {
    Entry,
    Exit,
    Enabling,
    Booting(u16),
    Up(u16),
    Offline(u16),
    LowLevel,
    Aborted,
    FreezerFailed,
    MtrrChanges(u16, [bool; 3]),
    ProcMtrr(u8, u32, u16),
    Free(String),
    /// Issue 31's classes: older kernels' lines, other sleep states, Android, failed devices.
    SplitRestart,
    Done,
    EnteringSleep(u8),
    Standby,
    NvsRestored,
    DevicesResumed(u16),
    FinishingWakeup,
    Timekeeping(u32, u16),
    WallEntry(u32, u32),
    WallExit(u32, u32),
    AndroidExit(i8, u32),
    FailedResume(u16, i16),
    FailedThaw(u16, i16),
    HibernationImage,
    NotEnoughSwap,
    NoirqSuspended(u16),
    /// A task named like a kernel line, as the kernel's segfault line shows it.
    ForgedComm(String),
}

#[derive(Debug, Arbitrary)]
struct Line {
    format: Format,
    /// Mail quote markers (`> `) before the line, 0 to 3. A count rather than a nested
    /// format: a deep nesting overflowed the stack under AddressSanitizer.
    quotes: u8,
    seconds: u32,
    micros: u32,
    /// Free text put into one field of the stamp (host, month, offset, ...).
    field: Option<String>,
    message: Message,
    /// CR LF instead of LF, as a serial console or a Windows editor writes it.
    crlf: bool,
}

fn message(m: &Message) -> String {
    match m {
        Message::Entry => "PM: suspend entry (deep)".into(),
        Message::Exit => "PM: suspend exit".into(),
        Message::Enabling => "Enabling non-boot CPUs ...".into(),
        Message::Booting(n) => format!("smpboot: Booting Node 0 Processor {n} APIC 0x{n:x}"),
        Message::Up(n) => format!("CPU{n} is up"),
        Message::Offline(n) => format!("smpboot: CPU {n} is now offline"),
        Message::LowLevel => "ACPI: PM: Low-level resume complete".into(),
        Message::Aborted => {
            "PM: Some devices failed to suspend, or early wake event detected".into()
        }
        Message::FreezerFailed => "Freezing user space processes failed after 20.005 seconds \
            (1 tasks refusing to freeze, wq_busy=0):"
            .into(),
        Message::MtrrChanges(cpu, f) => format!(
            "MTRR cpu {cpu} changes:{}{}{}",
            if f[0] { 'V' } else { '_' },
            if f[1] { 'F' } else { '_' },
            if f[2] { 'T' } else { '_' }
        ),
        Message::ProcMtrr(reg, base, size) => {
            format!(
                "reg{reg:02}: base=0x{base:09x} (    0MB), size={size:5}MB, count=1: write-back"
            )
        }
        Message::Free(s) => s.clone(),
        Message::SplitRestart => "Restarting tasks ... ".into(),
        Message::Done => "done.".into(),
        Message::EnteringSleep(n) => {
            let mode = ["mem", "freeze", "standby"][usize::from(*n % 3)];
            format!("PM: Entering {mode} sleep")
        }
        Message::Standby => "ACPI: Preparing to enter system sleep state S1".into(),
        Message::NvsRestored => "PM: Restoring platform NVS memory".into(),
        Message::DevicesResumed(ms) => format!("PM: resume of devices complete after {ms}.123 msecs"),
        Message::FinishingWakeup => "PM: Finishing wakeup.".into(),
        Message::Timekeeping(s, ms) => format!("PM: Timekeeping suspended for {s}.{:03} seconds", ms % 1000),
        Message::WallEntry(day, ns) => format!("PM: PM: suspend entry {} UTC", wall(*day, *ns)),
        Message::WallExit(day, ns) => format!("PM: PM: suspend exit {} UTC", wall(*day, *ns)),
        Message::AndroidExit(ret, ns) => {
            format!("suspend: exit suspend, ret = {ret} ({} UTC)", wall(*ns, *ns))
        }
        Message::FailedResume(n, e) => format!("usb {n}-1: PM: failed to resume async: error {e}"),
        Message::FailedThaw(n, e) => format!("PM: Device 00:{n:02x} failed to thaw: error {e}"),
        Message::HibernationImage => "PM: Creating hibernation image:".into(),
        Message::NotEnoughSwap => "PM: Not enough free swap".into(),
        Message::NoirqSuspended(ms) => format!("PM: noirq suspend of devices complete after {ms}.5 msecs"),
        Message::ForgedComm(comm) => {
            let comm: String = comm.chars().take(15).collect();
            format!("{comm}[4242]: segfault at 0 ip 0 sp 0 error 4 in a.out[400000+1000]")
        }
    }
}

/// A UTC wall time as Android kernels print it, from fuzzer-chosen numbers (some invalid).
fn wall(day: u32, ns: u32) -> String {
    format!(
        "20{:02}-{:02}-{:02} {:02}:{:02}:{:02}.{ns:09}",
        day % 100,
        day % 13,
        day % 32,
        day % 25,
        ns % 61,
        ns % 62
    )
}

fn render(line: &Line) -> String {
    let (s, us) = (line.seconds % 100_000, line.micros % 1_000_000);
    let field = line.field.clone().unwrap_or_default();
    let msg = message(&line.message);
    let quotes = "> ".repeat(usize::from(line.quotes % 4));
    quotes + &render_format(&line.format, s, us, &field, &msg)
}

fn render_format(format: &Format, s: u32, us: u32, field: &str, msg: &str) -> String {
    let (h, m, sec) = (s / 3600 % 24, s / 60 % 60, s % 60);
    match format {
        Format::Plain => format!("[{s:5}.{us:06}] {msg}"),
        Format::Ctime => format!("[Mon Sep 11 {h:02}:{m:02}:{sec:02}{field} 2025] {msg}"),
        Format::Iso => format!("2025-09-11T{h:02}:{m:02}:{sec:02},{us:06}+0{field}:00 {msg}"),
        // `%b%e`: the day padded with a space below 10 (`Dec 1`), none above (`Dec11`).
        Format::Reltime => format!("[Dec{:2} {h:02}:{m:02}{field}] {msg}", s % 31 + 1),
        Format::ReltimeStep => {
            let sign = if s % 2 == 1 { '-' } else { '+' };
            format!("[  {sign}{}.{us:06}{field}] {msg}", s % 100)
        }
        Format::Kmsg => format!("6,{s},{}{us:06},-{field};{msg}", s),
        Format::KmsgUser => format!("14,{s},{}{us:06},-{field};{msg}", s),
        Format::JournalShort => format!("Sep 11 {h:02}:{m:02}:{sec:02} host{field} kernel: {msg}"),
        Format::JournalIso => {
            format!("2025-09-11T{h:02}:{m:02}:{sec:02}+0{field}00 host kernel: {msg}")
        }
        Format::JournalMonotonic => format!("[{s:5}.{us:06}] host{field} kernel: {msg}"),
        Format::JournalPreciseNoHost => {
            format!("Sep 11 {h:02}:{m:02}:{sec:02}.{us:06} kernel{field}: {msg}")
        }
        Format::JournalMonotonicNoHost => format!("[{s:5}.{us:06}] kernel{field}: {msg}"),
        Format::NearZero => format!("[    0.{us:06}] {msg}"),
        Format::Glued => format!("{field}[{s:5}.{us:06}] {msg}"),
        Format::Syslog => {
            format!("Sep {field}11 {h:02}:{m:02}:{sec:02} host kernel: [{s:5}.{us:06}] {msg}")
        }
        Format::MailQuotedPrintable => {
            let encoded = quoted_printable(&format!("[{s:5}.{us:06}] {msg}"));
            let at = field.len() % (encoded.len() + 1);
            // Never inside an `=XX` escape.
            let at = (at.saturating_sub(2)..=at)
                .find(|&i| {
                    !encoded[..i].ends_with('=') && !encoded[..i.saturating_sub(1)].ends_with('=')
                })
                .unwrap_or(0);
            format!(
                "Content-Transfer-Encoding: quoted-printable\n{}=\n{}",
                &encoded[..at],
                &encoded[at..]
            )
        }
        Format::CaptureDated => {
            format!(
                "    2025-09-11 {h:02}:{m:02}:{sec:02}.{us:06}{field}  <6>[{s:5}.{us:06}] {msg}"
            )
        }
    }
}

/// `=`, control and non-ASCII bytes as `=XX`: the text is all ASCII afterwards.
fn quoted_printable(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'=' | 0..=31 | 127.. => format!("={b:02X}"),
            _ => char::from(b).to_string(),
        })
        .collect()
}

fuzz_target!(|lines: Vec<Line>| {
    let text: String = lines
        .iter()
        .map(|l| render(l) + if l.crlf { "\r\n" } else { "\n" })
        .collect();
    let analysis = kernlog::analyze_str(&text);
    // A lone CR also ends a record, so there are at least as many records as `lines()`,
    // unless a quoted-printable mail body joins lines at its soft breaks.
    if !text
        .to_ascii_lowercase()
        .contains("content-transfer-encoding")
    {
        assert!(analysis.input.records as usize >= text.lines().count());
    }
    for cycle in &analysis.cycles {
        for ms in [
            cycle.enable_phase_ms(),
            cycle.suspend_span_ms(),
            cycle.sync_to_restart_ms(),
            cycle.resume_ms(),
            cycle.suspend_ms(),
            cycle.time_to_abort_ms(),
            cycle.asleep.map(|a| a.seconds),
        ]
        .into_iter()
        .flatten()
        {
            assert!(ms >= 0.0, "negative duration {ms}");
        }
        assert!(cycle.gaps.iter().all(|g| g.us >= 0));
        // An aborted attempt never slept: no suspend figure.
        assert!(cycle.aborted.is_none() || cycle.suspend_ms().is_none());
        assert!(cycle.failed_devices.len() <= 16);
    }
    // A task's name never makes an attempt aborted.
    let forged_only = lines.iter().all(|l| {
        let user = matches!(l.format, Format::KmsgUser);
        let kernel_abort = matches!(
            l.message,
            Message::Aborted
                | Message::FreezerFailed
                | Message::NotEnoughSwap
                | Message::AndroidExit(..)
                | Message::Free(_)
        );
        (user || !kernel_abort) && l.field.is_none()
    });
    if forged_only {
        assert!(analysis.cycles.iter().all(|c| c.aborted.is_none()));
    }
    let _ = kernlog::render::document::Document::new(&analysis);
    let _ = kernlog::render::summary::render_summary(&analysis, &|k| Some(k.id().to_string()));
    let _ = kernlog::judge::checklist::check(&analysis, kernlog::judge::checklist::Limits::default());
});
