//! What a ```` ```kernlab ```` block says, before anything is loaded: its kind (listed once,
//! with how it is numbered), the options every block has (`id`, `caption`), and typed
//! options read from its YAML with errors placed on the block's own lines. Pure: no data,
//! no engine; the book index reads blocks through it, and the renderers in `blocks` too.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

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

/// The block kinds, each listed once: its variant, the key that names it in a block, and how
/// it is numbered. The renderers match on [`Kind`], so the compiler asks for a renderer for
/// every kind listed here.
macro_rules! kinds {
    ($($variant:ident $name:literal $figure:ident,)*) => {
        /// A block kind.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Kind {
            $($variant,)*
        }

        /// Every kind: the key that names it, how it is numbered, the kind.
        pub const KINDS: [(&str, FigureKind, Kind); [$($name),*].len()] =
            [$(($name, FigureKind::$figure, Kind::$variant),)*];
    };
}

kinds! {
    Log "log" Listing,
    Source "source" Listing,
    Bringup "bringup" Figure,
    Timeline "timeline" Figure,
    Compare "compare" Figure,
    Ranges "ranges" Figure,
    Histogram "histogram" Figure,
    Trace "trace" Table,
    Mtrr "mtrr" Table,
    Deftype "deftype" Table,
    Probes "probes" Table,
    ProbeMap "probe-map" Figure,
    Counts "counts" Table,
    CountsDiff "counts-diff" Table,
    Bisect "bisect" Table,
    Table "table" Table,
    Catalog "catalog" Table,
}

/// What every block has besides its kind's options.
#[derive(Debug, Clone, PartialEq)]
pub struct Common {
    /// The key that names the kind (`log`, ...).
    pub kind: &'static str,
    pub block: Kind,
    pub figure: FigureKind,
    pub id: Option<String>,
    pub caption: Option<String>,
}

/// Read the kind, id and caption of a block body (also used to number figures before
/// rendering).
pub fn common(body: &str) -> Outcome<Common> {
    let value: Value = kernlog::parse::yaml::from_str(body).map_err(|e| yaml_failure(body, &e))?;
    let map = value.as_object().ok_or_else(|| {
        fail(
            "a kernlab block must be a YAML mapping",
            "start with the kind and its file, e.g. `log: dmesg/x.log`",
        )
    })?;
    let kinds: Vec<(&str, FigureKind, Kind)> = KINDS
        .iter()
        .copied()
        .filter(|(k, _, _)| map.contains_key(*k))
        .collect();
    let (kind, figure, block) = match kinds.as_slice() {
        [one] => *one,
        [] => {
            return Err(fail(
                "the block names no directive",
                format!(
                    "start with one of: {}",
                    KINDS
                        .iter()
                        .map(|(k, _, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        many => {
            return Err(fail(
                format!(
                    "the block names several directives: {}",
                    many.iter()
                        .map(|(k, _, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", ")
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
            format!("the caption `{}` holds a `{{{{`", crate::error::cut(c)),
            "a caption is plain text: directives are not rendered inside it; write the figure in the prose around the block",
        ));
    }
    Ok(Common {
        kind,
        block,
        figure,
        id,
        caption,
    })
}

/// A YAML error, placed on the block's line as the chapter counts lines: YAML also breaks
/// lines at a lone carriage return, Markdown sources are counted by `\n`.
fn yaml_failure(body: &str, e: &kernlog::parse::yaml::YamlError) -> Failure {
    let mut message = e.to_string();
    let mut offset = 0;
    if let Some(at) = e.location() {
        let before = body.get(..at.index).unwrap_or(body);
        offset = before.matches('\n').count();
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        let yaml_place = format!(" at line {} column {}", at.line, at.column);
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
    kernlog::parse::yaml::from_str(body).map_err(|e| yaml_failure(body, &e))
}

/// Parse an option written `START-END` (two numbers, START <= END).
pub fn parse_range(text: &str, option: &str) -> Outcome<(f64, f64)> {
    let err = || {
        fail(
            format!("`{option}: {text}` is not a range"),
            format!("write `{option}: START-END`, e.g. `{option}: 10-20`"),
        )
    };
    let (a, b) = text.split_once('-').ok_or_else(err)?;
    let a: f64 = a.trim().parse().map_err(|_| err())?;
    let b: f64 = b.trim().parse().map_err(|_| err())?;
    if b < a {
        return Err(err());
    }
    Ok((a, b))
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
