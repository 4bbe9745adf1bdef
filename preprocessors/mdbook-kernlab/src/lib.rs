//! mdBook preprocessor for kernel investigation notebooks.
//!
//! It renders committed raw data at build time: kernel logs with deltas and gaps, CPU
//! bring-up charts, resume timelines, MTRR diffs, trace-cmd statistics, bisect logs and
//! tables, and numbers in the prose computed from (or checked against) the data. Kernel
//! symbols and mailing-list threads become links. See the README for the syntax.
//!
//! Data flow, a folder a step (the views themselves are the views crate's):
//! - [`parse`]: Markdown --[`parse::scan`]--> directives; a block's YAML (read by
//!   `kernlog::parse::yaml`) --[`parse::directive`]--> its kind and typed options; an inline value
//!   --[`parse::expr`]--> an expression tree;
//! - [`resolve`]: the files they name, read and analysed once per run
//!   ([`resolve::data`]); symbols and threads ([`resolve::references`]); figure numbers and
//!   ids ([`resolve::book_index`]); expressions evaluated ([`resolve::expr`]);
//! - [`render`]: [`render::blocks`] read a block's options and data and call the views
//!   crate; [`render::inline`] and [`render::highlight`] (syntect) render the rest; all
//!   through the templates of [`render::templates`] (the views crate's, or a book's
//!   overrides) --[`parse::scan::splice`]--> Markdown for mdBook.
//!
//! [`config`] holds `[preprocessor.kernlab]`, [`error`] the problems reported with file and
//! line.

pub mod config;
pub mod error;
pub mod parse;
pub mod render;
pub mod resolve;

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

use crate::config::Config;
use crate::error::{Failure, Problem};
use crate::parse::scan::{Found, Site, scan, splice};
use crate::resolve::book_index::BookIndex;
use crate::resolve::data::DataStore;
use crate::resolve::references::{Symbols, Threads};
use rayon::prelude::*;
use views::Templates;

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
            render::templates::load(&root.join(&config.templates)).map_err(anyhow::Error::msg)?;
        let symbols_path = root.join(&config.symbols);
        let symbols = if symbols_path.exists() {
            Symbols::load(&symbols_path).map_err(anyhow::Error::msg)?
        } else {
            Symbols::missing(&symbols_path)
        };
        let threads_path = root.join(&config.threads);
        let threads = if threads_path.exists() {
            Threads::load(&threads_path).map_err(anyhow::Error::msg)?
        } else {
            Threads::missing(&threads_path)
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
        let input = Chapter {
            markdown,
            source,
            html: chapter,
        };
        self.process_book(&[input], figures)
            .pop()
            .expect("one result per chapter")
    }

    /// Render every directive of every chapter, the directives of the whole book in parallel;
    /// one result per chapter, in order, problems in the order of the text.
    pub fn process_book(
        &self,
        chapters: &[Chapter<'_>],
        figures: &BookIndex,
    ) -> Vec<Result<String, Vec<Problem>>> {
        let sites: Vec<Vec<Site>> = chapters.par_iter().map(|c| scan(c.markdown)).collect();
        // Each block's figure label depends on its position among the chapter's blocks.
        let mut jobs = Vec::new();
        for (chapter, sites) in chapters.iter().zip(&sites) {
            let mut block_index = 0;
            for site in sites {
                let label = match site.found {
                    Found::Block { .. } => {
                        block_index += 1;
                        figures.label(chapter.html, block_index - 1)
                    }
                    _ => None,
                };
                jobs.push((chapter, site, label));
            }
        }
        let mut rendered = jobs
            .par_iter()
            .map(|&(chapter, site, label)| self.render_site(chapter, site, label, figures))
            .collect::<Vec<_>>()
            .into_iter();
        chapters
            .iter()
            .zip(&sites)
            .map(|(chapter, sites)| {
                let mut problems: Vec<Problem> = figures
                    .duplicates(chapter.html)
                    .iter()
                    .map(|(line, what)| Problem {
                        file: chapter.source.to_path_buf(),
                        line: *line,
                        message: what.clone(),
                        hint: Some(
                            "ids must be unique in the book and on the page: give the block an `id:` of its own"
                                .into(),
                        ),
                    })
                    .collect();
                let mut replacements = Vec::new();
                for (site, result) in sites.iter().zip(rendered.by_ref()) {
                    match result {
                        Ok(Some(html)) => replacements.push((site.range.clone(), html)),
                        Ok(None) => {}
                        Err(problem) => problems.push(problem),
                    }
                }
                if problems.is_empty() {
                    Ok(splice(chapter.markdown, &replacements))
                } else {
                    Err(problems)
                }
            })
            .collect()
    }

    /// The replacement of one directive or code block (`None`: left for mdBook).
    fn render_site(
        &self,
        chapter: &Chapter<'_>,
        site: &Site,
        label: Option<&str>,
        figures: &BookIndex,
    ) -> Result<Option<String>, Problem> {
        let (result, line) = match &site.found {
            Found::Block { body } => (
                render::blocks::render(self, body, label, figures, chapter.html),
                site.line + 1,
            ),
            Found::Inline { text } => (
                render::inline::render(self, text, figures, chapter.html),
                site.line,
            ),
            Found::Malformed { what, hint } => (Err(error::fail(what.clone(), *hint)), site.line),
            Found::Code { language, body } => {
                let language = match language.as_deref() {
                    Some(l) if render::highlight::FENCE_LANGUAGES.contains(&l) => l,
                    _ if !self.config.highlight_all_code => return Ok(None),
                    Some(l) if render::highlight::knows(l) => l,
                    _ => "text",
                };
                (
                    render::highlight::render_code(&self.templates, language, body, false),
                    site.line,
                )
            }
        };
        match result {
            // Block HTML must start on its own line to be an HTML block, and keep the block's
            // indentation (inside a list item, for example).
            // Inline HTML stands in a paragraph that mdBook reads as Markdown again: the text
            // between the tags must not be able to make a link, an image, a heading or a cell.
            Ok(html) if matches!(site.found, Found::Inline { .. }) => {
                Ok(Some(render::templates::markdown_inert(&html)))
            }
            Ok(html) => {
                let markdown = chapter.markdown;
                let line_start = markdown[..site.range.start]
                    .rfind('\n')
                    .map_or(0, |i| i + 1);
                let indent = &markdown[line_start..site.range.start];
                let indent = if indent.trim().is_empty() { indent } else { "" };
                Ok(Some(format!(
                    "{}\n",
                    html.replace('\n', &format!("\n{indent}"))
                )))
            }
            Err(Failure {
                message,
                hint,
                line_offset,
            }) => Err(Problem {
                file: chapter.source.to_path_buf(),
                line: line + line_offset,
                message,
                hint,
            }),
        }
    }
}

/// A chapter to render: its Markdown, the file named in messages, its HTML path.
#[derive(Debug, Clone, Copy)]
pub struct Chapter<'a> {
    pub markdown: &'a str,
    pub source: &'a Path,
    pub html: &'a str,
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
        // Collected and written back in the same traversal, so results match chapters.
        let mut inputs = Vec::new();
        book.for_each_chapter_mut(|ch| {
            if let Some(path) = &ch.path {
                let source = src.join(ch.source_path.as_deref().unwrap_or(path));
                inputs.push((std::mem::take(&mut ch.content), source, html_path(path)));
            }
        });
        let chapters: Vec<Chapter> = inputs
            .iter()
            .map(|(markdown, source, html)| Chapter {
                markdown,
                source,
                html,
            })
            .collect();
        let mut results = engine.process_book(&chapters, &figures).into_iter();
        let mut problems = Vec::new();
        book.for_each_chapter_mut(|ch| {
            if ch.path.is_none() {
                return;
            }
            match results.next().expect("one result per chapter") {
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
