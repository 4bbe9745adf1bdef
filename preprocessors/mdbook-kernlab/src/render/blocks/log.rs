//! `log:`: a capture with line numbers, times, deltas, gaps and folds.

use kernlog::parse::reader::{Clock, RecordReader, Time};
use kernlog::parse::record::Origin;
use regex::Regex;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use super::Resources;
use crate::error::{Outcome, fail};
use crate::parse::directive::{options, parse_range};
use views::escape;

/// A text pattern: a substring, or a regular expression written as `/.../`.
#[derive(Debug)]
pub enum Pattern {
    Text(String),
    Regex(Regex),
}

impl Pattern {
    pub fn parse(text: &str, option: &str) -> Outcome<Self> {
        match text.strip_prefix('/').and_then(|t| t.strip_suffix('/')) {
            Some(re) if !re.is_empty() => Regex::new(re).map(Pattern::Regex).map_err(|e| {
                fail(
                    format!("`{option}` is not a valid regular expression: {e}"),
                    "write a substring, or a regex between slashes such as /CPU\\d+ is up/",
                )
            }),
            _ => Ok(Pattern::Text(text.to_string())),
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        match self {
            Pattern::Text(t) => text.contains(t.as_str()),
            Pattern::Regex(r) => r.is_match(text),
        }
    }

    fn ranges(&self, text: &str, out: &mut Vec<(usize, usize)>) {
        match self {
            Pattern::Text(t) if !t.is_empty() => out.extend(
                text.match_indices(t.as_str())
                    .map(|(i, m)| (i, i + m.len())),
            ),
            Pattern::Text(_) => {}
            Pattern::Regex(r) => out.extend(r.find_iter(text).map(|m| (m.start(), m.end()))),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LogOptions {
    log: String,
    /// First line: the first whose message matches (substring or /regex/).
    from: Option<String>,
    /// Last line (inclusive): the first match after `from`.
    to: Option<String>,
    /// `A-B`: lines A to B of the file (1-based, inclusive).
    lines: Option<String>,
    /// Keep only the lines whose message matches.
    #[serde(rename = "match")]
    matching: Option<String>,
    /// `START-END` in seconds on the log's clock.
    time: Option<String>,
    /// Highlight a silence at least this long before a line.
    gap_ms: Option<f64>,
    /// Fold runs of more than this many lines that carry no marker.
    fold: Option<usize>,
    /// Substrings or /regexes/ to mark.
    highlight: Option<OneOrMany>,
    /// Show the delta column (default: yes).
    deltas: Option<bool>,
    /// The most lines the block may show (default [`MAX_LINES`]).
    max_lines: Option<usize>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// One line of the file as the view needs it.
struct LogLine {
    number: u64,
    time: Option<Time>,
    resolution_us: u64,
    message: String,
}

fn read_lines(text: &str) -> Vec<LogLine> {
    let mut reader = RecordReader::new(text.as_bytes());
    let mut out = Vec::new();
    while let Some(Ok(r)) = reader.next_record() {
        let message = match r.origin {
            Origin::Kernel => r.message.to_string(),
            Origin::User { ident } => format!("{ident}: {}", r.message),
        };
        out.push(LogLine {
            number: r.line,
            time: r.time.filter(|_| !r.continuation),
            resolution_us: r.resolution_us,
            message,
        });
    }
    out
}

#[derive(Serialize)]
struct Model {
    label: String,
    /// The header line: the gutter's column names, then the file's name.
    head: String,
    /// Spaces as wide as the gutter, before a gap note.
    blank: String,
    segments: Vec<Segment>,
}

#[derive(Serialize)]
struct Segment {
    folded: usize,
    lines: Vec<Row>,
}

/// One line of the listing: a gutter (line number, time, delta, padded to fixed columns)
/// and the message, so a listing is one `<pre>` with a single element per line.
#[derive(Serialize)]
struct Row {
    gutter: String,
    message: String,
    gap: bool,
    gap_note: String,
    #[serde(skip)]
    marked: bool,
}

/// The columns of the gutter before they are padded.
struct Cells {
    number: String,
    time: String,
    delta: Option<String>,
}

/// Pads every row's cells to the widest in its column, right-aligned, two spaces apart.
struct Gutter {
    widths: [usize; 3],
}

impl Gutter {
    fn fit(head: &Cells, rows: &[Cells]) -> Self {
        let mut widths = [0; 3];
        for c in std::iter::once(head).chain(rows) {
            widths[0] = widths[0].max(c.number.chars().count());
            widths[1] = widths[1].max(c.time.chars().count());
            widths[2] = widths[2].max(c.delta.as_ref().map_or(0, |d| d.chars().count()));
        }
        Gutter { widths }
    }

    fn show(&self, c: &Cells) -> String {
        let [n, t, d] = self.widths;
        match &c.delta {
            Some(delta) => format!("{:>n$}  {:>t$}  {delta:>d$}  ", c.number, c.time),
            None => format!("{:>n$}  {:>t$}  ", c.number, c.time),
        }
    }

    fn blank(&self, deltas: bool) -> String {
        let [n, t, d] = self.widths;
        " ".repeat(n + t + 4 + if deltas { d + 2 } else { 0 })
    }
}

/// `432.400350` for monotonic stamps, `16:04:13` for calendar ones.
fn show_time(time: Option<Time>, resolution_us: u64) -> String {
    let Some(t) = time else {
        return String::new();
    };
    let digits = decimals(resolution_us);
    match t.clock {
        Clock::Monotonic => format!("{:.digits$}", t.seconds()),
        // A logger's time of reading is shown as the log gives it, like a calendar time.
        Clock::Wall | Clock::Received => {
            let secs = t.micros.div_euclid(1_000_000);
            let day = secs.rem_euclid(86_400);
            let base = format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60);
            if digits == 0 {
                base
            } else {
                let frac = t.micros.rem_euclid(1_000_000) as f64 / 1e6;
                format!("{base}{}", &format!("{frac:.digits$}")[1..])
            }
        }
    }
}

fn decimals(resolution_us: u64) -> usize {
    match resolution_us {
        0 | 1 => 6,
        r if r >= 1_000_000 => 0,
        r => 6 - (r as f64).log10().round() as usize,
    }
}

/// How many lines a `log:` block shows at the most unless it sets `max_lines`: every line
/// is a line of the page, and a whole long capture would make a page no reader (and
/// no browser) can handle.
pub const MAX_LINES: usize = 2000;

/// Options that parse but make no sense, refused with a hint.
fn check_options(o: &LogOptions) -> Outcome<()> {
    if let Some(gap) = o.gap_ms
        && !(gap.is_finite() && gap > 0.0)
    {
        return Err(fail(
            format!("`gap_ms: {gap}` is not a positive number of milliseconds"),
            "a gap is a silence of at least this many ms before a line, e.g. gap_ms: 500",
        ));
    }
    if o.fold == Some(0) {
        return Err(fail(
            "`fold: 0` would fold every line",
            "fold runs of more than N unmarked lines, e.g. fold: 10; leave it out to fold nothing",
        ));
    }
    if o.max_lines == Some(0) {
        return Err(fail(
            "`max_lines: 0` shows nothing",
            "leave it out, or raise it",
        ));
    }
    let empty_highlight = match &o.highlight {
        Some(OneOrMany::One(h)) => h.is_empty(),
        Some(OneOrMany::Many(v)) => v.is_empty() || v.iter().any(String::is_empty),
        None => false,
    };
    if o.matching.as_deref() == Some("") || empty_highlight {
        return Err(fail(
            "an empty `match` or `highlight` pattern",
            "give a substring or a /regex/; leave the option out to show or mark nothing",
        ));
    }
    Ok(())
}

/// Refuse a file that is not text: NUL bytes, or more than one character in a hundred
/// that is not valid UTF-8.
fn check_text(file: &str, text: &str) -> Outcome<()> {
    let replaced = text.chars().filter(|c| *c == '\u{fffd}').count();
    if text.contains('\0') || replaced * 100 > text.chars().count().max(1) {
        return Err(fail(
            format!("`{file}` is not a text capture (it holds NUL bytes or invalid UTF-8)"),
            "a log block shows text; save the log as text (dmesg, journalctl) or describe the binary file in the manifest",
        ));
    }
    Ok(())
}

pub fn render(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: LogOptions = options(body)?;
    check_options(&o)?;
    let text = cx.data.text(&o.log)?;
    check_text(&o.log, &text)?;
    let all = read_lines(&text);
    if all.is_empty() {
        return Err(fail(
            format!("`{}` is empty", o.log),
            "point at a capture with records",
        ));
    }
    let mut start = 0;
    let mut end = all.len();
    if let Some(range) = &o.lines {
        let (a, b) = parse_range(range, "lines")?;
        let (a, b) = (a as u64, b as u64);
        if a < 1 || b > all.len() as u64 {
            return Err(fail(
                format!("`lines: {range}` is outside the file's {} lines", all.len()),
                "line numbers start at 1",
            ));
        }
        start = (a - 1) as usize;
        end = b as usize;
    }
    if let Some(from) = &o.from {
        let p = Pattern::parse(from, "from")?;
        start = (start..end).find(|&i| p.is_match(&all[i].message)).ok_or_else(|| {
            fail(
                format!("`from: {from}` is not in {}", o.log),
                format!(
                    "markers match part of a message (or /regex/); the excerpt starts with `{}`",
                    all[start].message
                ),
            )
        })?;
    }
    if let Some(to) = &o.to {
        let p = Pattern::parse(to, "to")?;
        end = (start..end)
            .find(|&i| p.is_match(&all[i].message))
            .map(|i| i + 1)
            .ok_or_else(|| {
                fail(
                    format!("`to: {to}` is not in {} after the first line shown", o.log),
                    "the `to` marker must come after the `from` marker",
                )
            })?;
    }
    let time_range = o
        .time
        .as_deref()
        .map(|t| parse_range(t, "time"))
        .transpose()?;
    let matching = o
        .matching
        .as_deref()
        .map(|m| Pattern::parse(m, "match"))
        .transpose()?;
    let highlights = o
        .highlight
        .map(OneOrMany::into_vec)
        .unwrap_or_default()
        .iter()
        .map(|h| Pattern::parse(h, "highlight"))
        .collect::<Outcome<Vec<_>>>()?;
    let shown: Vec<&LogLine> = all[start..end]
        .iter()
        .filter(|l| matching.as_ref().is_none_or(|m| m.is_match(&l.message)))
        .filter(|l| match (time_range, l.time) {
            (Some((a, b)), Some(t)) => (a..=b).contains(&t.seconds()),
            (Some(_), None) => false,
            (None, _) => true,
        })
        .collect();
    if shown.is_empty() {
        return Err(fail(
            format!("no line of {} is left to show", o.log),
            "loosen `match`, `time` or the markers",
        ));
    }
    let limit = o.max_lines.unwrap_or(MAX_LINES);
    if shown.len() > limit {
        return Err(fail(
            format!(
                "this block would show {} lines of `{}` ({} in the file), more than the limit of {limit}",
                shown.len(),
                o.log,
                all.len()
            ),
            "select a part with `lines: A-B`, `from`/`to`, `match` or `time`, or raise the limit with `max_lines: N`",
        ));
    }
    let gap_ms = o.gap_ms.unwrap_or(cx.gap_ms);
    let show_deltas = o.deltas.unwrap_or(true);
    let mut rows = Vec::with_capacity(shown.len());
    let mut cells = Vec::with_capacity(shown.len());
    let mut previous: Option<(Time, u64)> = None;
    for line in &shown {
        let delta_us = match (previous, line.time) {
            (Some((p, _)), Some(t)) => t.since(p),
            _ => None,
        };
        let resolution = line.resolution_us.max(previous.map_or(0, |p| p.1));
        let gap = delta_us.is_some_and(|us| us as f64 / 1000.0 >= gap_ms);
        let mut ranges = Vec::new();
        for h in &highlights {
            h.ranges(&line.message, &mut ranges);
        }
        cells.push(Cells {
            number: line.number.to_string(),
            time: show_time(line.time, line.resolution_us),
            delta: show_deltas.then(|| {
                delta_us.map_or(String::new(), |us| {
                    let digits = decimals(resolution);
                    format!("+{:.digits$}", us.max(0) as f64 / 1e6)
                })
            }),
        });
        rows.push(Row {
            gutter: String::new(),
            marked: !ranges.is_empty(),
            message: mark(&line.message, ranges),
            gap,
            gap_note: if gap {
                format!(
                    "{} without a message",
                    views::table::duration(delta_us.unwrap_or(0) as f64 / 1000.0, Some(resolution))
                )
            } else {
                String::new()
            },
        });
        if let Some(t) = line.time {
            previous = Some((t, line.resolution_us));
        }
    }
    let head = Cells {
        number: "line".into(),
        time: match shown.iter().find_map(|l| l.time).map(|t| t.clock) {
            Some(Clock::Wall | Clock::Received) => "time",
            Some(Clock::Monotonic) => "seconds",
            None => "",
        }
        .into(),
        delta: show_deltas.then(|| "delta".into()),
    };
    let gutter = Gutter::fit(&head, &cells);
    for (row, cells) in rows.iter_mut().zip(&cells) {
        row.gutter = gutter.show(cells);
    }
    let keep: Vec<bool> = shown
        .iter()
        .zip(&rows)
        .enumerate()
        .map(|(i, (l, r))| {
            i == 0
                || i + 1 == rows.len()
                || r.gap
                || r.marked
                || kernlog::analysis::resume::is_marker(&l.message)
        })
        .collect();
    Ok(cx.templates.render(
        "log",
        &Model {
            label: format!(
                "Lines {}-{} of {}",
                shown[0].number,
                shown[shown.len() - 1].number,
                o.log
            ),
            head: format!("{}{}", gutter.show(&head), o.log),
            blank: gutter.blank(show_deltas),
            segments: fold(rows, &keep, o.fold),
        },
    )?)
}

/// Group rows into visible runs and folded runs of more than `limit` unmarked rows.
fn fold(rows: Vec<Row>, keep: &[bool], limit: Option<usize>) -> Vec<Segment> {
    let mut segments: Vec<Segment> = Vec::new();
    let mut run: Vec<Row> = Vec::new();
    let flush = |run: &mut Vec<Row>, segments: &mut Vec<Segment>| {
        if run.is_empty() {
            return;
        }
        let lines = std::mem::take(run);
        let folded = if limit.is_some_and(|l| lines.len() > l) {
            lines.len()
        } else {
            0
        };
        match segments.last_mut() {
            Some(last) if folded == 0 && last.folded == 0 => last.lines.extend(lines),
            _ => segments.push(Segment { folded, lines }),
        }
    };
    for (row, keep) in rows.into_iter().zip(keep) {
        if *keep {
            flush(&mut run, &mut segments);
            match segments.last_mut() {
                Some(last) if last.folded == 0 => last.lines.push(row),
                _ => segments.push(Segment {
                    folded: 0,
                    lines: vec![row],
                }),
            }
        } else {
            run.push(row);
        }
    }
    flush(&mut run, &mut segments);
    segments
}

/// Escape a message and wrap the highlighted ranges in `<mark>`.
fn mark(text: &str, mut ranges: Vec<(usize, usize)>) -> String {
    ranges.sort_unstable();
    let mut out = String::new();
    let mut at = 0;
    for (s, e) in ranges {
        if s < at || e <= s {
            continue;
        }
        out.push_str(&escape(&text[at..s]));
        out.push_str("<mark>");
        out.push_str(&escape(&text[s..e]));
        out.push_str("</mark>");
        at = e;
    }
    out.push_str(&escape(&text[at..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_files_are_not_logs() {
        assert!(check_text("a.log", "[    1.000000] fine\n").is_ok());
        assert!(check_text("a.bin", "ELF\0\0\u{1}").is_err());
        let mostly_invalid = String::from_utf8_lossy(&[0xff, 0xfe, b'a', 0xfd, b'\n']).into_owned();
        assert!(check_text("b.bin", &mostly_invalid).is_err());
    }

    #[test]
    fn marks_are_escaped() {
        assert_eq!(
            mark("<a> CPU1 is up", vec![(4, 8)]),
            "&lt;a&gt; <mark>CPU1</mark> is up"
        );
    }

    #[test]
    fn times() {
        let t = Time {
            micros: 432_400_350,
            clock: Clock::Monotonic,
        };
        assert_eq!(show_time(Some(t), 1), "432.400350");
        let w = Time {
            micros: (16 * 3600 + 4 * 60 + 13) * 1_000_000,
            clock: Clock::Wall,
        };
        assert_eq!(show_time(Some(w), 1_000_000), "16:04:13");
        assert_eq!(decimals(1000), 3);
    }
}
