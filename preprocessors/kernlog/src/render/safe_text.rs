//! Text from a log made safe to print on a terminal: one rule for everything `kernlog`
//! prints (the summary, the checklist, the comparison, the report, errors, the JSON). A log is untrusted: an escape sequence in a device name could clear the screen,
//! set the clipboard (OSC 52) or hide a link (OSC 8), and a bidi override or a zero-width
//! character could make a line read as something else. Such characters are shown visibly
//! instead: C0 controls and DEL as `\x1b`, C1 controls, bidi controls and zero-width
//! characters as `<U+202E>`. Line ends stay: the summary's lines are its own.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every character that could act on the terminal or hide text made visible.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            _ if !hidden(c) => out.push(c),
            // Writing to a String cannot fail.
            c if c.is_ascii() => drop(write!(out, "\\x{:02x}", c as u32)),
            c => drop(write!(out, "<U+{:04X}>", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// One line of untrusted text (a label, a path, a DMI string): its line ends become
/// spaces, so that it cannot start a line of its own, and the rest is made [`visible`].
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains(['\n', '\r']) {
        return visible(text);
    }
    Cow::Owned(visible(&text.replace(['\n', '\r'], " ")).into_owned())
}

/// A JSON text with every character that [`visible`] would show escaped as `\uXXXX`
/// (serde_json escapes C0 controls itself, not DEL, C1, bidi or zero-width characters).
/// Outside strings JSON has none of them, so the value is the same.
pub fn json_visible(json: &str) -> Cow<'_, str> {
    if !json.chars().any(hidden) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The columns `text` takes on a terminal (wide characters take two).
pub fn display_width(text: &str) -> usize {
    textwrap::core::display_width(text)
}

/// Characters that act on a terminal or hide or reorder text (the line end excepted).
fn hidden(c: char) -> bool {
    match c {
        '\n' => false,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidi marks, embeddings, overrides and isolates; zero-width characters; BOM.
        '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' => true,
        '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}' => true,
        // Variation selectors: they turn the character before into an emoji two columns
        // wide, which the width count cannot see.
        '\u{fe00}'..='\u{fe0f}' => true,
        // The line and paragraph separators, which some mail readers break lines at.
        '\u{2028}' | '\u{2029}' => true,
        // Invisible in most fonts: the soft hyphen, the Mongolian vowel separator, the
        // interlinear annotation marks, and the tag characters (which can spell hidden text).
        '\u{ad}' | '\u{180e}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e007f}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_spoofing_characters_are_shown() {
        // A screen clear, an OSC 52 clipboard write ended by BEL, an OSC 8 link, a C1 CSI.
        assert_eq!(visible("a\u{1b}[2Jb"), "a\\x1b[2Jb");
        assert_eq!(visible("\u{1b}]52;c;aGk=\u{7}"), "\\x1b]52;c;aGk=\\x07");
        assert_eq!(
            visible("\u{1b}]8;;http://x\u{1b}\\t\u{1b}]8;;\u{1b}\\"),
            "\\x1b]8;;http://x\\x1b\\t\\x1b]8;;\\x1b\\"
        );
        assert_eq!(visible("\u{9b}31m"), "<U+009B>31m");
        // A right-to-left override and a zero-width space; tabs and CR too.
        assert_eq!(visible("usb\u{202e}1-1\u{200b}"), "usb<U+202E>1-1<U+200B>");
        assert_eq!(visible("a\tb\r"), "a\\x09b\\x0d");
        // Hidden text: a soft hyphen and tag characters spelling "ok".
        assert_eq!(
            visible("p\u{ad}q\u{e006f}\u{e006b}"),
            "p<U+00AD>q<U+E006F><U+E006B>"
        );
        // Ordinary text, line ends and other scripts stay as they are, unallocated.
        let plain = "CPU1 is up\n3月 നവം \\_SB_.PCI0 é";
        assert!(matches!(visible(plain), Cow::Borrowed(t) if t == plain));
    }

    #[test]
    fn one_line_fields_cannot_start_a_line() {
        assert_eq!(
            one_line("7.3.4\nTested-by: X <x@y>\r\x1b[2K"),
            "7.3.4 Tested-by: X <x@y> \\x1b[2K"
        );
        assert_eq!(one_line("plain"), "plain");
        // Line and paragraph separators, which mail readers may break at.
        assert_eq!(one_line("a\u{2028}b\u{2029}c"), "a<U+2028>b<U+2029>c");
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_controls() {
        let value = "a\u{7f}b\u{9b}c\u{202e}d\u{1b}";
        let json = serde_json::to_string(&value).unwrap();
        let safe = json_visible(&json);
        assert!(!safe.chars().any(hidden), "{safe}");
        assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), value);
        assert_eq!(display_width("\u{5fc3}a"), 3);
    }
}
