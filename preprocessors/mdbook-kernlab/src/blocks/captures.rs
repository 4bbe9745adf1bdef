//! Views of the small captures: bucket histograms, call counts and their comparison, and
//! a bisect log as a sequence of verdicts.

use kernlog::parse::tool_output::{self, CaptureError};
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use super::{Cell, Row, TableModel, chart_id};
use crate::charts::{Bar, HBar};
use crate::directive::options;
use crate::error::{Failure, Outcome, fail};

fn capture_error(file: &str, e: CaptureError) -> Failure {
    fail(
        format!("`{file}` line {}: expected {}", e.line, e.expected),
        "fix the capture, or use a `log:` block for free-form text",
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HistogramOptions {
    histogram: String,
    /// What the bucket bounds count (e.g. "µs").
    unit: Option<String>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

pub fn histogram(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: HistogramOptions = options(body)?;
    let text = cx.data.text(&o.histogram)?;
    let h =
        tool_output::parse_bucket_histogram(&text).map_err(|e| capture_error(&o.histogram, e))?;
    if h.buckets.is_empty() {
        return Err(fail(
            format!("`{}` has no bucket", o.histogram),
            "expected `< BOUND : COUNT` lines",
        ));
    }
    let Some(sum) = h.sum() else {
        return Err(fail(
            format!(
                "`{}`: the bucket counts add up to more than 2^64",
                o.histogram
            ),
            "the capture is garbled: check each `< BOUND : COUNT` line",
        ));
    };
    if let Some(total) = h.total
        && total != sum
    {
        return Err(fail(
            format!(
                "`{}`: the buckets add up to {sum}, the total line says {total}",
                o.histogram
            ),
            "the capture is incomplete or garbled",
        ));
    }
    let unit = o.unit.unwrap_or_default();
    let bars = h
        .buckets
        .iter()
        .map(|(bound, count)| Bar {
            label: format!("< {bound} {unit}").trim_end().to_string(),
            start: 0.0,
            end: *count as f64,
            note: count.to_string(),
            class: "g0",
        })
        .collect();
    let chart = HBar {
        id: chart_id(&o.id, &o.histogram),
        title: format!("Histogram, {}", o.histogram),
        desc: format!(
            "Number of calls per duration bucket; {sum} calls in all. Each bar is labelled with its count."
        ),
        axis_label: "calls".into(),
        bars,
    };
    cx.templates.render("hbar", &chart.layout())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CountsOptions {
    counts: String,
    top: Option<usize>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

pub fn counts(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: CountsOptions = options(body)?;
    let text = cx.data.text(&o.counts)?;
    let mut rows = tool_output::parse_counts(&text).map_err(|e| capture_error(&o.counts, e))?;
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut table = TableModel::new(
        format!("Call counts in {}", o.counts),
        &["function", "calls"],
    )
    .numeric(&[1]);
    for (count, name) in rows.into_iter().take(o.top.unwrap_or(usize::MAX)) {
        table.rows.push(Row::new(vec![
            Cell::text(name).class("kl-mono"),
            Cell::num(count.to_string()),
        ]));
    }
    table.render(cx)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CountsDiffOptions {
    #[serde(rename = "counts-diff")]
    counts_diff: String,
    /// Names of the two sides (default: left, right).
    sides: Option<[String; 2]>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

pub fn counts_diff(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: CountsDiffOptions = options(body)?;
    let text = cx.data.text(&o.counts_diff)?;
    let rows =
        tool_output::parse_count_diff(&text).map_err(|e| capture_error(&o.counts_diff, e))?;
    let [left, right] = o.sides.unwrap_or(["left".into(), "right".into()]);
    let mut table = TableModel::new(
        format!("Call counts compared in {}", o.counts_diff),
        &["function", &left, &right, "difference"],
    )
    .numeric(&[1, 2, 3]);
    for r in rows {
        let name = r
            .left
            .as_ref()
            .or(r.right.as_ref())
            .map(|(_, n)| n.clone())
            .unwrap_or_default();
        let show = |side: &Option<(u64, String)>| {
            side.as_ref()
                .map_or("-".to_string(), |(c, _)| c.to_string())
        };
        let difference = match (&r.left, &r.right) {
            (Some((a, ln)), Some((b, rn))) if ln == rn => format!("{:+}", *b as i64 - *a as i64),
            (Some(_), Some(_)) => "different functions".to_string(),
            (Some(_), None) => format!("only in {left}"),
            (None, Some(_)) => format!("only in {right}"),
            (None, None) => String::new(),
        };
        table.rows.push(Row::new(vec![
            Cell::text(name).class("kl-mono"),
            Cell::num(show(&r.left)),
            Cell::num(show(&r.right)),
            Cell::num(difference),
        ]));
    }
    table.render(cx)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BisectOptions {
    bisect: String,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

pub fn bisect(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: BisectOptions = options(body)?;
    let text = cx.data.text(&o.bisect)?;
    let log = tool_output::parse_bisect_log(&text).map_err(|e| capture_error(&o.bisect, e))?;
    if log.steps.is_empty() {
        return Err(fail(
            format!("`{}` has no verdict", o.bisect),
            "expected `git bisect TERM COMMIT` lines",
        ));
    }
    let (old, new) = log.terms.clone().unwrap_or(("good".into(), "bad".into()));
    let mut table = TableModel::new(
        format!("Verdicts of the bisection in {}", o.bisect),
        &["step", "commit", "subject", "verdict"],
    )
    .numeric(&[0]);
    for (i, s) in log.steps.iter().enumerate() {
        let mut row = Row::new(vec![
            Cell::num((i + 1).to_string()),
            Cell::text(s.commit.chars().take(12).collect::<String>()).class("kl-mono"),
            Cell::text(s.subject.clone().unwrap_or_default()),
            Cell::text(s.term.clone()),
        ]);
        row.class = if s.term == old {
            "kl-verdict-old".into()
        } else if s.term == new {
            "kl-verdict-new".into()
        } else {
            String::new()
        };
        table.rows.push(row);
    }
    if let Some((sha, subject)) = &log.first {
        table.rows.push(Row {
            class: "kl-total".into(),
            cells: vec![
                Cell::text("result"),
                Cell::text(sha.chars().take(12).collect::<String>()).class("kl-mono"),
                Cell::text(subject.clone()),
                Cell::text(format!("first {new} commit")),
            ],
        });
    }
    table.render(cx)
}
