//! Lines with a wall-clock stamp and a host: journalctl short, short-precise and short-iso,
//! BSD syslog / kern.log (which may carry the kernel's own stamp), rsyslog RFC 3339, and
//! `dmesg --time-format iso`.

use super::calendar::{
    digits, fraction_micros, localized_month, month_number, parse_hms, parse_iso,
};
use super::dmesg::parse_bracketed;
use super::prefix::{Hostless, split_caller, split_host_ident};
use super::{Format, Line, Origin, Stamp, WallTime};

/// ISO 8601 stamps: `dmesg --time-format iso`, `journalctl -o short-iso[-precise]`, rsyslog.
pub(super) fn parse_iso_line(text: &str) -> Option<Line<'_>> {
    let (stamp, rest) = text.split_once(' ')?;
    let (wall, resolution_us) = parse_iso(stamp)?;
    let stamp = Some(Stamp::Wall(wall));
    // `dmesg --time-format iso` messages look like `host ident: ...` too (`usb 1-8: ...`):
    // only `kernel` and `name[pid]` idents make a journal line here.
    // `journalctl --no-hostname -o short-iso`: only `kernel:` makes a journal line there, as
    // dmesg's iso output carries `systemd[1]: ...` lines written to /dev/kmsg.
    let split = split_host_ident(rest, true, Hostless::Kernel);
    match split {
        Some((host, origin, message)) => Some(host_line(
            Format::JournalShortIso,
            stamp,
            resolution_us,
            host,
            origin,
            message,
        )),
        None => {
            let (caller, message) = split_caller(rest);
            let mut line = Line::new(Format::DmesgIso, stamp, resolution_us, message);
            line.caller = caller;
            Some(line)
        }
    }
}

/// `Sep 11 16:04:13[.123456] host ident: message` (journal short, short-precise, syslog).
pub(super) fn parse_month_line(text: &str) -> Option<Line<'_>> {
    let (word, rest) = text.split_once(' ')?;
    let month = month_number(word).or_else(|| localized_month(word))?;
    let rest = rest.trim_start();
    let (day, rest) = rest.split_once(' ')?;
    let day: u8 = digits(day)?;
    let (time, rest) = rest.split_once(' ')?;
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let (hour, minute, second) = parse_hms(hms)?;
    if !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 {
        return None;
    }
    let (micros, resolution) = if frac.is_empty() {
        (0, 1_000_000)
    } else {
        fraction_micros(frac)
    };
    let wall = WallTime::checked(None, month, day, (hour, minute, second), micros, None)?;
    // Without a host column (`journalctl --no-hostname`) the ident follows the time.
    let (host, origin, message) = split_host_ident(rest, false, Hostless::Any)?;
    let format = if frac.is_empty() {
        Format::JournalShort
    } else {
        Format::JournalShortPrecise
    };
    Some(host_line(
        format,
        Some(Stamp::Wall(wall)),
        resolution,
        host,
        origin,
        message,
    ))
}

/// A kern.log line pasted without its date columns: `host kernel: [99371.053072] msg`. Only
/// a kernel line that carries the kernel's own stamp is one; anything else stays text.
pub(super) fn parse_dateless_kernel_line(text: &str) -> Option<Line<'_>> {
    let (host, origin, message) = split_host_ident(text, true, Hostless::No)?;
    // `host_line` gives the line a stamp only when the message carries the kernel's own.
    let line = host_line(Format::Syslog, None, 0, host, origin, message);
    line.stamp.is_some().then_some(line)
}

/// A journal or syslog line after its stamp; a kernel message that carries the kernel's
/// own bracketed stamp (kern.log) takes that stamp instead: it is the finer one.
pub(super) fn host_line<'a>(
    format: Format,
    stamp: Option<Stamp>,
    resolution_us: u64,
    host: Option<&'a str>,
    origin: Origin<'a>,
    message: &'a str,
) -> Line<'a> {
    if origin == Origin::Kernel {
        if let Some(inner) = parse_bracketed(message).filter(|l| l.format == Format::Dmesg) {
            let mut line = inner;
            line.format = Format::Syslog;
            line.host = host;
            return line;
        }
    }
    let (caller, message) = split_caller(message);
    // Without the kernel's own stamp, the line's time is the logger's.
    let stamp = stamp.map(|stamp| match stamp {
        Stamp::Wall(wall) => Stamp::Received(wall),
        other => other,
    });
    let mut line = Line::new(format, stamp, resolution_us, message);
    line.caller = caller;
    line.host = host;
    line.origin = origin;
    line
}
