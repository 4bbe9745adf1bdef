//! Why a view cannot be drawn: a message and what to do about it. The caller adds where
//! (a chapter's line, a command's input).

use std::fmt;

/// A view's failure: what is wrong with its data or template, and a hint when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What is wrong, naming the file or value.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// A failure with a hint.
pub fn fail(message: impl Into<String>, hint: impl Into<String>) -> Error {
    Error {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The result of a view.
pub type Result<T> = std::result::Result<T, Error>;
