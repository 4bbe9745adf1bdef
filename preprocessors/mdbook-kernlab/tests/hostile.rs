//! A book of hostile data, built with mdBook as a reader gets it: what data files say is
//! shown, never obeyed. No link, image, heading or table cell may come from data text, no
//! control character may reach the page, and a FIFO in the data folder fails the build
//! instead of hanging it.

use std::path::Path;

use mdbook_driver::MDBook;
use mdbook_kernlab::KernLab;
use scraper::{Html, Selector};

const BOOK_TOML: &str = "[book]\ntitle = \"Hostile\"\nsrc = \"src\"\n\n\
[preprocessor.kernlab]\nafter = [\"links\"]\n";

/// Values a careless author might copy from a stranger's mail into a data file.
const HOSTILE_YAML: &str = r#"link: "[click me](javascript:alert(1))"
image: "![x](https://tracker.invalid/x.png)"
breakout: "end\n\n# Heading from data\n\n<script>alert(2)</script>"
pipe: "a | b | c"
html: "<img src=x onerror=alert(3)>"
controls: "bell\u0007 escape\u001b[31m delete\u007f"
"#;

const CHAPTER: &str = "# Chapter\n\n\
| field | value |\n| --- | --- |\n| pipe | {{kl:text hostile.yaml#/pipe}} |\n\n\
Link: {{kl:text hostile.yaml#/link}}.\n\n\
Image: {{kl:text hostile.yaml#/image}}.\n\n\
Breakout: {{kl:text hostile.yaml#/breakout}}.\n\n\
HTML: {{kl:text hostile.yaml#/html}}.\n\n\
Controls: {{kl:text hostile.yaml#/controls}}.\n\n\
```kernlab\nlog: hostile.log\n```\n";

const LOG: &str = "[    1.000000] PM: suspend entry (deep) [x](javascript:alert(4)) \u{1b}[2J\n\
[    1.100000] <b>bold</b> ![i](https://tracker.invalid/y.png)\n";

fn write_book(root: &Path) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::write(root.join("book.toml"), BOOK_TOML).unwrap();
    std::fs::write(
        root.join("src/SUMMARY.md"),
        "# Summary\n\n- [Chapter](chapter.md)\n",
    )
    .unwrap();
    std::fs::write(root.join("src/chapter.md"), CHAPTER).unwrap();
    std::fs::write(root.join("data/hostile.yaml"), HOSTILE_YAML).unwrap();
    std::fs::write(root.join("data/hostile.log"), LOG).unwrap();
}

fn build(root: &Path, out: &Path) -> Result<(), String> {
    let mut book = MDBook::load(root).map_err(|e| format!("{e:#}"))?;
    book.config.build.build_dir = out.to_path_buf();
    book.with_preprocessor(KernLab::new());
    book.build().map_err(|e| format!("{e:#}"))
}

#[test]
fn data_text_is_shown_not_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    write_book(dir.path());
    let out = dir.path().join("out");
    build(dir.path(), &out).unwrap_or_else(|e| panic!("the hostile book should build: {e}"));
    let page = std::fs::read_to_string(out.join("chapter.html")).unwrap();
    let doc = Html::parse_document(&page);
    let main = Selector::parse("main").unwrap();
    let main = doc.select(&main).next().expect("a main element");
    let all = |css: &str| main.select(&Selector::parse(css).unwrap()).count();

    // No element that data could have made.
    for a in main.select(&Selector::parse("a[href]").unwrap()) {
        let href = a.value().attr("href").unwrap_or_default();
        assert!(
            !href.starts_with("javascript:"),
            "a live javascript: link: {}",
            a.html()
        );
        assert!(
            !href.contains("tracker.invalid"),
            "a link from data: {}",
            a.html()
        );
    }
    assert_eq!(all("img"), 0, "an image from data");
    assert_eq!(all("script"), 0, "a script from data");
    assert_eq!(all("h1"), 1, "only the chapter's own heading");
    // The table keeps its two columns: the `|` of the value did not split the cell.
    for row in main.select(&Selector::parse("table tr").unwrap()) {
        let cells = row.select(&Selector::parse("td, th").unwrap()).count();
        if row.text().any(|t| t.contains("pipe")) {
            assert_eq!(cells, 2, "a `|` from data split the row: {}", row.html());
        }
    }
    // What the data says is there, as text.
    let text: String = main.text().collect();
    for shown in [
        "[click me](javascript:alert(1))",
        "![x](https://tracker.invalid/x.png)",
        "# Heading from data",
        "a | b | c",
        "<img src=x onerror=alert(3)>",
    ] {
        assert!(text.contains(shown), "`{shown}` is not shown as text");
    }
    // No control character reaches the page: ESC and BEL are shown as control pictures.
    assert!(
        !page
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')),
        "a control character reached the page"
    );
    assert!(
        text.contains('\u{241b}') && text.contains('\u{2407}'),
        "control pictures shown"
    );
}

#[test]
fn a_fifo_in_the_data_folder_fails_the_build_instead_of_hanging_it() {
    let dir = tempfile::tempdir().unwrap();
    write_book(dir.path());
    let fifo = dir.path().join("data/hostile.log");
    std::fs::remove_file(&fifo).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available: skipped");
        return;
    }
    let err = build(dir.path(), &dir.path().join("out")).expect_err("a FIFO is no data");
    assert!(err.contains("hostile.log` is not a regular file"), "{err}");
}
