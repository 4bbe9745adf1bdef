//! Build a book with the preprocessor in-process, without the mdbook binary:
//! `cargo run -p mdbook-kernlab --example build_book -- [BOOK_ROOT] [OUT_DIR]`.
//! CI uses it to produce the site that the browser test serves.

use std::path::PathBuf;
use std::process::ExitCode;

use mdbook_driver::MDBook;
use mdbook_kernlab::KernLab;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let out = args.next().map(PathBuf::from);
    let result = MDBook::load(&root).and_then(|mut book| {
        if let Some(out) = out {
            book.config.build.build_dir = std::path::absolute(out)?;
        }
        book.with_preprocessor(KernLab::new());
        book.build()
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("build_book: {e:#}");
            ExitCode::FAILURE
        }
    }
}
