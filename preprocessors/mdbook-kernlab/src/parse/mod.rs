//! Parse: a chapter's Markdown into its directives ([`scan`]), a block's YAML ([`yaml`])
//! into its kind and typed options ([`directive`]), an inline value into an expression
//! tree ([`expr`]).

pub mod directive;
pub mod expr;
pub mod scan;
pub mod yaml;
