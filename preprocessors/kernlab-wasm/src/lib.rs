//! kernlog's analysis for the notebook's page "Analyse your own log": files in (logs, and
//! the files of capture bundles' folders); out, the views of `kernlog report --html` on
//! them as HTML, and for each input the JSON document of `kernlog analyze --json` and the
//! checklist of `kernlog check`.
//!
//! [`analyze_inputs`] is the whole job, in plain Rust (tested natively); the `ffi` module
//! exports it to JavaScript as a few `extern "C"` functions (built for wasm32 only).

use std::collections::BTreeMap;

use kernlog::evidence::bundle::{CAPTURE_FILE, LOG_CAP, MANIFEST_FILE, MemoryFiles};
use kernlog::render::checklist::render_checklist;
use kernlog::render::safe_text::visible;
use kernlog::{Checklist, Document, Evidence, Limits};
use serde::Serialize;

#[cfg(target_arch = "wasm32")]
mod ffi;
// The CLI's table of the notebook's sections that explain each finding: one table for the
// CLI and the page (the library itself knows no address).
#[path = "../../kernlog-cli/src/pages.rs"]
mod pages;
mod progress;

/// The most bytes the page reads of one file: a bundle's largest member (its log) may be
/// this long, and one byte more tells that a file is longer.
pub const READ_CAP: u64 = LOG_CAP + 1;
/// The most bytes of all files given at once (what the page reads into memory).
pub const TOTAL_CAP: u64 = 4 * LOG_CAP;
/// The most files given at once (a bundle of 99 cycles has about 105).
pub const MAX_FILES: usize = 1000;
/// `kernlog report`'s default threshold, in per cent, for a change of a median to count.
const THRESHOLD_PCT: f64 = 10.0;

/// One file the reader gave the page (or the pasted text): its name, with the folders
/// above it inside what was dropped (`bundle/mtrr/boot.txt`), and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What the page shows for all inputs together.
#[derive(Debug, Serialize)]
pub struct Reports {
    /// The views of `kernlog report --html` on the inputs, for the page's results.
    pub html: String,
    /// One report per log or bundle, in the order given.
    pub reports: Vec<Report>,
}

/// What `kernlog analyze --json` and `kernlog check` give for one log or bundle.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The file's or the bundle folder's name as the browser gave it, controls and bidi
    /// characters made visible.
    pub name: String,
    /// Whether it is a capture bundle (a folder with `capture.yaml`).
    pub bundle: bool,
    /// `kernlog analyze --json` of the log.
    pub document: Document,
    /// `kernlog check` of the log or bundle.
    pub checklist: ChecklistDoc,
}

/// The checklist of `kernlog check`, with its text as the CLI prints it.
#[derive(Debug, Serialize)]
pub struct ChecklistDoc {
    /// PASS, FAIL or UNKNOWN.
    pub overall: &'static str,
    /// The verdict line.
    pub verdict: String,
    pub items: Vec<ItemDoc>,
    /// The whole checklist as `kernlog check` prints it.
    pub text: String,
}

/// One item of the checklist.
#[derive(Debug, Serialize)]
pub struct ItemDoc {
    pub name: &'static str,
    /// PASS, FAIL or SKIP.
    pub status: &'static str,
    pub reason: String,
    /// The log's line numbers the item is about.
    pub lines: Vec<u64>,
}

impl ChecklistDoc {
    fn new(list: &Checklist) -> Self {
        ChecklistDoc {
            overall: list.overall.label(),
            verdict: list.verdict.clone(),
            items: list
                .items
                .iter()
                .map(|item| ItemDoc {
                    name: item.name,
                    status: item.status.label(),
                    reason: item.reason.clone(),
                    lines: item.lines.clone(),
                })
                .collect(),
            text: render_checklist(list),
        }
    }
}

/// One thing to analyse: a log, or the files of a bundle folder by member path.
enum Source {
    Log(Input),
    Bundle(String, MemoryFiles),
}

/// The reports of `inputs` as one JSON text of [`Reports`]; `progress(done, total)` is told
/// how many bytes of the logs were read. Bad input gives the reason, worded as the CLI
/// words it, with a hint.
pub fn analyze_inputs(
    inputs: Vec<Input>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<String, String> {
    if inputs.is_empty() {
        return Err(
            "no log given: paste a log or drop a file (dmesg, journalctl -k, \
                    kern.log, /dev/kmsg, trace-cmd report) or a bundle's folder"
                .to_string(),
        );
    }
    if inputs.len() > MAX_FILES {
        return Err(format!(
            "{} files given, more than the {MAX_FILES} this page reads at once; drop a \
             bundle's folder or a few logs",
            inputs.len()
        ));
    }
    let total: u64 = inputs.iter().map(|i| i.bytes.len() as u64).sum();
    let mut done = 0;
    let mut evidence: Vec<Evidence> = Vec::new();
    for source in sources(inputs)? {
        let e = match source {
            Source::Log(input) => {
                let len = input.bytes.len() as u64;
                let e = log_evidence(input, &mut |pos| progress(done + pos, total))?;
                done += len;
                e
            }
            Source::Bundle(name, mut files) => {
                done += files.0.values().map(|b| b.len() as u64).sum::<u64>();
                Evidence::from_bundle(&name, &mut files).map_err(|e| {
                    format!(
                        "{name}/{e}; drop a bundle folder written by `kernlog capture`, or a log"
                    )
                })?
            }
        };
        progress(done, total);
        if let Some(earlier) = evidence.iter().find(|x| x.same_as(&e)) {
            return Err(format!(
                "{} and {} hold the same capture: one test given twice is not two boots \
                 (give each log or bundle once)",
                earlier.name, e.name
            ));
        }
        evidence.push(e);
    }
    let links = pages::links(SITE);
    let templates = views::Templates::builtin().map_err(|e| e.to_string())?;
    let html = views::report::report(&templates, &evidence, THRESHOLD_PCT, &links)
        .map_err(|e| format!("cannot draw the views: {e}"))?;
    let reports = evidence
        .iter()
        .map(|e| Report {
            name: e.name.clone(),
            bundle: e.captured.is_some(),
            document: Document::with_links(&e.analysis, &links),
            checklist: ChecklistDoc::new(&kernlog::check(e, Limits::default())),
        })
        .collect();
    serde_json::to_string(&Reports { html, reports }).map_err(|e| format!("cannot write JSON: {e}"))
}

/// The findings' links from the page: the page is at the site's root, so its sections are
/// `./journey#...`, wherever the site is served.
const SITE: &str = ".";

/// A plain log as evidence, refused over the cap of `kernlog check` as the CLI refuses it.
fn log_evidence(input: Input, progress: &mut dyn FnMut(u64)) -> Result<Evidence, String> {
    let name = visible(&input.name).into_owned();
    if input.bytes.len() as u64 > LOG_CAP {
        return Err(format!(
            "{name} is longer than {} MiB, which check, compare and report read at most; cut \
             it to the boots of the test (journalctl -k -b, or the lines from the first \
             suspend on)",
            LOG_CAP >> 20
        ));
    }
    let analysis = kernlog::analyze(progress::Progress::new(&input.bytes, progress))
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    Ok(Evidence {
        name,
        kernel: analysis.kernel.clone(),
        analysis,
        captured: None,
        log: input.bytes,
    })
}

/// The inputs as logs and bundles, in the order given: a folder that holds `capture.yaml`
/// (or `MANIFEST.yaml`) is a bundle, every file below it one of its members; every other file is a log. A
/// bundle's `capture.yaml` or `MANIFEST.yaml` given without its folder is refused.
fn sources(inputs: Vec<Input>) -> Result<Vec<Source>, String> {
    let roots: Vec<String> = inputs
        .iter()
        .filter_map(|i| {
            let name = &i.name;
            name.strip_suffix(CAPTURE_FILE)
                .or_else(|| name.strip_suffix(MANIFEST_FILE))
        })
        .filter(|dir| dir.ends_with('/'))
        .map(str::to_string)
        .collect();
    let mut out = Vec::new();
    let mut bundles: BTreeMap<String, usize> = BTreeMap::new();
    for input in inputs {
        let root = roots
            .iter()
            .filter(|r| input.name.starts_with(r.as_str()))
            .max_by_key(|r| r.len());
        let Some(root) = root else {
            refuse_bundle_file(&input.name)?;
            out.push(Source::Log(input));
            continue;
        };
        let at = *bundles.entry(root.clone()).or_insert_with(|| {
            let name = visible(root.trim_end_matches('/')).into_owned();
            out.push(Source::Bundle(name, MemoryFiles::default()));
            out.len() - 1
        });
        if let Source::Bundle(_, files) = &mut out[at] {
            let member = input.name[root.len()..].to_string();
            files.0.insert(member, input.bytes);
        }
    }
    Ok(out)
}

/// A bundle's own files given without the folder cannot be read as a bundle: say what to
/// drop instead.
fn refuse_bundle_file(name: &str) -> Result<(), String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base == CAPTURE_FILE || base == MANIFEST_FILE {
        return Err(format!(
            "{} is the {base} of a bundle, not a log; drop the bundle's folder (the one \
             `kernlog capture` wrote), not its files",
            visible(name)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
