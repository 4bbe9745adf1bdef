//! Calendar times as logs print them: ISO 8601 with offsets, `ctime`, `--reltime` anchors,
//! month names in several locales.

use super::WallTime;

pub(super) fn parse_iso(text: &str) -> Option<(WallTime, u64)> {
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
    WallTime::checked(
        Some(year),
        month,
        day,
        (hour, minute, second),
        micros,
        utc_offset_s,
    )
    .map(|wall| (wall, resolution))
}

/// `Z`, `+02:00`, `+0200`, or nothing.
pub(super) fn parse_utc_offset(text: &str) -> Option<Option<i32>> {
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

/// `Thu Sep 11 16:04:13 2025` (any weekday word; month names in several locales).
pub(super) fn parse_ctime(inner: &str) -> Option<WallTime> {
    let mut parts = inner.split_whitespace();
    let _weekday = parts.next()?;
    let month = month_number(parts.next()?)?;
    let day: u8 = digits(parts.next()?)?;
    let (hour, minute, second) = parse_hms(parts.next()?)?;
    let year: i32 = digits(parts.next()?)?;
    if parts.next().is_some() {
        return None;
    }
    WallTime::checked(Some(year), month, day, (hour, minute, second), 0, None)
}

/// `dmesg --reltime` anchors: `Sep11 16:04` (minute resolution) or `Sep11 16:04:05`.
/// util-linux prints the date with `%b%e`, so a day below 10 is padded with a space:
/// `Dec 1 02:51`.
pub(super) fn parse_reltime_anchor(inner: &str) -> Option<(WallTime, u64)> {
    let mut words = inner.split_whitespace();
    let date = words.next()?;
    let split = date
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(date.len());
    let month = month_number(&date[..split])?;
    let day: u8 = match &date[split..] {
        "" => digits(words.next()?)?,
        day => digits(day)?,
    };
    let time = words.next()?;
    if words.next().is_some() {
        return None;
    }
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
    WallTime::checked(None, month, day, (hour, minute, second), 0, None)
        .map(|wall| (wall, resolution))
}

pub(super) fn parse_hms(text: &str) -> Option<(u8, u8, u8)> {
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

pub(super) fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl WallTime {
    /// A wall time from its fields, when they make a date and a time of day.
    pub(super) fn checked(
        year: Option<i32>,
        month: u8,
        day: u8,
        (hour, minute, second): (u8, u8, u8),
        micros: u32,
        utc_offset_s: Option<i32>,
    ) -> Option<WallTime> {
        let wall = WallTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
            utc_offset_s,
        };
        valid_wall(&wall).then_some(wall)
    }
}

pub(super) fn valid_wall(w: &WallTime) -> bool {
    (1..=12).contains(&w.month)
        && (1..=31).contains(&w.day)
        && w.hour < 24
        && w.minute < 60
        && w.second <= 60
}

/// Month abbreviations as `date`, `dmesg -T` and syslog print them in common locales.
pub(super) const MONTHS: [&[&str]; 12] = [
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

pub(super) fn month_number(word: &str) -> Option<u8> {
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
pub(super) fn localized_month(word: &str) -> Option<u8> {
    if let Some(number) = word.strip_suffix('月').or_else(|| word.strip_suffix('월')) {
        return digits::<u8>(number).filter(|m| (1..=12).contains(m));
    }
    let letters = word.chars().count();
    ((1..=8).contains(&letters) && !word.is_ascii() && word.chars().all(char::is_alphabetic))
        .then_some(1)
}

/// A decimal fraction of a second (up to nine digits) in microseconds, truncated, and
/// the resolution its digit count gives.
pub(super) fn fraction_micros(frac: &str) -> (u32, u64) {
    let digits = frac.len().min(6);
    let mut micros: u32 = 0;
    for b in frac.bytes().take(6) {
        micros = micros * 10 + u32::from(b - b'0');
    }
    micros *= 10u32.pow((6 - digits) as u32);
    (micros, 10u64.pow((6 - digits) as u32))
}
