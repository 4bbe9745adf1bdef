//! Resolve: what the parsed directives name. The data files, read and analysed once per
//! run ([`data`]); kernel symbols and mailing-list threads ([`references`]); figure
//! numbers, ids and which chapter shows which file ([`book_index`]); expressions evaluated
//! against the data ([`expr`]).

pub mod book_index;
pub mod data;
pub mod expr;
pub mod references;
