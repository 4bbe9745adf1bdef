//! `kernlog report --html FILE`: one self-contained page of the inputs, viewable offline:
//! the notebook's own views (phase timeline, per-CPU bring-up chart, MTRR diff), rendered
//! by mdbook-kernlab's renderers and templates, its stylesheet inline, no JavaScript.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use kernlog::evidence::{Evidence, register_differences};
use kernlog::judge::compare::resumed;
use kernlog::render::reply::render_reply;
use mdbook_kernlab::blocks::{Cell, Resources, Row, TableModel, analysis_views, mtrr};
use mdbook_kernlab::config::Config;
use mdbook_kernlab::data::DataStore;
use mdbook_kernlab::highlight::STYLESHEET;
use mdbook_kernlab::references::{Symbols, Threads};
use mdbook_kernlab::render::{Templates, escape};
use mdbook_kernlab::{Engine, error::Failure};

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

/// The log of an input as the data store sees it: its folder and its name in it.
fn log_file(e: &Evidence) -> Option<(PathBuf, String)> {
    let path = match &e.captured {
        // Inside the bundle: the data store keeps it from leading out.
        Some(_) => Path::new(&e.name).join(kernlog::evidence::bundle::KERNEL_LOG),
        // The file the user named, wherever a link of that name points.
        None => std::fs::canonicalize(&e.name).ok()?,
    };
    if !path.is_file() {
        return None; // standard input, a device: read once, not there to read again
    }
    let name = path.file_name()?.to_string_lossy().into_owned();
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some((dir.to_path_buf(), name))
}

fn engine(dir: &Path) -> Result<Engine> {
    let store = || DataStore::new(dir).with_context(|| format!("cannot open {}", dir.display()));
    Ok(Engine {
        config: Config::default(),
        data: store()?,
        src: store()?,
        templates: Templates::builtin().map_err(|e| anyhow!(e))?,
        symbols: Symbols::default(),
        threads: Threads::default(),
    })
}

fn failure(f: Failure) -> anyhow::Error {
    anyhow!(
        "{}{}",
        f.message,
        f.hint.map(|h| format!(" ({h})")).unwrap_or_default()
    )
}

fn resources(engine: &Engine) -> Resources<'_> {
    Resources {
        data: &engine.data,
        src: &engine.src,
        templates: &engine.templates,
        gap_ms: engine.config.gap_ms,
    }
}

/// The notebook's views used here. Only these are called, not the dispatch over every
/// kind of block, so that the binary links no more of the renderers than it shows (the
/// log and source views' syntax highlighting stays out).
#[derive(Debug, Clone, Copy)]
enum View {
    Timeline,
    Bringup,
    Mtrr,
}

/// One view, given its options as a book's block would write them, rendered to HTML.
fn view(engine: &Engine, kind: View, file: &str, options: &str) -> Result<String> {
    let key = match kind {
        View::Timeline => "timeline",
        View::Bringup => "bringup",
        View::Mtrr => "mtrr",
    };
    // A JSON string is a YAML scalar: the file name cannot break out of it.
    let body = format!("{key}: {}\n{options}", serde_json::to_string(file)?);
    let cx = resources(engine);
    match kind {
        View::Timeline => analysis_views::timeline(&cx, &body),
        View::Bringup => analysis_views::bringup(&cx, &body),
        View::Mtrr => mtrr::render(&cx, &body),
    }
    .map_err(failure)
}

/// The captured MSRs after each resume against the same CPU's before the first suspend.
fn dump_table(engine: &Engine, e: &Evidence) -> Result<Option<String>> {
    let Some(c) = &e.captured else {
        return Ok(None);
    };
    let Some(boot) = &c.boot else {
        return Ok(None);
    };
    let mut table = TableModel::new(
        "Every CPU's captured MTRRs after each resume, against its own before the first suspend",
        &[
            "after resume",
            "CPU",
            "registers that differ from before the suspend",
        ],
    )
    .numeric(&[0, 1]);
    for (n, dump) in &c.after {
        for cpu in dump {
            let before = boot.iter().find(|b| b.cpu == cpu.cpu);
            let text = match (&cpu.registers, before.map(|b| &b.registers)) {
                (Ok(now), Some(Ok(then))) => {
                    let d = register_differences(now, then);
                    if d.is_empty() {
                        "none".to_string()
                    } else {
                        d.join("; ")
                    }
                }
                (Err(why), _) => format!("not read: {why}"),
                (_, Some(Err(why))) => format!("not read before the suspend: {why}"),
                (_, None) => "not in the dump before the suspend".to_string(),
            };
            let mut row = Row::new(vec![
                Cell::num(n.to_string()),
                Cell::num(cpu.cpu.to_string()),
                Cell::text(&text),
            ]);
            if text != "none" {
                row.class = "kl-slow".into();
            }
            table.rows.push(row);
        }
    }
    table.render(&resources(engine)).map(Some).map_err(failure)
}

fn section(out: &mut String, e: &Evidence, index: usize) -> Result<()> {
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
    let Some((dir, file)) = log_file(e) else {
        out.push_str("<p>The log was read from a stream: no views.</p>\n</section>\n");
        return Ok(());
    };
    let engine = engine(&dir)?;
    let cycles: Vec<usize> = e
        .analysis
        .cycles
        .iter()
        .enumerate()
        .filter(|(_, c)| resumed(e).iter().any(|r| std::ptr::eq(*r, *c)))
        .map(|(i, _)| i)
        .collect();
    for &i in cycles.iter().take(CYCLES_SHOWN) {
        let _ = writeln!(out, "<h3>Cycle {}</h3>", i + 1);
        let id = |what: &str| format!("id: in{index}-c{i}-{what}\ncycle: {i}\n");
        if e.analysis.cycles[i].phases.is_empty() {
            out.push_str("<p>No complete phase in this cycle: no timeline.</p>\n");
        } else {
            out.push_str(&view(&engine, View::Timeline, &file, &id("timeline"))?);
        }
        out.push_str(&view(&engine, View::Bringup, &file, &id("bringup"))?);
        let window = e.analysis.cycle_lines(i);
        // The diff of the first CPU whose registers were rewritten in this cycle (the boot
        // CPU's restore, or an AP's when the firmware changed only the APs).
        let changed = e
            .analysis
            .mtrr
            .runs
            .iter()
            .find(|r| r.changed() && window.as_ref().is_some_and(|w| w.contains(&r.line)));
        if let Some(run) = changed {
            let options = format!("{}show: diff\ncpu: {}\n", id("mtrr"), run.cpu);
            out.push_str(&view(&engine, View::Mtrr, &file, &options)?);
        }
    }
    if cycles.len() > CYCLES_SHOWN {
        let _ = writeln!(
            out,
            "<p>{} more cycles not shown.</p>",
            cycles.len() - CYCLES_SHOWN
        );
    }
    if let Some(table) = dump_table(&engine, e)? {
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
        escape(&render_reply(inputs, threshold_pct))
    );
    for (i, e) in inputs.iter().enumerate() {
        section(&mut out, e, i)?;
    }
    out.push_str("</body>\n</html>\n");
    Ok(out)
}
