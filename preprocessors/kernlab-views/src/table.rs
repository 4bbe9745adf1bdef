//! Tables for the `table` template: a model of headers, rows and cells, and the number
//! formats the views share.

use serde::Serialize;

use crate::error::Result;
use crate::templates::Templates;

/// A table for the `table` template.
#[derive(Debug, Default, Serialize)]
pub struct TableModel {
    /// Extra CSS classes of the table.
    pub class: String,
    /// What the table lists, as its (visually hidden) caption.
    pub summary: String,
    /// The column headings.
    pub headers: Vec<Cell>,
    /// The rows.
    pub rows: Vec<Row>,
}

/// A table row.
#[derive(Debug, Default, Serialize)]
pub struct Row {
    /// CSS classes of the row (`kl-slow`, `kl-total`, ...).
    pub class: String,
    /// Its cells, one per column.
    pub cells: Vec<Cell>,
}

/// A table cell: text (escaped), lines of text, or trusted HTML.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Cell {
    /// The text, escaped when rendered.
    pub text: String,
    /// CSS classes of the cell.
    pub class: String,
    /// Lines shown one under the other instead of `text`.
    pub lines: Vec<String>,
    /// Trusted HTML built by the directive (links); shown instead of `text`.
    pub html: String,
}

impl Cell {
    /// A cell of text.
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

    /// The cell with one more CSS class.
    pub fn class(mut self, class: &str) -> Self {
        if !self.class.is_empty() {
            self.class.push(' ');
        }
        self.class.push_str(class);
        self
    }

    /// A cell of several lines.
    pub fn lines(lines: Vec<String>) -> Self {
        Cell {
            lines,
            ..Cell::default()
        }
    }
}

impl Row {
    /// A row of `cells`, no class.
    pub fn new(cells: Vec<Cell>) -> Self {
        Row {
            class: String::new(),
            cells,
        }
    }
}

impl TableModel {
    /// An empty table with a summary and column headings.
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

    /// The table through the `table` template.
    pub fn render(&self, templates: &Templates) -> Result<String> {
        templates.render("table", self)
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
pub fn chart_id(id: Option<&str>, file: &str) -> String {
    id.map(str::to_string).unwrap_or_else(|| {
        let slug: String = file
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("kl-chart-{slug}")
    })
}
