//! The templates of a book, and rendered HTML made safe for Markdown.
//!
//! The templates are the views crate's (its `assets/templates/`); a book overrides any of
//! them by putting a file of the same name in its own template directory
//! (`[preprocessor.kernlab] templates`, default `theme/kernlab`).

use std::path::Path;

use views::templates::{BUILTIN, Override, Templates};

/// The templates of a book: the built-in ones, overridden by the `NAME.hbs` files in
/// `dir` when it exists. A file there that overrides no template (a misspelt name, or a
/// template of another version of this preprocessor) is refused rather than silently
/// ignored.
pub fn load(dir: &Path) -> Result<Templates, String> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut unknown: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| {
                name.strip_suffix(".hbs")
                    .is_some_and(|stem| !BUILTIN.iter().any(|(known, _)| *known == stem))
            })
            .collect();
        if !unknown.is_empty() {
            unknown.sort();
            return Err(format!(
                "{}: {} override no template of this mdbook-kernlab ({}); the templates are: {}",
                dir.display(),
                unknown.join(", "),
                env!("CARGO_PKG_VERSION"),
                BUILTIN.map(|(name, _)| name).join(", ")
            ));
        }
    }
    let mut overrides = Vec::new();
    for (name, _) in BUILTIN {
        let path = dir.join(format!("{name}.hbs"));
        if path.is_file() {
            overrides.push(Override {
                name: name.to_string(),
                text: std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?,
                origin: path.display().to_string(),
            });
        }
    }
    Templates::with_overrides(&overrides)
}

/// Make rendered inline HTML inert as Markdown: outside the tags, every character that
/// Markdown gives a meaning (`[ ] ( ) ! * _ ` ~ | # \ { }` and line breaks, which could start
/// a block) becomes a numeric character reference, which the browser shows as the character
/// itself. Tags and existing entities are copied as they are; the templates escape `<`, `>`
/// and quotes in text and attributes, so a `>` in the text cannot end a tag early.
pub fn markdown_inert(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + html.len() / 8);
    let mut in_tag = false;
    let mut in_entity = false;
    for c in html.chars() {
        if in_tag {
            in_tag = c != '>';
            out.push(c);
            continue;
        }
        if in_entity {
            in_entity = c != ';' && (c.is_ascii_alphanumeric() || c == '#');
            out.push(c);
            continue;
        }
        match c {
            '<' => {
                in_tag = true;
                out.push(c);
            }
            '&' => {
                in_entity = true;
                out.push(c);
            }
            '[' | ']' | '(' | ')' | '!' | '*' | '_' | '`' | '~' | '|' | '#' | '\\' | '{' | '}'
            | '\n' | '\r' => {
                out.push_str(&format!("&#{};", c as u32));
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_file_that_overrides_nothing_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("figure.hbs"), "<figure>{{{body}}}</figure>").unwrap();
        assert!(load(dir.path()).is_ok());
        std::fs::write(dir.path().join("hbars.hbs"), "x").unwrap();
        let e = load(dir.path()).err().unwrap();
        assert!(e.contains("hbars.hbs override no template"), "{e}");
        assert!(e.contains("hbar, heatmap"), "{e}");
    }

    #[test]
    fn inline_html_is_inert_as_markdown() {
        let html = format!(
            "<span class=\"kl-value\" title=\"a [b](c)\">{}</span>",
            views::escape(
                "[click me](javascript:alert(1)) ![x](https://e.invalid/x.png)\n\n# Heading | cell &amp; `code`"
            )
        );
        let out = markdown_inert(&html);
        // The tag and its attribute are untouched; the text has no Markdown left.
        assert!(
            out.starts_with("<span class=\"kl-value\" title=\"a [b](c)\">"),
            "{out}"
        );
        let text = &out[out.find('>').unwrap() + 1..];
        for c in ['[', ']', '(', ')', '!', '|', '#', '`', '\n'] {
            assert!(!text.replace("&#", "").contains(c), "{c:?} left in {text}");
        }
        assert!(text.contains("&amp;amp;"), "existing entities kept: {text}");
    }
}
