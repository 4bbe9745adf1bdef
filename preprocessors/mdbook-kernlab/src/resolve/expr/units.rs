//! Showing a computed quantity: units, decimals, and values cut for error messages.

use super::Quantity;
use crate::error::{Outcome, cut, fail};

/// How to show a computed quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unit {
    Minutes,
    Seconds,
    Millis,
    Micros,
    Percent,
    Times,
    Plain,
}

impl Unit {
    pub fn parse(text: &str) -> Outcome<Unit> {
        Ok(match text {
            "min" => Unit::Minutes,
            "s" => Unit::Seconds,
            "ms" => Unit::Millis,
            "us" | "µs" => Unit::Micros,
            "%" => Unit::Percent,
            "x" => Unit::Times,
            "" | "none" => Unit::Plain,
            other => {
                return Err(fail(
                    format!("unknown unit `{other}`"),
                    "use min, s, ms, us, %, x or none",
                ));
            }
        })
    }

    /// The quantity in this unit, checking that durations are shown as durations.
    pub fn convert(self, q: Quantity) -> Outcome<f64> {
        let is_time_unit = matches!(
            self,
            Unit::Minutes | Unit::Seconds | Unit::Millis | Unit::Micros
        );
        if is_time_unit != (q.time == 1) {
            return Err(fail(
                if is_time_unit {
                    "a plain number cannot be shown in a time unit".to_string()
                } else {
                    "a duration must be shown in min, s, ms or us".to_string()
                },
                "fields ending in _ms, _s or _us (or named ms, s, us) are durations; others are plain numbers",
            ));
        }
        Ok(match self {
            Unit::Minutes => q.value / 60.0,
            Unit::Seconds => q.value,
            Unit::Millis => q.value * 1e3,
            Unit::Micros => q.value * 1e6,
            Unit::Percent => q.value * 100.0,
            Unit::Times | Unit::Plain => q.value,
        })
    }

    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Minutes => "\u{a0}min",
            Unit::Seconds => "\u{a0}s",
            Unit::Millis => "\u{a0}ms",
            Unit::Micros => "\u{a0}µs",
            Unit::Percent => "\u{a0}%",
            Unit::Times => "\u{d7}",
            Unit::Plain => "",
        }
    }
}

/// The most decimals a directive may ask for (`digits=`, or the decimals of `stated=`): an
/// f64 holds about 15 significant digits, so more would show noise.
pub const MAX_DIGITS: usize = 12;

/// Check a `digits` option: a whole number from 0 to [`MAX_DIGITS`].
pub fn check_digits(digits: f64, option: &str) -> Outcome<usize> {
    if digits.fract() != 0.0 || !(0.0..=MAX_DIGITS as f64).contains(&digits) {
        return Err(fail(
            format!(
                "`{option}={}` is not a number of decimals",
                cut(&digits.to_string())
            ),
            format!("give a whole number from 0 to {MAX_DIGITS}"),
        ));
    }
    Ok(digits as usize)
}

/// `value` rounded to `digits` decimals (at most [`MAX_DIGITS`] + 3, which the messages of
/// `claim` use), with the unit's suffix.
pub fn format_value(value: f64, digits: usize, unit: Unit) -> String {
    let digits = digits.min(MAX_DIGITS + 3);
    let rounded = format!("{value:.digits$}");
    // Avoid "-0.0".
    let rounded = if rounded
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        rounded.trim_start_matches('-').to_string()
    } else {
        rounded
    };
    format!("{rounded}{}", unit.suffix())
}
