//! Tables for the `table` template: a model of headers, rows and cells, and the number
//! formats the views share.

use serde::Serialize;

use crate::error::Result;
use crate::templates::Templates;

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
