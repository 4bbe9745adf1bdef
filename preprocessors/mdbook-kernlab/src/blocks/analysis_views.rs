//! Views of kernlog's analysis of a log: CPU bring-up, the resume timeline, several runs
//! compared and trace-cmd statistics.

use kernlog::Analysis;
use kernlog::analysis::findings::SLOW_BRINGUP_MS;
use kernlog::analysis::resume::Cycle;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use super::{Cell, Row, TableModel, chart_id, duration};
use crate::charts::{Bar, HBar};
use crate::directive::options;
use crate::error::{Outcome, fail};
use crate::expr::{Unit, format_value, lookup};

fn cycle<'a>(analysis: &'a Analysis, index: usize, file: &str) -> Outcome<&'a Cycle> {
    analysis.cycles.get(index).ok_or_else(|| {
        fail(
            format!(
                "`{file}` has {} suspend/resume cycle(s); there is no cycle {index}",
                analysis.cycles.len()
            ),
            "cycles are numbered from 0; run `kernlog analyze` on the file to see them",
        )
    })
}

fn chart_and_table(
    cx: &Resources<'_>,
    chart: &HBar,
    table: &TableModel,
    show_chart: bool,
) -> Outcome<String> {
    let mut html = String::new();
    if show_chart {
        html.push_str(&cx.templates.render("hbar", &chart.layout())?);
        html.push('\n');
    }
    html.push_str(&table.render(cx)?);
    Ok(html)
}

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
    let c = cycle(&analysis, o.cycle, &o.bringup)?;
    // Measure from `Enabling non-boot CPUs`, or from the first Booting line if the capture
    // starts later.
    let first_booting = c
        .cpus
        .iter()
        .filter_map(|cpu| cpu.booting)
        .min_by_key(|e| e.line);
    let (enable, origin_name) = match (c.enable_start, first_booting) {
        (Some(e), _) => (e, "Enabling non-boot CPUs"),
        (None, Some(b)) => (b, "the first Booting line"),
        (None, None) => {
            return Err(fail(
                format!(
                    "`{}` has neither `Enabling non-boot CPUs` nor a Booting line in cycle {}",
                    o.bringup, o.cycle
                ),
                "the bring-up view measures from one of them; use a capture that includes it",
            ));
        }
    };
    if c.cpus.is_empty() {
        return Err(fail(
            format!(
                "`{}` shows no CPU coming up in cycle {}",
                o.bringup, o.cycle
            ),
            "the capture needs `CPUn is up` lines",
        ));
    }
    let res = analysis.input.resolution_us;
    let mut bars = Vec::new();
    let mut table = TableModel::new(
        format!("CPU bring-up in {}", o.bringup),
        &[
            "CPU",
            "APIC",
            "bring-up",
            if c.enable_start.is_some() {
                "up after enable"
            } else {
                "up after first Booting"
            },
        ],
    )
    .numeric(&[2, 3]);
    for cpu in &c.cpus {
        let start = cpu.booting.and_then(|b| b.ms_since(&enable));
        let end = cpu.up.and_then(|u| u.ms_since(&enable));
        let bringup = cpu.bringup_ms();
        let slow = bringup.is_some_and(|ms| ms > SLOW_BRINGUP_MS);
        if let Some(end) = end {
            bars.push(Bar {
                label: format!("CPU{}", cpu.cpu),
                start: start.unwrap_or(end) / 1000.0,
                end: end / 1000.0,
                note: bringup.map_or("up".to_string(), |ms| duration(ms, res)),
                class: if slow { "slow" } else { "fast" },
            });
        }
        let mut row = Row::new(vec![
            Cell::text(format!("CPU{}", cpu.cpu)),
            Cell::text(cpu.apic.clone().unwrap_or_default()),
            Cell::num(bringup.map_or("-".into(), |ms| duration(ms, res))),
            Cell::num(end.map_or("not up".into(), |ms| duration(ms, res))),
        ]);
        if slow {
            row.class = "kl-slow".into();
        }
        table.rows.push(row);
    }
    let total = c
        .enable_finished()
        .and_then(|e| e.ms_since(&enable))
        .map_or("-".into(), |ms| duration(ms, res));
    table.rows.push(Row {
        class: "kl-total".into(),
        cells: vec![
            Cell::text("all"),
            Cell::text(""),
            Cell::num(""),
            Cell::num(total.clone()),
        ],
    });
    let chart = HBar {
        id: chart_id(&o.id, &o.bringup),
        title: format!("CPU bring-up, {}", o.bringup),
        desc: format!(
            "Each bar runs from a CPU's Booting line to its 'is up' line, in seconds after {origin_name}. All CPUs were up after {total}. The table below lists the same figures."
        ),
        axis_label: format!("seconds after {origin_name}"),
        bars,
    };
    chart_and_table(cx, &chart, &table, o.chart.unwrap_or(true))
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
    let c = cycle(&analysis, o.cycle, &o.timeline)?;
    let first = c.phases.first().ok_or_else(|| {
        fail(
            format!(
                "`{}` shows no complete phase in cycle {}",
                o.timeline, o.cycle
            ),
            "a phase needs both its start and end lines in the capture (see kernlog's README)",
        )
    })?;
    let res = analysis.input.resolution_us;
    let origin = first.start;
    let mut bars = Vec::new();
    let mut table = TableModel::new(
        format!("Phases of cycle {} in {}", o.cycle, o.timeline),
        &["phase", "lines", "starts at", "duration"],
    )
    .numeric(&[2, 3]);
    for p in &c.phases {
        let start = p.start.ms_since(&origin).unwrap_or(0.0) / 1000.0;
        let ms = p.ms();
        bars.push(Bar {
            label: p.name.name().replace('_', " "),
            start,
            end: start + ms.unwrap_or(0.0) / 1000.0,
            note: ms.map_or("-".into(), |ms| duration(ms, res)),
            class: p.name.name(),
        });
        table.rows.push(Row::new(vec![
            Cell::text(p.name.name().replace('_', " ")),
            Cell::text(format!("{}-{}", p.start.line, p.end.line)),
            Cell::num(format!("{start:.3} s")),
            Cell::num(ms.map_or("-".into(), |ms| duration(ms, res))),
        ]));
    }
    let chart = HBar {
        id: chart_id(&o.id, &o.timeline),
        title: format!("Suspend/resume phases, {}", o.timeline),
        desc: format!(
            "One bar per phase of cycle {}, placed at its start in seconds after the first phase began; the label gives its duration. The table below lists the same figures.",
            o.cycle
        ),
        axis_label: format!(
            "seconds after {} began",
            first.name.name().replace('_', " ")
        ),
        bars,
    };
    chart_and_table(cx, &chart, &table, true)
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
        Some(d) => crate::expr::check_digits(d as f64, "digits")?,
        None => 3,
    };
    let mut table =
        TableModel::new("Values compared across runs", &["group", "run", "value"]).numeric(&[2]);
    let mut bars = Vec::new();
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
        id: chart_id(&o.id, &o.value),
        // Read out as the chart's name: the groups, not the JSON pointer.
        title: format!("Runs compared: {}", groups.join(", ")),
        desc: format!(
            "One bar per run of the value at {} of each run's analysis, grouped by colour; the table below gives the values and the mean of each group.",
            o.value
        ),
        axis_label: unit.suffix().trim().to_string(),
        bars,
    };
    chart_and_table(cx, &chart, &table, o.chart.unwrap_or(true))
}

/// A compare bar's label: the group's name, numbered only when the group has several runs.
fn run_label(group: &str, run: usize, runs: usize) -> String {
    if runs > 1 {
        format!("{group} {run}")
    } else {
        group.to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum TraceView {
    Functions,
    Tasks,
    Histogram,
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

fn ms_text(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.3} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{us:.3} µs")
    }
}

/// trace-cmd function_graph statistics: per function or per task, or a histogram.
pub fn trace(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: TraceOptions = options(body)?;
    let analysis = cx.data.analysis(&o.trace)?;
    let stats = &analysis.trace;
    if stats.lines == 0 {
        return Err(fail(
            format!("`{}` has no function_graph lines", o.trace),
            "point at `trace-cmd report` output of the function_graph tracer",
        ));
    }
    let top = o.top.unwrap_or(usize::MAX);
    match o.show.unwrap_or(TraceView::Functions) {
        TraceView::Functions | TraceView::Tasks => {
            let tasks = matches!(o.show, Some(TraceView::Tasks));
            let mut entries: Vec<(&str, &kernlog::analysis::trace::Durations)> = if tasks {
                stats.tasks.iter().map(|(k, v)| (k.as_str(), v)).collect()
            } else {
                stats.by_total()
            };
            entries.sort_by(|a, b| b.1.total_us.total_cmp(&a.1.total_us).then(a.0.cmp(b.0)));
            let mut table = TableModel::new(
                format!("Durations in {}", o.trace),
                &[
                    if tasks { "task" } else { "function" },
                    "calls",
                    "total",
                    "longest",
                    "shortest",
                ],
            )
            .numeric(&[1, 2, 3, 4]);
            for (name, d) in entries.into_iter().take(top) {
                table.rows.push(Row::new(vec![
                    Cell::text(name).class("kl-mono"),
                    Cell::num(d.calls.to_string()),
                    Cell::num(ms_text(d.total_us)),
                    Cell::num(ms_text(d.max_us)),
                    Cell::num(ms_text(d.min_us)),
                ]));
            }
            table.render(cx)
        }
        TraceView::Histogram => {
            let function = o.function.as_deref().ok_or_else(|| {
                fail(
                    "`show: histogram` needs `function:`",
                    "name the function whose durations to count",
                )
            })?;
            let hist = stats.histograms.get(function).ok_or_else(|| {
                fail(
                    format!("`{function}` has no durations in `{}`", o.trace),
                    "check the function name against the trace",
                )
            })?;
            let bars = hist
                .buckets
                .iter()
                .map(|(k, n)| Bar {
                    label: format!(
                        "< {}",
                        ms_text(kernlog::analysis::trace::Histogram::upper_us(*k))
                    ),
                    start: 0.0,
                    end: *n as f64,
                    note: n.to_string(),
                    class: "g0",
                })
                .collect();
            let chart = HBar {
                id: chart_id(&o.id, &o.trace),
                title: format!("Durations of {function}"),
                desc: format!("Number of calls of {function} per duration bucket (powers of ten)."),
                axis_label: "calls".into(),
                bars,
            };
            cx.templates.render("hbar", &chart.layout())
        }
    }
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
