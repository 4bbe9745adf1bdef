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

/// The checklist as text, one item a line, and the verdict last.
pub fn render_checklist(list: &Checklist) -> String {
    let mut out = String::new();
    for item in &list.items {
        let lines: Vec<String> = item.lines.iter().take(8).map(u64::to_string).collect();
        out.push_str(&format!(
            "[{}] {}: {}{}\n",
            item.status.label(),
            item.name,
            one_line(&item.reason),
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
