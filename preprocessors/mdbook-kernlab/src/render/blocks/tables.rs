//! Tables and range charts from YAML data (e.g. the version summary).

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use views::charts::{Bar, HBar};
use views::table::{Cell, Row, TableModel, chart_id};

use super::Resources;
use crate::error::{Outcome, fail};
use crate::parse::directive::options;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Column {
    /// Field of each row.
    field: String,
    /// Column header (default: the field name).
    title: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableOptions {
    table: String,
    /// JSON pointer to the list of rows (default: /rows).
    rows: Option<String>,
    columns: Vec<Column>,
    /// The most rows the table may show (default [`MAX_ROWS`]).
    max_rows: Option<usize>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// How many rows a `table:` or `ranges:` block shows at the most unless it sets
/// `max_rows`, as `log:` blocks limit their lines: a whole long data file in a page is a
/// mistake, and a page no browser handles.
pub const MAX_ROWS: usize = 2000;

fn rows<'a>(
    doc: &'a Value,
    pointer: &str,
    file: &str,
    max_rows: Option<usize>,
) -> Outcome<&'a Vec<Value>> {
    let rows = doc
        .pointer(pointer)
        .and_then(Value::as_array)
        .ok_or_else(|| {
            fail(
                format!("`{file}` has no list at `{pointer}`"),
                "set `rows:` to the JSON pointer of the list of rows",
            )
        })?;
    let limit = max_rows.unwrap_or(MAX_ROWS);
    if rows.len() > limit {
        return Err(fail(
            format!(
                "`{file}` has {} rows at `{pointer}`, more than the limit of {limit}",
                rows.len()
            ),
            "point `rows:` at a shorter list, or raise the limit with `max_rows: N`",
        ));
    }
    Ok(rows)
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(cell_text).collect::<Vec<_>>().join(", "),
        // A structure reads as `key: value` pairs, not as JSON.
        Value::Object(fields) => fields
            .iter()
            .map(|(k, v)| format!("{}: {}", k.replace('_', " "), cell_text(v)))
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

pub fn table(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: TableOptions = options(body)?;
    let doc = cx.data.document(&o.table)?;
    let pointer = o.rows.as_deref().unwrap_or("/rows");
    let items = rows(&doc, pointer, &o.table, o.max_rows)?;
    let headers: Vec<String> = o
        .columns
        .iter()
        .map(|c| c.title.clone().unwrap_or_else(|| c.field.clone()))
        .collect();
    let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut table = TableModel::new(format!("Rows of {}", o.table), &header_refs);
    for (i, item) in items.iter().enumerate() {
        let mut cells = Vec::new();
        for c in &o.columns {
            let v = item.get(&c.field).ok_or_else(|| {
                fail(
                    format!("row {} of `{}` has no field `{}`", i + 1, o.table, c.field),
                    "check the column names against the data file",
                )
            })?;
            cells.push(Cell::text(cell_text(v)));
        }
        table.rows.push(Row::new(cells));
    }
    Ok(table.render(cx.templates)?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RangesOptions {
    ranges: String,
    rows: Option<String>,
    /// Field naming each row.
    label: String,
    /// Field holding a list of [low, high] pairs.
    field: String,
    /// Axis label.
    unit: Option<String>,
    /// The most rows the chart may show (default [`MAX_ROWS`]).
    max_rows: Option<usize>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// One bar per [low, high] pair of each row (rows without pairs are listed as "no data").
pub fn ranges(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: RangesOptions = options(body)?;
    let doc = cx.data.document(&o.ranges)?;
    let pointer = o.rows.as_deref().unwrap_or("/rows");
    let items = rows(&doc, pointer, &o.ranges, o.max_rows)?;
    let mut bars = Vec::new();
    let mut table = TableModel::new(format!("Ranges in {}", o.ranges), &[&o.label, "ranges"]);
    for (i, item) in items.iter().enumerate() {
        let label = item.get(&o.label).map(cell_text).ok_or_else(|| {
            fail(
                format!("row {} of `{}` has no `{}`", i + 1, o.ranges, o.label),
                "check `label:`",
            )
        })?;
        let pairs = item
            .get(&o.field)
            .and_then(Value::as_array)
            .ok_or_else(|| {
                fail(
                    format!("row {} of `{}` has no list `{}`", i + 1, o.ranges, o.field),
                    "`field:` must name a list of [low, high] pairs",
                )
            })?;
        let mut texts = Vec::new();
        for pair in pairs {
            let (Some(lo), Some(hi)) = (
                pair.get(0).and_then(Value::as_f64),
                pair.get(1).and_then(Value::as_f64),
            ) else {
                return Err(fail(
                    format!(
                        "row {} of `{}`: `{pair}` is not a [low, high] pair",
                        i + 1,
                        o.ranges
                    ),
                    "write pairs of numbers",
                ));
            };
            let text = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo}-{hi}")
            };
            bars.push(Bar {
                label: label.clone(),
                start: lo,
                end: hi,
                note: text.clone(),
                class: "g0",
            });
            texts.push(text);
        }
        table.rows.push(Row::new(vec![
            Cell::text(label),
            Cell::text(if texts.is_empty() {
                "no data".into()
            } else {
                texts.join(", ")
            }),
        ]));
    }
    let chart = HBar {
        id: chart_id(o.id.as_deref(), &o.ranges),
        title: format!("Ranges, {}", o.ranges),
        desc: "One bar per range reported for each row; rows without data have no bar. The table below lists the same ranges.".into(),
        axis_label: o.unit.unwrap_or_default(),
        bars,
    };
    let mut html = cx.templates.render("hbar", &chart.layout())?;
    html.push('\n');
    html.push_str(&table.render(cx.templates)?);
    Ok(html)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogOptions {
    /// The manifest: a YAML list of entries with `path`, `kind`, `kernel`, `source`,
    /// `section`, `records`.
    catalog: String,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// The data catalog: one row per manifest entry, with the chapters that render the file.
pub fn catalog(
    cx: &Resources<'_>,
    body: &str,
    index: &crate::resolve::book_index::BookIndex,
    chapter: &str,
) -> Outcome<String> {
    let o: CatalogOptions = options(body)?;
    let doc = cx.data.document(&o.catalog)?;
    let entries = doc.as_array().ok_or_else(|| {
        fail(
            format!("`{}` is not a list of entries", o.catalog),
            "the manifest is a YAML list with one entry per data file",
        )
    })?;
    let mut table = TableModel::new(
        format!("Data files listed in {}", o.catalog),
        &["file", "kind", "kernel", "from", "records", "shown in"],
    )
    .numeric(&[4]);
    for (i, entry) in entries.iter().enumerate() {
        let field = |key: &str| entry.get(key).map(cell_text).unwrap_or_default();
        let path = field("path");
        if path.is_empty() {
            return Err(fail(
                format!("entry {} of `{}` has no `path`", i + 1, o.catalog),
                "every manifest entry names its file",
            ));
        }
        cx.data.resolve(&path).map_err(|_| {
            fail(
                format!(
                    "`{}` lists `{path}`, which is not in the data directory",
                    o.catalog
                ),
                "remove the entry or add the file",
            )
        })?;
        let used: Vec<String> = index
            .uses(&path)
            .into_iter()
            .map(|(c, title)| {
                format!(
                    "<a href=\"{}\">{}</a>",
                    views::escape(&index.chapter_href(&c, chapter)),
                    views::escape(&title)
                )
            })
            .collect();
        let source = field("source");
        // Seed files are named NNN_HASH.txt; other sources (the QEMU lab) are named whole.
        let from = match source.split_once('_') {
            Some((n, rest)) if rest.ends_with(".txt") && n.bytes().all(|b| b.is_ascii_digit()) => {
                format!("seed {n}, {}", field("section"))
            }
            _ => format!("{source}, {}", field("section")),
        };
        table.rows.push(Row::new(vec![
            Cell::text(path).class("kl-mono"),
            Cell::text(field("kind")),
            Cell::text(field("kernel")),
            Cell::text(from),
            Cell::num(field("records")),
            Cell {
                html: if used.is_empty() {
                    "not shown".into()
                } else {
                    used.join(", ")
                },
                ..Cell::default()
            },
        ]));
    }
    Ok(table.render(cx.templates)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structure_in_a_cell_reads_as_pairs() {
        let v: Value = serde_json::json!({"before": 20, "after": 3, "variable_mtrrs": 10});
        assert_eq!(cell_text(&v), "after: 3; before: 20; variable mtrrs: 10");
    }

    #[test]
    fn rows_past_the_limit_are_refused_with_the_way_out() {
        let doc = serde_json::json!({"rows": vec![serde_json::json!({"a": 1}); MAX_ROWS + 1]});
        let e = rows(&doc, "/rows", "t.yaml", None).unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "`t.yaml` has {} rows at `/rows`, more than the limit of {MAX_ROWS}",
                MAX_ROWS + 1
            )
        );
        assert!(e.hint.unwrap().contains("max_rows"));
        assert_eq!(
            rows(&doc, "/rows", "t.yaml", Some(MAX_ROWS + 1))
                .unwrap()
                .len(),
            MAX_ROWS + 1
        );
    }
}
