//! The one escaping rule of the views: every value that comes from data (a template's
//! `{{value}}`, a log message, a table cell, an attribute) goes through [`escape`].

use kernlog::render::safe_text::invisible;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
