//! Reading what an expression names: `FILE#POINTER` values (with `*` and `[field=value]`
//! segments, time fields scaled to seconds), their count, and `FILE@/REGEX/` time stamps.

use serde_json::Value;

use super::Quantity;
use crate::error::cut;
use crate::error::{Outcome, fail};
use crate::resolve::data::DataStore;

/// The time stamp of the first record of `file` whose message matches `/regex/`.
pub(super) fn record_time(reference: &str, data: &DataStore) -> Outcome<Quantity> {
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
    let mut reader = kernlog::parse::reader::RecordReader::new(text.as_bytes());
    while let Some(Ok(r)) = reader.next_record() {
        if regex.is_match(r.message) {
            // trace-cmd lines carry their own time stamp.
            let trace_time = kernlog::analysis::trace::parse_trace_line(r.message)
                .map(|l| l.time_us as f64 / 1e6);
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
pub(super) fn count(reference: &str, data: &DataStore) -> Outcome<usize> {
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
