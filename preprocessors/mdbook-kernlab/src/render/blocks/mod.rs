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
use crate::error::Outcome;
use crate::parse::directive::{Kind, common};
use crate::resolve::book_index::BookIndex;
use crate::resolve::data::DataStore;

/// What a block renderer works with: the data it reads and the templates it writes with;
/// nothing else of the engine.
pub struct Resources<'a> {
    pub data: &'a DataStore,
    /// The book's sources, for `source:` blocks that show files the site serves.
    pub src: &'a DataStore,
    pub templates: &'a views::Templates,
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
    Ok(cx.templates.render(
        "figure",
        &Figure {
            kind: c.kind,
            id: &id,
            body: inner,
            caption: c.caption.as_deref(),
            label: label.unwrap_or(""),
        },
    )?)
}
