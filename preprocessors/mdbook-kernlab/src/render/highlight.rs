//! Build-time syntax highlighting with syntect, as CSS classes (`kl-...`), so that the
//! colours follow mdBook's light and dark themes and highlight.js leaves the blocks alone.

use std::sync::LazyLock;

use serde::Serialize;
use syntect::highlighting::ThemeSet;
use syntect::html::{ClassStyle, ClassedHTMLGenerator, css_for_theme_with_class_style};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use crate::error::{Outcome, fail};
use views::escape::{Shown, push_shown};
use views::{STYLESHEET, Templates};

const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "kl-" };

/// How many backtracking steps Oniguruma may take in one search of one syntax pattern.
/// Unlimited by default, and one 3 KiB line of a fuzzed shell block took the bash syntax
/// 22 s; a search that runs out counts as no match (syntect's rule), so a hostile line is
/// highlighted less, never slowly. Ordinary code stays far below it.
pub const RETRY_LIMIT_IN_SEARCH: u32 = 100_000;

/// syntect's default syntaxes plus the crate's `assets/syntaxes/`, linked by `build.rs`.
/// Every highlight goes through this first, so Oniguruma's limit is set before its first
/// search.
static SYNTAXES: LazyLock<Result<SyntaxSet, String>> = LazyLock::new(|| {
    // SAFETY: sets a process-wide Oniguruma setting (a plain integer) before any search of
    // this process can read it: the syntaxes are handed out only after this returns.
    let status = unsafe {
        onig_sys::onig_set_retry_limit_in_search(std::os::raw::c_ulong::from(RETRY_LIMIT_IN_SEARCH))
    };
    if status != 0 {
        return Err(format!(
            "Oniguruma refused its backtracking limit (status {status})"
        ));
    }
    syntect::dumps::from_uncompressed_data(include_bytes!(concat!(
        env!("OUT_DIR"),
        "/syntaxes.bin"
    )))
    .map_err(|e| format!("the built-in syntax dump is unreadable: {e}"))
});

/// Fence languages highlighted at build time even without `highlight-all-code`: the ones
/// this notebook's own syntaxes and palettes were chosen for.
pub const FENCE_LANGUAGES: [&str; 9] = [
    "c", "diff", "patch", "sh", "bash", "shell", "console", "dmesg", "ftrace",
];

/// The syntect syntax name for the notebook's own language names.
fn syntax_name(language: &str) -> Option<&'static str> {
    Some(match language {
        "c" | "h" => "C",
        "diff" | "patch" => "Diff",
        "sh" | "bash" | "shell" | "console" => "Bourne Again Shell (bash)",
        "dmesg" | "log" => "dmesg",
        "ftrace" | "trace" => "ftrace",
        "yaml" => "YAML",
        "toml" => "TOML",
        "text" => "Plain Text",
        _ => return None,
    })
}

fn syntaxes() -> Outcome<&'static SyntaxSet> {
    SYNTAXES.as_ref().map_err(|e| {
        fail(
            format!("syntax definitions failed to load: {e}"),
            "check the crate's assets/syntaxes",
        )
    })
}

/// The syntax for a language: the notebook's names first, then any name or file extension
/// syntect knows (`rust`, `python`, `markdown`, ...).
fn find_syntax<'a>(set: &'a SyntaxSet, language: &str) -> Option<&'a SyntaxReference> {
    match syntax_name(language) {
        Some(name) => set.find_syntax_by_name(name),
        None => set.find_syntax_by_token(language),
    }
}

/// Whether `language` can be highlighted.
pub fn knows(language: &str) -> bool {
    syntaxes().is_ok_and(|set| find_syntax(set, language).is_some())
}

/// The language of a data file, from its name.
pub fn language_for(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "patch" | "diff" => "diff",
        "c" | "h" => "c",
        "sh" => "sh",
        "yaml" | "yml" => "yaml",
        "log" if path.starts_with("ftrace/") => "ftrace",
        "log" => "dmesg",
        _ => "text",
    }
}

/// Highlight `code` to class-based HTML spans.
pub fn highlight(language: &str, code: &str) -> Outcome<String> {
    let set = syntaxes()?;
    let syntax = find_syntax(set, language).ok_or_else(|| {
        fail(
            format!("no highlighting for language `{language}`"),
            "use c, diff, patch, sh, bash, console, dmesg, ftrace, yaml, toml, text or another name syntect knows (rust, python, markdown, ...)",
        )
    })?;
    let mut generator = ClassedHTMLGenerator::new_with_class_style(syntax, set, CLASS_STYLE);
    for line in LinesWithEndings::from(code) {
        generator
            .parse_html_for_line_which_includes_newline(line)
            .map_err(|e| fail(format!("highlighting failed: {e}"), "report this as a bug"))?;
    }
    Ok(generator.finalize())
}

#[derive(Serialize)]
struct CodeModel<'a> {
    language: &'a str,
    html: String,
}

/// A highlighted block for the `code` template. Empty lines get an empty span so that the
/// HTML never contains a blank line (which would end Markdown's HTML block).
///
/// `from_data`: the code is a data file's listing (`source:`), untrusted: control, bidi and
/// zero-width characters are shown as [`views::escape`] shows them (a lone carriage
/// return, which Markdown would read as a line break, as U+240D), and braces become
/// character references so that mdBook's `{{#include ...}}` finds nothing in it. An author's
/// code fence keeps its braces, for the author's own mdBook directives.
pub fn render_code(
    templates: &Templates,
    language: &str,
    code: &str,
    from_data: bool,
) -> Outcome<String> {
    let mut code = code.replace("\r\n", "\n");
    if from_data {
        let mut shown = String::with_capacity(code.len());
        for c in code.chars() {
            match views::escape::show(c) {
                Shown::Picture(_) | Shown::CodePoint => push_shown(&mut shown, c),
                _ if c == '\r' => shown.push('\u{240d}'),
                _ => shown.push(c),
            }
        }
        code = shown;
    }
    if !code.ends_with('\n') {
        code.push('\n');
    }
    let mut html = highlight(language, &code)?;
    if from_data {
        html = html.replace('{', "&#123;").replace('}', "&#125;");
    }
    let html = html
        .split('\n')
        .map(|l| {
            if l.trim().is_empty() {
                "<span class=\"kl-blank\"></span>"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let html = html
        .trim_end_matches("<span class=\"kl-blank\"></span>")
        .trim_end()
        .to_string();
    Ok(templates.render("code", &CodeModel { language, html })?)
}

/// The stand-in for mdBook's highlight.js, for books built with `highlight-all-code`.
pub const HIGHLIGHT_JS_STAND_IN: &str = include_str!("../../assets/highlight.js");

/// Write `kernlab.css` and `kernlab-syntax.css` into `dir`, for a new book's
/// `additional-css`, and with `replace_highlight_js` the stand-in `highlight.js` too.
pub fn write_theme(dir: &std::path::Path, replace_highlight_js: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = vec![
        ("kernlab.css", STYLESHEET.to_string()),
        ("kernlab-syntax.css", stylesheet()?),
    ];
    if replace_highlight_js {
        files.push(("highlight.js", HIGHLIGHT_JS_STAND_IN.to_string()));
    }
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The stylesheet for the highlighted blocks: a light palette for mdBook's light and rust
/// themes and a dark one for coal, navy and ayu. Kept in `theme/kernlab-syntax.css`; a test
/// checks that the file is what this function generates.
pub fn stylesheet() -> Result<String, String> {
    let themes = ThemeSet::load_defaults();
    let mut out = String::from(
        "/* Generated by `mdbook-kernlab syntax-css`; do not edit. Light: InspiredGitHub, dark: base16-ocean.dark. */\n",
    );
    for (theme, scopes) in [
        ("InspiredGitHub", [".light", ".rust"].as_slice()),
        ("base16-ocean.dark", [".coal", ".navy", ".ayu"].as_slice()),
    ] {
        let css = css_for_theme_with_class_style(&themes.themes[theme], CLASS_STYLE)
            .map_err(|e| e.to_string())?;
        for line in css.lines() {
            if let Some(selectors) = line.strip_suffix(" {") {
                // syntect's `.code` rule styles the block itself: our `pre.kl-src`.
                let scoped: Vec<String> = selectors
                    .split(", ")
                    .flat_map(|sel| {
                        scopes.iter().map(move |s| {
                            if sel == ".kl-code" {
                                format!("{s} pre.kl-src")
                            } else {
                                format!("{s} .kl-src {sel}")
                            }
                        })
                    })
                    .collect();
                out.push_str(&scoped.join(", "));
                out.push_str(" {\n");
            } else if !line.starts_with("/*") && !line.starts_with(" *") {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_c_diff_and_dmesg_with_classes() {
        let html = highlight("c", "int x = 1;\n").unwrap();
        assert!(html.contains("class=\"kl-"), "{html}");
        let html = highlight("dmesg", "[  433.004880] CPU1 is up\n").unwrap();
        assert!(html.contains("kl-timestamp"), "{html}");
        assert!(html.contains("kl-marker"), "{html}");
        let html = highlight("diff", "-a\n+b\n").unwrap();
        assert!(
            html.contains("kl-inserted") || html.contains("kl-markup"),
            "{html}"
        );
        let html = highlight(
            "ftrace",
            "t-1 [000] 1.000001: funcgraph_exit: $ 4714843 us | } /* _cpu_up */\n",
        )
        .unwrap();
        assert!(html.contains("kl-comment"), "{html}");
        assert!(highlight("cobol", "x").is_err());
        assert!(!knows("cobol"));
        assert!(knows("markdown") && knows("rust") && knows("dmesg"));
        let html = highlight("markdown", "# Title\n").unwrap();
        assert!(html.contains("kl-heading"), "{html}");
        assert!(highlight("c", "a < b && c > d\n").unwrap().contains("&lt;"));
    }

    #[test]
    fn a_data_listing_shows_controls_and_hides_braces_from_mdbook() {
        let templates = Templates::builtin().unwrap();
        let code = "bell\u{7} esc\u{1b}[2J lone\rcr \u{202e}rtl {{#include x}}\r\nnext\n";
        let html = render_code(&templates, "text", code, true).unwrap();
        for c in ['\u{7}', '\u{1b}', '\r', '\u{202e}', '{', '}'] {
            assert!(!html.contains(c), "{c:?} in {html}");
        }
        for shown in [
            "bell\u{2407}",
            "esc\u{241b}[2J",
            "lone\u{240d}cr",
            "‹U+202E›rtl",
            "&#123;&#123;#include x&#125;&#125;\nnext",
        ] {
            assert!(html.contains(shown), "{shown} not in {html}");
        }
        // An author's fence keeps its braces, for the author's own mdBook directives.
        let html = render_code(&templates, "text", "{{#include x}}\n", false).unwrap();
        assert!(html.contains("{{#include x}}"), "{html}");
    }

    #[test]
    fn oniguruma_backtracking_is_bounded() {
        super::syntaxes().unwrap();
        // SAFETY: reads a plain integer setting.
        let limit = unsafe { onig_sys::onig_get_retry_limit_in_search() };
        assert_eq!(limit, std::os::raw::c_ulong::from(RETRY_LIMIT_IN_SEARCH));
        // The shell block the chapter fuzzer found (22 s before the limit) still renders.
        let input =
            include_bytes!("../../fuzz/regressions/chapter/timeout-bash-syntax-backtracking");
        let input = String::from_utf8_lossy(input);
        let code = &input[input.find("```sh\n").unwrap() + 6..];
        let started = std::time::Instant::now();
        let html = highlight("sh", code).unwrap();
        eprintln!(
            "highlighted {} bytes in {:?}",
            code.len(),
            started.elapsed()
        );
        assert!(
            html.starts_with("<span class=\"kl-source kl-shell"),
            "{html}"
        );
    }
}
