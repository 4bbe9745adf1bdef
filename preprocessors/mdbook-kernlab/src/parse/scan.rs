//! Finding directives in a chapter's Markdown.
//!
//! Blocks are fenced code blocks whose info string is `kernlab`; inline directives are
//! `{{kl:...}}` anywhere outside code. Every other fenced block is reported too, so that the
//! engine can highlight it with syntect instead of leaving it to highlight.js.

use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use regex::Regex;

/// Something in the Markdown to replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A ```` ```kernlab ```` block: its YAML body.
    Block { body: String },
    /// `{{kl:NAME ARGS}}`.
    Inline { text: String },
    /// Any other fenced block: its language (the info string's first word), if any.
    Code {
        language: Option<String>,
        body: String,
    },
    /// Something that looks like an inline directive but is not one (unterminated, split
    /// over lines, nested, `{{ kl:`, `{{kl}}`), or a directive where none can be rendered
    /// (inside an HTML tag or comment, a block inside raw HTML): an error, never text left
    /// in the page. `hint` says what to do instead.
    Malformed { what: String, hint: &'static str },
}

/// A directive with its byte range in the chapter and the 1-based line it starts on
/// (for blocks: the line of the first body line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub range: Range<usize>,
    pub line: usize,
    pub found: Found,
}

static INLINE: LazyLock<Regex> =
    // One line: a carriage return ends a line for Markdown as a line feed does.
    LazyLock::new(|| Regex::new(r"\{\{kl:([^{}\r\n]*)\}\}").expect("valid regex"));

/// The start of anything meant as an inline directive: `{{`, spaces, `kl`.
static OPENING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{\s*kl\b").expect("valid regex"));

/// The hint for text that only looks like a directive.
const MALFORMED_HINT: &str =
    "write `{{kl:NAME ARGS}}` on one line, or put the text in backticks to show it";

/// Every directive and fenced code block of `markdown`, in order. Inline directives inside
/// raw HTML blocks (`<details>`, `<div>`) are found and rendered like any other, as long as
/// they stand between tags.
pub fn scan(markdown: &str) -> Vec<Site> {
    let line_starts = line_starts(markdown);
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);
    let mut sites = Vec::new();
    let mut code_ranges: Vec<Range<usize>> = Vec::new();
    let mut html_ranges: Vec<Range<usize>> = Vec::new();
    // The open code block: its range, `Some(language)` when fenced, its text.
    let mut open: Option<(Range<usize>, Option<Option<String>>, String)> = None;
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES;
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => Some(
                        info.split(|c: char| c.is_whitespace() || c == ',')
                            .next()
                            .filter(|lang| !lang.is_empty())
                            .map(str::to_string),
                    ),
                    CodeBlockKind::Indented => None,
                };
                open = Some((range, language, String::new()));
            }
            Event::Text(text) if open.is_some() => {
                if let Some((_, _, body)) = open.as_mut() {
                    body.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((range, language, body)) = open.take() {
                    code_ranges.push(range.clone());
                    let line = line_of(range.start);
                    let found = match language {
                        None => continue,
                        Some(Some(lang)) if lang == "kernlab" => Found::Block { body },
                        Some(language) => Found::Code { language, body },
                    };
                    sites.push(Site { range, line, found });
                }
            }
            Event::Code(_) => code_ranges.push(range),
            // The lines of one HTML block come as adjacent events: one range for the block.
            Event::Html(_) => match html_ranges.last_mut() {
                Some(last) if last.end == range.start => last.end = range.end,
                _ => html_ranges.push(range),
            },
            Event::InlineHtml(_) => html_ranges.push(range),
            _ => {}
        }
    }
    code_ranges.sort_by_key(|r| r.start);
    // Ranges that do not overlap, sorted: the one that may hold `r` is found by bisection.
    let holder = |ranges: &[Range<usize>], r: &Range<usize>| {
        let i = ranges.partition_point(|c| c.start <= r.start);
        i.checked_sub(1).filter(|&i| r.start < ranges[i].end)
    };
    let in_code =
        |r: &Range<usize>| holder(&code_ranges, r).is_some_and(|i| r.end <= code_ranges[i].end);
    for html in &html_ranges {
        // A block fence inside raw HTML is raw text to Markdown: its YAML would reach the
        // page as it is.
        let text = &markdown[html.clone()];
        for (offset, line) in text.split_inclusive('\n').scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        }) {
            let fence = line.trim_start();
            if ["```", "~~~"].iter().any(|f| {
                fence.strip_prefix(f).is_some_and(|r| {
                    r.trim_start_matches(['`', '~'])
                        .trim_start()
                        .starts_with("kernlab")
                })
            }) {
                let at = html.start + offset;
                sites.push(Site {
                    range: at..at,
                    line: line_of(at),
                    found: Found::Malformed {
                        what: "a ```kernlab block inside a raw HTML block (`<details>`, `<div>`, ...) is not rendered".into(),
                        hint: "leave a blank line after the HTML line that opens the block (e.g. after `<summary>...</summary>`) and before the fence, so that Markdown reads the fence",
                    },
                });
            }
        }
    }
    let mut inline_starts = Vec::new();
    // The HTML being read and how far: directives come in order, so each block is read once.
    let mut markup: Option<(usize, Markup)> = None;
    for m in INLINE.find_iter(markdown) {
        if in_code(&m.range()) {
            continue;
        }
        inline_starts.push(m.start());
        let place = holder(&html_ranges, &m.range()).and_then(|i| {
            if markup.as_ref().is_none_or(|(at, _)| *at != i) {
                markup = Some((i, Markup::new(html_ranges[i].start)));
            }
            let (_, walker) = markup.as_mut()?;
            let place = walker.place_at(markdown, m.start());
            // The directive's own text is replaced: it opens no tag.
            walker.at = m.end();
            place
        });
        if let Some(place) = place {
            sites.push(Site {
                range: m.range(),
                line: line_of(m.start()),
                found: Found::Malformed {
                    what: format!("`{}` stands inside an HTML {place}, where it cannot be rendered", crate::error::cut(m.as_str())),
                    hint: "move the directive between the tags (`<span title=...>{{kl:...}}</span>`), or put it in backticks to show it",
                },
            });
            continue;
        }
        sites.push(Site {
            range: m.range(),
            line: line_of(m.start()),
            found: Found::Inline {
                text: m.as_str()[5..m.as_str().len() - 2].trim().to_string(),
            },
        });
    }
    for m in OPENING.find_iter(markdown) {
        let taken = inline_starts.binary_search(&m.start()).is_ok();
        if taken || in_code(&m.range()) {
            continue;
        }
        let what = malformed(&markdown[m.start()..]);
        sites.push(Site {
            range: m.range(),
            line: line_of(m.start()),
            found: Found::Malformed {
                what,
                hint: MALFORMED_HINT,
            },
        });
    }
    sites.sort_by_key(|s| s.range.start);
    sites
}

/// Raw HTML read forward once, to tell for each directive in it (in order) whether it stands
/// inside a tag or a comment.
struct Markup {
    at: usize,
    state: MarkupState,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MarkupState {
    Text,
    /// Inside a tag; the quote of the attribute value being read, if any.
    Tag(Option<u8>),
    Comment,
}

impl Markup {
    fn new(start: usize) -> Self {
        Markup {
            at: start,
            state: MarkupState::Text,
        }
    }

    /// Read `text` up to `offset` (at or past the last one asked for): where is it?
    fn place_at(&mut self, text: &str, offset: usize) -> Option<&'static str> {
        // Bytes, not `str` slices: `at` steps through multi-byte characters.
        let bytes = text.as_bytes();
        while self.at < offset.min(bytes.len()) {
            let b = bytes[self.at];
            let rest = &bytes[self.at..];
            self.state = match self.state {
                MarkupState::Comment if rest.starts_with(b"-->") => {
                    self.at += 2;
                    MarkupState::Text
                }
                MarkupState::Tag(None) if b == b'>' => MarkupState::Text,
                MarkupState::Tag(None) if b == b'"' || b == b'\'' => MarkupState::Tag(Some(b)),
                MarkupState::Tag(Some(q)) if b == q => MarkupState::Tag(None),
                MarkupState::Text if rest.starts_with(b"<!--") => {
                    self.at += 3;
                    MarkupState::Comment
                }
                MarkupState::Text
                    if b == b'<'
                        && bytes
                            .get(self.at + 1)
                            .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'/') =>
                {
                    MarkupState::Tag(None)
                }
                state => state,
            };
            self.at += 1;
        }
        match self.state {
            MarkupState::Text => None,
            MarkupState::Tag(_) => Some("tag"),
            MarkupState::Comment => Some("comment"),
        }
    }
}

/// Why the text at the start of `rest` (which opens like a directive) is none.
fn malformed(rest: &str) -> String {
    // Its line, ended by a line feed or a carriage return, as Markdown ends lines.
    let line = rest.split(['\n', '\r']).next().unwrap_or(rest);
    let mut shown: String = line.chars().take(40).collect();
    if shown.len() < line.len() {
        shown.push_str("...");
    }
    let after = &rest[2..];
    if after.starts_with(char::is_whitespace) {
        return format!("`{shown}`: no space may stand between `{{{{` and `kl:`");
    }
    if !after.starts_with("kl:") {
        return format!("`{shown}`: an inline directive is `{{{{kl:NAME ARGS}}}}`");
    }
    match line.find("}}") {
        Some(end) if line[5..end].contains("{{") => {
            format!("`{shown}`: inline directives cannot be nested")
        }
        Some(_) => format!("`{shown}`: braces are not allowed inside an inline directive"),
        None if rest.contains("}}") => {
            format!("`{shown}`: an inline directive must stay on one line")
        }
        None => format!("`{shown}`: the inline directive is not closed with `}}}}`"),
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Replace each site's range with its rendering.
pub fn splice(markdown: &str, replacements: &[(Range<usize>, String)]) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut at = 0;
    for (range, text) in replacements {
        out.push_str(&markdown[at..range.start]);
        out.push_str(text);
        at = range.end;
    }
    out.push_str(&markdown[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_blocks_inline_and_code_but_not_inside_code() {
        let md = "# T\n\nText {{kl:value a.log#/x}} and `{{kl:value no}}`.\n\n```kernlab\nlog: a.log\n```\n\n```c\nint x;\n```\n\n```text\n{{kl:value no}}\n```\n";
        let sites = scan(md);
        assert_eq!(sites.len(), 4, "{sites:#?}");
        assert_eq!(
            sites[0].found,
            Found::Inline {
                text: "value a.log#/x".into()
            }
        );
        assert_eq!(sites[0].line, 3);
        assert_eq!(
            sites[1].found,
            Found::Block {
                body: "log: a.log\n".into()
            }
        );
        assert_eq!(sites[1].line, 5);
        assert!(
            matches!(&sites[2].found, Found::Code { language: Some(l), .. } if l == "c"),
            "{sites:#?}"
        );
        assert!(
            matches!(&sites[3].found, Found::Code { language: Some(l), body } if l == "text" && body.contains("kl:value no")),
            "{sites:#?}"
        );
        let out = splice(md, &[(sites[0].range.clone(), "X".into())]);
        assert!(out.starts_with("# T\n\nText X and"));
    }

    #[test]
    fn what_only_looks_like_a_directive_is_reported() {
        let cases = [
            ("x {{kl:value a.log#/x unit=s\n", "not closed"),
            ("x {{kl:value a.log#/x\nunit=s}} y\n", "one line"),
            ("x {{kl:value {{kl:value a#/b}} }} y\n", "nested"),
            ("x {{ kl:value 1 }} y\n", "no space"),
            ("x {{kl}} y\n", "is `{{kl:NAME ARGS}}`"),
        ];
        for (md, why) in cases {
            let broken: Vec<String> = scan(md)
                .into_iter()
                .filter_map(|s| match s.found {
                    Found::Malformed { what, .. } => Some(what),
                    _ => None,
                })
                .collect();
            assert!(broken.iter().any(|w| w.contains(why)), "{md:?}: {broken:?}");
        }
        // Inside code, the same text is left alone.
        assert!(scan("`{{kl:value`\n").is_empty());
    }

    #[test]
    fn directives_in_raw_html_are_rendered_between_tags_and_refused_elsewhere() {
        let md = "# T\n\n<details>\n<summary>More</summary>\n<p>It took {{kl:claim a.log#/x stated=1}}.</p>\n<div title=\"{{kl:value a.log#/x}}\">x</div>\n<!--\n{{kl:value a.log#/y}} -->\n```kernlab\nlog: a.log\n```\n</details>\n\nText <span title=\"{{kl:value b#/z}}\">z</span>.\n";
        let sites = scan(md);
        let found: Vec<(usize, String)> = sites
            .iter()
            .map(|s| {
                let what = match &s.found {
                    Found::Inline { text } => format!("inline {text}"),
                    Found::Malformed { what, .. } => what.clone(),
                    other => format!("{other:?}"),
                };
                (s.line, what)
            })
            .collect();
        assert_eq!(
            found,
            [
                (5, "inline claim a.log#/x stated=1".to_string()),
                (6, "`{{kl:value a.log#/x}}` stands inside an HTML tag, where it cannot be rendered".into()),
                (8, "`{{kl:value a.log#/y}}` stands inside an HTML comment, where it cannot be rendered".into()),
                (9, "a ```kernlab block inside a raw HTML block (`<details>`, `<div>`, ...) is not rendered".into()),
                (14, "`{{kl:value b#/z}}` stands inside an HTML tag, where it cannot be rendered".into()),
            ]
        );
    }

    #[test]
    fn raw_html_with_multibyte_text_before_a_directive_is_read_by_bytes() {
        // Found by the fuzz campaign: a `µ` (two bytes) in raw HTML before a directive made
        // the tag reader slice a string inside a character.
        let md = "<details>\n<p>1 µs, 2 µs <!-- ünd --> {{kl:value a.log#/x}}</p>\n<div title=\"µ{{kl:value a.log#/y}}\">µ</div>\n</details>\n";
        let found: Vec<(usize, bool)> = scan(md)
            .iter()
            .map(|s| (s.line, matches!(s.found, Found::Inline { .. })))
            .collect();
        assert_eq!(found, [(2, true), (3, false)]);
    }

    #[test]
    fn a_directive_broken_by_carriage_returns_is_not_one_site_across_blocks() {
        // Found by the fuzz campaign: carriage returns are line ends to Markdown, so a
        // "directive" spanning them held a code fence, and the two sites overlapped.
        let md = "Text {{kl:value a.log#/x\r\r~~~c\rint x;\r~~~\r}} more.\n";
        let sites = scan(md);
        assert!(
            !sites
                .iter()
                .any(|s| matches!(s.found, Found::Inline { .. })),
            "{sites:#?}"
        );
        let mut ranges: Vec<_> = sites.iter().map(|s| s.range.clone()).collect();
        ranges.sort_by_key(|r| r.start);
        assert!(
            ranges.windows(2).all(|w| w[0].end <= w[1].start),
            "{ranges:?}"
        );
        assert!(
            sites.iter().any(|s| matches!(&s.found, Found::Malformed { what, .. } if what.contains("must stay on one line"))),
            "{sites:#?}"
        );
    }
}
