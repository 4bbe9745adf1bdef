//! Delay-loop probes (`CPU n when POINT, looping...` / `CPU n ...done`): the table of one
//! log, and the heat map of several logs (probe point against CPU, log colour scale), drawn
//! by the views crate.

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use crate::error::{Outcome, fail};
use crate::parse::directive::options;

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
    Ok(views::probes::table(cx.templates, &analysis, &o.probes)?)
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
    let logs: Vec<views::probes::ProbeLog<'_>> =
        logs.iter().map(|(l, f, a)| (*l, *f, &**a)).collect();
    Ok(views::probes::map(cx.templates, &logs, o.id.as_deref())?)
}
