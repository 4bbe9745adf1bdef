//! Evaluating a parsed expression against the data store: references become quantities
//! (durations in seconds, or plain numbers), and the arithmetic keeps track of which is
//! which. A failure names the column of the part of the expression that caused it.

use super::Quantity;
use super::lookup::{count, lookup};
use crate::error::{Failure, Outcome, fail};
use crate::parse::expr::{Expr, Function, Op};
use crate::resolve::data::DataStore;

/// A failure while reading data for the part of the expression at `column`.
fn placed(column: usize) -> impl Fn(Failure) -> Failure {
    move |mut e| {
        e.message = format!("{} (column {column})", e.message);
        e
    }
}

/// The value of `expr`.
pub fn evaluate_tree(expr: &Expr, data: &DataStore) -> Outcome<Quantity> {
    Ok(match expr {
        Expr::Number(n) => Quantity::plain(*n),
        Expr::Negate(inner) => {
            let q = evaluate_tree(inner, data)?;
            Quantity {
                value: -q.value,
                ..q
            }
        }
        Expr::Reference { text, column } => {
            let values = lookup(text, data).map_err(placed(*column))?;
            match values.as_slice() {
                [one] => *one,
                _ => {
                    return Err(fail(
                        format!(
                            "`{text}` has {} values, not one (column {column})",
                            values.len()
                        ),
                        "wrap it in mean(), sum(), min(), max() or count()",
                    ));
                }
            }
        }
        Expr::Call {
            function,
            reference,
            column,
        } => {
            if *function == Function::Count {
                Quantity::plain(count(reference, data).map_err(placed(*column))? as f64)
            } else {
                let values = lookup(reference, data).map_err(placed(*column))?;
                aggregate(*function, &values)
            }
        }
        Expr::Binary {
            op,
            column,
            left,
            right,
        } => {
            let (l, r) = (evaluate_tree(left, data)?, evaluate_tree(right, data)?);
            match op {
                Op::Add | Op::Sub => {
                    if l.time != r.time {
                        return Err(fail(
                            format!(
                                "cannot add or subtract a duration and a plain number (column {column})"
                            ),
                            "both sides of + and - must be durations, or both plain numbers",
                        ));
                    }
                    let value = if *op == Op::Add {
                        l.value + r.value
                    } else {
                        l.value - r.value
                    };
                    Quantity { value, ..l }
                }
                Op::Mul => Quantity {
                    value: l.value * r.value,
                    time: l.time + r.time,
                },
                Op::Div => Quantity {
                    value: l.value / r.value,
                    time: l.time - r.time,
                },
            }
        }
    })
}

fn aggregate(function: Function, values: &[Quantity]) -> Quantity {
    let time = values.first().map_or(0, |q| q.time);
    let numbers = values.iter().map(|q| q.value);
    let value = match function {
        Function::Count => values.len() as f64,
        Function::Sum => numbers.sum(),
        Function::Mean => numbers.sum::<f64>() / values.len() as f64,
        Function::Min => numbers.fold(f64::INFINITY, f64::min),
        Function::Max => numbers.fold(f64::NEG_INFINITY, f64::max),
    };
    Quantity { value, time }
}
