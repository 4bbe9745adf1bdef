//! Values computed from data for the prose: a small expression language over JSON
//! pointers into data files.
//!
//! ```text
//! dmesg/resume.log#/cycles/0/enable_phase_ms                 one value
//! mean(dmesg/run*.log#/cycles/0/enable_phase_ms)             an aggregate over files
//! max(mtrr/a.log#/cycles/0/cpus/*/bringup_ms)                ... or over array elements
//! a.log#/x - b.log#/x        (a.log#/x / b.log#/x) * 100     arithmetic
//! ```
//!
//! `FILE@/REGEX/` is the time stamp (in seconds) of the first line of a log whose message
//! matches: `journal/b.log@/Finished/ - journal/a.log@/suspend exit/` is a duration.
//!
//! A reference is `FILE#POINTER` (RFC 6901, with `*` for every array element and
//! `[field=value]` for the elements whose field has that value, e.g.
//! `#/trace/functions/[name=_cpu_up]/max_ms`). Logs are
//! read through kernlog's JSON report, YAML and JSON files as they are. Fields named
//! `*_ms`, `*_s` and `*_us` carry time; everything is computed in seconds and shown in the
//! unit the directive asks for.

//!
//! Text is parsed into a tree first ([`crate::parse::expr`]), then evaluated against the data store
//! (`eval`, reading through `lookup`); [`units`] shows the result.

mod eval;
mod lookup;
pub mod units;

pub use lookup::{lookup, select};
pub use units::{MAX_DIGITS, Unit, check_digits, format_value};

use crate::error::{Outcome, fail};
use crate::resolve::data::DataStore;

/// A number and whether it is a duration (in seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    pub value: f64,
    /// Power of time: 1 for a duration, 0 for a plain number.
    pub time: i32,
}

impl Quantity {
    fn plain(value: f64) -> Self {
        Quantity { value, time: 0 }
    }
}

/// Evaluate an expression against the data store.
pub fn evaluate(text: &str, data: &DataStore) -> Outcome<Quantity> {
    let tree = crate::parse::expr::parse(text)?;
    let q = eval::evaluate_tree(&tree, data)?;
    if !q.value.is_finite() {
        return Err(fail(
            "the expression has no finite value (division by zero?)",
            "check the data the expression reads",
        ));
    }
    Ok(q)
}

#[cfg(test)]
mod tests;
