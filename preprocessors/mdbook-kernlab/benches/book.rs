//! Book build time with and without the preprocessor, and a warm rebuild after a data
//! edit. Run with `cargo bench -p mdbook-kernlab`. Targets: `mdbook build` with the binary
//! within 2.5x of mdBook alone, the preprocessor's own work under 50 ms, a warm rebuild after
//! a data edit under 0.5 s.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use mdbook_driver::MDBook;
use mdbook_driver::book::BookItem;
use mdbook_kernlab::config::Config;
use mdbook_kernlab::resolve::book_index::BookIndex;
use mdbook_kernlab::{Chapter, Engine, KernLab};

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

/// The preprocessor's own work on every chapter (no mdBook rendering): seconds, and the
/// rendered Markdown of each chapter by its source path.
fn preprocess_only(root: &Path) -> (f64, Vec<(PathBuf, String)>) {
    let book = MDBook::load(root).expect("book loads");
    let start = Instant::now();
    let engine = Engine::load(root, config(&book)).expect("engine loads");
    let mut index = BookIndex::default();
    let chapters: Vec<(String, PathBuf, String)> = book
        .iter()
        .filter_map(|item| match item {
            BookItem::Chapter(ch) => {
                let path = ch.path.as_ref()?.with_extension("html");
                let source = ch.source_path.clone()?;
                Some((
                    path.to_string_lossy().into_owned(),
                    source,
                    ch.content.clone(),
                ))
            }
            _ => None,
        })
        .collect();
    for (path, _, content) in &chapters {
        index.collect(path, None, content);
    }
    let inputs: Vec<Chapter> = chapters
        .iter()
        .map(|(html, source, markdown)| Chapter {
            markdown,
            source,
            html,
        })
        .collect();
    let rendered = engine.process_book(&inputs, &index);
    let seconds = start.elapsed().as_secs_f64();
    let rendered = chapters
        .iter()
        .zip(rendered)
        .map(|((_, source, _), r)| (source.clone(), r.expect("chapter renders")))
        .collect();
    (seconds, rendered)
}

/// The book's `[preprocessor.kernlab]` options.
fn config(book: &MDBook) -> Config {
    book.config
        .get("preprocessor.kernlab")
        .expect("valid options")
        .unwrap_or_default()
}

fn best(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| f()).fold(f64::INFINITY, f64::min)
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for part in [
        "src",
        "data",
        "theme",
        "preprocessors/mdbook-kernlab/assets",
        "preprocessors/kernlab-views/assets",
    ] {
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
    let without = best(5, || build(root, false));
    std::fs::write(root.join("book.toml"), &toml).unwrap();
    let cold = build(root, true);
    let with = best(5, || build(root, true));
    let alone = best(5, || preprocess_only(root).0);
    // What mdBook alone needs for the pages the preprocessor makes: the same book with its
    // chapters replaced by their rendered Markdown, built without the preprocessor. No
    // preprocessor, however fast, can make the book build faster than this.
    let rendered = tempfile::tempdir().unwrap();
    for part in [
        "src",
        "data",
        "theme",
        "preprocessors/mdbook-kernlab/assets",
        "preprocessors/kernlab-views/assets",
    ] {
        copy(&root.join(part), &rendered.path().join(part));
    }
    std::fs::write(rendered.path().join("book.toml"), &plain).unwrap();
    for (source, markdown) in preprocess_only(root).1 {
        std::fs::write(rendered.path().join("src").join(source), markdown).unwrap();
    }
    let floor = best(5, || build(rendered.path(), false));
    // A data edit: one more line in a capture the journey renders.
    let log = root.join("data/dmesg/restarting-tasks-6.16.7.log");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("[195281.072600] random: crng reseeded on system resumption\n");
    std::fs::write(&log, text).unwrap();
    let warm = build(root, true);
    println!("book without preprocessor: {without:.3} s");
    println!("book with preprocessor:    {with:.3} s (first build in this process {cold:.3} s)");
    println!("ratio: {:.2}x", with / without);
    println!("the preprocessor's own work: {alone:.3} s (target < 0.050 s)");
    println!(
        "mdBook alone on the rendered pages: {floor:.3} s, {:.2}x the plain book: the lowest ratio any preprocessor could reach",
        floor / without
    );
    println!("warm rebuild after a data edit: {warm:.3} s (target < 0.5 s)");
    cli(root, &toml, &plain);
}

/// What an author sees: `mdbook build` (if mdBook 0.5 is installed) running this crate's
/// binary as a separate process, which pays its start-up on every build.
fn cli(root: &Path, toml: &str, plain: &str) {
    let version = Command::new("mdbook").arg("--version").output();
    match version {
        Ok(out) if String::from_utf8_lossy(&out.stdout).contains("v0.5.") => {}
        _ => {
            println!("mdbook build: skipped (mdBook 0.5 is not installed)");
            return;
        }
    }
    let run = || {
        let start = Instant::now();
        let status = Command::new("mdbook")
            .arg("build")
            .arg("--dest-dir")
            .arg(root.join("out"))
            .arg(root)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("mdbook runs");
        assert!(
            status.success(),
            "mdbook build failed in {}",
            root.display()
        );
        start.elapsed().as_secs_f64()
    };
    std::fs::write(root.join("book.toml"), plain).unwrap();
    let without = best(5, run);
    let command = format!(
        "command = {:?}",
        env!("CARGO_BIN_EXE_mdbook-kernlab").replace('\\', "/")
    );
    let with_binary: String = toml
        .lines()
        .map(|l| {
            if l.starts_with("command = ") {
                command.as_str()
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(root.join("book.toml"), with_binary).unwrap();
    let with = best(5, run);
    println!(
        "mdbook build (separate processes): {without:.3} s without, {with:.3} s with, ratio {:.2}x (target <= 2.5x)",
        with / without
    );
}
