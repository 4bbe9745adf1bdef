//! Any text as the inside of an inline directive (`{{kl:TEXT}}`): the option splitter, the
//! expression parser and evaluator, units and number formats, against this book's data.
//! An error is fine; a panic, a stack overflow (inputs up to 1 MiB: nesting 100,000 deep),
//! or output with Markdown or a brace left in its text, is not.
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
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains(['{', '}', '\n']) {
        return; // not an inline directive: the chapter target covers those
    }
    let markdown = format!("Text {{{{kl:{text}}}}} more.\n");
    let figures = BookIndex::default();
    if let Ok(out) = ENGINE.process(&markdown, Path::new("src/fuzz.md"), "fuzz.html", &figures) {
        assert!(!out.contains("{{kl:"), "left in the page: {out}");
        // Nothing for mdBook's `{{#include ...}}` and the like, whatever runs first.
        assert!(!out.contains('{'), "a brace in the rendered text: {out}");
        // Between the tags, nothing that Markdown would read as a link or an image.
        let mut in_tag = false;
        for c in out.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                '[' | ']' | '(' | ')' if !in_tag => {
                    // The prose around the directive has none of these.
                    panic!("Markdown-significant `{c}` in the rendered text: {out}");
                }
                _ => {}
            }
        }
    }
});
