//! Render: block directives ([`blocks`], through the views crate), inline directives
//! ([`inline`]) and code ([`highlight`], with syntect), into HTML from the book's templates
//! ([`templates`]), made safe for Markdown.

pub mod blocks;
pub mod highlight;
pub mod inline;
pub mod templates;
