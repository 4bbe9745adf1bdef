//! Values computed from data for the prose: a small expression language over JSON
//! pointers into data files.
//!
//! ```text
//! dmesg/resume.log#/cycles/0/enable_phase_ms                 one value
//! mean(dmesg/run*.log#/cycles/0/enable_phase_ms)             an aggregate over files
//! max(mtrr/a.log#/cycles/0/cpus/*/bringup_ms)                ... or over array elements
//! a.log#/x - b.log#/x        (a.log#/x / b.log#/x) * 100     arithmetic
//! ```
//!
//! `FILE@/REGEX/` is the time stamp (in seconds) of the first line of a log whose message
//! matches: `journal/b.log@/Finished/ - journal/a.log@/suspend exit/` is a duration.
//!
//! A reference is `FILE#POINTER` (RFC 6901, with `*` for every array element and
//! `[field=value]` for the elements whose field has that value, e.g.
//! `#/trace/functions/[name=_cpu_up]/max_ms`). Logs are
//! read through kernlog's JSON report, YAML and JSON files as they are. Fields named
//! `*_ms`, `*_s` and `*_us` carry time; everything is computed in seconds and shown in the
//! unit the directive asks for.

use serde_json::Value;

use crate::data::DataStore;
use crate::error::{Outcome, fail};

/// A number and whether it is a duration (in seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    pub value: f64,
    /// Power of time: 1 for a duration, 0 for a plain number.
    pub time: i32,
}

impl Quantity {
    fn plain(value: f64) -> Self {
        Quantity { value, time: 0 }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Ref(String),
    Func(String),
    Op(char),
    Open,
    Close,
}

fn tokenize(text: &str) -> Outcome<Vec<Token>> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            '+' | '-' | '*' | '/' => {
                tokens.push(Token::Op(c));
                i += 1;
            }
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                let s: String = chars[start..i].iter().collect();
                let n = s.parse().map_err(|_| {
                    fail(
                        format!("`{}` is not a number", cut(&s)),
                        "write numbers like 16.5",
                    )
                })?;
                tokens.push(Token::Number(n));
            }
            _ => {
                let start = i;
                let mut in_regex = false;
                while i < chars.len()
                    && (in_regex
                        || (!chars[i].is_whitespace() && chars[i] != '(' && chars[i] != ')'))
                {
                    // FILE@/regex/: the regex may contain blanks and brackets.
                    if chars[i] == '/' && i > 0 && chars[i - 1] == '@' {
                        in_regex = true;
                    } else if in_regex && chars[i] == '/' {
                        in_regex = false;
                    }
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if i < chars.len() && chars[i] == '(' && !word.contains(['#', '/', '.']) {
                    tokens.push(Token::Func(word));
                } else if word.contains('#') || word.contains("@/") {
                    tokens.push(Token::Ref(word));
                } else {
                    return Err(fail(
                        format!(
                            "`{word}` is neither a number, an operator, a function nor FILE#POINTER"
                        ),
                        "refer to data as FILE#/json/pointer, e.g. dmesg/x.log#/cycles/0/enable_phase_ms",
                    ));
                }
            }
        }
    }
    Ok(tokens)
}

/// Evaluate an expression against the data store.
pub fn evaluate(text: &str, data: &DataStore) -> Outcome<Quantity> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Err(fail(
            "the expression is empty",
            "write FILE#POINTER, e.g. a.log#/cycles/0/enable_phase_ms",
        ));
    }
    let mut parser = ExprParser {
        tokens,
        at: 0,
        data,
    };
    let q = parser.expr()?;
    if parser.at != parser.tokens.len() {
        return Err(fail(
            format!(
                "unexpected `{:?}` after the expression",
                parser.tokens[parser.at]
            ),
            "operators (+ - * /) must stand between values",
        ));
    }
    if !q.value.is_finite() {
        return Err(fail(
            "the expression has no finite value (division by zero?)",
            "check the data the expression reads",
        ));
    }
    Ok(q)
}

struct ExprParser<'a> {
    tokens: Vec<Token>,
    at: usize,
    data: &'a DataStore,
}

impl ExprParser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn expr(&mut self) -> Outcome<Quantity> {
        let mut left = self.term()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            let right = self.term()?;
            if left.time != right.time {
                return Err(fail(
                    "cannot add or subtract a duration and a plain number",
                    "both sides of + and - must be durations, or both plain numbers",
                ));
            }
            left.value = if op == '+' {
                left.value + right.value
            } else {
                left.value - right.value
            };
        }
        Ok(left)
    }

    fn term(&mut self) -> Outcome<Quantity> {
        let mut left = self.factor()?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.at += 1;
            let right = self.factor()?;
            left = if op == '*' {
                Quantity {
                    value: left.value * right.value,
                    time: left.time + right.time,
                }
            } else {
                Quantity {
                    value: left.value / right.value,
                    time: left.time - right.time,
                }
            };
        }
        Ok(left)
    }

    fn factor(&mut self) -> Outcome<Quantity> {
        match self.next() {
            Some(Token::Number(n)) => Ok(Quantity::plain(n)),
            Some(Token::Op('-')) => {
                let q = self.factor()?;
                Ok(Quantity {
                    value: -q.value,
                    ..q
                })
            }
            Some(Token::Open) => {
                let q = self.expr()?;
                match self.next() {
                    Some(Token::Close) => Ok(q),
                    _ => Err(fail("a `(` is not closed", "balance the parentheses")),
                }
            }
            Some(Token::Ref(r)) => {
                let values = lookup(&r, self.data)?;
                match values.as_slice() {
                    [one] => Ok(*one),
                    _ => Err(fail(
                        format!("`{r}` has {} values, not one", values.len()),
                        "wrap it in mean(), sum(), min(), max() or count()",
                    )),
                }
            }
            Some(Token::Func(name)) => {
                if !["mean", "sum", "min", "max", "count"].contains(&name.as_str()) {
                    return Err(fail(
                        format!("unknown function `{name}`"),
                        "use mean, sum, min, max or count",
                    ));
                }
                if self.next() != Some(Token::Open) {
                    return Err(fail(
                        format!("`{name}` needs `(`"),
                        "write e.g. mean(FILE#POINTER)",
                    ));
                }
                let arg = match self.next() {
                    Some(Token::Ref(r)) => r,
                    _ => {
                        return Err(fail(
                            format!("{name}() takes one FILE#POINTER"),
                            "the file may be a glob and the pointer may use * for array elements",
                        ));
                    }
                };
                if self.next() != Some(Token::Close) {
                    return Err(fail(
                        format!("{name}( is not closed"),
                        "write e.g. mean(FILE#POINTER)",
                    ));
                }
                if name == "count" {
                    return Ok(Quantity::plain(count(&arg, self.data)? as f64));
                }
                let values = lookup(&arg, self.data)?;
                aggregate(&name, &values)
            }
            other => Err(fail(
                format!(
                    "expected a value, found {}",
                    other.map_or("the end".to_string(), |t| format!("{t:?}"))
                ),
                "an expression is FILE#POINTER, a number, a function or a bracketed expression",
            )),
        }
    }
}

fn aggregate(name: &str, values: &[Quantity]) -> Outcome<Quantity> {
    let time = values.first().map_or(0, |q| q.time);
    let numbers = values.iter().map(|q| q.value);
    let value = match name {
        "count" => return Ok(Quantity::plain(values.len() as f64)),
        "sum" => numbers.sum(),
        "mean" => numbers.sum::<f64>() / values.len() as f64,
        "min" => numbers.fold(f64::INFINITY, f64::min),
        _ => numbers.fold(f64::NEG_INFINITY, f64::max),
    };
    Ok(Quantity { value, time })
}

/// The time stamp of the first record of `file` whose message matches `/regex/`.
fn record_time(reference: &str, data: &DataStore) -> Outcome<Quantity> {
    let (file, pattern) = reference.split_once('@').unwrap_or((reference, ""));
    let regex = pattern
        .strip_prefix('/')
        .and_then(|p| p.strip_suffix('/'))
        .filter(|p| !p.is_empty())
        .ok_or_else(|| fail(format!("`{pattern}` is not /regex/"), "write FILE@/regex/"))?;
    let regex = regex::Regex::new(regex).map_err(|e| {
        fail(
            format!("`{regex}` is not a valid regex: {e}"),
            "write FILE@/regex/",
        )
    })?;
    let text = data.text(file)?;
    let mut reader = kernlog::reader::RecordReader::new(text.as_bytes());
    while let Some(Ok(r)) = reader.next_record() {
        if regex.is_match(r.message) {
            // trace-cmd lines carry their own time stamp.
            let trace_time =
                kernlog::trace::parse_trace_line(r.message).map(|l| l.time_us as f64 / 1e6);
            if let Some(seconds) = trace_time {
                return Ok(Quantity {
                    value: seconds,
                    time: 1,
                });
            }
            let t = r.time.ok_or_else(|| {
                fail(
                    format!("the line of `{file}` matching {pattern} has no time stamp"),
                    "choose a stamped line",
                )
            })?;
            return Ok(Quantity {
                value: t.seconds(),
                time: 1,
            });
        }
    }
    Err(fail(
        format!("no line of `{file}` matches {pattern}"),
        "the pattern is matched against each message (without its time stamp)",
    ))
}

/// How many non-null values `FILE#POINTER` designates (of any type).
fn count(reference: &str, data: &DataStore) -> Outcome<usize> {
    let (file, pointer) = reference
        .split_once('#')
        .ok_or_else(|| fail(format!("`{reference}` has no `#`"), "write FILE#POINTER"))?;
    let mut n = 0;
    for f in data.glob(file)? {
        let doc = data.document(&f)?;
        n += select(&doc, pointer.trim_start_matches('/'))
            .iter()
            .filter(|v| !v.is_null())
            .count();
    }
    Ok(n)
}

/// Every value `FILE#POINTER` designates (a glob file and `*` pointer segments expand).
pub fn lookup(reference: &str, data: &DataStore) -> Outcome<Vec<Quantity>> {
    if !reference.contains('#') && reference.contains("@/") {
        return Ok(vec![record_time(reference, data)?]);
    }
    let (file, pointer) = reference
        .split_once('#')
        .ok_or_else(|| fail(format!("`{reference}` has no `#`"), "write FILE#POINTER"))?;
    if !pointer.starts_with('/') {
        return Err(fail(
            format!("`{pointer}` is not a JSON pointer"),
            "a pointer starts with `/`, e.g. #/cycles/0/enable_phase_ms",
        ));
    }
    let time_scale = pointer.rsplit('/').next().and_then(|field| {
        if field.ends_with("_ms") || field == "ms" {
            Some(1e-3)
        } else if field.ends_with("_us") || field == "us" {
            Some(1e-6)
        } else if field.ends_with("_s") || field == "s" {
            Some(1.0)
        } else {
            None
        }
    });
    let mut out = Vec::new();
    for f in data.glob(file)? {
        let doc = data.document(&f)?;
        let mut found = Vec::new();
        walk(&doc, &pointer[1..], &mut found);
        if found.is_empty() {
            return Err(fail(
                format!("`{f}` has nothing at `{pointer}`"),
                "check the pointer against `kernlog analyze --json` of the file (or the YAML)",
            ));
        }
        // Expanded pointers skip elements without a value (null), as long as some remain.
        if (pointer.contains('*') || pointer.contains('[')) && found.iter().any(|v| !v.is_null()) {
            found.retain(|v| !v.is_null());
        }
        for v in found {
            let n = v.as_f64().ok_or_else(|| {
                if v.is_null() {
                    fail(
                        format!("`{f}#{pointer}` is null: the log has no data for it"),
                        "choose a capture that contains both end points of the figure",
                    )
                } else {
                    fail(
                        format!("`{f}#{pointer}` is not a number: {}", cut(&v.to_string())),
                        "point at a numeric field",
                    )
                }
            })?;
            out.push(match time_scale {
                Some(scale) => Quantity {
                    value: n * scale,
                    time: 1,
                },
                None => Quantity::plain(n),
            });
        }
    }
    Ok(out)
}

/// Every value `pointer` (without its leading `/`) designates in `value`, with the `*` and
/// `[field=value]` extensions.
pub fn select<'v>(value: &'v Value, pointer: &str) -> Vec<&'v Value> {
    let mut out = Vec::new();
    walk(value, pointer, &mut out);
    out
}

fn walk<'v>(value: &'v Value, pointer: &str, out: &mut Vec<&'v Value>) {
    if pointer.is_empty() {
        out.push(value);
        return;
    }
    let (head, rest) = pointer.split_once('/').unwrap_or((pointer, ""));
    let key = percent_decode(head).replace("~1", "/").replace("~0", "~");
    // `[field=value&field=value]` selects the array elements matching every condition.
    let selector: Option<Vec<(&str, &str)>> = key
        .strip_prefix('[')
        .and_then(|k| k.strip_suffix(']'))
        .map(|k| k.split('&').filter_map(|c| c.split_once('=')).collect());
    match value {
        Value::Array(items) if key == "*" => {
            for item in items {
                walk(item, rest, out);
            }
        }
        Value::Object(map) if key == "*" => {
            for item in map.values() {
                walk(item, rest, out);
            }
        }
        Value::Array(items) if selector.as_ref().is_some_and(|s| !s.is_empty()) => {
            let conditions = selector.unwrap_or_default();
            for item in items {
                let matches = conditions
                    .iter()
                    .all(|(field, wanted)| match item.get(*field) {
                        Some(Value::String(s)) => s == wanted,
                        Some(Value::Number(n)) => n.to_string() == *wanted,
                        Some(Value::Bool(b)) => b.to_string() == *wanted,
                        _ => false,
                    });
                if matches {
                    walk(item, rest, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = key.parse::<usize>().ok().and_then(|i| items.get(i)) {
                walk(item, rest, out);
            }
        }
        Value::Object(map) => {
            if let Some(item) = map.get(&key) {
                walk(item, rest, out);
            }
        }
        _ => {}
    }
}

/// `%20` and other `%XX` escapes of a URI fragment (RFC 6901, section 6).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How to show a computed quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unit {
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
            "s" => Unit::Seconds,
            "ms" => Unit::Millis,
            "us" | "µs" => Unit::Micros,
            "%" => Unit::Percent,
            "x" => Unit::Times,
            "" | "none" => Unit::Plain,
            other => {
                return Err(fail(
                    format!("unknown unit `{other}`"),
                    "use s, ms, us, %, x or none",
                ));
            }
        })
    }

    /// The quantity in this unit, checking that durations are shown as durations.
    pub fn convert(self, q: Quantity) -> Outcome<f64> {
        let is_time_unit = matches!(self, Unit::Seconds | Unit::Millis | Unit::Micros);
        if is_time_unit != (q.time == 1) {
            return Err(fail(
                if is_time_unit {
                    "a plain number cannot be shown in a time unit".to_string()
                } else {
                    "a duration must be shown in s, ms or us".to_string()
                },
                "fields ending in _ms, _s or _us (or named ms, s, us) are durations; others are plain numbers",
            ));
        }
        Ok(match self {
            Unit::Seconds => q.value,
            Unit::Millis => q.value * 1e3,
            Unit::Micros => q.value * 1e6,
            Unit::Percent => q.value * 100.0,
            Unit::Times | Unit::Plain => q.value,
        })
    }

    pub fn suffix(self) -> &'static str {
        match self {
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

/// A value from the book's text, cut to a length that fits in one error line.
pub fn cut(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}... ({} characters)", &text[..at], text.chars().count()),
        None => text.to_string(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, DataStore) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("run1.log"),
            "[   10.000000] Enabling non-boot CPUs ...\n[   11.500000] End enabling non-boot CPUs\n",
        )
        .unwrap();
        std::fs::write(
            d.join("run2.log"),
            "[   10.000000] Enabling non-boot CPUs ...\n[   12.500000] End enabling non-boot CPUs\n",
        )
        .unwrap();
        std::fs::write(d.join("t.yaml"), "rows:\n  - {n: 3}\n  - {n: 5}\n").unwrap();
        let store = DataStore::new(d).unwrap();
        (dir, store)
    }

    #[test]
    fn values_aggregates_and_arithmetic() {
        let (_d, s) = store();
        let q = evaluate("run1.log#/cycles/0/enable_phase_ms", &s).unwrap();
        assert_eq!(
            q,
            Quantity {
                value: 1.5,
                time: 1
            }
        );
        let q = evaluate("mean(run*.log#/cycles/0/enable_phase_ms)", &s).unwrap();
        assert_eq!(q.value, 2.0);
        let q = evaluate(
            "run2.log#/cycles/0/enable_phase_ms / run1.log#/cycles/0/enable_phase_ms",
            &s,
        )
        .unwrap();
        assert_eq!(q.time, 0);
        assert!((q.value - 5.0 / 3.0).abs() < 1e-12);
        let q = evaluate("(max(t.yaml#/rows/*/n) - 1) * 2", &s).unwrap();
        assert_eq!(evaluate("t.yaml#/rows/[n=5]/n", &s).unwrap().value, 5.0);
        assert!(evaluate("t.yaml#/rows/[n=4]/n", &s).is_err());
        std::fs::write(
            s.dir().join("u.yaml"),
            "rows:\n  - {a: x y, n: 1, m: 7}\n  - {a: x y, n: 2, m: 9}\n",
        )
        .unwrap();
        assert_eq!(
            evaluate("u.yaml#/rows/[a=x%20y&n=2]/m", &s).unwrap().value,
            9.0
        );
        assert_eq!(evaluate("max(u.yaml#/*/*/m)", &s).unwrap().value, 9.0);
        assert_eq!(q, Quantity::plain(8.0));
        assert_eq!(
            evaluate("count(run*.log#/cycles/*/enable_phase_ms)", &s)
                .unwrap()
                .value,
            2.0
        );
    }

    #[test]
    fn errors_say_what_to_do() {
        let (_d, s) = store();
        for (expr, needle) in [
            ("run*.log#/cycles/0/enable_phase_ms", "has 2 values"),
            ("run1.log#/cycles/0/nothing_ms", "has nothing at"),
            ("run1.log#/cycles/0/ec_wake_to_unblock_ms", "is null"),
            ("run1.log#/cycles/0/enable_phase_ms + 1", "cannot add"),
            ("median(run1.log#/x)", "unknown function"),
            ("run1.log", "neither a number"),
            ("(1 + 2", "not closed"),
            ("1 / 0", "no finite value"),
            ("../x.log#/a", "not a path inside"),
        ] {
            let err = evaluate(expr, &s).unwrap_err();
            assert!(err.message.contains(needle), "{expr}: {err:?}");
            assert!(err.hint.is_some(), "{expr}: no hint");
        }
    }

    #[test]
    fn formatting_and_units() {
        assert_eq!(format_value(16.567281, 1, Unit::Seconds), "16.6\u{a0}s");
        assert_eq!(format_value(-0.01, 1, Unit::Plain), "0.0");
        let d = Quantity {
            value: 0.091097,
            time: 1,
        };
        assert_eq!(Unit::Millis.convert(d).unwrap(), 91.097);
        assert!(Unit::Plain.convert(d).is_err());
        assert!(Unit::Seconds.convert(Quantity::plain(3.0)).is_err());
        assert!(Unit::parse("h").is_err());
    }
}
