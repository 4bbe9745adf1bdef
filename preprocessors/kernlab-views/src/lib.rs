//! HTML and SVG views of kernlog's models (kernlab-log): the functions that turn an
//! analysis, an MTRR log, a capture bundle's dumps or a small capture into the charts and
//! tables of the notebook. Pure: no file, network or terminal I/O, so that the same views
//! serve the book (through mdbook-kernlab), `kernlog report --html`, and a page that
//! analyses a log in the browser.
//!
//! Data flow, a module a step:
//! - the views: [`analysis`] (bring-up, timeline, trace), [`mtrr`] (changes, diff, boot
//!   table, `/proc/mtrr`, rendezvous, IA32_MTRR_DEF_TYPE), [`bundle`] (MTRR dumps),
//!   [`captures`] (histograms, counts, bisect logs), [`probes`] (table and heat map),
//!   [`verdicts`] (findings, checklist) build models; [`report`] puts an input's views
//!   together, as `kernlog report --html` and the page that analyses a log show them
//! - the models: [`table`] (rows and cells), [`charts`] (bar charts) and [`heatmap`] lay
//!   them out with fixed decimals, so the same data always gives the same bytes
//! - the output: [`templates`] renders them through the handlebars templates of
//!   `assets/templates/`, every value from data escaped by the one rule of [`escape`];
//!   [`STYLESHEET`] styles the result.
//!
//! A view that cannot be drawn from its data returns an [`Error`] with a hint.

#![warn(missing_docs)]

pub mod analysis;
pub mod bundle;
pub mod captures;
pub mod charts;
pub mod error;
pub mod escape;
pub mod heatmap;
pub mod mtrr;
pub mod probes;
pub mod report;
pub mod table;
pub mod templates;
pub mod verdicts;

pub use error::{Error, Result};
pub use escape::escape;
pub use templates::Templates;

/// The stylesheet of the views' HTML and SVG (the crate's `assets/kernlab.css`).
pub const STYLESHEET: &str = include_str!("../assets/kernlab.css");
