//! Text from a log made safe to print on a terminal: one rule for everything the summary
//! shows. A log is untrusted: an escape sequence in a device name could clear the screen,
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

/// Characters that act on a terminal or hide or reorder text (the line end excepted).
fn hidden(c: char) -> bool {
    match c {
        '\n' => false,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidi marks, embeddings, overrides and isolates; zero-width characters; BOM.
        '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' => true,
        '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}' => true,
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
        // Ordinary text, line ends and other scripts stay as they are, unallocated.
        let plain = "CPU1 is up\n3月 നവം \\_SB_.PCI0 é";
        assert!(matches!(visible(plain), Cow::Borrowed(t) if t == plain));
    }
}
