//! One line of kernel log text, recognised in place.
//!
//! [`parse_line`] is a pure function: it never fails and never allocates. A line it does
//! not recognise comes back as [`Format::Unstamped`] with the whole text as its message.
//! Turning the [`Stamp`] into a point on a clock needs the lines before it (relative
//! stamps accumulate, years roll over); that is the job of [`crate::parse::reader`].

use serde::Serialize;

/// The textual format a line was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    /// `dmesg`: `[  426.169808] msg`, optionally with a caller field or `<6>` level.
    Dmesg,
    /// `dmesg -T` / `--time-format ctime`: `[Thu Sep 11 16:04:13 2025] msg`.
    DmesgCtime,
    /// `dmesg --time-format iso`: `2025-09-11T16:04:13,400350+02:00 msg`.
    DmesgIso,
    /// `dmesg --reltime` (`[  +0.000894] msg`, `[Sep11 16:04] msg`) or `--time-format delta`.
    DmesgReltime,
    /// `/dev/kmsg`: `6,1234,426169808,-;msg`.
    Kmsg,
    /// `journalctl -k` (short): `Sep 11 16:04:13 host kernel: msg`.
    JournalShort,
    /// `journalctl -o short-precise`: `Sep 11 16:04:13.400350 host kernel: msg`.
    JournalShortPrecise,
    /// `journalctl -o short-iso` / `short-iso-precise`: `2025-09-11T16:04:13+0200 host kernel: msg`.
    JournalShortIso,
    /// `journalctl -o short-monotonic`: `[  426.169808] host kernel: msg`.
    JournalShortMonotonic,
    /// BSD syslog / kern.log with the kernel's own stamp: `Aug  2 09:27:17 host kernel: [318955.681791] msg`.
    Syslog,
    /// No time stamp: a continuation line, `dmesg --notime` output or text around the log.
    Unstamped,
}

impl Format {
    /// Every format, in a fixed order (used for counting).
    pub const ALL: [Format; 11] = [
        Format::Dmesg,
        Format::DmesgCtime,
        Format::DmesgIso,
        Format::DmesgReltime,
        Format::Kmsg,
        Format::JournalShort,
        Format::JournalShortPrecise,
        Format::JournalShortIso,
        Format::JournalShortMonotonic,
        Format::Syslog,
        Format::Unstamped,
    ];

    /// The name used in JSON and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Dmesg => "dmesg",
            Format::DmesgCtime => "dmesg-ctime",
            Format::DmesgIso => "dmesg-iso",
            Format::DmesgReltime => "dmesg-reltime",
            Format::Kmsg => "kmsg",
            Format::JournalShort => "journal-short",
            Format::JournalShortPrecise => "journal-short-precise",
            Format::JournalShortIso => "journal-short-iso",
            Format::JournalShortMonotonic => "journal-short-monotonic",
            Format::Syslog => "syslog",
            Format::Unstamped => "unstamped",
        }
    }

    /// Position in [`Format::ALL`].
    pub fn index(self) -> usize {
        Format::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// A calendar time as printed, before it is placed on a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallTime {
    /// `None` for syslog and journal formats, which print no year.
    pub year: Option<i32>,
    /// 1 to 12.
    pub month: u8,
    /// 1 to 31.
    pub day: u8,
    /// 0 to 23.
    pub hour: u8,
    /// 0 to 59.
    pub minute: u8,
    /// 0 to 60 (a leap second).
    pub second: u8,
    /// Microseconds, where the line prints a fraction of a second.
    pub micros: u32,
    /// Offset from UTC in seconds when the line states one.
    pub utc_offset_s: Option<i32>,
}

/// The time stamp of a line, as printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stamp {
    /// Seconds since boot on the kernel's monotonic clock, in microseconds.
    Monotonic(i64),
    /// Time since the previous record (`dmesg --reltime`, `--time-format delta`), in microseconds.
    Delta(i64),
    /// A calendar time the kernel's clock gives (`dmesg -T`, `--time-format iso`, reltime).
    Wall(WallTime),
    /// A calendar time a logger gave the line as it read it from the kernel (journalctl's
    /// realtime outputs, syslog without the kernel's stamp). The logger is frozen with the
    /// rest of user space during a suspend and reads what the kernel printed meanwhile only
    /// after the thaw, all at once: such times order lines but do not time the kernel.
    Received(WallTime),
}

/// Who wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// The kernel (every line of dmesg and kmsg formats).
    Kernel,
    /// A user-space program interleaved in a journal or syslog file.
    User {
        /// The program's name as the line gives it.
        ident: &'a str,
    },
}

/// One line, split into its fields. Borrowed from the input: nothing is copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The format the line was recognised as.
    pub format: Format,
    /// The stamp, when the line has one.
    pub stamp: Option<Stamp>,
    /// The smallest step the stamp can express, in microseconds (1 for `[  1.000001]`,
    /// 1 000 000 for formats that print whole seconds).
    pub resolution_us: u64,
    /// Console log level (0 = emerg .. 7 = debug) when the line carries one.
    pub level: Option<u8>,
    /// The printk caller field, `T3919` (task) or `C1` (CPU).
    pub caller: Option<&'a str>,
    /// Host name of journal and syslog formats.
    pub host: Option<&'a str>,
    /// Who wrote the line.
    pub origin: Origin<'a>,
    /// The record's sequence number, for `/dev/kmsg` records (`PRIO,SEQ,USEC,FLAGS;...`).
    pub seq: Option<u64>,
    /// The message, after every prefix.
    pub message: &'a str,
}

impl<'a> Line<'a> {
    /// A line with these fields and no level, caller or host: a kernel message.
    pub fn new(format: Format, stamp: Option<Stamp>, resolution_us: u64, message: &'a str) -> Self {
        Line {
            format,
            stamp,
            resolution_us,
            level: None,
            caller: None,
            host: None,
            origin: Origin::Kernel,
            seq: None,
            message,
        }
    }
}

mod calendar;
mod dmesg;
mod prefix;
mod syslog;
#[cfg(test)]
mod tests;

pub use dmesg::{KmsgRecord, parse_kmsg_record};
use dmesg::{parse_bracketed, parse_kmsg};
use prefix::{
    bytes_equal, capture_stamp_len, facility_name, glued_stamp_start, prefix_facility,
    split_caller, strip_level, strip_quoting, strip_unknown_stamp,
};
use syslog::{parse_dateless_kernel_line, parse_iso_line, parse_month_line};

/// `2016-03-01 16:26:05.961222028 UTC`, as Android kernels print the wall time in their PM
/// lines (nanoseconds kept to the microsecond); `None` unless the text is exactly that.
pub(crate) fn parse_utc_time(text: &str) -> Option<WallTime> {
    let text = text.strip_suffix(" UTC")?;
    let b = text.as_bytes();
    let iso_shape = b.len() > 20 && b.get(10) == Some(&b' ') && b.get(19) == Some(&b'.');
    let (wall, _) = calendar::parse_iso(text).filter(|_| iso_shape)?;
    wall.year.is_some().then_some(wall)
}

/// True when a kernel message starts with a task's name and pid, as the kernel's reports of
/// a process do: `NAME[PID]: ...` (a segfault, a trap, an exit), `NAME[PID] ...` (a bad
/// signal frame) or `NAME (PID): ...` (`drop_caches`). The name is the one the process gave
/// itself, text any local user chooses, so such a record is never taken for one of the
/// kernel's own messages (`mtrr: ...`, `PM: suspend exit`). A task's name has at most 15
/// bytes.
#[inline]
pub fn starts_with_task_name(message: &str) -> bool {
    let b = message.as_bytes();
    // Nearly every message has neither bracket near its start: a few word tests say so.
    if !bracket_near_start(b) {
        return false;
    }
    let pid_then = |after: &[u8], close: u8, rest: &[&[u8]]| {
        let digits = after.iter().take_while(|c| c.is_ascii_digit()).count();
        digits > 0
            && after.get(digits) == Some(&close)
            && rest.iter().any(|r| after[digits + 1..].starts_with(r))
    };
    b.iter().take(17).enumerate().any(|(i, &c)| match c {
        b'[' if (1..16).contains(&i) => pid_then(&b[i + 1..], b']', &[b": ", b" "]),
        b'(' if (2..17).contains(&i) && b[i - 1] == b' ' => pid_then(&b[i + 1..], b')', &[b": "]),
        _ => false,
    })
}

/// True when `[` or `(` is among the first 17 bytes, where a task name's bracket can be.
fn bracket_near_start(b: &[u8]) -> bool {
    let word = |range: std::ops::Range<usize>| {
        b.get(range)
            .and_then(|w| w.try_into().ok())
            .map(u64::from_le_bytes)
    };
    match (word(0..8), word(8..16)) {
        (Some(low), Some(high)) => {
            bytes_equal(low, b'[')
                | bytes_equal(low, b'(')
                | bytes_equal(high, b'[')
                | bytes_equal(high, b'(')
                != 0
                || matches!(b.get(16), Some(b'[' | b'('))
        }
        _ => b.iter().any(|&c| c == b'[' || c == b'('),
    }
}

/// Recognise one line of kernel log text (without its line terminator).
#[inline]
pub fn parse_line(raw: &str) -> Line<'_> {
    // The common shape, `[  426.169808] message`: a line that starts with its bracket has
    // no quoting, capture date, level or facility before it to strip.
    if raw.as_bytes().first() == Some(&b'[') {
        if let Some(line) = parse_bracketed(raw.trim_end()) {
            return line;
        }
    }
    let text = strip_quoting(raw).trim_end();
    let text = strip_capture_stamp(text);
    let facility = prefix_facility(text);
    let (level, text) = strip_level(text);
    let mut line = parse_stamped(text)
        .or_else(|| parse_dateless_kernel_line(text))
        .or_else(|| glued_stamp_start(text).and_then(|at| parse_bracketed(&text[at..])))
        .unwrap_or_else(|| {
            let mut line = Line::new(Format::Unstamped, None, 0, text);
            let (caller, message) = split_caller(strip_unknown_stamp(text));
            line.caller = caller;
            line.message = message;
            line
        });
    line.level = line.level.or(level);
    if let Some(f) = facility.filter(|&f| f != 0 && level.is_some()) {
        line.origin = Origin::User {
            ident: facility_name(f),
        };
    }
    line
}

/// Drop a capture tool's date when the kernel's own stamp follows it (`2020-10-05
/// 16:45:51.275000  <6>[   18.813866] msg`): the kernel's clock is the one the analysis
/// needs. Other lines that start with a date (journal and syslog ISO lines) are kept whole.
fn strip_capture_stamp(text: &str) -> &str {
    let Some(rest) = capture_stamp_len(text).and_then(|n| text.get(n..)) else {
        return text;
    };
    let (_, stamped) = strip_level(rest);
    let kernel_stamp = parse_bracketed(stamped)
        .is_some_and(|line| matches!(line.stamp, Some(Stamp::Monotonic(_))));
    if kernel_stamp { rest } else { text }
}

fn parse_stamped(text: &str) -> Option<Line<'_>> {
    let first = *text.as_bytes().first()?;
    match first {
        b'[' => parse_bracketed(text),
        b'0'..=b'9' => parse_kmsg(text)
            .or_else(|| parse_iso_line(text))
            .or_else(|| parse_month_line(text)),
        b'A'..=b'Z' | b'a'..=b'z' | 0x80.. => parse_month_line(text),
        _ => None,
    }
}
