//! Delay-loop probes (`CPU n when POINT, looping...` / `CPU n ...done`): the table of one
//! log, and the heat map of several logs (probe point against CPU, log colour scale).

use kernlog::Analysis;
use kernlog::analysis::probes::ProbeResult;

use crate::error::{Result, fail};
use crate::heatmap::{HeatGroup, HeatRow, Heatmap, cell_text};
use crate::table::{Cell, Row, TableModel, chart_id, duration};
use crate::templates::Templates;

/// The probe points of a log in order of appearance, each with its results by CPU; an
/// error when the log has none.
fn points<'a>(analysis: &'a Analysis, file: &str) -> Result<Vec<(&'a str, Vec<&'a ProbeResult>)>> {
    let points = kernlog::analysis::probes::by_point(&analysis.probes);
    if points.is_empty() {
        return Err(fail(
            format!("`{file}` has no delay-loop probes"),
            "probes are `CPU n when POINT, looping...` / `CPU n ...done` pairs",
        ));
    }
    Ok(points)
}

/// Every CPU that has a probe, in order.
fn cpus<'a>(results: impl Iterator<Item = &'a ProbeResult>) -> Vec<u32> {
    let mut c: Vec<u32> = results.map(|p| p.cpu).collect();
    c.sort_unstable();
    c.dedup();
    c
}

/// Delay-loop probes of `file`: one row per probe point, one column per CPU; cells ten
/// times slower than the point's fastest marked.
pub fn table(templates: &Templates, analysis: &Analysis, file: &str) -> Result<String> {
    let points = points(analysis, file)?;
    let cpus = cpus(analysis.probes.iter());
    let mut headers = vec!["probe point".to_string()];
    headers.extend(cpus.iter().map(|c| format!("CPU{c}")));
    let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let numeric: Vec<usize> = (1..headers.len()).collect();
    let mut table = TableModel::new(format!("Delay-loop time per CPU in {file}"), &header_refs)
        .numeric(&numeric);
    table.class = "kl-probes".into();
    let res = analysis.input.resolution_us;
    for (point, results) in points {
        let fastest = results
            .iter()
            .filter_map(|r| r.ms())
            .fold(f64::INFINITY, f64::min);
        let mut cells = vec![Cell::text(point)];
        for cpu in &cpus {
            let cell = match results.iter().find(|r| r.cpu == *cpu).and_then(|r| r.ms()) {
                Some(ms) => {
                    let c = Cell::num(duration(ms, res));
                    if ms > fastest * 10.0 {
                        c.class("kl-slow")
                    } else {
                        c
                    }
                }
                None => Cell::num(""),
            };
            cells.push(cell);
        }
        table.rows.push(Row::new(cells));
    }
    table.render(templates)
}

/// One log of a probe map: its label, its file, its analysis.
pub type ProbeLog<'a> = (&'a str, &'a str, &'a Analysis);

/// Several logs' probes in one heat map: a row per probe point (grouped by log), a column
/// per CPU, each cell the delay-loop time in ms, shaded by its decade.
pub fn map(templates: &Templates, logs: &[ProbeLog<'_>], id: Option<&str>) -> Result<String> {
    let cpus = cpus(logs.iter().flat_map(|(_, _, a)| a.probes.iter()));
    let mut groups = Vec::new();
    let (mut slowest, mut fastest): (Option<(f64, String)>, Option<f64>) = (None, None);
    for (label, file, analysis) in logs {
        let mut rows = Vec::new();
        for (point, results) in points(analysis, file)? {
            let cells: Vec<Option<f64>> = cpus
                .iter()
                .map(|cpu| results.iter().find(|r| r.cpu == *cpu).and_then(|r| r.ms()))
                .collect();
            for (cpu, ms) in cpus.iter().zip(&cells) {
                let Some(ms) = *ms else { continue };
                if slowest.as_ref().is_none_or(|(s, _)| ms > *s) {
                    slowest = Some((ms, format!("CPU {cpu} at {point} ({label})")));
                }
                fastest = Some(fastest.map_or(ms, |f| f.min(ms)));
            }
            rows.push(HeatRow {
                label: point.to_string(),
                cells,
            });
        }
        groups.push(HeatGroup {
            label: label.to_string(),
            rows,
        });
    }
    let extremes = match (slowest, fastest) {
        (Some((s, at)), Some(f)) => format!(
            " The fastest takes {} ms, the slowest {} ms: {at}.",
            cell_text(f),
            cell_text(s)
        ),
        _ => String::new(),
    };
    let first = logs.first().map_or("", |(_, file, _)| *file);
    let heatmap = Heatmap {
        id: chart_id(id, &format!("{first}-probe-map")),
        title: "Delay-loop time per probe point and CPU".into(),
        desc: format!(
            "Rows are probe points grouped by log, columns are CPUs, each cell the time in ms, shaded per decade.{extremes}"
        ),
        unit: "ms".into(),
        columns: cpus.iter().map(|c| format!("CPU{c}")).collect(),
        groups,
    };
    templates.render("heatmap", &heatmap.layout())
}
