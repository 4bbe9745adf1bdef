//! `kernlog report --html FILE`: one self-contained page of the inputs, viewable offline:
//! the notebook's own views (phase timeline, per-CPU bring-up chart, MTRR diff, captured
//! MTRRs, findings, checklist), drawn by the views crate from the analysis already made,
//! its stylesheet inline, no JavaScript.

use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use kernlog::Evidence;
use kernlog::analysis::findings::Links;
use views::{STYLESHEET, Templates, escape};

/// What mdBook's theme gives the notebook's stylesheet, for a page without the theme.
const THEME: &str = ":root{--fg:#1f1f1f;--bg:#fff;--table-border-color:#ccc;\
--quote-bg:#f4f4f4;--mono-font:ui-monospace,monospace;--sans-font:system-ui,sans-serif}\
body{font-family:var(--sans-font);color:var(--fg);background:var(--bg);max-width:60rem;\
margin:2rem auto;padding:0 1rem}pre{background:var(--quote-bg);padding:.5rem;overflow-x:auto}";

/// Writes the page of `inputs` to `path`, each finding linked where `links` says. The page
/// goes into a new file beside `path`, which is then renamed to it: whatever was at `path`
/// (a link somebody planted in a shared folder, say) is replaced, never written through.
pub fn write(path: &Path, inputs: &[Evidence], threshold_pct: f64, links: Links) -> Result<()> {
    let page = page(inputs, threshold_pct, links)?;
    let cannot = || format!("cannot write {}", path.display());
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".kernlog-report")
        .permissions(std::fs::Permissions::from_mode(0o644))
        .tempfile_in(folder)
        .with_context(cannot)?;
    file.write_all(page.as_bytes()).with_context(cannot)?;
    file.persist(path)
        .map_err(|e| e.error)
        .with_context(cannot)?;
    Ok(())
}

/// The page: the text report, then a section of views per input.
pub fn page(inputs: &[Evidence], threshold_pct: f64, links: Links) -> Result<String> {
    let title = match inputs.first().and_then(Evidence::machine) {
        Some(m) => format!("kernlog report: {m}"),
        None => "kernlog report".to_string(),
    };
    let templates = Templates::builtin().map_err(|e| anyhow!(e))?;
    let body =
        views::report::report(&templates, inputs, threshold_pct, links).map_err(|e| anyhow!(e))?;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{THEME}\n{STYLESHEET}\n</style>\n</head>\n<body>\n\
         <h1>{}</h1>\n{body}</body>\n</html>\n",
        escape(&title),
        escape(&title),
    );
    Ok(out)
}
