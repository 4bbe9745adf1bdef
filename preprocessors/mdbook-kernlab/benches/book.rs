//! Book build time with and without the preprocessor, and a warm rebuild after a data
//! edit. Run with `cargo bench -p mdbook-kernlab`. Targets: ratio <= 1.5x, warm rebuild < 1 s.

use std::path::Path;
use std::time::Instant;

use mdbook_driver::MDBook;
use mdbook_driver::book::BookItem;
use mdbook_kernlab::book_index::BookIndex;
use mdbook_kernlab::config::Config;
use mdbook_kernlab::{Engine, KernLab};

fn copy(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from)
        .into_iter()
        .filter_map(Result::ok)
    {
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Build once; seconds.
fn build(root: &Path, with_preprocessor: bool) -> f64 {
    let start = Instant::now();
    let mut book = MDBook::load(root).expect("book loads");
    book.config.build.build_dir = root.join("out");
    if with_preprocessor {
        book.with_preprocessor(KernLab::new());
    }
    book.build().expect("book builds");
    start.elapsed().as_secs_f64()
}

/// The preprocessor's own work on every chapter (no mdBook rendering); seconds.
fn preprocess_only(root: &Path) -> f64 {
    let book = MDBook::load(root).expect("book loads");
    let start = Instant::now();
    let engine = Engine::load(root, Config::default()).expect("engine loads");
    let mut index = BookIndex::default();
    let chapters: Vec<(String, String)> = book
        .iter()
        .filter_map(|item| match item {
            BookItem::Chapter(ch) => {
                let path = ch.path.as_ref()?.with_extension("html");
                Some((path.to_string_lossy().into_owned(), ch.content.clone()))
            }
            _ => None,
        })
        .collect();
    for (path, content) in &chapters {
        index.collect(path, None, content);
    }
    for (path, content) in &chapters {
        engine
            .process(content, Path::new(path), path, &index)
            .expect("chapter renders");
    }
    start.elapsed().as_secs_f64()
}

fn best(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| f()).fold(f64::INFINITY, f64::min)
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for part in ["src", "data", "theme"] {
        copy(&repo.join(part), &root.join(part));
    }
    let toml = std::fs::read_to_string(repo.join("book.toml")).unwrap();
    // Without the preprocessor: the same book, its directives left as code blocks.
    let plain: String = toml
        .split("\n[")
        .filter(|section| !section.starts_with("preprocessor.kernlab"))
        .collect::<Vec<_>>()
        .join("\n[");
    std::fs::write(root.join("book.toml"), &plain).unwrap();
    let without = best(3, || build(root, false));
    std::fs::write(root.join("book.toml"), &toml).unwrap();
    let cold = build(root, true);
    let with = best(3, || build(root, true));
    let alone = best(3, || preprocess_only(root));
    // A data edit: one more line in a capture the journey renders.
    let log = root.join("data/dmesg/restarting-tasks-6.16.7.log");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("[195281.072600] random: crng reseeded on system resumption\n");
    std::fs::write(&log, text).unwrap();
    let warm = build(root, true);
    println!("book without preprocessor: {without:.3} s");
    println!("book with preprocessor:    {with:.3} s (first build in this process {cold:.3} s)");
    println!("ratio: {:.2}x (target <= 1.5x)", with / without);
    println!(
        "of which the preprocessor itself: {alone:.3} s; the rest is mdBook rendering the larger pages"
    );
    println!("warm rebuild after a data edit: {warm:.3} s (target < 1 s)");
}
