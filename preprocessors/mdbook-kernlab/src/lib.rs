//! mdBook preprocessor for kernel investigation notebooks.
//!
//! It renders committed raw data at build time: kernel logs with deltas and gaps, CPU
//! bring-up charts, resume timelines, MTRR diffs, trace-cmd statistics, bisect logs and
//! tables, and numbers in the prose computed from (or checked against) the data. Kernel
//! symbols and mailing-list threads become links. See the README for the syntax.
//!
//! Data flow: Markdown --[`scan`]--> directives --[`blocks`] / [`inline`] / [`highlight`]-->
//! HTML from the templates in `theme/kernlab/` --[`scan::splice`]--> Markdown for mdBook.

pub mod blocks;
pub mod book_index;
pub mod charts;
pub mod config;
pub mod data;
pub mod error;
pub mod expr;
pub mod highlight;
pub mod inline;
pub mod references;
pub mod render;
pub mod scan;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

use crate::book_index::BookIndex;
use crate::config::Config;
use crate::data::DataStore;
use crate::error::{Failure, Problem};
use crate::references::{Symbols, Threads};
use crate::render::Templates;
use crate::scan::{Found, scan, splice};

/// The preprocessor, for `mdbook` (through the `mdbook-kernlab` binary) or in-process
/// through `mdbook-driver`'s `MDBook::with_preprocessor`.
#[derive(Debug, Default, Clone, Copy)]
pub struct KernLab;

impl KernLab {
    pub fn new() -> Self {
        KernLab
    }
}

/// Everything a directive needs: configuration, data, templates and indexes.
pub struct Engine {
    pub config: Config,
    pub data: DataStore,
    /// The book's source directory, for `source:` blocks that show files the site serves.
    pub src: DataStore,
    pub templates: Templates,
    pub symbols: Symbols,
    pub threads: Threads,
}

impl Engine {
    /// Load the data directory, templates and indexes of the book at `root`.
    pub fn load(root: &Path, config: Config) -> anyhow::Result<Self> {
        let data_dir = root.join(&config.data);
        let data = DataStore::new(&data_dir).with_context(|| {
            format!(
                "the data directory {} cannot be opened (set `data` under [preprocessor.kernlab] in book.toml)",
                data_dir.display()
            )
        })?;
        let src_dir = root.join("src");
        let src = DataStore::new(if src_dir.is_dir() { &src_dir } else { root })
            .with_context(|| format!("cannot open {}", src_dir.display()))?;
        let templates =
            Templates::load(&root.join(&config.templates)).map_err(anyhow::Error::msg)?;
        let symbols_path = root.join(&config.symbols);
        let symbols = if symbols_path.exists() {
            Symbols::load(&symbols_path).map_err(anyhow::Error::msg)?
        } else {
            Symbols::default()
        };
        let threads_path = root.join(&config.threads);
        let threads = if threads_path.exists() {
            Threads::load(&threads_path).map_err(anyhow::Error::msg)?
        } else {
            Threads::default()
        };
        Ok(Engine {
            config,
            data,
            src,
            templates,
            symbols,
            threads,
        })
    }

    /// Render every directive of one chapter. `source` names the chapter in messages,
    /// `chapter` is its HTML path (for references).
    pub fn process(
        &self,
        markdown: &str,
        source: &Path,
        chapter: &str,
        figures: &BookIndex,
    ) -> Result<String, Vec<Problem>> {
        let mut problems: Vec<Problem> = figures
            .duplicates(chapter)
            .iter()
            .map(|d| Problem {
                file: source.to_path_buf(),
                line: 1,
                message: format!("the id {d} is used twice"),
                hint: Some("ids must be unique in the book: published links point at them".into()),
            })
            .collect();
        let mut replacements = Vec::new();
        let mut block_index = 0;
        for site in scan(markdown) {
            let (result, line) = match &site.found {
                Found::Block { body } => {
                    let label = figures.label(chapter, block_index);
                    block_index += 1;
                    (
                        blocks::render(self, body, label, figures, chapter),
                        site.line + 1,
                    )
                }
                Found::Inline { text } => (inline::render(self, text, figures, chapter), site.line),
                Found::Code { language, body } => {
                    let language = language.as_deref();
                    let language = match language {
                        Some(l) if highlight::FENCE_LANGUAGES.contains(&l) => l,
                        _ if !self.config.highlight_all_code => continue,
                        Some(l) if highlight::knows(l) => l,
                        _ => "text",
                    };
                    (highlight::render_code(self, language, body), site.line)
                }
            };
            match result {
                Ok(html) => {
                    // Block HTML must start on its own line to be an HTML block, and keep
                    // the block's indentation (inside a list item, for example).
                    let html = match site.found {
                        Found::Inline { .. } => html,
                        _ => {
                            let line_start = markdown[..site.range.start]
                                .rfind('\n')
                                .map_or(0, |i| i + 1);
                            let indent = &markdown[line_start..site.range.start];
                            let indent = if indent.trim().is_empty() { indent } else { "" };
                            format!("{}\n", html.replace('\n', &format!("\n{indent}")))
                        }
                    };
                    replacements.push((site.range.clone(), html));
                }
                Err(Failure {
                    message,
                    hint,
                    line_offset,
                }) => problems.push(Problem {
                    file: source.to_path_buf(),
                    line: line + line_offset,
                    message,
                    hint,
                }),
            }
        }
        if problems.is_empty() {
            Ok(splice(markdown, &replacements))
        } else {
            Err(problems)
        }
    }
}

/// `journey.md` -> `journey.html`.
fn html_path(path: &Path) -> String {
    path.with_extension("html")
        .to_string_lossy()
        .replace('\\', "/")
}

impl Preprocessor for KernLab {
    fn name(&self) -> &str {
        "kernlab"
    }

    fn run(
        &self,
        ctx: &PreprocessorContext,
        mut book: Book,
    ) -> mdbook_preprocessor::errors::Result<Book> {
        let config: Config = ctx
            .config
            .get("preprocessor.kernlab")
            .context("invalid [preprocessor.kernlab] in book.toml")?
            .unwrap_or_default();
        let engine = Engine::load(&ctx.root, config)?;
        let mut figures = BookIndex::default();
        for item in book.iter() {
            if let BookItem::Chapter(ch) = item
                && let Some(path) = &ch.path
            {
                let number = ch.number.as_ref().map(ToString::to_string);
                figures.collect(&html_path(path), number.as_deref(), &ch.content);
                figures.set_title(&html_path(path), &ch.name);
            }
        }
        let src: PathBuf = ctx.config.book.src.clone();
        let mut problems = Vec::new();
        book.for_each_chapter_mut(|ch| {
            let Some(path) = ch.path.clone() else { return };
            let source = src.join(ch.source_path.as_deref().unwrap_or(&path));
            match engine.process(&ch.content, &source, &html_path(&path), &figures) {
                Ok(content) => ch.content = content,
                Err(mut p) => problems.append(&mut p),
            }
        });
        if !problems.is_empty() {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            bail!(
                "kernlab found {} problem(s):\n{}",
                problems.len(),
                list.join("\n")
            );
        }
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> mdbook_preprocessor::errors::Result<bool> {
        Ok(renderer == "html")
    }
}
