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

/// `text` with no line that a mail tool would read as a trailer: where a line, after its
/// blanks, starts with a `token:` (b4 reads a first word that begins with a letter, digit or
/// `_` and ends in a colon before a blank; git a word of letters, digits and `-`, blanks
/// allowed before the colon), a no-break space goes before that colon, which neither reads
/// as part of a token. Applied to whole paragraphs after they are wrapped, so that no line
/// break, wherever it falls in a word, can start a trailer.
pub fn defuse_trailer_lines(text: &str) -> Cow<'_, str> {
    let colons: Vec<usize> = line_starts(text)
        .filter_map(|s| trailer_colon(text, s))
        .collect();
    if colons.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 2 * colons.len());
    let mut copied = 0;
    for colon in colons {
        out.push_str(&text[copied..colon]);
        out.push('\u{a0}');
        copied = colon;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The byte offsets where the lines of `text` start.
fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1))
}

/// The colon that makes the line at `start` a trailer, if it is one.
fn trailer_colon(text: &str, start: usize) -> Option<usize> {
    let line = &text[start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let body = line.trim_start();
    let at = start + (line.len() - body.len());
    let first = body.chars().next()?;
    // b4: the first word begins with a letter, digit or `_` and ends in the colon.
    let word = &body[..body.find(char::is_whitespace).unwrap_or(body.len())];
    if (first.is_alphanumeric() || first == '_') && word.len() > 1 && word.ends_with(':') {
        return Some(at + word.len() - 1);
    }
    // git: a token of letters, digits and `-`, blanks, the colon (an address's `://` is
    // not one).
    let token = body.trim_start_matches(|c: char| c.is_alphanumeric() || c == '-' || c == '_');
    if token.len() == body.len() {
        return None;
    }
    let rest = token.trim_start_matches([' ', '\t']);
    (rest.starts_with(':') && !rest.starts_with("://")).then(|| at + (body.len() - rest.len()))
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
        _ => invisible(c),
    }
}

/// Characters that show nothing, or change how what is around them reads, in most fonts:
/// the one table of the text report and of the HTML views alike.
pub fn invisible(c: char) -> bool {
    matches!(
        c as u32,
        // Soft hyphen, combining grapheme joiner, Arabic letter mark, the Hangul fillers,
        // Khmer's invisible vowels, Mongolian vowel separator.
        0xad | 0x34f | 0x61c | 0x115f | 0x1160 | 0x17b4 | 0x17b5
            // Mongolian free variation selectors and vowel separator.
            | 0x180b..=0x180f
            // Zero-width space, joiners and directional marks; the line and paragraph
            // separators (some mail readers break lines there); bidi embeddings and overrides.
            | 0x200b..=0x200f
            | 0x2028..=0x202e
            // Word joiner, invisible operators, bidi isolates, deprecated format controls.
            | 0x2060..=0x206f
            // The blank braille pattern and the Hangul filler, which look like spaces.
            | 0x2800
            | 0x3164
            // Variation selectors (they can turn the character before into a two-column
            // emoji the width count cannot see), byte order mark, halfwidth Hangul filler,
            // interlinear annotation marks.
            | 0xfe00..=0xfe0f
            | 0xfeff
            | 0xffa0
            | 0xfff9..=0xfffb
            // Shorthand format controls, musical format controls; the tag characters (they
            // can spell hidden text), the variation selectors supplement and the rest of
            // that plane's ignorable block.
            | 0x1bca0..=0x1bca3
            | 0x1d173..=0x1d17a
            | 0xe0000..=0xe0fff
    )
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
    fn every_invisible_kind_is_shown() {
        for c in [
            '\u{206a}',
            '\u{206f}',
            '\u{1d173}',
            '\u{1d17a}',
            '\u{115f}',
            '\u{1160}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{2800}',
            '\u{e0100}',
            '\u{e01ef}',
            '\u{34f}',
            '\u{17b4}',
            '\u{fe0f}',
            '\u{180b}',
            '\u{180f}',
            '\u{1bca0}',
            '\u{e01f0}',
            '\u{e0fff}',
        ] {
            let text = format!("a{c}b");
            assert_eq!(visible(&text), format!("a<U+{:04X}>b", c as u32));
        }
        // Their neighbours are ordinary text.
        for c in [
            '\u{2801}',
            '\u{3165}',
            '\u{1d172}',
            '\u{f0000}',
            '\u{ffa1}',
            '\u{1bca4}',
        ] {
            assert!(!invisible(c), "{c:?}");
        }
    }

    #[test]
    fn no_line_starts_with_a_trailer() {
        let text = "Fixes: 1\n  BugLink: x\nxx.y@z: a@b.c\nX-Y_z : w\n\u{e9}t\u{e9}: v\n-by: z\n";
        assert_eq!(
            defuse_trailer_lines(text),
            "Fixes\u{a0}: 1\n  BugLink\u{a0}: x\nxx.y@z\u{a0}: a@b.c\nX-Y_z \u{a0}: w\n\u{e9}t\u{e9}\u{a0}: v\n-by\u{a0}: z\n"
        );
        // Colons inside a line, after a bracket, in an address, or alone stay.
        let plain = "a Fixes: b\n[PASS] x: y\nhttps://lore.kernel.org\n: x\n(x): y\n";
        assert!(matches!(defuse_trailer_lines(plain), Cow::Borrowed(_)));
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
