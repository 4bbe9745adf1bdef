//! Reading YAML (block options, data files, the symbol and thread indexes) with its nesting
//! bounded before it is parsed.
//!
//! The YAML parser keeps a record per open flow collection (`[`, `{`) and walks them for
//! every token, so deep nesting costs the square of its size (100 KB of `[` took 4 s, 400 KB
//! more than a minute) before the deserializer's own depth limit is reached. A linear scan
//! of the brackets refuses such a text first.

use std::fmt;

use serde::de::DeserializeOwned;

/// The deepest nesting of flow collections accepted, the deserializer's own limit.
pub const MAX_NESTING: usize = 128;

/// Where in the text, as the YAML parser counts: byte index, 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Byte offset from the start.
    pub index: usize,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

/// Why a text is not the YAML asked for.
#[derive(Debug)]
pub enum YamlError {
    /// Flow collections nested deeper than [`MAX_NESTING`]: the bracket that goes too deep.
    TooDeep(Place),
    /// The parser's or the deserializer's error.
    Parse(yaml_serde::Error),
}

impl YamlError {
    /// Where the problem is, when known.
    pub fn location(&self) -> Option<Place> {
        match self {
            YamlError::TooDeep(place) => Some(*place),
            YamlError::Parse(e) => e.location().map(|l| Place {
                index: l.index(),
                line: l.line(),
                column: l.column(),
            }),
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlError::TooDeep(at) => write!(
                f,
                "brackets nest deeper than {MAX_NESTING} levels at line {} column {}",
                at.line, at.column
            ),
            YamlError::Parse(e) => e.fmt(f),
        }
    }
}

/// Deserialize `text`, refusing deep nesting before the parser sees it.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    if let Some(place) = too_deep(text) {
        return Err(YamlError::TooDeep(place));
    }
    yaml_serde::from_str(text).map_err(YamlError::Parse)
}

/// The first bracket past [`MAX_NESTING`] levels, by a scan that may count more levels than
/// YAML does, never fewer where it matters for time: a `[` or `{` that can open a
/// collection (at the start of a line, or after a blank, `[`, `{`, `,` or `:`) counts, also
/// inside quoted text; a `]` or `}` closes a level outside quotes and comments, and inside
/// quoted text only a level opened in the same text. Quoted text starts where YAML lets it
/// start in a flow collection (after `[`, `{`, `,`, `:`, `?`, a tag or an anchor); comments
/// at a `#` after a blank.
fn too_deep(text: &str) -> Option<Place> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Plain,
        Comment,
        /// Quoted with this character; the depth when the quote opened.
        Quoted(char, usize),
    }
    let mut state = State::Plain;
    let mut depth = 0usize;
    let (mut line, mut column) = (1, 0);
    // The character before this one; outside comments and quotes, the last character that
    // is not a blank (line breaks are blanks), and the first character of the word it ends
    // (a tag `!t` or an anchor `&a` may stand before quoted text, on the line above too).
    let mut prev = '\n';
    let mut last = '\n';
    let mut word_first = None::<char>;
    let mut in_word = false;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        column += 1;
        let opens_here = matches!(prev, '\n' | '\r' | ' ' | '\t' | '[' | '{' | ',' | ':');
        let before = state;
        state = match state {
            State::Comment if c == '\n' => State::Plain,
            State::Comment => State::Comment,
            State::Quoted('"', _) if c == '\\' && chars.next_if(|&(_, n)| n != '\n').is_some() => {
                column += 1;
                state
            }
            State::Quoted('\'', _) if c == '\'' && chars.next_if(|&(_, n)| n == '\'').is_some() => {
                column += 1;
                state
            }
            State::Quoted(quote, _) if c == quote => State::Plain,
            State::Quoted(quote, floor) => {
                if matches!(c, ']' | '}') && depth > floor {
                    depth -= 1;
                }
                State::Quoted(quote, floor)
            }
            State::Plain => match c {
                '#' if matches!(prev, '\n' | '\r' | ' ' | '\t') => State::Comment,
                ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    State::Plain
                }
                '\'' | '"'
                    if depth > 0
                        && (matches!(last, '[' | '{' | ',' | ':' | '?')
                            || matches!(word_first, Some('!' | '&'))) =>
                {
                    State::Quoted(c, depth)
                }
                _ => State::Plain,
            },
        };
        if matches!(c, '[' | '{') && opens_here && state != State::Comment {
            depth += 1;
            if depth > MAX_NESTING {
                return Some(Place {
                    index,
                    line,
                    column,
                });
            }
        }
        match (before, state) {
            // A quoted text read whole is a word of its own.
            (State::Quoted(..), State::Plain) => {
                last = c;
                word_first = None;
                in_word = true;
            }
            (State::Plain, State::Plain) => match c {
                ' ' | '\t' | '\n' | '\r' => in_word = false,
                '[' | '{' | ',' => {
                    last = c;
                    word_first = None;
                    in_word = false;
                }
                _ => {
                    if !in_word {
                        word_first = Some(c);
                        in_word = true;
                    }
                    last = c;
                }
            },
            _ => {}
        }
        if c == '\n' {
            line += 1;
            column = 0;
        }
        prev = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn depth_error(text: &str) -> Option<Place> {
        too_deep(text)
    }

    #[test]
    fn deep_brackets_are_refused_before_parsing_in_linear_time() {
        for n in [MAX_NESTING + 1, 50_000, 500_000] {
            let text = format!("x: {}{}\n", "[".repeat(n), "]".repeat(n));
            let started = std::time::Instant::now();
            let e = from_str::<Value>(&text).unwrap_err();
            assert!(
                started.elapsed().as_secs_f64() < 1.0,
                "{n}: {:?}",
                started.elapsed()
            );
            assert_eq!(
                e.to_string(),
                format!(
                    "brackets nest deeper than {MAX_NESTING} levels at line 1 column {}",
                    4 + MAX_NESTING
                )
            );
            assert_eq!(e.location().unwrap().index, 3 + MAX_NESTING);
        }
        let ok = format!(
            "x: {}1{}\n",
            "[".repeat(MAX_NESTING - 1),
            "]".repeat(MAX_NESTING - 1)
        );
        assert!(from_str::<Value>(&ok).is_ok());
        // Block nesting through `- ` items is bounded by the deserializer, quickly.
        let dashes = format!("{}1\n", "- ".repeat(10_000));
        assert!(from_str::<Value>(&dashes).is_err());
    }

    #[test]
    fn closing_brackets_in_quotes_and_comments_do_not_hide_depth() {
        // Each level hides a `]` in quoted text, a tagged quote or a comment.
        let n = MAX_NESTING + 1;
        for unit in [
            "[ \"]\", ",
            "[ ']', ",
            "[!t \"]\" ",
            "[&a ']' ",
            "[ # ]\n",
            "[!t\n\"]\"\n",
            "[&a !t # c ]\n  \"]\" ",
            "[{k: \"]\"}, ",
        ] {
            let text = format!("x: {}", unit.repeat(n));
            assert!(depth_error(&text).is_some(), "{unit:?}");
        }
    }

    #[test]
    fn brackets_in_ordinary_text_are_not_nesting() {
        let text = format!(
            "items:\n{}a: \"[x] and [y\"\nb: run[1].log and ([1], [2])\nc: [\"]]]\", '[', {{k: [v]}}]\n# [[[[ a comment\nd: |\n  [draft] ]]]\n",
            "- item: 'it''s [1]'\n".repeat(500)
        );
        assert_eq!(depth_error(&text), None);
        assert!(from_str::<Value>(&text).is_ok());
        // Many flow collections side by side are one level each.
        let wide = format!("x: [{}]\n", "[1, {a: [2]}], ".repeat(20_000));
        assert_eq!(depth_error(&wide), None);
    }
}
