//! A comparison as text, at most 72 columns wide, so that it can be pasted into a mail.

use std::fmt;

use crate::analysis::findings::seconds;
use crate::judge::compare::{Comparison, Figure, MtrrSide, Row, Stats};
use crate::render::safe_text::{defuse_trailer_lines, one_line};

/// The width of every line: a mail's.
pub const WIDTH: usize = 72;

/// `text` wrapped to [`WIDTH`] display columns, the first line after `first`, the others
/// after `rest`. The text is one paragraph of untrusted text: its line ends become spaces
/// and its controls are made visible first ([`one_line`]), and no wrapped line may start
/// with a trailer ([`defuse_trailer_lines`]).
pub fn wrap(text: &str, first: &str, rest: &str) -> String {
    let text = one_line(text);
    // One column kept free for the no-break space a defused line gains, so that no line
    // passes the width (a mail client that rewraps it would move its last word, a tag
    // perhaps, to the start of a line).
    let options = textwrap::Options::new(WIDTH - 1)
        .initial_indent(first)
        .subsequent_indent(rest)
        // Lines break at spaces only: a hyphen could otherwise start a line with `by:`.
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(true);
    let mut out = defuse_trailer_lines(&textwrap::fill(&text, options)).into_owned();
    out.push('\n');
    out
}

/// `median 1.2 s  min 1.0 s  max 2.0 s` (or counts, for a figure that is one), or
/// "no value".
pub fn stats(figure: Figure, s: &Option<Stats>) -> String {
    let show = |v: f64| {
        if figure.is_duration() {
            seconds(v)
        } else {
            format!("{v}")
        }
    };
    match s {
        Some(s) => format!(
            "median {}  min {}  max {}",
            show(s.median),
            show(s.min),
            show(s.max)
        ),
        None => "no value".to_string(),
    }
}

fn row(out: &mut String, r: &Row) {
    let n = |s: &Option<Stats>| s.map_or(0, |s| s.n);
    let title = format!(
        "{} (cycles: {} before, {} after)",
        r.figure.name(),
        n(&r.before),
        n(&r.after)
    );
    out.push_str(&wrap(&title, "", "  "));
    // Figures come from the log's stamps: a hostile one is as long as it likes.
    out.push_str(&wrap(
        &stats(r.figure, &r.before),
        "  before  ",
        "          ",
    ));
    out.push_str(&wrap(
        &stats(r.figure, &r.after),
        "  after   ",
        "          ",
    ));
    let ratio = r
        .ratio
        .map_or("no ratio".to_string(), |x| format!("ratio {x:.3}"));
    out.push_str(&wrap(
        &format!("{ratio}: {}", r.change.label_for(r.figure)),
        "  ",
        "    ",
    ));
}

fn mtrr(out: &mut String, side: &str, m: &MtrrSide) {
    for (name, status, reason) in &m.items {
        out.push_str(&wrap(
            &format!("[{}] {name}: {reason}", status.label()),
            &format!("{side:<7}"),
            "         ",
        ));
    }
    if !m.findings.is_empty() {
        let list: Vec<String> = m
            .findings
            .iter()
            .map(|(id, n)| format!("{id} x{n}"))
            .collect();
        out.push_str(&wrap(
            &format!("findings: {}", list.join(", ")),
            &format!("{side:<7}"),
            "         ",
        ));
    }
}

/// The figures, the MTRR findings and the warnings; no header (the report has its own).
pub(crate) fn render_figures(c: &Comparison) -> String {
    let mut out = String::new();
    for r in &c.rows {
        row(&mut out, r);
    }
    out.push_str("\nMTRRs:\n");
    mtrr(&mut out, "before", &c.mtrr.0);
    mtrr(&mut out, "after", &c.mtrr.1);
    if !c.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for w in &c.warnings {
            out.push_str(&wrap(w, "- ", "  "));
        }
    }
    out
}

/// The text of [`render_comparison`].
impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_comparison(self))
    }
}

/// The whole comparison: which sides, the figures, and the verdict last.
pub fn render_comparison(c: &Comparison) -> String {
    let mut out = String::new();
    for (side, name, n) in [
        ("BEFORE ", &c.before, c.cycles.0),
        ("AFTER  ", &c.after, c.cycles.1),
    ] {
        let s = if n == 1 { "" } else { "s" };
        out.push_str(&wrap(
            &format!("{name} ({n} resumed cycle{s})"),
            side,
            "       ",
        ));
    }
    out.push('\n');
    out.push_str(&render_figures(c));
    out.push('\n');
    out.push_str(&wrap(&c.verdict, "verdict  ", "  "));
    out
}
