//! Parse: a chapter's Markdown into its directives ([`scan`]), a block's YAML (read by
//! `kernlog::parse::yaml`, which bounds its nesting first)
//! into its kind and typed options ([`directive`]), an inline value into an expression
//! tree ([`expr`]).

pub mod directive;
pub mod expr;
pub mod scan;
