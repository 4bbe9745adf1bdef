//! A book of hostile data, built with mdBook as a reader gets it: what data files say is
//! shown, never obeyed. No link, image, heading or table cell may come from data text (also
//! through an attribute's line breaks), no mdBook directive in data is obeyed whatever the
//! order of the preprocessors, no control, bidi or zero-width character reaches the page,
//! directives inside raw HTML are rendered and checked, deep nesting is a problem at its
//! line (never a stack overflow), and a FIFO in the data folder fails the build instead of
//! hanging it.

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
spoof: "admin\u202egnp.exe zero\u200bwidth"
include: "{{#include ../secret.txt}} {{ #include ../secret.txt }} {{#rustdoc_include ../secret.txt}} {{#playground ../secret.txt}} {{#title Pwned}}"
n: 2
rows:
  - cell: "{{#include ../secret.txt}}"
    other: "x\n\n[cell link](javascript:alert(8))"
"#;

/// A thread whose title would start Markdown blocks inside the link's `title` attribute.
const THREADS_YAML: &str = r#"threads:
  - key: evil
    source: a stranger's mail
    title: "Fix\n- [click](javascript:alert(5))\n> ![t](https://tracker.invalid/t.png)\n# Heading from a title\n{{#include ../secret.txt}}"
    url: https://lore.kernel.org/all/evil/
    prov: derived
"#;

const CHAPTER: &str = "# Chapter\n\n\
| field | value |\n| --- | --- |\n| pipe | {{kl:text hostile.yaml#/pipe}} |\n\n\
Link: {{kl:text hostile.yaml#/link}}.\n\n\
Image: {{kl:text hostile.yaml#/image}}.\n\n\
Breakout: {{kl:text hostile.yaml#/breakout}}.\n\n\
HTML: {{kl:text hostile.yaml#/html}}.\n\n\
Controls: {{kl:text hostile.yaml#/controls}}.\n\n\
Spoof: {{kl:text hostile.yaml#/spoof}}.\n\n\
Include: {{kl:text hostile.yaml#/include}}.\n\n\
Thread: {{kl:thread evil}}, reported {{kl:reported 20 s by=evil}}.\n\n\
<details>\n<summary>Inside raw HTML</summary>\n<p>Link: {{kl:text hostile.yaml#/link}}, {{kl:claim hostile.yaml#/n stated=2}}.</p>\n</details>\n\n\
```kernlab\nlog: hostile.log\ncaption: \"Spoofed \u{202e}caption\u{200d}\"\n```\n\n\
```kernlab\nsource: listing.txt\n```\n\n\
```kernlab\ntable: hostile.yaml\ncolumns: [{field: cell}, {field: other}]\n```\n";

/// A `source:` listing with raw terminal controls, a lone carriage return (a line break to
/// Markdown) and mdBook directives.
const LISTING: &str =
    "ring\u{7} clear\u{1b}[2J\rcarriage\r\r[x](javascript:alert(9))\n{{#include ../secret.txt}}\n";

const LOG: &str = "[    1.000000] PM: suspend entry (deep) [x](javascript:alert(4)) \u{1b}[2J\n\
[    1.100000] <b>bold</b> ![i](https://tracker.invalid/y.png)\n\
[    1.200000] evil\u{202e}gnp.exe {{#include ../secret.txt}} {{#title Pwned}}\n";

fn write_book(root: &Path) {
    write_book_with(root, BOOK_TOML);
}

fn write_book_with(root: &Path, book_toml: &str) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("data/references")).unwrap();
    std::fs::write(root.join("book.toml"), book_toml).unwrap();
    std::fs::write(root.join("secret.txt"), "TOPSECRET\n").unwrap();
    std::fs::write(root.join("data/references/threads.yaml"), THREADS_YAML).unwrap();
    std::fs::write(root.join("data/listing.txt"), LISTING).unwrap();
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
    check_page(dir.path());
}

/// mdBook's own directives (`{{#include}}`, `{{#title}}`, ...) in data stay text even when
/// kernlab runs before mdBook's `links` preprocessor, which would otherwise obey them.
#[test]
fn mdbook_directives_in_data_are_inert_whatever_the_order() {
    let dir = tempfile::tempdir().unwrap();
    write_book_with(
        dir.path(),
        &BOOK_TOML.replace("after = [\"links\"]", "before = [\"links\"]"),
    );
    check_page(dir.path());
}

/// Build the hostile book and check its page.
fn check_page(root: &Path) {
    let out = root.join("out");
    build(root, &out).unwrap_or_else(|e| panic!("the hostile book should build: {e}"));
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
    // The thread's title is one attribute of one link, not Markdown.
    let thread = main
        .select(&Selector::parse("a.kl-thread").unwrap())
        .next()
        .expect("the thread link");
    assert!(
        thread
            .value()
            .attr("title")
            .is_some_and(|t| t.contains("[click](javascript:alert(5))")),
        "{}",
        thread.html()
    );
    // mdBook pasted no file and set no title from data.
    assert!(
        !page.contains("TOPSECRET"),
        "a file outside the book was included"
    );
    assert!(
        !page.contains("<title>Pwned"),
        "the page title was set from data"
    );
    // What the data says is there, as text.
    let text: String = main.text().collect();
    for shown in [
        "[click me](javascript:alert(1))",
        "![x](https://tracker.invalid/x.png)",
        "# Heading from data",
        "a | b | c",
        "<img src=x onerror=alert(3)>",
        "{{#include ../secret.txt}}",
        "{{ #include ../secret.txt }}",
        "{{#rustdoc_include ../secret.txt}}",
        "{{#playground ../secret.txt}}",
        "{{#title Pwned}}",
        "[cell link](javascript:alert(8))",
        "[x](javascript:alert(9))",
    ] {
        assert!(text.contains(shown), "`{shown}` is not shown as text");
    }
    // The directives inside the raw HTML block were rendered (and the claim checked).
    assert!(!page.contains("{{kl:"), "a directive left in the page");
    let details: String = main
        .select(&Selector::parse("details p").unwrap())
        .flat_map(|p| p.text())
        .collect();
    assert!(
        details.contains("[click me](javascript:alert(1))"),
        "{details}"
    );
    // No control character reaches the page: ESC and BEL are shown as control pictures,
    // also in the `source:` listing, and a lone carriage return too.
    assert!(
        !page
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\t')),
        "a control character reached the page"
    );
    assert!(
        text.contains('\u{241b}') && text.contains('\u{2407}') && text.contains('\u{240d}'),
        "control pictures shown"
    );
    // Bidi overrides and zero-width characters are shown by their code points, in text
    // from data, log lines and captions alike.
    assert!(
        !page
            .chars()
            .any(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{200b}'..='\u{200f}')),
        "a bidi or zero-width character reached the page"
    );
    assert!(
        text.contains("admin‹U+202E›gnp.exe zero‹U+200B›width"),
        "{text}"
    );
    assert!(text.contains("evil‹U+202E›gnp.exe"), "log line");
    assert!(text.contains("Spoofed ‹U+202E›caption‹U+200D›"), "caption");
}

/// A false claim inside raw HTML fails the build at its line, like anywhere else.
#[test]
fn a_claim_inside_raw_html_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    write_book(dir.path());
    std::fs::write(
        dir.path().join("src/chapter.md"),
        "# Chapter\n\n<div class=\"note\">\nIt took {{kl:claim hostile.yaml#/n stated=3}}.\n</div>\n",
    )
    .unwrap();
    let err = build(dir.path(), &dir.path().join("out")).expect_err("the claim is false");
    assert!(
        err.contains("chapter.md:4: the prose says 3, the data says 2.000"),
        "{err}"
    );
}

/// Nesting that overflowed the stack (on the main thread and on rayon's workers) and YAML
/// nested so deep that it took minutes to parse: each a problem at its line, quickly.
#[test]
fn deep_nesting_fails_at_its_line_instead_of_aborting() {
    let dir = tempfile::tempdir().unwrap();
    write_book(dir.path());
    let n = 100_000;
    let forms = [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1", "- ".repeat(n)),
        vec!["1"; n].join(" + "),
    ];
    // Several lines of each, so that rayon's workers render some of them.
    let mut chapter = String::from("# Chapter\n\n");
    for i in 0..12 {
        chapter.push_str(&format!("{{{{kl:value {}}}}}\n\n", forms[i % 3]));
    }
    chapter.push_str("{{kl:text deep.yaml#/x}}\n");
    std::fs::write(dir.path().join("src/chapter.md"), chapter).unwrap();
    std::fs::write(
        dir.path().join("data/deep.yaml"),
        format!("x: {}{}\n", "[".repeat(200_000), "]".repeat(200_000)),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let err = build(dir.path(), &dir.path().join("out")).expect_err("too deep");
    let took = started.elapsed();
    assert_eq!(
        err.matches("the expression nests deeper than 100 levels")
            .count(),
        12,
        "{err}"
    );
    for i in 0..12 {
        assert!(
            err.contains(&format!("chapter.md:{}: the expression", 3 + 2 * i)),
            "{err}"
        );
    }
    assert!(
        err.contains("chapter.md:27: `deep.yaml` is not valid YAML (line 1, column 132): brackets nest deeper than 128 levels"),
        "{err}"
    );
    // Generous: the unbounded parse took minutes.
    assert!(took.as_secs() < 30, "took {took:?}");
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
