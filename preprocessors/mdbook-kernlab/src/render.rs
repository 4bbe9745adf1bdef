//! HTML and SVG through handlebars templates.
//!
//! The built-in templates are the files in the crate's `assets/templates/`, compiled in;
//! a book overrides any of them by putting a file of the same name in its own template
//! directory (`[preprocessor.kernlab] templates`, default `theme/kernlab`).

use std::path::Path;

use handlebars::Handlebars;
use serde::Serialize;

use crate::error::{Failure, fail};

macro_rules! builtin {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../assets/templates/", $name, ".hbs")))),*]
    };
}

/// Every template, by name.
pub const BUILTIN: [(&str, &str); 11] = builtin![
    "log", "table", "hbar", "heatmap", "figure", "code", "value", "sym", "thread", "ref", "site",
];

/// The template registry of one run.
pub struct Templates {
    registry: Handlebars<'static>,
}

impl Templates {
    /// Built-in templates, overridden by `NAME.hbs` files in `dir` when it exists. A file
    /// there that overrides no template (a misspelt name, or a template of another version
    /// of this preprocessor) is refused rather than silently ignored.
    pub fn load(dir: &Path) -> Result<Self, String> {
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
        Self::with_overrides(Some(dir))
    }

    /// The built-in templates alone, for the renderers used as a library (no book, so no
    /// overrides).
    pub fn builtin() -> Result<Self, String> {
        Self::with_overrides(None)
    }

    fn with_overrides(dir: Option<&Path>) -> Result<Self, String> {
        let mut registry = Handlebars::new();
        registry.register_escape_fn(escape);
        registry.set_strict_mode(true);
        registry.set_prevent_indent(true);
        for (name, source) in BUILTIN {
            let path = dir.map(|d| d.join(format!("{name}.hbs")));
            let text = match &path {
                Some(path) if path.is_file() => {
                    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
                }
                _ => source.to_string(),
            };
            let shown = path.map_or(format!("{name} (built in)"), |p| p.display().to_string());
            registry
                .register_template_string(name, text)
                .map_err(|e| format!("template {shown}: {e}"))?;
        }
        Ok(Templates { registry })
    }

    /// Render a template. The result is made safe to embed in Markdown as an HTML block:
    /// no blank lines (which would end the block) and no trailing spaces.
    pub fn render<T: Serialize>(&self, name: &str, data: &T) -> Result<String, Failure> {
        let html = self.registry.render(name, data).map_err(|e| {
            fail(
                format!("template `{name}` failed: {e}"),
                "if the book overrides this template, compare it with the built-in one",
            )
        })?;
        Ok(html
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

/// Escape text for HTML, the escaping every template uses: handlebars' own, and control
/// characters (ESC, SOH, form feed, DEL, ...; not tab or newline) shown as their Unicode
/// control pictures (U+2400 block) instead of reaching the page raw.
pub fn escape(text: &str) -> String {
    let escaped = handlebars::html_escape(text);
    if !escaped
        .chars()
        .any(|c| c.is_control() && c != '\t' && c != '\n')
    {
        return escaped;
    }
    escaped
        .chars()
        .map(|c| match c {
            '\t' | '\n' => c,
            '\u{7f}' => '\u{2421}',
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
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
        assert!(Templates::load(dir.path()).is_ok());
        std::fs::write(dir.path().join("hbars.hbs"), "x").unwrap();
        let e = Templates::load(dir.path()).err().unwrap();
        assert!(e.contains("hbars.hbs override no template"), "{e}");
        assert!(e.contains("hbar, heatmap"), "{e}");
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(
            escape("a\u{1b}[31mb\u{1}\u{c}\u{7f}\tc"),
            "a\u{241b}[31mb\u{2401}\u{240c}\u{2421}\tc"
        );
        assert_eq!(escape("<plain>"), "&lt;plain&gt;");
    }

    #[test]
    fn inline_html_is_inert_as_markdown() {
        let html = format!(
            "<span class=\"kl-value\" title=\"a [b](c)\">{}</span>",
            escape(
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
