//! Delay-loop probes (`CPU n when POINT, looping...` / `CPU n ...done`): the table of one
//! log, and the heat map of several logs (probe point against CPU, log colour scale).

use kernlog::Analysis;
use kernlog::analysis::probes::ProbeResult;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use super::{Cell, Row, TableModel, chart_id, duration};
use crate::directive::options;
use crate::error::{Outcome, fail};
use crate::heatmap::{HeatGroup, HeatRow, Heatmap, cell_text};

/// The probe points of a log in order of appearance, each with its results by CPU; an
/// error when the log has none.
fn points<'a>(analysis: &'a Analysis, file: &str) -> Outcome<Vec<(&'a str, Vec<&'a ProbeResult>)>> {
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProbeOptions {
    probes: String,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// Delay-loop probes: one row per probe point, one column per CPU; slow cells marked.
pub fn table(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: ProbeOptions = options(body)?;
    let analysis = cx.data.analysis(&o.probes)?;
    let points = points(&analysis, &o.probes)?;
    let cpus = cpus(analysis.probes.iter());
    let mut headers = vec!["probe point".to_string()];
    headers.extend(cpus.iter().map(|c| format!("CPU{c}")));
    let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let numeric: Vec<usize> = (1..headers.len()).collect();
    let mut table = TableModel::new(
        format!("Delay-loop time per CPU in {}", o.probes),
        &header_refs,
    )
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
    table.render(cx)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProbeMapOptions {
    /// Group name -> log with probes, in order.
    #[serde(rename = "probe-map")]
    probe_map: yaml_serde::Mapping,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// Several logs' probes in one heat map: a row per probe point (grouped by log), a column
/// per CPU, each cell the delay-loop time in ms, shaded by its decade.
pub fn probe_map(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: ProbeMapOptions = options(body)?;
    if o.probe_map.is_empty() {
        return Err(fail(
            "`probe-map` names no logs",
            "write one `label: file` line per log, indented under `probe-map:`",
        ));
    }
    let mut logs = Vec::new();
    for (label, file) in &o.probe_map {
        let (Some(label), Some(file)) = (label.as_str(), file.as_str()) else {
            return Err(fail(
                "every entry of `probe-map` is `label: file`",
                "quote a label that is a number or holds `: `",
            ));
        };
        logs.push((label, file, cx.data.analysis(file)?));
    }
    let cpus = cpus(logs.iter().flat_map(|(_, _, a)| a.probes.iter()));
    let mut groups = Vec::new();
    let (mut slowest, mut fastest): (Option<(f64, String)>, Option<f64>) = (None, None);
    for (label, file, analysis) in &logs {
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
    let map = Heatmap {
        id: chart_id(&o.id, &format!("{first}-probe-map")),
        title: "Delay-loop time per probe point and CPU".into(),
        desc: format!(
            "Rows are probe points grouped by log, columns are CPUs, each cell the time in ms, shaded per decade.{extremes}"
        ),
        unit: "ms".into(),
        columns: cpus.iter().map(|c| format!("CPU{c}")).collect(),
        groups,
    };
    cx.templates.render("heatmap", &map.layout())
}
