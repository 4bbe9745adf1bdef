//! `source:`: a file of the data (or of the book's sources) highlighted by syntect.

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use crate::error::{Outcome, fail};
use crate::parse::directive::{options, parse_range};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceOptions {
    source: String,
    language: Option<String>,
    /// `src` to read the file from the book's sources (files the site serves) instead of
    /// the data directory.
    root: Option<String>,
    lines: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

pub fn render(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: SourceOptions = options(body)?;
    let store = match o.root.as_deref() {
        None | Some("data") => cx.data,
        Some("src") => cx.src,
        Some(other) => {
            return Err(fail(
                format!("`root: {other}` is not a known root"),
                "use `root: src` for the book's sources, or leave it out for the data directory",
            ));
        }
    };
    let text = store.text(&o.source)?;
    let language = match &o.language {
        Some(l) => l.clone(),
        None => crate::render::highlight::language_for(&o.source).to_string(),
    };
    let excerpt: String = match &o.lines {
        Some(range) => {
            let (a, b) = parse_range(range, "lines")?;
            let count = text.lines().count();
            if a < 1.0 || b as usize > count {
                return Err(fail(
                    format!("`lines: {range}` is outside the file's {count} lines"),
                    "line numbers start at 1",
                ));
            }
            text.lines()
                .skip(a as usize - 1)
                .take((b - a) as usize + 1)
                .flat_map(|l| [l, "\n"])
                .collect()
        }
        None => text.to_string(),
    };
    crate::render::highlight::render_code(cx.templates, &language, &excerpt, true)
}
