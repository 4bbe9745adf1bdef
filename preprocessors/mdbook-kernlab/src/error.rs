//! Problems found in a chapter: where, what, and what to do about it.

use std::fmt;
use std::path::PathBuf;

/// One problem, reported as `src/chapter.md:12: message` with a hint on the next line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The chapter's file, relative to the book root.
    pub file: PathBuf,
    /// 1-based line in that file.
    pub line: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n    hint: {hint}")?;
        }
        Ok(())
    }
}

/// What a directive reports when it cannot render: a message and an optional hint. The
/// caller adds the file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    pub hint: Option<String>,
    /// Lines below the directive's first line where the problem is (for multi-line blocks).
    pub line_offset: usize,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            hint: None,
            line_offset: 0,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn at_offset(mut self, offset: usize) -> Self {
        self.line_offset = offset;
        self
    }
}

impl From<views::Error> for Failure {
    fn from(e: views::Error) -> Self {
        Failure {
            message: e.message,
            hint: e.hint,
            line_offset: 0,
        }
    }
}

/// Shorthand for a failure with a hint.
pub fn fail(message: impl Into<String>, hint: impl Into<String>) -> Failure {
    Failure::new(message).hint(hint)
}

pub type Outcome<T> = Result<T, Failure>;

/// An error message from a parser, cut to a length that fits a terminal: a serde error can
/// quote a whole input file (a log read as YAML is one long string).
pub fn short(error: &dyn std::fmt::Display) -> String {
    const MAX: usize = 200;
    let text = error.to_string();
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!(
            "{}... (message cut, {} characters)",
            &text[..at],
            text.chars().count()
        ),
        None => text,
    }
}

/// A value from the book's text, cut to a length that fits in one error line.
pub fn cut(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}... ({} characters)", &text[..at], text.chars().count()),
        None => text.to_string(),
    }
}
