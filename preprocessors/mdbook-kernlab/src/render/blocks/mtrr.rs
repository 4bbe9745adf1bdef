//! MTRR views: per-CPU changes across resume, one CPU's before/after diff, the boot-time
//! table, `/proc/mtrr`, and IA32_MTRR_DEF_TYPE decoded. The options are read here; the
//! views are drawn by the views crate's `mtrr` module.

use serde::Deserialize;
use serde::de::IgnoredAny;
use views::analysis::CycleOf;
use views::mtrr::{self as view, MtrrView};

use super::Resources;
use crate::error::{Outcome, fail};
use crate::parse::directive::options;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MtrrOptions {
    mtrr: String,
    show: Option<MtrrView>,
    /// For `diff`: the CPU whose first changed run to show (default: the boot CPU).
    cpu: Option<u32>,
    /// For `changes`: list every run, not one row per CPU.
    all_runs: Option<bool>,
    /// For `changes`, `diff` and `rendezvous`: only the runs of this suspend/resume cycle
    /// (numbered from 0), for logs of several cycles.
    cycle: Option<usize>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

pub fn render(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: MtrrOptions = options(body)?;
    let analysis = cx.data.analysis(&o.mtrr)?;
    let (t, file) = (cx.templates, o.mtrr.as_str());
    let cycle_log;
    let m = match o.cycle {
        None => &analysis.mtrr,
        Some(index) => {
            cycle_log = view::cycle_runs(&analysis, file, index)?;
            &cycle_log
        }
    };
    Ok(match o.show.unwrap_or(MtrrView::Changes) {
        MtrrView::Changes => view::changes(t, m, file, o.all_runs.unwrap_or(false)),
        MtrrView::Diff => view::diff(t, m, file, o.cpu.unwrap_or(0)),
        MtrrView::Boot => view::boot(t, m, file),
        MtrrView::Proc => view::proc(t, m, file),
        MtrrView::Rendezvous => view::rendezvous(
            t,
            CycleOf {
                analysis: &analysis,
                file,
                index: o.cycle.unwrap_or(0),
                id: o.id.as_deref(),
            },
        ),
    }?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeftypeOptions {
    /// A capture (a file name) or register values (a list of hex strings or numbers).
    deftype: yaml_serde::Value,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// IA32_MTRR_DEF_TYPE decoded: given values, or each CPU's value before and after its first
/// rewrite in a capture.
pub fn deftype(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: DeftypeOptions = options(body)?;
    match o.deftype {
        yaml_serde::Value::Sequence(values) => {
            let mut raws = Vec::new();
            for v in values {
                let raw = match &v {
                    yaml_serde::Value::String(s) => {
                        u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
                    }
                    yaml_serde::Value::Number(n) => n.as_u64(),
                    _ => None,
                };
                raws.push(raw.ok_or_else(|| {
                    let shown = yaml_serde::to_string(&v).unwrap_or_default();
                    fail(
                        format!(
                            "`{}` is not a 64-bit register value",
                            crate::error::cut(shown.trim())
                        ),
                        "write values like 0xc06, at most 0xffffffffffffffff",
                    )
                })?);
            }
            Ok(view::deftype_values(cx.templates, &raws)?)
        }
        yaml_serde::Value::String(file) => {
            let analysis = cx.data.analysis(&file)?;
            Ok(view::deftype_of_log(cx.templates, &analysis.mtrr, &file)?)
        }
        _ => Err(fail(
            "`deftype` takes a capture or a list of register values",
            "write `deftype: mtrr/x.log` or `deftype: [0xc00, 0xc06]`",
        )),
    }
}
