//! Views of the small captures: bucket histograms, call counts and their comparison, and
//! a bisect log as a sequence of verdicts. The captures are parsed here; the views crate
//! draws them.

use kernlog::parse::tool_output::{self, CaptureError};
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use crate::error::{Failure, Outcome, fail};
use crate::parse::directive::options;

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
    let unit = o.unit.unwrap_or_default();
    Ok(views::captures::histogram(
        cx.templates,
        &h,
        &o.histogram,
        &unit,
        o.id.as_deref(),
    )?)
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
    let rows = tool_output::parse_counts(&text).map_err(|e| capture_error(&o.counts, e))?;
    Ok(views::captures::counts(
        cx.templates,
        rows,
        &o.counts,
        o.top,
    )?)
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
    Ok(views::captures::counts_diff(
        cx.templates,
        &rows,
        &o.counts_diff,
        [&left, &right],
    )?)
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
    Ok(views::captures::bisect(cx.templates, &log, &o.bisect)?)
}
