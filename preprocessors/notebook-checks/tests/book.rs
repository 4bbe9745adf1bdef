//! End-to-end: build real books in-process with mdbook-driver and inspect the HTML.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mdbook_driver::MDBook;
use mdbook_kernlab::KernLab;
use notebook_checks::{read_data, repo};
use scraper::{Html, Selector};
use serde::Deserialize;
use walkdir::WalkDir;

/// Build the book at `root` into `out` with the in-process preprocessor.
fn build(root: &Path, out: &Path) -> Result<(), String> {
    let mut book = MDBook::load(root).map_err(|e| format!("{e:#}"))?;
    book.config.build.build_dir = out.to_path_buf();
    book.with_preprocessor(KernLab::new());
    book.build().map_err(|e| format!("{e:#}"))
}

fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    for e in WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn html(dir: &Path, page: &str) -> String {
    std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// The public address of the notebook (links to it are checked like internal ones).
/// The `site` of `[preprocessor.kernlab]` in book.toml: where the book is published.
fn published_site() -> String {
    let conf = std::fs::read_to_string(repo().join("book.toml")).unwrap();
    conf.lines()
        .find_map(|l| l.strip_prefix("site = "))
        .expect("book.toml names the site")
        .trim()
        .trim_matches('"')
        .to_string()
}

/// Every `href` of every page that points inside the site (relative, or absolute to the
/// published address) must lead to a file, and its fragment to an element with that id.
fn check_links(site: &Path) -> Vec<String> {
    let published = format!("{}/", published_site());
    let pages: BTreeMap<PathBuf, Vec<u8>> = files(site)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html"))
        .collect();
    let id_sel = Selector::parse("[id]").unwrap();
    let link_sel = Selector::parse("a[href]").unwrap();
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut docs = BTreeMap::new();
    for (path, bytes) in &pages {
        let doc = Html::parse_document(&String::from_utf8_lossy(bytes));
        ids.insert(
            path.clone(),
            doc.select(&id_sel)
                .filter_map(|e| e.value().attr("id").map(str::to_string))
                .collect(),
        );
        docs.insert(path.clone(), doc);
    }
    let mut broken = Vec::new();
    for (path, doc) in &docs {
        for a in doc.select(&link_sel) {
            let raw = a.value().attr("href").unwrap_or_default();
            // `https://site/journey#x` is `journey.html#x` from the top of the site.
            let absolute = raw.strip_prefix(&published).map(|rest| {
                let (page, fragment) = rest.split_once('#').unwrap_or((rest, ""));
                let page = if page.is_empty() {
                    "index".to_string()
                } else {
                    page.to_string()
                };
                let depth = path.components().count() - 1;
                format!(
                    "{}{page}.html{}{fragment}",
                    "../".repeat(depth),
                    if fragment.is_empty() { "" } else { "#" }
                )
            });
            let href = absolute.as_deref().unwrap_or(raw);
            if href.contains("://")
                || href.starts_with("mailto:")
                || href.starts_with("javascript:")
            {
                continue;
            }
            let (file, fragment) = href.split_once('#').unwrap_or((href, ""));
            let target = if file.is_empty() {
                path.clone()
            } else {
                let joined = path.parent().unwrap_or(Path::new("")).join(file);
                normalize(&joined)
            };
            let target_file = site.join(&target);
            if !target_file.exists() {
                broken.push(format!("{}: {href} (no such file)", path.display()));
                continue;
            }
            if !fragment.is_empty()
                && target.extension().is_some_and(|e| e == "html")
                && !ids.get(&target).is_some_and(|s| s.contains(fragment))
            {
                broken.push(format!("{}: {href} (no such anchor)", path.display()));
            }
        }
    }
    broken
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn the_starter_notebook_builds_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/starter-notebook"), dir.path());
    mdbook_kernlab::render::highlight::write_theme(&dir.path().join("theme"), false).unwrap();
    let out = dir.path().join("out");
    build(dir.path(), &out).unwrap();
    let chapter = html(&out, "chapter.html");
    assert!(chapter.contains("<figure class=\"kl-figure kl-log\" id=\"lst-resume\">"));
    assert!(
        chapter.contains("<svg class=\"kl-chart kl-chart-wide\""),
        "timeline chart"
    );
    assert!(
        chapter.contains(">2.7\u{a0}s</span>"),
        "computed value: {chapter}"
    );
    assert!(
        chapter.contains("<a class=\"kl-ref\" href=\"#lst-resume\">Listing 1.1</a>"),
        "{chapter}"
    );
    assert!(!chapter.contains("{{kl:"));
    let data = html(&out, "data.html");
    assert!(
        data.contains("<a href=\"chapter.html\">The investigation</a>"),
        "catalog links the chapter"
    );
    assert!(check_links(&out).is_empty(), "{:?}", check_links(&out));
}

/// Fences in other languages are left to highlight.js unless `highlight-all-code` is set;
/// then every fenced block is highlighted at build time and highlight.js can be replaced.
#[test]
fn highlight_all_code_takes_every_fence_from_highlight_js() {
    let fences = "\n```markdown\n# A *heading*\n```\n\n```no-such-language\n<b>&</b>\n```\n\n```\nbare\n```\n";
    for all in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo().join("examples/starter-notebook"), dir.path());
        mdbook_kernlab::render::highlight::write_theme(&dir.path().join("theme"), all).unwrap();
        let chapter = dir.path().join("src/chapter.md");
        let text = std::fs::read_to_string(&chapter).unwrap();
        std::fs::write(&chapter, format!("{text}{fences}")).unwrap();
        if all {
            let toml = dir.path().join("book.toml");
            let text = std::fs::read_to_string(&toml).unwrap();
            let text = text.replace(
                "after = [\"links\"]",
                "after = [\"links\"]\nhighlight-all-code = true",
            );
            assert!(text.contains("highlight-all-code"));
            std::fs::write(&toml, text).unwrap();
        }
        let out = dir.path().join("out");
        build(dir.path(), &out).unwrap();
        let chapter = html(&out, "chapter.html");
        let js = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("highlight-")
                    && p.extension().is_some_and(|e| e == "js")
            })
            .map(|p| std::fs::read_to_string(p).unwrap())
            .unwrap();
        if all {
            assert!(
                chapter.contains("<code class=\"nohighlight kl-lang-markdown\">"),
                "{chapter}"
            );
            assert!(
                chapter.contains("kl-heading"),
                "markdown is highlighted: {chapter}"
            );
            assert!(
                chapter.contains("kl-lang-text"),
                "unknown and bare fences as plain text"
            );
            assert!(
                chapter.contains("&lt;b&gt;&amp;&lt;/b&gt;"),
                "escaped: {chapter}"
            );
            assert!(
                !chapter.contains("language-"),
                "nothing left for highlight.js: {chapter}"
            );
            assert!(
                js.len() < 1024 && js.contains("highlightBlock"),
                "the stand-in"
            );
        } else {
            assert!(
                chapter.contains("<code class=\"language-markdown\">"),
                "{chapter}"
            );
            assert!(!chapter.contains("kl-lang-markdown"));
            assert!(js.len() > 10_000, "mdBook's highlight.js");
        }
    }
}

#[test]
fn a_mistake_fails_the_build_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/starter-notebook"), dir.path());
    let chapter = dir.path().join("src/chapter.md");
    let text = std::fs::read_to_string(&chapter).unwrap();
    std::fs::write(
        &chapter,
        text.replace("gap_ms: 500", "gap_ms: 500\nfold: many"),
    )
    .unwrap();
    let err = build(dir.path(), &dir.path().join("out")).unwrap_err();
    assert!(
        err.contains("src/chapter.md:13: invalid block: fold: invalid type"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
}

#[derive(Deserialize)]
struct Anchor {
    level: usize,
    title: String,
    id: String,
}

/// Heading text as the reader sees it, for comparing with the first publication's titles.
fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The real book: built twice to identical bytes (once on one thread, once on several, as
/// directives render in parallel); every legacy anchor in place and in order; every link and
/// anchor resolving; nothing left unrendered.
#[test]
fn the_notebook_builds_reproducibly_with_its_published_anchors() {
    let root = repo();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    one_thread.install(|| build(&root, a.path())).unwrap();
    let several = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    several.install(|| build(&root, b.path())).unwrap();
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (path, bytes) in &fa {
        assert!(
            bytes == &fb[path],
            "{} differs between two builds",
            path.display()
        );
    }

    let journey = html(a.path(), "journey.html");
    let doc = Html::parse_document(&journey);
    // The three addresses the cover letter sent to the kernel list cites (they cannot be
    // edited): the host is the one this book is published at, and each fragment is there.
    for cited in [
        "https://macbook-pro-resume-delay.pages.dev/journey#changes-after-resume",
        "https://macbook-pro-resume-delay.pages.dev/journey#id3",
        "https://macbook-pro-resume-delay.pages.dev/journey#cost-of-extra-checks",
    ] {
        let (page, fragment) = cited.split_once('#').unwrap();
        assert_eq!(
            page,
            format!("{}/journey", published_site()),
            "host and path of {cited}"
        );
        let id = Selector::parse(&format!("[id=\"{fragment}\"]")).unwrap();
        assert!(
            doc.select(&id).next().is_some(),
            "{cited}: no element with that id"
        );
    }
    let headings = Selector::parse("main h1, main h2, main h3, main h4").unwrap();
    let found: Vec<(usize, String, String)> = doc
        .select(&headings)
        .filter_map(|h| {
            let level = h.value().name()[1..].parse().ok()?;
            Some((level, h.value().attr("id")?.to_string(), h.text().collect()))
        })
        .collect();
    let legacy: Vec<Anchor> = yaml_serde::from_str(
        &std::fs::read_to_string(root.join("data/references/legacy-anchors.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(legacy.len(), 86);
    let mut at = 0;
    for anchor in &legacy {
        let pos = found[at..]
            .iter()
            .position(|(_, id, _)| *id == anchor.id)
            .unwrap_or_else(|| panic!("#{} is missing or out of order", anchor.id));
        let (level, _, text) = &found[at + pos];
        assert_eq!(*level, anchor.level, "#{} is an h{}", anchor.id, level);
        assert_eq!(
            plain(text),
            plain(&anchor.title),
            "#{} lands on `{text}`",
            anchor.id
        );
        at += pos + 1;
    }
    // The three anchors the patch cover letter cites.
    for id in ["changes-after-resume", "id3", "cost-of-extra-checks"] {
        assert!(journey.contains(&format!("id=\"{id}\"")), "{id}");
    }

    let code = regex::Regex::new(r"(?s)<code[^>]*>.*?</code>").unwrap();
    for (path, bytes) in &fa {
        if path.extension().is_some_and(|e| e == "html") {
            // Code samples may show the syntax; everything else must be rendered.
            let text = code
                .replace_all(&String::from_utf8_lossy(bytes), "")
                .into_owned();
            assert!(
                !text.contains("{{kl:"),
                "{}: unrendered directive",
                path.display()
            );
            assert!(
                !text.contains("```kernlab"),
                "{}: unrendered block",
                path.display()
            );
            assert!(
                !text.contains("<?xml"),
                "{}: SVG with an XML prolog",
                path.display()
            );
        }
    }
    let data = html(a.path(), "data.html");
    assert!(
        !data.contains("not shown"),
        "every capture in data/ is shown somewhere"
    );
    let broken = check_links(a.path());
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Logs come from data/ through directives, never pasted into the Markdown.
#[test]
fn no_log_text_is_pasted_in_the_chapters() {
    let stamp =
        regex::Regex::new(r"^\s*(\[\s*\d+\.\d{6}\]|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ \S+:)")
            .unwrap();
    let mut pasted = Vec::new();
    for entry in WalkDir::new(repo().join("src"))
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry.path().extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (i, line) in text.lines().enumerate() {
            if stamp.is_match(line) {
                pasted.push(format!("{}:{}: {line}", entry.path().display(), i + 1));
            }
        }
    }
    assert!(
        pasted.is_empty(),
        "log lines pasted in Markdown:\n{}",
        pasted.join("\n")
    );
}

/// Every other mention of the published address agrees with book.toml's `site`: the cover
/// letter's reference to the notebook, kernlog's default for the links of its findings, and
/// the Cloudflare Pages project the deploy workflow publishes to (`<project>.pages.dev`).
#[test]
fn the_published_address_is_set_once() {
    let site = published_site();
    let letter = cover_letter();
    assert!(
        letter
            .lines()
            .any(|l| l.starts_with('[') && l.contains(&format!(" {site}/"))),
        "no reference of the cover letter is on {site}"
    );
    let cli =
        std::fs::read_to_string(repo().join("preprocessors/kernlog-cli/src/main.rs")).unwrap();
    assert!(
        cli.contains(&format!("const DEFAULT_SITE: &str = \"{site}\";")),
        "kernlog's DEFAULT_SITE is not {site}"
    );
    let deploy = std::fs::read_to_string(repo().join(".github/workflows/deploy.yml")).unwrap();
    let project = deploy
        .lines()
        .find_map(|l| l.trim().strip_prefix("PAGES_PROJECT: "))
        .expect("deploy.yml sets PAGES_PROJECT");
    assert_eq!(
        format!("https://{project}.pages.dev"),
        site,
        "the Pages project"
    );
}

/// The book's copy of the highlight.js stand-in (mdBook serves it only from theme/) is the
/// one the crate carries and `mdbook-kernlab theme` writes. (The stylesheet needs no copy:
/// book.toml names the crate's own.)
#[test]
fn the_book_theme_copies_are_current() {
    let copy = std::fs::read_to_string(repo().join("theme/highlight.js")).unwrap();
    let original =
        std::fs::read_to_string(repo().join("preprocessors/mdbook-kernlab/assets/highlight.js"))
            .unwrap();
    assert!(
        copy == original,
        "theme/highlight.js differs from the crate's assets/highlight.js: run `mdbook-kernlab theme theme --replace-highlight-js`"
    );
}

/// The book's stylesheet for highlighted code is the one the preprocessor writes.
#[test]
fn the_committed_syntax_stylesheet_is_current() {
    let committed =
        std::fs::read_to_string(repo().join("theme/kernlab-syntax.css")).unwrap_or_default();
    assert!(
        committed == mdbook_kernlab::render::highlight::stylesheet().unwrap(),
        "theme/kernlab-syntax.css is stale: run `mdbook-kernlab syntax-css > theme/kernlab-syntax.css`"
    );
}

/// The texts of the patches whose `role` in data/patches/patchset.yaml starts with `role`, in
/// order.
fn patch_texts(role: &str) -> Vec<String> {
    let conf: serde_json::Value =
        yaml_serde::from_str(&read_data("patches/patchset.yaml")).unwrap();
    let texts: Vec<String> = conf["patches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["role"].as_str().unwrap().starts_with(role))
        .filter_map(|p| p["file"].as_str())
        .map(|file| std::fs::read_to_string(repo().join("src/patches").join(file)).unwrap())
        .collect();
    assert!(!texts.is_empty(), "patchset.yaml names no {role} patch");
    texts
}

/// The series' cover letter, as patchset.yaml names it.
fn cover_letter() -> String {
    let conf: serde_json::Value =
        yaml_serde::from_str(&read_data("patches/patchset.yaml")).unwrap();
    let file = conf["cover_letter"]
        .as_str()
        .expect("patchset.yaml names the cover letter");
    std::fs::read_to_string(repo().join("src/patches").join(file)).unwrap()
}

/// The series is numbered as it would be sent: the cover letter is 0/N and replies to the
/// message its fix links to first (v1's), each patch is k/N in order, and no patch links to
/// the notebook (volatile, and in neither source document; the cover letter cites it).
#[test]
fn the_series_is_numbered_and_threaded() {
    let fixes = patch_texts("fix");
    let n = fixes.len();
    let letter = cover_letter();
    let subject = letter.lines().next().unwrap();
    assert!(
        subject.starts_with(&format!("Subject: [PATCH v3 0/{n}] ")),
        "the cover letter's subject is not 0/{n}: {subject}"
    );
    let v1 = fixes[n - 1]
        .lines()
        .find_map(|l| l.strip_prefix("Link: https://lore.kernel.org/lkml/"))
        .expect("the fix links to v1 on lore")
        .trim_end_matches('/');
    assert!(
        letter.contains(&format!("\nIn-Reply-To: <{v1}>\n")),
        "the cover letter is not a reply to {v1}"
    );
    let site = published_site();
    for (k, text) in fixes.iter().enumerate() {
        let subject = text.lines().next().unwrap();
        assert!(
            subject.starts_with(&format!("Subject: [PATCH v3 {}/{n}] ", k + 1)),
            "patch {} is not numbered {}/{n}: {subject}",
            k + 1,
            k + 1
        );
        assert!(
            !text.contains(&site),
            "patch {} links to the notebook",
            k + 1
        );
    }
}

/// Every patch named in data/patches/patchset.yaml exists and is a patch, and none carries an
/// identity: no `From:` and no `Signed-off-by:` (the sender adds their own, see the fix
/// chapter), and no made-up address anywhere. The fix links to v1's thread on lore as well as
/// to the notebook.
#[test]
fn patches_agree_with_their_configuration() {
    let conf: serde_json::Value = yaml_serde::from_str(
        &std::fs::read_to_string(repo().join("data/patches/patchset.yaml")).unwrap(),
    )
    .unwrap();
    let patches = conf["patches"].as_array().unwrap();
    assert!(!patches.is_empty());
    let test_only = std::fs::read_dir(repo().join("examples/qemu-lab"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "patch"));
    let named = patches
        .iter()
        .map(|p| repo().join("src/patches").join(p["file"].as_str().unwrap()));
    for path in named.chain(test_only) {
        let file = path.display();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let header = &text[..text
            .find("\ndiff --git ")
            .unwrap_or_else(|| panic!("{file}: not a patch"))];
        assert!(header.contains("\n---\n"), "{file}: no --- line");
        assert!(
            !header.contains("\nFrom:") && !text.starts_with("From:"),
            "{file}: a From: line"
        );
        assert!(
            !header.contains("Signed-off-by:"),
            "{file}: a Signed-off-by"
        );
        assert!(!text.contains(".invalid"), "{file}: a made-up address");
    }
    assert!(
        patch_texts("fix")
            .iter()
            .any(|t| t.contains("\nLink: https://lore.kernel.org/")),
        "the fix has no Link: to its thread on lore"
    );
    let proof = std::fs::read_to_string(repo().join("data/patches/proof.yaml")).unwrap();
    let first = conf["bases"][0].as_str().unwrap();
    assert!(
        proof.contains(&format!("- base: {first}\n")),
        "proof.yaml covers {first}"
    );
}

/// The checklist's download of the kernel source is the package the proof table covers: its
/// file name carries the version, and its checksum is the one prove-patches recorded.
#[test]
fn the_checklist_downloads_the_proven_source() {
    let proof: serde_json::Value = yaml_serde::from_str(&read_data("patches/proof.yaml")).unwrap();
    let first = &proof["results"][0];
    let (base, version, sha256) = (
        first["base"].as_str().unwrap(),
        first["package_version"].as_str().unwrap(),
        first["package_sha256"]
            .as_str()
            .expect("proof.yaml records the package's sha256"),
    );
    let checklist = std::fs::read_to_string(repo().join("src/checklist.md")).unwrap();
    let deb = format!("deb={base}_{version}_all.deb\n");
    assert!(
        checklist.contains(&deb),
        "the checklist does not download {deb}"
    );
    let check = format!("echo \"{sha256}  $deb\" | sha256sum -c\n");
    assert!(
        checklist.contains(&check),
        "the checklist does not check the package against {sha256}"
    );
}
