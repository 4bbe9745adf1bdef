//! The kernel ring buffer's own formats: `[  426.169808]` (and `-T`, `--reltime`,
//! `--time-format delta` in brackets), short-monotonic journal lines, and `/dev/kmsg`.

use super::calendar::{fraction_micros, parse_ctime, parse_reltime_anchor};
use super::prefix::{Hostless, split_caller, split_host_ident};
use super::{Format, Line, Stamp};

/// Lines that start with `[`: dmesg, dmesg -T, reltime, short-monotonic.
#[inline]
pub(super) fn parse_bracketed(text: &str) -> Option<Line<'_>> {
    // Callers pass any message that may hold a stamp; only `[...]` is one here.
    if !text.starts_with('[') {
        return None;
    }
    let (stamp, format, resolution_us, close) = match scan_dmesg_stamp(text.as_bytes()) {
        Some((micros, resolution, close)) => {
            (Stamp::Monotonic(micros), Format::Dmesg, resolution, close)
        }
        None => {
            let close = text.find(']')?;
            let (stamp, format, resolution) = parse_bracket_stamp(text.get(1..close)?.trim())?;
            (stamp, format, resolution, close)
        }
    };
    let after = &text[close + 1..];
    let after = after.strip_prefix(' ').unwrap_or(after);
    let (caller, rest) = split_caller(after);
    let mut line = Line::new(format, Some(stamp), resolution_us, rest);
    line.caller = caller;
    // `journalctl -o short-monotonic`, with a host or (`--no-hostname`) with only the
    // `kernel:` ident: dmesg itself shows `systemd[1]: ...` lines written to /dev/kmsg.
    if format == Format::Dmesg && caller.is_none() {
        if let Some((host, origin, message)) = split_host_ident(rest, true, Hostless::Kernel) {
            line.format = Format::JournalShortMonotonic;
            line.host = host;
            line.origin = origin;
            line.message = message;
            let (caller, message) = split_caller(message);
            line.caller = caller;
            line.message = message;
        }
    }
    Some(line)
}

/// The common `[  426.169808]` stamp in one pass over the bytes: microseconds, resolution
/// and the index of the `]`. Anything else (`dmesg -d`, reltime, ctime) takes the slow path.
pub(super) fn scan_dmesg_stamp(b: &[u8]) -> Option<(i64, u64, usize)> {
    let mut i = 1;
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    let mut secs: i64 = 0;
    let start = i;
    while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        secs = secs.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
        i += 1;
    }
    if i == start || i - start > 12 || b.get(i) != Some(&b'.') {
        return None;
    }
    i += 1;
    let (mut micros, mut digits) = (0i64, 0u32);
    while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        if digits < 6 {
            micros = micros * 10 + i64::from(d - b'0');
        }
        digits += 1;
        i += 1;
    }
    // Some Android kernels print the CPU after the stamp: `[ 5603.909536,0]`.
    if b.get(i) == Some(&b',') {
        let cpu_digits = b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
        if (1..=4).contains(&cpu_digits) {
            i += 1 + cpu_digits;
        }
    }
    if digits > 9 || b.get(i) != Some(&b']') {
        return None;
    }
    let shown = digits.min(6);
    let scale = 10i64.pow(6 - shown);
    Some((secs * 1_000_000 + micros * scale, scale as u64, i))
}

pub(super) fn parse_bracket_stamp(inner: &str) -> Option<(Stamp, Format, u64)> {
    let first = *inner.as_bytes().first()?;
    match first {
        // util-linux prints the step with a sign (`%+8.6f`): a record stamped before the
        // one above it (another CPU's clock) shows a negative step.
        b'+' | b'-' => {
            let (micros, res) = parse_seconds(inner[1..].trim_start())?;
            let micros = if first == b'-' { -micros } else { micros };
            Some((Stamp::Delta(micros), Format::DmesgReltime, res))
        }
        b'<' => {
            let body = inner.strip_prefix('<')?.strip_suffix('>')?.trim();
            let (micros, res) = parse_seconds(body)?;
            Some((Stamp::Delta(micros), Format::DmesgReltime, res))
        }
        b'0'..=b'9' => {
            // `dmesg -d` appends the delta: `[  426.169808 <    0.000037>]`. The kernel
            // always prints a fraction: `[1]` is a footnote mark, not a stamp.
            let secs = inner.split(' ').next()?;
            if !secs.contains('.') {
                return None;
            }
            let (micros, res) = parse_seconds(secs)?;
            Some((Stamp::Monotonic(micros), Format::Dmesg, res))
        }
        _ => {
            if let Some(wall) = parse_ctime(inner) {
                Some((Stamp::Wall(wall), Format::DmesgCtime, 1_000_000))
            } else {
                let (wall, res) = parse_reltime_anchor(inner)?;
                Some((Stamp::Wall(wall), Format::DmesgReltime, res))
            }
        }
    }
}

/// `426.169808` -> microseconds, and the resolution the digits give.
pub(super) fn parse_seconds(text: &str) -> Option<(i64, u64)> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() || int.len() > 12 || !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = int.parse().ok()?;
    let (micros, resolution) = fraction_micros(frac);
    Some((secs * 1_000_000 + i64::from(micros), resolution))
}

/// The fields of one `/dev/kmsg` record's line, `PRIO,SEQ,USEC,FLAGS[,caller=T1];MESSAGE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KmsgRecord<'a> {
    /// The syslog facility, `PRIO >> 3`: 0 for the kernel's own messages, another for text
    /// that user space wrote to `/dev/kmsg`.
    pub facility: u16,
    /// The log level, `PRIO & 7`.
    pub level: u8,
    /// The record's sequence number.
    pub seq: u64,
    /// Microseconds since boot.
    pub usec: i64,
    /// The printk caller field, `T3919` (task) or `C1` (CPU).
    pub caller: Option<&'a str>,
    /// The message, without the record's prefix.
    pub message: &'a str,
}

/// Splits one line of `/dev/kmsg` into its fields; `None` for a line that is no record (a
/// dictionary line ` KEY=value`, other text).
pub fn parse_kmsg_record(text: &str) -> Option<KmsgRecord<'_>> {
    let (head, message) = text.split_once(';')?;
    let mut fields = head.split(',');
    let prio: u16 = fields.next()?.parse().ok()?;
    let seq: u64 = fields.next()?.parse().ok()?;
    let usec: i64 = fields.next()?.parse().ok()?;
    let flags = fields.next()?;
    if flags.len() > 1 {
        return None;
    }
    Some(KmsgRecord {
        facility: prio >> 3,
        level: (prio & 7) as u8,
        seq,
        usec,
        caller: fields.find_map(|f| f.strip_prefix("caller=")),
        message,
    })
}

/// `/dev/kmsg`: `prio,seq,usec,flags[,caller=T1];message`.
pub(super) fn parse_kmsg(text: &str) -> Option<Line<'_>> {
    let record = parse_kmsg_record(text)?;
    let stamp = Some(Stamp::Monotonic(record.usec));
    let mut line = Line::new(Format::Kmsg, stamp, 1, record.message);
    line.level = Some(record.level);
    // Facility 0 is the kernel's; the others are user space writing to /dev/kmsg.
    if let Some(f) = u8::try_from(record.facility).ok().filter(|&f| f != 0) {
        line.origin = super::Origin::User {
            ident: super::prefix::facility_name(f),
        };
    }
    line.caller = record.caller;
    line.seq = Some(record.seq);
    Some(line)
}
