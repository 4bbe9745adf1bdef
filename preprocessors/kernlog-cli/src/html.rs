//! `kernlog report --html FILE`: one self-contained page of the inputs, viewable offline:
//! the notebook's own views (phase timeline, per-CPU bring-up chart, MTRR diff, captured
//! MTRRs), drawn by the views crate from the analysis already made, its stylesheet inline,
//! no JavaScript.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use kernlog::Evidence;
use kernlog::judge::compare::resumed;
use views::analysis::CycleOf;
use views::{STYLESHEET, Templates, escape};

/// At most this many cycles of one input get their charts.
const CYCLES_SHOWN: usize = 10;

/// What mdBook's theme gives the notebook's stylesheet, for a page without the theme.
const THEME: &str = ":root{--fg:#1f1f1f;--bg:#fff;--table-border-color:#ccc;\
--quote-bg:#f4f4f4;--mono-font:ui-monospace,monospace;--sans-font:system-ui,sans-serif}\
body{font-family:var(--sans-font);color:var(--fg);background:var(--bg);max-width:60rem;\
margin:2rem auto;padding:0 1rem}pre{background:var(--quote-bg);padding:.5rem;overflow-x:auto}";

/// Writes the page of `inputs` to `path`.
pub fn write(path: &Path, inputs: &[Evidence], threshold_pct: f64) -> Result<()> {
    let page = page(inputs, threshold_pct)?;
    std::fs::write(path, page).with_context(|| format!("cannot write {}", path.display()))
}

/// The log's name in the views' titles: a bundle's log file, the file the user named, or
/// standard input.
fn log_name(e: &Evidence) -> String {
    if e.captured.is_some() {
        return kernlog::evidence::bundle::KERNEL_LOG.to_string();
    }
    match Path::new(&e.name).file_name() {
        Some(name) if e.name != "-" => name.to_string_lossy().into_owned(),
        _ => "standard input".to_string(),
    }
}

fn section(out: &mut String, t: &Templates, e: &Evidence, index: usize) -> Result<()> {
    let _ = writeln!(out, "<section>\n<h2>{}</h2>", escape(&e.name));
    let mut facts = Vec::new();
    if let Some(label) = e.label() {
        facts.push(("tested", label.to_string()));
    }
    if let Some(release) = &e.kernel.release {
        facts.push(("kernel", release.clone()));
    }
    if let Some(cmdline) = &e.kernel.cmdline {
        facts.push(("command line", cmdline.clone()));
    }
    if let Some(machine) = e.machine() {
        facts.push(("machine", machine));
    }
    out.push_str("<dl>\n");
    for (k, v) in facts {
        let _ = writeln!(out, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
    }
    out.push_str("</dl>\n");
    let file = log_name(e);
    let analysis = &e.analysis;
    let cycles: Vec<usize> = analysis
        .cycles
        .iter()
        .enumerate()
        .filter(|(_, c)| resumed(e).iter().any(|r| std::ptr::eq(*r, *c)))
        .map(|(i, _)| i)
        .collect();
    for &i in cycles.iter().take(CYCLES_SHOWN) {
        let _ = writeln!(out, "<h3>Cycle {}</h3>", i + 1);
        let (timeline, bringup) = (
            format!("in{index}-c{i}-timeline"),
            format!("in{index}-c{i}-bringup"),
        );
        let of = |id| CycleOf {
            analysis,
            file: &file,
            index: i,
            id: Some(id),
        };
        if analysis.cycles[i].phases.is_empty() {
            out.push_str("<p>No complete phase in this cycle: no timeline.</p>\n");
        } else {
            out.push_str(&views::analysis::timeline(t, of(&timeline))?);
        }
        out.push_str(&views::analysis::bringup(t, of(&bringup), true)?);
        let window = analysis.cycle_lines(i);
        // The diff of the first CPU whose registers were rewritten in this cycle (the boot
        // CPU's restore, or an AP's when the firmware changed only the APs).
        let changed = analysis
            .mtrr
            .runs
            .iter()
            .find(|r| r.changed() && window.as_ref().is_some_and(|w| w.contains(&r.line)));
        if let Some(run) = changed {
            let runs = views::mtrr::cycle_runs(analysis, &file, i)?;
            out.push_str(&views::mtrr::diff(t, &runs, &file, run.cpu)?);
        }
    }
    if cycles.len() > CYCLES_SHOWN {
        let _ = writeln!(
            out,
            "<p>{} more cycles not shown.</p>",
            cycles.len() - CYCLES_SHOWN
        );
    }
    let dumps = match &e.captured {
        Some(c) => views::bundle::dumps(t, c)?,
        None => None,
    };
    if let Some(table) = dumps {
        out.push_str("<h3>Captured MTRRs</h3>\n");
        out.push_str(&table);
        out.push('\n');
    }
    out.push_str("</section>\n");
    Ok(())
}

/// The page: the text report, then a section of views per input.
pub fn page(inputs: &[Evidence], threshold_pct: f64) -> Result<String> {
    let title = match inputs.first().and_then(Evidence::machine) {
        Some(m) => format!("kernlog report: {m}"),
        None => "kernlog report".to_string(),
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{THEME}\n{STYLESHEET}\n</style>\n</head>\n<body>\n\
         <h1>{}</h1>\n<pre>{}</pre>\n",
        escape(&title),
        escape(&title),
        escape(&kernlog::report(inputs, threshold_pct))
    );
    let templates = Templates::builtin().map_err(|e| anyhow!(e))?;
    for (i, e) in inputs.iter().enumerate() {
        section(&mut out, &templates, e, i)?;
    }
    out.push_str("</body>\n</html>\n");
    Ok(out)
}
