//! `[preprocessor.kernlab]` in book.toml.

use std::path::PathBuf;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// Options of the preprocessor; every path is relative to the book root.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Config {
    /// Where directive paths point into (`data`).
    pub data: PathBuf,
    /// The kernel symbol index for `{{kl:sym}}`.
    pub symbols: PathBuf,
    /// The thread and commit index for `{{kl:thread}}`.
    pub threads: PathBuf,
    /// Template overrides: a `NAME.hbs` here replaces the built-in template of that name.
    pub templates: PathBuf,
    /// Gaps at least this long are highlighted in log views unless a block says otherwise.
    pub gap_ms: f64,
    /// Highlight every fenced code block at build time (languages syntect does not know as
    /// plain text), not only c, diff, shell, dmesg and ftrace: for books that replace
    /// highlight.js with the stand-in `mdbook-kernlab theme` writes.
    pub highlight_all_code: bool,
    /// The address the book is published at (`https://example.pages.dev`), for
    /// `{{kl:site /PATH}}`: the one place a notebook names its own site.
    pub site: Option<String>,
    // Keys mdBook itself reads from the same table.
    command: Option<IgnoredAny>,
    before: Option<IgnoredAny>,
    after: Option<IgnoredAny>,
    renderers: Option<IgnoredAny>,
    optional: Option<IgnoredAny>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data: "data".into(),
            symbols: "data/references/symbols.yaml".into(),
            threads: "data/references/threads.yaml".into(),
            templates: "theme/kernlab".into(),
            gap_ms: 500.0,
            highlight_all_code: false,
            site: None,
            command: None,
            before: None,
            after: None,
            renderers: None,
            optional: None,
        }
    }
}
