//! What comes before a stamp or a message: mail quoting, a capture tool's own date in front
//! of the kernel's stamp, syslog priorities and `dmesg -x` levels, home-made bracketed
//! times, a `[T123]` / `[C1]` caller field, and the host and ident of journal and syslog
//! lines.

use super::Origin;

/// Drop leading blanks and mail quote markers (`> `, `>> `).
pub(super) fn strip_quoting(mut text: &str) -> &str {
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

/// The length of a capture tool's date at the start of a line: `2020-10-05 16:45:51.275000`
/// (LAVA, as KernelCI's mail reports quote it; serial-console loggers), a date, a space or
/// `T`, a time with optional fraction, then blanks. `None` when the line does not start so.
/// The caller keeps the kernel's own stamp that follows, when there is one.
pub(super) fn capture_stamp_len(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let date_time = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(b.get(10), Some(b' ' | b'T'))
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    if !date_time {
        return None;
    }
    let mut end = 19;
    if b.get(end) == Some(&b'.') {
        end += 1 + b[end + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
    }
    let blanks = b[end..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    (blanks > 0).then_some(end + blanks)
}

/// Where the kernel's stamp starts on a serial-console line that another writer of the same
/// UART (firmware, a test tool) left text in front of: `abc[   12.345678] msg`. Only the
/// stamp exactly as printk writes it counts (`[%5lu.%06lu] `), glued to the text before it
/// (no blank between), within the first [`GLUED_MAX`] bytes, so that prose holding a
/// bracketed number stays text.
pub(super) fn glued_stamp_start(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let head = &b[..b.len().min(GLUED_MAX + 1)];
    memchr::memchr_iter(b'[', head)
        .filter(|&at| at > 0 && !b[at - 1].is_ascii_whitespace())
        .find(|&at| printk_stamp(&b[at..]))
}

/// The most bytes another writer may leave before a kernel stamp.
const GLUED_MAX: usize = 128;

/// `[%5lu.%06lu] ` at the start of `b`: padded seconds, a dot, six digits, `]` and a blank.
fn printk_stamp(b: &[u8]) -> bool {
    let Some(close) = b.iter().take(32).position(|&c| c == b']') else {
        return false;
    };
    let inner = &b[1..close];
    let digits = &inner[inner.iter().take_while(|&&c| c == b' ').count()..];
    let Some(dot) = digits.iter().position(|&c| c == b'.') else {
        return false;
    };
    inner.len() >= 12
        && dot > 0
        && digits.len() - dot - 1 == 6
        && digits
            .iter()
            .enumerate()
            .all(|(i, c)| i == dot || c.is_ascii_digit())
        && b.get(close + 1) == Some(&b' ')
}

/// `<6>` syslog priorities and `dmesg -x` prefixes (`kern  :info  : `).
pub(super) fn strip_level(text: &str) -> (Option<u8>, &str) {
    if let Some(rest) = text.strip_prefix('<') {
        if let Some(end) = rest.find('>').filter(|end| (1..=3).contains(end)) {
            if let Ok(prio) = rest[..end].parse::<u16>() {
                return (Some((prio & 7) as u8), &rest[end + 1..]);
            }
        }
    }
    // `dmesg -x`: a facility name padded to 6, then a colon; checked only near the start.
    let near_start = &text.as_bytes()[..text.len().min(10)];
    if text.starts_with(|c: char| c.is_ascii_lowercase()) {
        let colon = near_start.iter().position(|&b| b == b':');
        if let Some(colon) = colon.filter(|&c| FACILITIES.contains(&text[..c].trim_end())) {
            if let Some((level, rest)) = text[colon + 1..].split_once(':') {
                if let Some(pos) = LEVELS.iter().position(|l| *l == level.trim()) {
                    return (Some(pos as u8), rest.strip_prefix(' ').unwrap_or(rest));
                }
            }
        }
    }
    (None, text)
}

/// The syslog facility a line's prefix names (`<30>` is daemon, `dmesg -x`'s `user  :`):
/// records that carry one and name any but the kernel's (0) were written by user space
/// through `/dev/kmsg`, not printed by the kernel.
pub(super) fn prefix_facility(text: &str) -> Option<u8> {
    let prio = text.strip_prefix('<').and_then(|rest| {
        let end = rest.find('>').filter(|end| (1..=3).contains(end))?;
        rest[..end].parse::<u16>().ok()
    });
    if let Some(prio) = prio {
        return u8::try_from(prio >> 3).ok();
    }
    let near_start = &text.as_bytes()[..text.len().min(10)];
    let colon = near_start.iter().position(|&b| b == b':')?;
    let name = text.get(..colon)?.trim_end();
    FACILITIES
        .iter()
        .position(|f| *f == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// The name of a syslog facility number, for user-space records of `/dev/kmsg`.
pub(super) fn facility_name(facility: u8) -> &'static str {
    FACILITIES
        .get(usize::from(facility))
        .copied()
        .unwrap_or("user")
}

pub(super) const FACILITIES: [&str; 12] = [
    "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv",
    "ftp",
];

pub(super) const LEVELS: [&str; 8] = [
    "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
];

/// A time in brackets that no known format writes (`[Fr, 27. Jan 2023, 09:29:20] msg`, a
/// home-made `date` format): the message is what follows it; the line stays unstamped.
pub(super) fn strip_unknown_stamp(text: &str) -> &str {
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

/// Split a printk caller field (`[   T3919]`, `[    C1]`) off the front of a message.
pub(super) fn split_caller(text: &str) -> (Option<&str>, &str) {
    if let Some(rest) = text.strip_prefix('[') {
        if let Some(end) = rest.find(']') {
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
    }
    (None, text)
}

/// Which lines without a host column (`journalctl --no-hostname`: `ident: message`) count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hostless {
    /// None: the first word is a host.
    No,
    /// Only the kernel's (`kernel: msg`): dmesg itself shows user space's `systemd[1]: ...`.
    Kernel,
    /// The kernel's and user space's with a pid (`sshd[812]: msg`).
    Any,
}

/// `host ident: message`, or `ident: message` as `hostless` allows (the host is `None`
/// then). With `kernel_only`, the ident after a host must be `kernel` or `name[pid]` (so
/// that dmesg messages such as `usb 1-8: reset` are not mistaken for a host name).
pub(super) fn split_host_ident(
    text: &str,
    kernel_only: bool,
    hostless: Hostless,
) -> Option<(Option<&str>, Origin<'_>, &str)> {
    let space = word_end(text.as_bytes())?;
    let (host, rest) = (&text[..space], &text[space + 1..]);
    if host.ends_with(':') {
        // The first word is an ident: a line without a host column, if such lines count.
        let origin = match hostless {
            Hostless::No => None,
            Hostless::Kernel => ident_origin(host, true).filter(|o| *o == Origin::Kernel),
            Hostless::Any => ident_origin(host, true),
        }?;
        return Some((None, origin, rest));
    }
    if host.is_empty() {
        return None;
    }
    // The ident is the second word and ends with a colon; only that word is examined.
    let (word, message) = match word_end(rest.as_bytes()) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let origin = ident_origin(word, kernel_only)?;
    Some((Some(host), origin, message))
}

/// The bytes of `word` (eight bytes of text, little-endian) equal to `byte`, as the high bit
/// of each (a zero byte of the word XOR the byte); the lowest one set is always a true match,
/// higher ones may be borrows. Short scans test eight bytes at a time with it: the words they
/// look at are too short for a vectorised search to pay its setup.
pub(super) fn bytes_equal(word: u64, byte: u8) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// The first space.
fn word_end(b: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = b.get(at..at + 8) {
        let zero = bytes_equal(u64::from_le_bytes(word.try_into().ok()?), b' ');
        if zero != 0 {
            return Some(at + zero.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    b[at..].iter().position(|&c| c == b' ').map(|i| at + i)
}

/// The origin an ident word (`kernel:`, `sshd[812]:`) names. With `kernel_only`, a user
/// ident must carry a pid.
fn ident_origin(word: &str, kernel_only: bool) -> Option<Origin<'_>> {
    let ident = word.strip_suffix(':').filter(|i| !i.is_empty())?;
    if ident == "kernel" {
        return Some(Origin::Kernel);
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
    Some(Origin::User { ident })
}
