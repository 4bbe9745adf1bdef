//! One line of kernel log text, recognised in place.
//!
//! [`parse_line`] is a pure function: it never fails and never allocates. A line it does
//! not recognise comes back as [`Format::Unstamped`] with the whole text as its message.
//! Turning the [`Stamp`] into a point on a clock needs the lines before it (relative
//! stamps accumulate, years roll over); that is the job of [`crate::reader`].

use serde::Serialize;

/// The textual format a line was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
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
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
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
    /// A calendar time.
    Wall(WallTime),
}

/// Who wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    Kernel,
    /// A user-space program interleaved in a journal or syslog file.
    User {
        ident: &'a str,
    },
}

/// One line, split into its fields. Borrowed from the input: nothing is copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub format: Format,
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
    pub origin: Origin<'a>,
    pub message: &'a str,
}

impl<'a> Line<'a> {
    fn new(format: Format, stamp: Option<Stamp>, resolution_us: u64, message: &'a str) -> Self {
        Line {
            format,
            stamp,
            resolution_us,
            level: None,
            caller: None,
            host: None,
            origin: Origin::Kernel,
            message,
        }
    }
}

/// Recognise one line of kernel log text (without its line terminator).
pub fn parse_line(raw: &str) -> Line<'_> {
    let text = strip_quoting(raw).trim_end();
    let (level, text) = strip_level(text);
    let mut line = parse_stamped(text).unwrap_or_else(|| {
        let mut line = Line::new(Format::Unstamped, None, 0, text);
        let (caller, message) = split_caller(strip_unknown_stamp(text));
        line.caller = caller;
        line.message = message;
        line
    });
    line.level = line.level.or(level);
    line
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

/// A time in brackets that no known format writes (`[Fr, 27. Jan 2023, 09:29:20] msg`, a
/// home-made `date` format): the message is what follows it; the line stays unstamped.
fn strip_unknown_stamp(text: &str) -> &str {
    let Some(inner_end) = text.strip_prefix('[').and_then(|rest| rest.find("] ")) else {
        return text;
    };
    let inner = &text[1..=inner_end];
    let time_like = inner.len() <= 40
        && inner.as_bytes().windows(5).any(|w| {
            w[0].is_ascii_digit()
                && w[1].is_ascii_digit()
                && w[2] == b':'
                && w[3].is_ascii_digit()
                && w[4].is_ascii_digit()
        });
    if time_like {
        &text[inner_end + 3..]
    } else {
        text
    }
}

/// Drop leading blanks and mail quote markers (`> `, `>> `).
fn strip_quoting(mut text: &str) -> &str {
    // Fast path: most lines start with their stamp.
    if text.starts_with(|c: char| c == '[' || c.is_ascii_alphanumeric()) {
        return text;
    }
    loop {
        text = text.trim_start_matches([' ', '\t', '\u{feff}']);
        match text.strip_prefix('>') {
            Some(rest) => text = rest,
            None => return text,
        }
    }
}

/// `<6>` syslog priorities and `dmesg -x` prefixes (`kern  :info  : `).
fn strip_level(text: &str) -> (Option<u8>, &str) {
    if let Some(rest) = text.strip_prefix('<')
        && let Some(end) = rest.find('>')
        && (1..=3).contains(&end)
        && let Ok(prio) = rest[..end].parse::<u16>()
    {
        return (Some((prio & 7) as u8), &rest[end + 1..]);
    }
    // `dmesg -x`: a facility name padded to 6, then a colon; checked only near the start.
    let near_start = &text.as_bytes()[..text.len().min(10)];
    if text.starts_with(|c: char| c.is_ascii_lowercase())
        && let Some(colon) = near_start.iter().position(|&b| b == b':')
        && FACILITIES.contains(&text[..colon].trim_end())
        && let Some((level, rest)) = text[colon + 1..].split_once(':')
        && let Some(pos) = LEVELS.iter().position(|l| *l == level.trim())
    {
        return (Some(pos as u8), rest.strip_prefix(' ').unwrap_or(rest));
    }
    (None, text)
}

const FACILITIES: [&str; 12] = [
    "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv",
    "ftp",
];
const LEVELS: [&str; 8] = [
    "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
];

/// Lines that start with `[`: dmesg, dmesg -T, reltime, short-monotonic.
fn parse_bracketed(text: &str) -> Option<Line<'_>> {
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
    if format == Format::Dmesg
        && caller.is_none()
        && let Some((host, origin, message)) = split_host_ident(rest, true)
    {
        line.format = Format::JournalShortMonotonic;
        line.host = Some(host);
        line.origin = origin;
        line.message = message;
        let (caller, message) = split_caller(message);
        line.caller = caller;
        line.message = message;
    }
    Some(line)
}

/// The common `[  426.169808]` stamp in one pass over the bytes: microseconds, resolution
/// and the index of the `]`. Anything else (`dmesg -d`, reltime, ctime) takes the slow path.
fn scan_dmesg_stamp(b: &[u8]) -> Option<(i64, u64, usize)> {
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
    if digits > 9 || b.get(i) != Some(&b']') {
        return None;
    }
    let shown = digits.min(6);
    let scale = 10i64.pow(6 - shown);
    Some((secs * 1_000_000 + micros * scale, scale as u64, i))
}

fn parse_bracket_stamp(inner: &str) -> Option<(Stamp, Format, u64)> {
    let first = *inner.as_bytes().first()?;
    match first {
        b'+' => {
            let (micros, res) = parse_seconds(inner[1..].trim_start())?;
            Some((Stamp::Delta(micros), Format::DmesgReltime, res))
        }
        b'<' => {
            let body = inner.strip_prefix('<')?.strip_suffix('>')?.trim();
            let (micros, res) = parse_seconds(body)?;
            Some((Stamp::Delta(micros), Format::DmesgReltime, res))
        }
        b'0'..=b'9' => {
            // `dmesg -d` appends the delta: `[  426.169808 <    0.000037>]`.
            let secs = inner.split(' ').next()?;
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
fn parse_seconds(text: &str) -> Option<(i64, u64)> {
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

/// A decimal fraction of a second (up to nine digits) in microseconds, truncated, and
/// the resolution its digit count gives.
fn fraction_micros(frac: &str) -> (u32, u64) {
    let digits = frac.len().min(6);
    let mut micros: u32 = 0;
    for b in frac.bytes().take(6) {
        micros = micros * 10 + u32::from(b - b'0');
    }
    micros *= 10u32.pow((6 - digits) as u32);
    (micros, 10u64.pow((6 - digits) as u32))
}

/// Split a printk caller field (`[   T3919]`, `[    C1]`) off the front of a message.
fn split_caller(text: &str) -> (Option<&str>, &str) {
    if let Some(rest) = text.strip_prefix('[')
        && let Some(end) = rest.find(']')
    {
        let field = rest[..end].trim_start();
        let bytes = field.as_bytes();
        if bytes.len() >= 2
            && matches!(bytes[0], b'T' | b'C')
            && bytes[1..].iter().all(u8::is_ascii_digit)
        {
            let message = &rest[end + 1..];
            return (Some(field), message.strip_prefix(' ').unwrap_or(message));
        }
    }
    (None, text)
}

/// `host ident: message`. With `kernel_only`, the ident must be `kernel` or `name[pid]`
/// (so that dmesg messages such as `usb 1-8: reset` are not mistaken for a host name).
fn split_host_ident(text: &str, kernel_only: bool) -> Option<(&str, Origin<'_>, &str)> {
    let space = memchr::memchr(b' ', text.as_bytes())?;
    let (host, rest) = (&text[..space], &text[space + 1..]);
    if host.is_empty() || host.ends_with(':') {
        return None;
    }
    // The ident is the second word and ends with a colon; only that word is examined.
    let (word, message) = match memchr::memchr(b' ', rest.as_bytes()) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let ident = word.strip_suffix(':').filter(|i| !i.is_empty())?;
    if ident == "kernel" {
        return Some((host, Origin::Kernel, message));
    }
    let has_pid = ident
        .strip_suffix(']')
        .and_then(|i| i.rsplit_once('['))
        .is_some_and(|(name, pid)| {
            !name.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
        });
    if kernel_only && !has_pid {
        return None;
    }
    Some((host, Origin::User { ident }, message))
}

/// `/dev/kmsg`: `prio,seq,usec,flags[,caller=T1];message`.
fn parse_kmsg(text: &str) -> Option<Line<'_>> {
    let (head, message) = text.split_once(';')?;
    let mut fields = head.split(',');
    let prio: u16 = fields.next()?.parse().ok()?;
    let _seq: u64 = fields.next()?.parse().ok()?;
    let usec: i64 = fields.next()?.parse().ok()?;
    let flags = fields.next()?;
    if flags.len() > 1 {
        return None;
    }
    let caller = fields.find_map(|f| f.strip_prefix("caller="));
    let mut line = Line::new(Format::Kmsg, Some(Stamp::Monotonic(usec)), 1, message);
    line.level = Some((prio & 7) as u8);
    line.caller = caller;
    Some(line)
}

/// ISO 8601 stamps: `dmesg --time-format iso`, `journalctl -o short-iso[-precise]`, rsyslog.
fn parse_iso_line(text: &str) -> Option<Line<'_>> {
    let (stamp, rest) = text.split_once(' ')?;
    let (wall, resolution_us) = parse_iso(stamp)?;
    let stamp = Some(Stamp::Wall(wall));
    // `dmesg --time-format iso` messages look like `host ident: ...` too (`usb 1-8: ...`):
    // only `kernel` and `name[pid]` idents make a journal line here.
    match split_host_ident(rest, true) {
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

/// A journal or syslog line after its stamp; a kernel message that carries the kernel's
/// own bracketed stamp (kern.log) takes that stamp instead: it is the finer one.
fn host_line<'a>(
    format: Format,
    stamp: Option<Stamp>,
    resolution_us: u64,
    host: &'a str,
    origin: Origin<'a>,
    message: &'a str,
) -> Line<'a> {
    if origin == Origin::Kernel
        && let Some(inner) = parse_bracketed(message).filter(|l| l.format == Format::Dmesg)
    {
        let mut line = inner;
        line.format = Format::Syslog;
        line.host = Some(host);
        return line;
    }
    let (caller, message) = split_caller(message);
    let mut line = Line::new(format, stamp, resolution_us, message);
    line.caller = caller;
    line.host = Some(host);
    line.origin = origin;
    line
}

fn parse_iso(text: &str) -> Option<(WallTime, u64)> {
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let year: i32 = digits(text.get(0..4)?)?;
    let month: u8 = digits(text.get(5..7)?)?;
    let day: u8 = digits(text.get(8..10)?)?;
    let (hour, minute, second) = parse_hms(text.get(11..19)?)?;
    let mut rest = text.get(19..)?;
    let (mut micros, mut resolution) = (0, 1_000_000);
    if let Some(frac_start) = rest.strip_prefix(['.', ',']) {
        let end = frac_start
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(frac_start.len());
        if end == 0 || end > 9 {
            return None;
        }
        (micros, resolution) = fraction_micros(&frac_start[..end]);
        rest = &frac_start[end..];
    }
    let utc_offset_s = parse_utc_offset(rest)?;
    let wall = WallTime {
        year: Some(year),
        month,
        day,
        hour,
        minute,
        second,
        micros,
        utc_offset_s,
    };
    valid_wall(&wall).then_some((wall, resolution))
}

/// `Z`, `+02:00`, `+0200`, or nothing.
fn parse_utc_offset(text: &str) -> Option<Option<i32>> {
    if text.is_empty() {
        return Some(None);
    }
    if text == "Z" {
        return Some(Some(0));
    }
    let sign = match text.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = text.get(1..)?.replace(':', "");
    if body.len() != 4 {
        return None;
    }
    let hours: i32 = digits(body.get(..2)?)?;
    let minutes: i32 = digits(body.get(2..)?)?;
    Some(Some(sign * (hours * 3600 + minutes * 60)))
}

/// `Sep 11 16:04:13[.123456] host ident: message` (journal short, short-precise, syslog).
fn parse_month_line(text: &str) -> Option<Line<'_>> {
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
    let wall = WallTime {
        year: None,
        month,
        day,
        hour,
        minute,
        second,
        micros,
        utc_offset_s: None,
    };
    if !valid_wall(&wall) {
        return None;
    }
    let (host, origin, message) = split_host_ident(rest, false)?;
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

/// `Thu Sep 11 16:04:13 2025` (any weekday word; month names in several locales).
fn parse_ctime(inner: &str) -> Option<WallTime> {
    let mut parts = inner.split_whitespace();
    let _weekday = parts.next()?;
    let month = month_number(parts.next()?)?;
    let day: u8 = digits(parts.next()?)?;
    let (hour, minute, second) = parse_hms(parts.next()?)?;
    let year: i32 = digits(parts.next()?)?;
    if parts.next().is_some() {
        return None;
    }
    let wall = WallTime {
        year: Some(year),
        month,
        day,
        hour,
        minute,
        second,
        micros: 0,
        utc_offset_s: None,
    };
    valid_wall(&wall).then_some(wall)
}

/// `dmesg --reltime` anchors: `Sep11 16:04` (minute resolution) or `Sep11 16:04:05`.
fn parse_reltime_anchor(inner: &str) -> Option<(WallTime, u64)> {
    let (date, time) = inner.split_once(' ')?;
    let split = date.find(|c: char| c.is_ascii_digit())?;
    let month = month_number(&date[..split])?;
    let day: u8 = digits(&date[split..])?;
    let (hour, minute, second, resolution) = match time.len() {
        5 => {
            let (h, m) = time.split_once(':')?;
            (digits(h)?, digits(m)?, 0, 60_000_000)
        }
        _ => {
            let (h, m, s) = parse_hms(time)?;
            (h, m, s, 1_000_000)
        }
    };
    let wall = WallTime {
        year: None,
        month,
        day,
        hour,
        minute,
        second,
        micros: 0,
        utc_offset_s: None,
    };
    valid_wall(&wall).then_some((wall, resolution))
}

fn parse_hms(text: &str) -> Option<(u8, u8, u8)> {
    let b = text.as_bytes();
    if b.len() != 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    Some((
        digits(text.get(0..2)?)?,
        digits(text.get(3..5)?)?,
        digits(text.get(6..8)?)?,
    ))
}

fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn valid_wall(w: &WallTime) -> bool {
    (1..=12).contains(&w.month)
        && (1..=31).contains(&w.day)
        && w.hour < 24
        && w.minute < 60
        && w.second <= 60
}

/// Month abbreviations as `date`, `dmesg -T` and syslog print them in common locales.
const MONTHS: [&[&str]; 12] = [
    &["jan", "janv", "ene", "gen"],
    &["feb", "fév", "fev", "févr"],
    &["mar", "mär", "mrz", "mars"],
    &["apr", "avr", "abr"],
    &["may", "mai", "mei", "mag"],
    &["jun", "juin", "giu"],
    &["jul", "juil", "lug"],
    &["aug", "aoû", "aou", "ago"],
    &["sep", "sept", "set"],
    &["oct", "okt", "ott", "out"],
    &["nov"],
    &["dec", "dez", "déc", "dic"],
];

fn month_number(word: &str) -> Option<u8> {
    let word = word.trim_end_matches('.');
    if word.is_empty() || word.len() > 5 {
        return None;
    }
    let lower = word.to_lowercase();
    MONTHS
        .iter()
        .position(|names| names.contains(&lower.as_str()))
        .map(|i| i as u8 + 1)
}

/// A month written in a locale without Latin abbreviations: `3月` / `3월` give their number;
/// another word of letters outside ASCII (`നവം`) is taken as a month whose number the log
/// does not tell, counted as January: the day and the time of day still order the lines.
fn localized_month(word: &str) -> Option<u8> {
    if let Some(number) = word.strip_suffix('月').or_else(|| word.strip_suffix('월')) {
        return digits::<u8>(number).filter(|m| (1..=12).contains(m));
    }
    let letters = word.chars().count();
    ((1..=8).contains(&letters) && !word.is_ascii() && word.chars().all(char::is_alphabetic))
        .then_some(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monotonic(line: &Line) -> i64 {
        match line.stamp {
            Some(Stamp::Monotonic(us)) => us,
            other => panic!("expected a monotonic stamp, got {other:?}"),
        }
    }

    #[test]
    fn dmesg_plain_and_caller() {
        let l = parse_line("[  426.169808] PM: suspend entry (deep)");
        assert_eq!(l.format, Format::Dmesg);
        assert_eq!(monotonic(&l), 426_169_808);
        assert_eq!(l.resolution_us, 1);
        assert_eq!(l.message, "PM: suspend entry (deep)");

        let l = parse_line("[  426.169808] [   T3919] CPU5 is up");
        assert_eq!(l.caller, Some("T3919"));
        assert_eq!(l.message, "CPU5 is up");

        let l = parse_line("<6>[    0.000000] Linux version 6.16.7");
        assert_eq!(l.level, Some(6));
        assert_eq!(l.message, "Linux version 6.16.7");
    }

    #[test]
    fn dmesg_messages_that_look_like_hosts_stay_dmesg() {
        let l = parse_line("[  450.410235] sd 1:0:0:0: [sda] Starting disk");
        assert_eq!(l.format, Format::Dmesg);
        assert_eq!(l.message, "sd 1:0:0:0: [sda] Starting disk");
        let l = parse_line("[  448.982214] pcieport 0000:00:1c.0: Enabling MPC IRBNCE");
        assert_eq!(l.format, Format::Dmesg);
    }

    #[test]
    fn dmesg_decoded_prefix() {
        let l = parse_line("kern  :info  : [  433.004880] CPU1 is up");
        assert_eq!(l.level, Some(6));
        assert_eq!(l.format, Format::Dmesg);
        assert_eq!(l.message, "CPU1 is up");
    }

    #[test]
    fn dmesg_ctime_in_two_locales() {
        let en = parse_line("[Thu Sep 11 16:04:13 2025] CPU1 is up");
        let de = parse_line("[Do Sep 11 16:04:13 2025] CPU1 is up");
        assert_eq!(en.format, Format::DmesgCtime);
        assert_eq!(en.stamp, de.stamp);
        assert_eq!(en.resolution_us, 1_000_000);
        let Some(Stamp::Wall(w)) = en.stamp else {
            panic!()
        };
        assert_eq!((w.year, w.month, w.day, w.hour), (Some(2025), 9, 11, 16));
    }

    #[test]
    fn dmesg_iso_and_reltime() {
        let l = parse_line("2025-09-11T16:04:13,400350+02:00 CPU1 is up");
        assert_eq!(l.format, Format::DmesgIso);
        assert_eq!(l.resolution_us, 1);
        let Some(Stamp::Wall(w)) = l.stamp else {
            panic!()
        };
        assert_eq!((w.micros, w.utc_offset_s), (400_350, Some(7200)));

        let l = parse_line("[  +0.000894] CPU1 is up");
        assert_eq!(
            (l.format, l.stamp),
            (Format::DmesgReltime, Some(Stamp::Delta(894)))
        );
        let l = parse_line("[Sep11 16:04] ACPI: PM: Low-level resume complete");
        assert_eq!(l.format, Format::DmesgReltime);
        assert_eq!(l.resolution_us, 60_000_000);
        let l = parse_line("[<    0.000037>] CPU1 is up");
        assert_eq!(l.stamp, Some(Stamp::Delta(37)));
    }

    #[test]
    fn kmsg() {
        let l = parse_line("6,1234,426169808,-;CPU1 is up");
        assert_eq!(l.format, Format::Kmsg);
        assert_eq!(monotonic(&l), 426_169_808);
        assert_eq!(l.level, Some(6));
        let l = parse_line("4,99,5,c,caller=T12;mtrr: warning");
        assert_eq!(l.caller, Some("T12"));
        assert_eq!(l.level, Some(4));
    }

    #[test]
    fn journal_formats() {
        let l = parse_line("Sep 11 16:04:13 macbookpro kernel: CPU7 is up");
        assert_eq!(l.format, Format::JournalShort);
        assert_eq!(l.host, Some("macbookpro"));
        assert_eq!(l.origin, Origin::Kernel);
        assert_eq!(l.message, "CPU7 is up");
        assert_eq!(l.resolution_us, 1_000_000);

        let l = parse_line("Sep 11 16:02:48 macbookpro systemd-logind[875]: Lid closed.");
        assert_eq!(
            l.origin,
            Origin::User {
                ident: "systemd-logind[875]"
            }
        );

        let l = parse_line("Sep 11 16:04:13.400350 macbookpro kernel: CPU7 is up");
        assert_eq!(
            (l.format, l.resolution_us),
            (Format::JournalShortPrecise, 1)
        );

        let l = parse_line("2025-09-11T16:04:13+0200 macbookpro kernel: CPU7 is up");
        assert_eq!(l.format, Format::JournalShortIso);
        for msg in [
            "ACPI: PM: Low-level resume complete",
            "usb 1-8: reset full-speed",
        ] {
            let text = format!("2025-09-11T16:04:13,000001+02:00 {msg}");
            let l = parse_line(&text);
            assert_eq!((l.format, l.message), (Format::DmesgIso, msg));
        }

        let l = parse_line("[  432.400350] macbookpro kernel: CPU7 is up");
        assert_eq!(l.format, Format::JournalShortMonotonic);
        assert_eq!(monotonic(&l), 432_400_350);
        assert_eq!(l.message, "CPU7 is up");
    }

    #[test]
    fn syslog_prefers_the_kernel_stamp() {
        let l = parse_line("Aug  2 09:27:17 host kernel: [318955.681791] CPU5 is up");
        assert_eq!(l.format, Format::Syslog);
        assert_eq!(monotonic(&l), 318_955_681_791);
        assert_eq!(l.message, "CPU5 is up");
        assert_eq!(l.host, Some("host"));
    }

    #[test]
    fn quoting_and_unstamped() {
        let l = parse_line(">  > [  426.169808] CPU1 is up");
        assert_eq!(l.format, Format::Dmesg);
        let l = parse_line("    continuation of the previous record");
        assert_eq!(l.format, Format::Unstamped);
        assert_eq!(l.message, "continuation of the previous record");
        // Bad stamps are text, not errors.
        for text in [
            "[ 12.x] a",
            "[Foo 99 25:61:00 2025] b",
            "13,not;kmsg",
            "Sep 99 1 x",
        ] {
            assert_eq!(parse_line(text).format, Format::Unstamped, "{text}");
        }
    }

    #[test]
    fn months_in_other_scripts() {
        let jp = parse_line(" 3月 13 18:33:21 tejo kernel: PM: suspend entry (deep)");
        assert_eq!(jp.format, Format::JournalShort);
        assert_eq!(jp.message, "PM: suspend entry (deep)");
        let Some(Stamp::Wall(w)) = jp.stamp else {
            panic!("{jp:?}")
        };
        assert_eq!((w.month, w.day, w.hour), (3, 13, 18));
        let ml = parse_line("നവം 27 11:06:53 archie kernel: CPU1 is up");
        assert_eq!(
            (ml.format, ml.message),
            (Format::JournalShort, "CPU1 is up")
        );
        assert_eq!(localized_month("13月"), None);
        assert_eq!(
            localized_month("Foo"),
            None,
            "unknown ASCII words stay no month"
        );
    }

    #[test]
    fn a_home_made_bracketed_time_is_dropped_from_the_message() {
        let l = parse_line("[Fr, 27. Jan 2023, 09:29:20] CPU1 is up");
        assert_eq!((l.format, l.message), (Format::Unstamped, "CPU1 is up"));
        let drm = parse_line("[drm] PCIE GART of 1024M enabled.");
        assert_eq!(drm.message, "[drm] PCIE GART of 1024M enabled.");
    }

    #[test]
    fn a_closing_bracket_without_an_opening_one_is_no_stamp() {
        // Found by the `formats` fuzz target: a journal line whose message starts with `]`.
        let line = parse_line("2025-09-11T16:04:12+0000 host kernel: ]2'''");
        assert!(line.message.contains("]2"), "{line:?}");
    }

    #[test]
    fn multi_byte_text_in_stamp_fields_is_no_stamp() {
        // Each of these once sliced a character in two and panicked.
        for raw in [
            "2025-09-11T16:04:1\u{e9} host kernel: x",
            "2025-09-11T16:04:12.123456+1\u{e9}1 host kernel: x",
            "2025-09-11T16:04:12+\u{e9}:00 host kernel: x",
            "2025-09-1\u{e9}T16:04:12 host kernel: x",
            "Se\u{e9} 11 16:04:13 host kernel: x",
            "Sep\u{e9}11 16:04:13 host kernel: x",
            "Sep 11 16:0\u{e9}:13 host kernel: x",
            "[Sep\u{e9}1 16:04] x",
        ] {
            let line = parse_line(raw);
            assert!(line.message.ends_with('x'), "{raw}: {line:?}");
        }
    }
}
