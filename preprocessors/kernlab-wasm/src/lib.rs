//! kernlog's analysis for the notebook's page "Analyse your own log": logs in; out, for each
//! log, the JSON document of `kernlog analyze --json` and the checklist of `kernlog check`.
//!
//! [`analyze_inputs`] is the whole job, in plain Rust (tested natively); the `ffi` module
//! exports it to JavaScript as a few `extern "C"` functions (built for wasm32 only).

use std::io::{self, BufRead, Read};

use kernlog::evidence::bundle::{CAPTURE_FILE, KERNEL_LOG, MANIFEST_FILE};
use kernlog::judge::checklist::{Checklist, Limits, check};
use kernlog::render::checklist::render_checklist;
use kernlog::render::document::Document;
use kernlog::render::safe_text::visible;
use serde::Serialize;

#[cfg(target_arch = "wasm32")]
mod ffi;

/// Progress is reported each time this many more bytes of the input were read.
const PROGRESS_STEP: usize = 1 << 20;

/// One file the reader gave the page (or the pasted text): its name and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What the page shows for one log.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The file's name as the browser gave it, controls and bidi characters made visible.
    pub name: String,
    /// `kernlog analyze --json` of the log.
    pub document: Document,
    /// `kernlog check` of the log.
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

/// The reports of `inputs` as one JSON text `{"reports": [...]}`, one report per log in the
/// order given; `progress(done, total)` is told how many bytes of all inputs were read.
/// Bad input gives the reason, worded as the CLI words it, with a hint.
pub fn analyze_inputs(
    inputs: &[Input],
    limits: Limits,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<String, String> {
    if inputs.is_empty() {
        return Err(
            "no log given: paste a log or drop a file (dmesg, journalctl -k, \
                    kern.log, /dev/kmsg, trace-cmd report)"
                .to_string(),
        );
    }
    for input in inputs {
        refuse_bundle_file(&input.name)?;
    }
    let total: u64 = inputs.iter().map(|i| i.bytes.len() as u64).sum();
    let mut done = 0;
    let mut reports = Vec::with_capacity(inputs.len());
    for input in inputs {
        let reader = Progress {
            bytes: &input.bytes,
            pos: 0,
            reported: 0,
            report: &mut |pos| progress(done + pos as u64, total),
        };
        let analysis = kernlog::analyze(reader)
            .map_err(|e| format!("cannot read {}: {e}", visible(&input.name)))?;
        done += input.bytes.len() as u64;
        progress(done, total);
        reports.push(Report {
            name: visible(&input.name).into_owned(),
            checklist: ChecklistDoc::new(&check(&analysis, limits)),
            document: Document::new(&analysis),
        });
    }
    #[derive(Serialize)]
    struct Reports {
        reports: Vec<Report>,
    }
    serde_json::to_string(&Reports { reports }).map_err(|e| format!("cannot write JSON: {e}"))
}

/// The files of a capture bundle other than its log are not logs: say what to drop instead.
fn refuse_bundle_file(name: &str) -> Result<(), String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base == CAPTURE_FILE || base == MANIFEST_FILE {
        return Err(format!(
            "{} is the {base} of a bundle, not a log; this page reads a bundle's log only: \
             drop its {KERNEL_LOG}",
            visible(name)
        ));
    }
    Ok(())
}

/// A log in memory read as a stream, telling `report` how far it got every
/// [`PROGRESS_STEP`] bytes.
struct Progress<'a, 'r> {
    bytes: &'a [u8],
    pos: usize,
    reported: usize,
    report: &'r mut dyn FnMut(usize),
}

impl Read for Progress<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Progress<'_, '_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // At most one step at a time, so that every step is seen by consume().
        let end = self.bytes.len().min(self.pos + PROGRESS_STEP);
        Ok(&self.bytes[self.pos..end])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.bytes.len());
        if self.pos >= self.reported + PROGRESS_STEP {
            self.reported = self.pos;
            (self.report)(self.pos);
        }
    }
}

#[cfg(test)]
mod tests;
