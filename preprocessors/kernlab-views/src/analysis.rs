//! Views of kernlog's analysis of a log: CPU bring-up and the resume timeline of one cycle,
//! and trace-cmd statistics.

use kernlog::Analysis;
use kernlog::analysis::findings::SLOW_BRINGUP_MS;
use kernlog::analysis::resume::Cycle;
use kernlog::analysis::trace::{Durations, Histogram, TraceStats};
use serde::Deserialize;

use crate::charts::{Bar, HBar};
use crate::error::{Result, fail};
use crate::table::{Cell, Row, TableModel, chart_id, duration};
use crate::templates::Templates;

/// One suspend/resume cycle of an analysed log, as a view shows it.
#[derive(Debug, Clone, Copy)]
pub struct CycleOf<'a> {
    /// The log's analysis.
    pub analysis: &'a Analysis,
    /// The log's name in titles and messages.
    pub file: &'a str,
    /// The cycle, numbered from 0.
    pub index: usize,
    /// The chart's SVG id (default: one derived from `file`).
    pub id: Option<&'a str>,
}

impl<'a> CycleOf<'a> {
    /// The cycle itself, or an error that says how many there are.
    pub fn cycle(&self) -> Result<&'a Cycle> {
        cycle(self.analysis, self.index, self.file)
    }
}

/// Cycle `index` of `file`'s analysis, or an error that says how many there are.
pub fn cycle<'a>(analysis: &'a Analysis, index: usize, file: &str) -> Result<&'a Cycle> {
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

/// A chart (unless `show_chart` is false) and the table of the same figures below it.
pub fn chart_and_table(
    templates: &Templates,
    chart: &HBar,
    table: &TableModel,
    show_chart: bool,
) -> Result<String> {
    let mut html = String::new();
    if show_chart {
        html.push_str(&templates.render("hbar", &chart.layout())?);
        html.push('\n');
    }
    html.push_str(&table.render(templates)?);
    Ok(html)
}

/// Per-CPU bring-up of a cycle: a Gantt-style chart from each Booting line to `CPUn is up`
/// (unless `chart` is false), and a table.
pub fn bringup(templates: &Templates, of: CycleOf<'_>, chart: bool) -> Result<String> {
    let c = of.cycle()?;
    let (analysis, file, index) = (of.analysis, of.file, of.index);
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
                    "`{file}` has neither `Enabling non-boot CPUs` nor a Booting line in cycle {index}"
                ),
                "the bring-up view measures from one of them; use a capture that includes it",
            ));
        }
    };
    if c.cpus.is_empty() {
        return Err(fail(
            format!("`{file}` shows no CPU coming up in cycle {index}"),
            "the capture needs `CPUn is up` lines",
        ));
    }
    let res = analysis.input.resolution_us;
    let mut bars = Vec::new();
    let mut table = TableModel::new(
        format!("CPU bring-up in {file}"),
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
    let chart_model = HBar {
        id: chart_id(of.id, file),
        title: format!("CPU bring-up, {file}"),
        desc: format!(
            "Each bar runs from a CPU's Booting line to its 'is up' line, in seconds after {origin_name}. All CPUs were up after {total}. The table below lists the same figures."
        ),
        axis_label: format!("seconds after {origin_name}"),
        bars,
    };
    chart_and_table(templates, &chart_model, &table, chart)
}

/// The phases of a cycle on a time axis, with a table of the same.
pub fn timeline(templates: &Templates, of: CycleOf<'_>) -> Result<String> {
    let c = of.cycle()?;
    let (analysis, file, index) = (of.analysis, of.file, of.index);
    let first = c.phases.first().ok_or_else(|| {
        fail(
            format!("`{file}` shows no complete phase in cycle {index}"),
            "a phase needs both its start and end lines in the capture (see kernlog's README)",
        )
    })?;
    let res = analysis.input.resolution_us;
    let origin = first.start;
    let mut bars = Vec::new();
    let mut table = TableModel::new(
        format!("Phases of cycle {index} in {file}"),
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
        id: chart_id(of.id, file),
        title: format!("Suspend/resume phases, {file}"),
        desc: format!(
            "One bar per phase of cycle {index}, placed at its start in seconds after the first phase began; the label gives its duration. The table below lists the same figures."
        ),
        axis_label: format!(
            "seconds after {} began",
            first.name.name().replace('_', " ")
        ),
        bars,
    };
    chart_and_table(templates, &chart, &table, true)
}

/// What a trace view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum TraceView {
    /// A table of durations per function.
    Functions,
    /// A table of durations per task.
    Tasks,
    /// A chart of one function's durations by bucket.
    Histogram,
}

/// `12.000 µs`, `1.500 ms`, `2.000 s`.
fn us_text(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.3} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{us:.3} µs")
    }
}

/// trace-cmd function_graph statistics of `file`: per function or per task (the `top`
/// longest in total), or a histogram of one `function`'s durations.
pub fn trace(
    templates: &Templates,
    stats: &TraceStats,
    file: &str,
    show: TraceView,
    function: Option<&str>,
    top: Option<usize>,
    id: Option<&str>,
) -> Result<String> {
    if stats.lines == 0 {
        return Err(fail(
            format!("`{file}` has no function_graph lines"),
            "point at `trace-cmd report` output of the function_graph tracer",
        ));
    }
    let top = top.unwrap_or(usize::MAX);
    match show {
        TraceView::Functions | TraceView::Tasks => {
            let tasks = show == TraceView::Tasks;
            let mut entries: Vec<(&str, &Durations)> = if tasks {
                stats.tasks.iter().map(|(k, v)| (k.as_str(), v)).collect()
            } else {
                stats.by_total()
            };
            entries.sort_by(|a, b| b.1.total_us.total_cmp(&a.1.total_us).then(a.0.cmp(b.0)));
            let mut table = TableModel::new(
                format!("Durations in {file}"),
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
                    Cell::num(us_text(d.total_us)),
                    Cell::num(us_text(d.max_us)),
                    Cell::num(us_text(d.min_us)),
                ]));
            }
            table.render(templates)
        }
        TraceView::Histogram => {
            let function = function.ok_or_else(|| {
                fail(
                    "`show: histogram` needs `function:`",
                    "name the function whose durations to count",
                )
            })?;
            let hist = stats.histograms.get(function).ok_or_else(|| {
                fail(
                    format!("`{function}` has no durations in `{file}`"),
                    "check the function name against the trace",
                )
            })?;
            let bars = hist
                .buckets
                .iter()
                .map(|(k, n)| Bar {
                    label: format!("< {}", us_text(Histogram::upper_us(*k))),
                    start: 0.0,
                    end: *n as f64,
                    note: n.to_string(),
                    class: "g0",
                })
                .collect();
            let chart = HBar {
                id: chart_id(id, file),
                title: format!("Durations of {function}"),
                desc: format!("Number of calls of {function} per duration bucket (powers of ten)."),
                axis_label: "calls".into(),
                bars,
            };
            templates.render("hbar", &chart.layout())
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One resume's bring-up: CPU1 takes 654 ms from its Booting line (slow), CPU2 2 ms.
    pub(crate) const LOG: &str = "\
[  100.000000] Enabling non-boot CPUs ...
[  100.000200] smpboot: Booting Node 0 Processor 1 APIC 0x2
[  100.654200] CPU1 is up
[  100.654300] smpboot: Booting Node 0 Processor 2 APIC 0x4
[  100.656300] CPU2 is up
";

    #[test]
    fn the_bring_up_table_gives_each_cpu_its_time_and_marks_the_slow_one() {
        let analysis = kernlog::analyze_str(LOG);
        let t = Templates::builtin().unwrap();
        let of = |file, index| CycleOf {
            analysis: &analysis,
            file,
            index,
            id: None,
        };
        let html = bringup(&t, of("<i>run</i>.log", 0), true).unwrap();
        // One chart, drawn for the page and for a phone.
        assert_eq!(
            html.matches("<svg class=\"kl-chart kl-chart-wide\"")
                .count(),
            1,
            "{html}"
        );
        assert_eq!(
            html.matches("<svg class=\"kl-chart kl-chart-narrow\"")
                .count(),
            1,
            "{html}"
        );
        let row = |cpu: &str| {
            html.lines()
                .find(|l| l.contains(&format!("<td>{cpu}</td>")))
                .unwrap_or_else(|| panic!("no row of {cpu} in {html}"))
        };
        // Booting to up, and up after `Enabling non-boot CPUs`, read off the log above.
        assert!(row("CPU1").starts_with("<tr class=\"kl-slow\">"), "{html}");
        assert!(row("CPU1").contains(">654.000 ms<") && row("CPU1").contains(">654.200 ms<"));
        assert!(!row("CPU2").contains("kl-slow"));
        assert!(row("CPU2").contains(">2.000 ms<") && row("CPU2").contains(">656.300 ms<"));
        // The file name is data: escaped wherever it is shown.
        assert!(!html.contains("<i>") && html.contains("&lt;i&gt;run&lt;/i&gt;.log"));
        let without_chart = bringup(&t, of("run.log", 0), false).unwrap();
        assert!(!without_chart.contains("<svg"));
    }

    #[test]
    fn the_timeline_shows_the_enable_phase_and_a_missing_cycle_is_an_error_with_a_hint() {
        let analysis = kernlog::analyze_str(LOG);
        let t = Templates::builtin().unwrap();
        let of = |index| CycleOf {
            analysis: &analysis,
            file: "run.log",
            index,
            id: None,
        };
        let e = bringup(&t, of(1), true).unwrap_err();
        assert_eq!(
            e.message,
            "`run.log` has 1 suspend/resume cycle(s); there is no cycle 1"
        );
        assert!(e.hint.is_some_and(|h| h.contains("numbered from 0")));
        // From `Enabling non-boot CPUs` (line 1) to the last CPU up (line 5): 656.3 ms.
        let html = timeline(&t, of(0)).unwrap();
        assert!(
            html.contains("<tr><td>enable cpus</td><td>1-5</td><td class=\"kl-num\">0.000 s</td><td class=\"kl-num\">656.300 ms</td></tr>"),
            "{html}"
        );
    }
}
