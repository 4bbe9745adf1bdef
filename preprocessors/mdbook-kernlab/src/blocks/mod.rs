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

mod analysis_views;
mod captures;
mod log;
mod mtrr;
mod probes;
mod tables;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Engine;
use crate::book_index::BookIndex;
use crate::error::{Failure, Outcome, fail};

/// How a block is numbered when it has a caption.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FigureKind {
    #[default]
    Figure,
    Table,
    Listing,
}

impl FigureKind {
    pub fn word(self) -> &'static str {
        match self {
            FigureKind::Figure => "Figure",
            FigureKind::Table => "Table",
            FigureKind::Listing => "Listing",
        }
    }
}

/// The kinds, the option that names each, and how it is numbered.
pub const KINDS: [(&str, FigureKind); 17] = [
    ("log", FigureKind::Listing),
    ("source", FigureKind::Listing),
    ("bringup", FigureKind::Figure),
    ("timeline", FigureKind::Figure),
    ("compare", FigureKind::Figure),
    ("ranges", FigureKind::Figure),
    ("histogram", FigureKind::Figure),
    ("trace", FigureKind::Table),
    ("mtrr", FigureKind::Table),
    ("deftype", FigureKind::Table),
    ("probes", FigureKind::Table),
    ("probe-map", FigureKind::Figure),
    ("counts", FigureKind::Table),
    ("counts-diff", FigureKind::Table),
    ("bisect", FigureKind::Table),
    ("table", FigureKind::Table),
    ("catalog", FigureKind::Table),
];

/// What every block has besides its kind's options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Common {
    pub kind: &'static str,
    pub figure: FigureKind,
    pub id: Option<String>,
    pub caption: Option<String>,
}

/// Read the kind, id and caption of a block body (also used to number figures before
/// rendering).
pub fn common(body: &str) -> Outcome<Common> {
    let value: Value = yaml_serde::from_str(body).map_err(|e| yaml_failure(body, &e))?;
    let map = value.as_object().ok_or_else(|| {
        fail(
            "a kernlab block must be a YAML mapping",
            "start with the kind and its file, e.g. `log: dmesg/x.log`",
        )
    })?;
    let kinds: Vec<(&str, FigureKind)> = KINDS
        .iter()
        .copied()
        .filter(|(k, _)| map.contains_key(*k))
        .collect();
    let (kind, figure) = match kinds.as_slice() {
        [one] => *one,
        [] => {
            return Err(fail(
                "the block names no directive",
                format!(
                    "start with one of: {}",
                    KINDS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        many => {
            return Err(fail(
                format!(
                    "the block names several directives: {}",
                    many.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
                ),
                "use one block per directive",
            ));
        }
    };
    let string = |key: &str| -> Outcome<Option<String>> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(fail(
                format!("`{key}` must be text, not {other}"),
                "quote it",
            )),
        }
    };
    let id = string("id")?;
    if let Some(id) = &id
        && !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(fail(
            format!("`{id}` is not a usable id"),
            "ids are letters, digits, `-` and `_`",
        ));
    }
    let caption = string("caption")?;
    if let Some(c) = caption.as_deref().filter(|c| c.contains("{{")) {
        return Err(fail(
            format!("the caption `{}` holds a `{{{{`", crate::expr::cut(c)),
            "a caption is plain text: directives are not rendered inside it; write the figure in the prose around the block",
        ));
    }
    Ok(Common {
        kind,
        figure,
        id,
        caption,
    })
}

/// A YAML error, placed on the block's line as the chapter counts lines: YAML also breaks
/// lines at a lone carriage return, Markdown sources are counted by `\n`.
fn yaml_failure(body: &str, e: &yaml_serde::Error) -> Failure {
    let mut message = e.to_string();
    let mut offset = 0;
    if let Some(at) = e.location() {
        let before = body.get(..at.index()).unwrap_or(body);
        offset = before.matches('\n').count();
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        let yaml_place = format!(" at line {} column {}", at.line(), at.column());
        if let Some(stripped) = message.strip_suffix(&yaml_place) {
            message = format!("{stripped} (column {column})");
        }
    }
    fail(
        format!("invalid block: {message}"),
        "blocks are YAML: `key: value` per line; quote values that contain `: ` or start with `[`",
    )
    .at_offset(offset)
}

/// Deserialize a block's options; unknown options fail with the list of known ones.
pub fn options<T: DeserializeOwned>(body: &str) -> Outcome<T> {
    yaml_serde::from_str(body).map_err(|e| yaml_failure(body, &e))
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
    let inner = match c.kind {
        "log" => log::render(engine, body)?,
        "source" => log::render_source(engine, body)?,
        "bringup" => analysis_views::bringup(engine, body)?,
        "timeline" => analysis_views::timeline(engine, body)?,
        "compare" => analysis_views::compare(engine, body)?,
        "trace" => analysis_views::trace(engine, body)?,
        "probes" => probes::table(engine, body)?,
        "probe-map" => probes::probe_map(engine, body)?,
        "mtrr" => mtrr::render(engine, body)?,
        "deftype" => mtrr::deftype(engine, body)?,
        "histogram" => captures::histogram(engine, body)?,
        "counts" => captures::counts(engine, body)?,
        "counts-diff" => captures::counts_diff(engine, body)?,
        "bisect" => captures::bisect(engine, body)?,
        "table" => tables::table(engine, body)?,
        "ranges" => tables::ranges(engine, body)?,
        "catalog" => tables::catalog(engine, body, index, chapter)?,
        other => {
            return Err(Failure::new(format!(
                "directive `{other}` is not implemented"
            )));
        }
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
    engine.templates.render(
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

    pub fn render(&self, engine: &Engine) -> Outcome<String> {
        engine.templates.render("table", self)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_keys() {
        let c = common("log: a.log\nid: x-1\ncaption: A log.\n").unwrap();
        assert_eq!((c.kind, c.figure), ("log", FigureKind::Listing));
        assert_eq!(c.id.as_deref(), Some("x-1"));
        assert!(
            common("nothing: here\n")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("log,")
        );
        assert!(
            common("log: a\nmtrr: b\n")
                .unwrap_err()
                .message
                .contains("several")
        );
        assert!(common("log: a\nid: 'no spaces'\n").is_err());
        let e = common("log: a\n  bad: [\n").unwrap_err();
        assert!(e.message.starts_with("invalid block"), "{e:?}");
        assert!(common("- a list\n").is_err());
    }

    #[test]
    fn a_yaml_error_after_lone_carriage_returns_stays_on_the_chapter_line() {
        // YAML counts each `\r` as a line; the chapter (and an editor) count `\n`.
        let e = common("log: a\r\r\r\rnext: b: c\nid: x\n").unwrap_err();
        assert!(e.message.starts_with("invalid block"), "{e:?}");
        assert!(!e.message.contains("line 5"), "{e:?}");
        assert_eq!(e.line_offset, 0, "{e:?}");
    }
}
