//! Any chapter text through the whole preprocessor, against this book's real data: block
//! options (YAML), inline directives, captions, ids and code fences. Every mistake must come
//! back as a problem with a line, never a panic or a stack overflow (inputs up to 1 MiB:
//! expressions and YAML nested 100,000 deep, directives inside raw HTML).
#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use mdbook_kernlab::Engine;
use mdbook_kernlab::config::Config;
use mdbook_kernlab::resolve::book_index::BookIndex;

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    Engine::load(&book, Config::default()).expect("the repository is a book")
});

fuzz_target!(|data: &[u8]| {
    let Ok(markdown) = std::str::from_utf8(data) else {
        return;
    };
    let mut figures = BookIndex::default();
    figures.collect("fuzz.html", Some("1."), markdown);
    match ENGINE.process(markdown, Path::new("src/fuzz.md"), "fuzz.html", &figures) {
        Ok(_) => {}
        Err(problems) => {
            for p in &problems {
                assert!(p.line >= 1, "a problem without a line: {p}");
                assert!(
                    p.line <= markdown.lines().count().max(1) + 1,
                    "line past the end: {p}"
                );
            }
        }
    }
});
