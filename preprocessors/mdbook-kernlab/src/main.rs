//! `mdbook-kernlab`: the preprocessor as mdBook runs it, plus a helper to regenerate the
//! syntax-highlighting stylesheet.

use std::io;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use mdbook_kernlab::KernLab;
use mdbook_preprocessor::Preprocessor;

#[derive(Parser)]
#[command(
    version,
    about = "mdBook preprocessor for kernel investigation notebooks"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Tell mdBook whether a renderer is supported (exit status 0: yes).
    Supports { renderer: String },
    /// Print the stylesheet for highlighted code (kept in theme/kernlab-syntax.css).
    SyntaxCss,
    /// Write the stylesheets a book needs (kernlab.css, kernlab-syntax.css) into DIR.
    Theme {
        dir: std::path::PathBuf,
        /// Also write a highlight.js that does nothing, for books that set
        /// `highlight-all-code = true` (saves readers 47 KiB of script).
        #[arg(long)]
        replace_highlight_js: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Supports { renderer }) => {
            return match KernLab.supports_renderer(&renderer) {
                Ok(true) => ExitCode::SUCCESS,
                _ => ExitCode::FAILURE,
            };
        }
        Some(Command::SyntaxCss) => mdbook_kernlab::render::highlight::stylesheet()
            .map(|css| print!("{css}"))
            .map_err(anyhow::Error::msg),
        Some(Command::Theme {
            dir,
            replace_highlight_js,
        }) => mdbook_kernlab::render::highlight::write_theme(&dir, replace_highlight_js)
            .map_err(anyhow::Error::msg),
        None => preprocess(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mdbook-kernlab: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn preprocess() -> anyhow::Result<()> {
    let (ctx, book) = mdbook_preprocessor::parse_input(io::stdin().lock())?;
    if ctx.mdbook_version != mdbook_preprocessor::MDBOOK_VERSION {
        eprintln!(
            "mdbook-kernlab: built against mdBook {}, called by {}",
            mdbook_preprocessor::MDBOOK_VERSION,
            ctx.mdbook_version
        );
    }
    let book = KernLab.run(&ctx, book)?;
    serde_json::to_writer(io::stdout().lock(), &book).context("cannot write the book")?;
    Ok(())
}
