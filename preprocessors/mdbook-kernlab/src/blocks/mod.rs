//! The ```` ```kernlab ```` block directives.
//!
//! A block is YAML. Its first key names the kind and the data file, the other keys are the
//! kind's options; `id` and `caption` are common to all and make the block a numbered
//! figure, table or listing:
//!
//! ```yaml
//! log: dmesg/resume-6.16.3-ubuntu-kernel.log
//! from: Enabling non-boot CPUs
//! to: CPU7 is up
//! caption: The secondary CPUs coming up one by one.
//! ```

pub mod analysis_views;
mod captures;
mod log;
pub mod mtrr;
mod probes;
mod source;
mod tables;

use serde::Serialize;

use crate::Engine;
use crate::book_index::BookIndex;
use crate::data::DataStore;
use crate::directive::{Kind, common};
use crate::error::Outcome;
use crate::render::Templates;

/// What a block renderer works with: the data it reads and the templates it writes with;
/// nothing else of the engine.
pub struct Resources<'a> {
    pub data: &'a DataStore,
    /// The book's sources, for `source:` blocks that show files the site serves.
    pub src: &'a DataStore,
    pub templates: &'a Templates,
    /// Gaps at least this long are shaded in log views unless a block says otherwise.
    pub gap_ms: f64,
}

/// Render a block: its HTML, wrapped in a numbered figure when it has a caption.
pub fn render(
    engine: &Engine,
    body: &str,
    label: Option<&str>,
    index: &BookIndex,
    chapter: &str,
) -> Outcome<String> {
    let c = common(body)?;
    let cx = &Resources {
        data: &engine.data,
        src: &engine.src,
        templates: &engine.templates,
        gap_ms: engine.config.gap_ms,
    };
    let inner = match c.block {
        Kind::Log => log::render(cx, body)?,
        Kind::Source => source::render(cx, body)?,
        Kind::Bringup => analysis_views::bringup(cx, body)?,
        Kind::Timeline => analysis_views::timeline(cx, body)?,
        Kind::Compare => analysis_views::compare(cx, body)?,
        Kind::Trace => analysis_views::trace(cx, body)?,
        Kind::Probes => probes::table(cx, body)?,
        Kind::ProbeMap => probes::probe_map(cx, body)?,
        Kind::Mtrr => mtrr::render(cx, body)?,
        Kind::Deftype => mtrr::deftype(cx, body)?,
        Kind::Histogram => captures::histogram(cx, body)?,
        Kind::Counts => captures::counts(cx, body)?,
        Kind::CountsDiff => captures::counts_diff(cx, body)?,
        Kind::Bisect => captures::bisect(cx, body)?,
        Kind::Table => tables::table(cx, body)?,
        Kind::Ranges => tables::ranges(cx, body)?,
        Kind::Catalog => tables::catalog(cx, body, index, chapter)?,
    };

    #[derive(Serialize)]
    struct Figure<'a> {
        kind: &'a str,
        id: &'a str,
        body: String,
        caption: Option<&'a str>,
        label: &'a str,
    }
    let id = c.id.unwrap_or_default();
    cx.templates.render(
        "figure",
        &Figure {
            kind: c.kind,
            id: &id,
            body: inner,
            caption: c.caption.as_deref(),
            label: label.unwrap_or(""),
        },
    )
}

/// A table for the `table` template.
#[derive(Debug, Default, Serialize)]
pub struct TableModel {
    pub class: String,
    pub summary: String,
    pub headers: Vec<Cell>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Default, Serialize)]
pub struct Row {
    pub class: String,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Cell {
    pub text: String,
    pub class: String,
    pub lines: Vec<String>,
    /// Trusted HTML built by the directive (links); shown instead of `text`.
    pub html: String,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }

    /// A right-aligned number.
    pub fn num(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            class: "kl-num".into(),
            ..Cell::default()
        }
    }

    pub fn class(mut self, class: &str) -> Self {
        if !self.class.is_empty() {
            self.class.push(' ');
        }
        self.class.push_str(class);
        self
    }

    pub fn lines(lines: Vec<String>) -> Self {
        Cell {
            lines,
            ..Cell::default()
        }
    }
}

impl Row {
    pub fn new(cells: Vec<Cell>) -> Self {
        Row {
            class: String::new(),
            cells,
        }
    }
}

impl TableModel {
    pub fn new(summary: impl Into<String>, headers: &[&str]) -> Self {
        TableModel {
            class: String::new(),
            summary: summary.into(),
            headers: headers.iter().map(|h| Cell::text(*h)).collect(),
            rows: Vec::new(),
        }
    }

    /// Mark columns as numeric (right-aligned headers).
    pub fn numeric(mut self, columns: &[usize]) -> Self {
        for &c in columns {
            if let Some(h) = self.headers.get_mut(c) {
                h.class = "kl-num".into();
            }
        }
        self
    }

    pub fn render(&self, cx: &Resources<'_>) -> Outcome<String> {
        cx.templates.render("table", self)
    }
}

/// `12.345 ms` / `1.234 s`, at the precision the log's stamps allow.
pub fn duration(ms: f64, resolution_us: Option<u64>) -> String {
    match resolution_us.unwrap_or(1) {
        r if r >= 1_000_000 => format!("{:.0} s", ms / 1000.0),
        r if r >= 1000 => format!("{ms:.0} ms"),
        _ if ms >= 1000.0 => format!("{:.3} s", ms / 1000.0),
        _ => format!("{ms:.3} ms"),
    }
}

/// A name the chart can use as an SVG id: the block id or one derived from the file.
pub fn chart_id(id: &Option<String>, file: &str) -> String {
    id.clone().unwrap_or_else(|| {
        let slug: String = file
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("kl-chart-{slug}")
    })
}
