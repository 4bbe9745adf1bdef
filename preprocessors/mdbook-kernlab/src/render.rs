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

/// Escape text for HTML, the one rule for every value that leaves data (every template's
/// `{{value}}`, log messages, table cells, attributes): handlebars' own escaping, then
/// [`show`] for each character, so that the text is inert to Markdown (no line break, so no
/// block can start inside a tag or a paragraph), to mdBook's `{{#include ...}}` directives
/// (braces become character references), and visible (control, bidi and zero-width
/// characters are shown, never sent).
pub fn escape(text: &str) -> String {
    let escaped = handlebars::html_escape(text);
    if !escaped.chars().any(|c| !matches!(show(c), Shown::Same)) {
        return escaped;
    }
    let mut out = String::with_capacity(escaped.len() + 16);
    for c in escaped.chars() {
        push_shown(&mut out, c);
    }
    out
}

/// How a character of data text reaches the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// As itself.
    Same,
    /// As a numeric character reference: the browser shows the character, Markdown and
    /// mdBook see none (line breaks, `{`, `}`).
    Reference,
    /// As this visible stand-in: control characters as their Unicode control pictures
    /// (ESC as U+241B), other C0/C1 controls as U+FFFD.
    Picture(char),
    /// As `‹U+XXXX›`: bidi overrides and isolates, zero-width and other invisible format
    /// characters, which could make text read differently from what it is.
    CodePoint,
}

/// The rule of [`escape`] for one character (tabs stay; they cannot start a line).
pub fn show(c: char) -> Shown {
    match c {
        '\t' => Shown::Same,
        '\n' | '\r' | '{' | '}' => Shown::Reference,
        '\u{7f}' => Shown::Picture('\u{2421}'),
        c if (c as u32) < 0x20 => {
            Shown::Picture(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'))
        }
        c if c.is_control() => Shown::Picture('\u{fffd}'),
        c if invisible(c) => Shown::CodePoint,
        _ => Shown::Same,
    }
}

/// Append `c` to `out` as [`show`] says.
pub fn push_shown(out: &mut String, c: char) {
    use std::fmt::Write;
    match show(c) {
        Shown::Same => out.push(c),
        Shown::Reference => {
            let _ = write!(out, "&#{};", c as u32);
        }
        Shown::Picture(p) => out.push(p),
        Shown::CodePoint => {
            let _ = write!(out, "\u{2039}U+{:04X}\u{203a}", c as u32);
        }
    }
}

/// Characters that show nothing or reorder what follows: soft hyphen, Arabic letter mark,
/// Mongolian vowel separator, zero-width space/joiners and directional marks, line and
/// paragraph separators, bidi embeddings, overrides and isolates, word joiner and invisible
/// operators, deprecated format controls, byte order mark, interlinear annotation marks,
/// musical format controls and tag characters.
fn invisible(c: char) -> bool {
    matches!(
        c as u32,
        0xad | 0x61c
            | 0x180e
            | 0x200b..=0x200f
            | 0x2028..=0x202e
            | 0x2060..=0x2064
            | 0x2066..=0x206f
            | 0xfeff
            | 0xfff9..=0xfffb
            | 0x1d173..=0x1d17a
            | 0xe0000..=0xe007f
    )
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
    fn line_breaks_and_braces_become_references_invisible_characters_code_points() {
        // A value that would start a Markdown block in the middle of a tag, and mdBook's
        // include directive: neither survives as such, the browser still shows both.
        assert_eq!(
            escape("t\n\n[x](javascript:alert(1))\r{{#include /etc/passwd}}"),
            "t&#10;&#10;[x](javascript:alert(1))&#13;&#123;&#123;#include /etc/passwd&#125;&#125;"
        );
        // Bidi override, isolate, zero-width space and joiner, byte order mark, tag letter.
        assert_eq!(
            escape("a\u{202e}b\u{2066}c\u{200b}d\u{200d}e\u{feff}f\u{e0041}"),
            "a‹U+202E›b‹U+2066›c‹U+200B›d‹U+200D›e‹U+FEFF›f‹U+E0041›"
        );
        // Ordinary text outside ASCII is left alone.
        assert_eq!(escape("µs – naïve 😀"), "µs – naïve 😀");
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
