//! The tester's checklist as text, one item a line, and the verdict last; what an item
//! quotes is one line, its controls made visible.

use std::fmt;

use crate::judge::checklist::Checklist;
use crate::render::safe_text::one_line;

/// The text of [`render_checklist`].
impl fmt::Display for Checklist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_checklist(self))
    }
}

/// The most characters of an item's reason that the text shows: a reason that lists every
/// CPU of a hostile log would otherwise make a line of megabytes.
const REASON_SHOWN: usize = 2000;

/// `text`, cut to [`REASON_SHOWN`] characters with a count of the rest.
fn clipped(text: &str) -> String {
    match text.char_indices().nth(REASON_SHOWN) {
        None => text.to_string(),
        Some((at, _)) => format!(
            "{} ... ({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
    }
}

/// The checklist as text, one item a line, and the verdict last.
pub fn render_checklist(list: &Checklist) -> String {
    let mut out = String::new();
    for item in &list.items {
        let lines: Vec<String> = item.lines.iter().take(8).map(u64::to_string).collect();
        out.push_str(&format!(
            "[{}] {}: {}{}\n",
            item.status.label(),
            item.name,
            clipped(&one_line(&item.reason)),
            if lines.is_empty() {
                String::new()
            } else {
                format!(" (lines {})", lines.join(", "))
            }
        ));
    }
    out.push_str(&one_line(&list.verdict));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_of_megabytes_is_cut_with_a_count() {
        let long = "CPU 1, ".repeat(1000);
        let shown = clipped(&long);
        assert!(shown.ends_with(" ... (5000 more characters)"), "{shown}");
        assert_eq!(shown.chars().count(), REASON_SHOWN + 27);
        assert_eq!(clipped("short"), "short");
    }
}
