//! Views of kernlog's analysis of a log: CPU bring-up, the resume timeline, several runs
//! compared and trace-cmd statistics. The options are read here; the views are drawn by
//! the views crate.

use serde::Deserialize;
use serde::de::IgnoredAny;
use views::analysis::{CycleOf, TraceView, chart_and_table};
use views::charts::{Bar, HBar};
use views::table::{Cell, Row, TableModel, chart_id};

use super::Resources;
use crate::error::{Outcome, fail};
use crate::parse::directive::options;
use crate::resolve::expr::{Unit, format_value, lookup};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BringupOptions {
    bringup: String,
    #[serde(default)]
    cycle: usize,
    chart: Option<bool>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// Per-CPU bring-up: a Gantt-style chart from each Booting line to `CPUn is up`, and a table.
pub fn bringup(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: BringupOptions = options(body)?;
    let analysis = cx.data.analysis(&o.bringup)?;
    let of = CycleOf {
        analysis: &analysis,
        file: &o.bringup,
        index: o.cycle,
        id: o.id.as_deref(),
    };
    Ok(views::analysis::bringup(
        cx.templates,
        of,
        o.chart.unwrap_or(true),
    )?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelineOptions {
    timeline: String,
    #[serde(default)]
    cycle: usize,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// The phases of one cycle on a time axis, with a table of the same.
pub fn timeline(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: TimelineOptions = options(body)?;
    let analysis = cx.data.analysis(&o.timeline)?;
    let of = CycleOf {
        analysis: &analysis,
        file: &o.timeline,
        index: o.cycle,
        id: o.id.as_deref(),
    };
    Ok(views::analysis::timeline(cx.templates, of)?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CompareOptions {
    /// Group name -> file or glob, in order.
    compare: yaml_serde::Mapping,
    /// JSON pointer into each file's document.
    value: String,
    unit: Option<String>,
    digits: Option<usize>,
    chart: Option<bool>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// One value from several files, grouped (e.g. five runs before and after a patch).
pub fn compare(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: CompareOptions = options(body)?;
    let unit = Unit::parse(o.unit.as_deref().unwrap_or("ms"))?;
    let digits = match o.digits {
        Some(d) => crate::resolve::expr::check_digits(d as f64, "digits")?,
        None => 3,
    };
    let mut table =
        TableModel::new("Values compared across runs", &["group", "run", "value"]).numeric(&[2]);
    let mut bars = Vec::new();
    // Whether any group has several runs, and so a mean row in the table.
    let mut means = false;
    let mut groups = Vec::new();
    for (group_index, (group, pattern)) in o.compare.iter().enumerate() {
        let (Some(group), Some(pattern)) = (group.as_str(), pattern.as_str()) else {
            return Err(fail(
                "`compare` maps group names to files",
                "write e.g. `compare: {before: dmesg/before-*.log, after: dmesg/after-*.log}`",
            ));
        };
        groups.push(group);
        let files = cx.data.glob(pattern)?;
        let mut values = Vec::new();
        for file in &files {
            let q = lookup(&format!("{file}#{}", o.value), cx.data)?;
            let [q] = q.as_slice() else {
                return Err(fail(
                    format!("`{file}#{}` has {} values, not one", o.value, q.len()),
                    "point `value` at a single number",
                ));
            };
            let v = unit.convert(*q)?;
            values.push(v);
            let run = file.rsplit('/').next().unwrap_or(file);
            table.rows.push(Row::new(vec![
                Cell::text(group),
                Cell::text(run),
                Cell::num(format_value(v, digits, unit)),
            ]));
            bars.push(Bar {
                label: run_label(group, values.len(), files.len()),
                start: 0.0,
                end: v,
                note: format_value(v, digits, unit),
                class: ["g0", "g1", "g2", "g3"][group_index % 4],
            });
        }
        if files.len() > 1 {
            means = true;
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            table.rows.push(Row {
                class: "kl-total".into(),
                cells: vec![
                    Cell::text(group),
                    Cell::text(format!("mean of {}", files.len())),
                    Cell::num(format_value(mean, digits, unit)),
                ],
            });
        }
    }
    if bars.is_empty() {
        return Err(fail(
            "`compare` names no group",
            "add `NAME: FILE-OR-GLOB` entries",
        ));
    }
    let chart = HBar {
        id: chart_id(o.id.as_deref(), &o.value),
        // Read out as the chart's name: the groups, not the JSON pointer.
        title: format!("Runs compared: {}", groups.join(", ")),
        desc: format!(
            "One bar per run of the value at {} of each run's analysis, grouped by colour; the table below gives the values{}.",
            o.value,
            if means {
                " and the mean of each group of several runs"
            } else {
                ""
            }
        ),
        axis_label: unit.suffix().trim().to_string(),
        bars,
    };
    Ok(chart_and_table(
        cx.templates,
        &chart,
        &table,
        o.chart.unwrap_or(true),
    )?)
}

/// A compare bar's label: the group's name, numbered only when the group has several runs.
fn run_label(group: &str, run: usize, runs: usize) -> String {
    if runs > 1 {
        format!("{group} {run}")
    } else {
        group.to_string()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceOptions {
    trace: String,
    show: Option<TraceView>,
    function: Option<String>,
    top: Option<usize>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// trace-cmd function_graph statistics: per function or per task, or a histogram.
pub fn trace(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: TraceOptions = options(body)?;
    let analysis = cx.data.analysis(&o.trace)?;
    Ok(views::analysis::trace(
        cx.templates,
        &analysis.trace,
        &o.trace,
        o.show.unwrap_or(TraceView::Functions),
        o.function.as_deref(),
        o.top,
        o.id.as_deref(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::run_label;

    #[test]
    fn a_group_of_one_run_is_labelled_by_its_name_alone() {
        assert_eq!(run_label("without the fix", 1, 1), "without the fix");
        assert_eq!(run_label("before", 2, 5), "before 2");
    }
}
