//! The expression language's syntax: text to tokens to a tree, each node with the column
//! where it starts. Pure: nothing is read here, so every mistake of form is found before
//! any data is touched, and reported at its column.

use crate::error::cut;
use crate::error::{Failure, Outcome, fail};

/// An aggregate over every value a reference designates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    Mean,
    Sum,
    Min,
    Max,
    Count,
}

impl Function {
    fn named(name: &str) -> Option<Function> {
        Some(match name {
            "mean" => Function::Mean,
            "sum" => Function::Sum,
            "min" => Function::Min,
            "max" => Function::Max,
            "count" => Function::Count,
            _ => return None,
        })
    }
}

/// `+`, `-`, `*`, `/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// A parsed expression. `column` is 1-based, in characters of the expression text.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Number(f64),
    /// `FILE#POINTER` or `FILE@/REGEX/`.
    Reference {
        text: String,
        column: usize,
    },
    Call {
        function: Function,
        reference: String,
        column: usize,
    },
    Negate(Box<Expr>),
    Binary {
        op: Op,
        column: usize,
        left: Box<Expr>,
        right: Box<Expr>,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Reference(String),
    Function(String),
    Op(char),
    Open,
    Close,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Number(n) => format!("the number {n}"),
            Token::Reference(r) => format!("`{}`", cut(r)),
            Token::Function(f) => format!("`{}(`", cut(f)),
            Token::Op(c) => format!("`{c}`"),
            Token::Open => "`(`".to_string(),
            Token::Close => "`)`".to_string(),
        }
    }
}

/// A problem at `column`: the column goes at the end of the message.
fn at(column: usize, message: impl Into<String>, hint: &str) -> Failure {
    fail(format!("{} (column {column})", message.into()), hint)
}

fn tokenize(text: &str) -> Outcome<Vec<(Token, usize)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => tokens.push((Token::Open, column)),
            ')' => tokens.push((Token::Close, column)),
            '+' | '-' | '*' | '/' => tokens.push((Token::Op(c), column)),
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let end = (i..chars.len())
                    .find(|&j| !(chars[j].is_ascii_digit() || chars[j] == '.'))
                    .unwrap_or(chars.len());
                let number: String = chars[i..end].iter().collect();
                let value = number.parse().map_err(|_| {
                    at(
                        column,
                        format!("`{}` is not a number", cut(&number)),
                        "write numbers like 16.5",
                    )
                })?;
                tokens.push((Token::Number(value), column));
                i = end;
                continue;
            }
            _ => {
                let end = word_end(&chars, i);
                let word: String = chars[i..end].iter().collect();
                let token = if chars.get(end) == Some(&'(') && !word.contains(['#', '/', '.']) {
                    Token::Function(word)
                } else if word.contains('#') || word.contains("@/") {
                    Token::Reference(word)
                } else {
                    return Err(at(
                        column,
                        format!(
                            "`{}` is neither a number, an operator, a function nor FILE#POINTER",
                            cut(&word)
                        ),
                        "refer to data as FILE#/json/pointer, e.g. dmesg/x.log#/cycles/0/enable_phase_ms",
                    ));
                };
                tokens.push((token, column));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    Ok(tokens)
}

/// Where a word that starts at `start` ends: at a blank or a bracket, except inside the
/// `/regex/` of `FILE@/regex/`, which may hold both.
fn word_end(chars: &[char], start: usize) -> usize {
    let mut in_regex = false;
    let mut i = start;
    while i < chars.len()
        && (in_regex || !(chars[i].is_whitespace() || chars[i] == '(' || chars[i] == ')'))
    {
        if chars[i] == '/' && i > 0 && chars[i - 1] == '@' {
            in_regex = true;
        } else if in_regex && chars[i] == '/' {
            in_regex = false;
        }
        i += 1;
    }
    i
}

/// The deepest expression tree [`parse`] builds: nested brackets, unary minus and chained
/// operators each add a level. Far beyond any figure in prose, and far below what the
/// recursive evaluator can take on a thread's stack (a rayon worker has 2 MiB).
pub const MAX_DEPTH: usize = 100;

/// Parse an expression into its tree.
pub fn parse(text: &str) -> Outcome<Expr> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Err(fail(
            "the expression is empty",
            "write FILE#POINTER, e.g. a.log#/cycles/0/enable_phase_ms",
        ));
    }
    let end = text.chars().count() + 1;
    let mut parser = Parser {
        tokens,
        at: 0,
        end,
        nesting: 0,
    };
    let (expr, _) = parser.sum()?;
    if let Some((token, column)) = parser.tokens.get(parser.at) {
        return Err(at(
            *column,
            format!("unexpected {} after the expression", token.describe()),
            "operators (+ - * /) must stand between values",
        ));
    }
    Ok(expr)
}

struct Parser {
    tokens: Vec<(Token, usize)>,
    at: usize,
    /// The column just past the text, for "the end".
    end: usize,
    /// Brackets and unary minus open at this point of the descent.
    nesting: usize,
}

/// An expression and the depth of its tree.
type Node = (Expr, usize);

/// The failure when a tree would be deeper than [`MAX_DEPTH`] at `column`.
fn too_deep(column: usize) -> Failure {
    at(
        column,
        format!("the expression nests deeper than {MAX_DEPTH} levels"),
        "split it over several directives, or aggregate with sum(), mean(), min() or max() over a pointer instead of chaining operators",
    )
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    /// The next token and its column (`None` at the end, with the end column).
    fn next(&mut self) -> (Option<Token>, usize) {
        match self.tokens.get(self.at).cloned() {
            Some((token, column)) => {
                self.at += 1;
                (Some(token), column)
            }
            None => (None, self.end),
        }
    }

    fn binary(&mut self, ops: [char; 2], operand: fn(&mut Self) -> Outcome<Node>) -> Outcome<Node> {
        let (mut left, mut depth) = operand(self)?;
        while let Some(Token::Op(c)) = self.peek().cloned()
            && ops.contains(&c)
        {
            let (_, column) = self.next();
            let (right, right_depth) = operand(self)?;
            depth = depth.max(right_depth) + 1;
            if depth > MAX_DEPTH {
                return Err(too_deep(column));
            }
            let op = match c {
                '+' => Op::Add,
                '-' => Op::Sub,
                '*' => Op::Mul,
                _ => Op::Div,
            };
            left = Expr::Binary {
                op,
                column,
                left: Box::new(left),
                right: Box::new(right),
            };
        }
        Ok((left, depth))
    }

    fn sum(&mut self) -> Outcome<Node> {
        self.binary(['+', '-'], Self::product)
    }

    fn product(&mut self) -> Outcome<Node> {
        self.binary(['*', '/'], Self::factor)
    }

    /// A bracketed expression or a negation: one level deeper, refused before the descent
    /// when that is too deep (the descent itself is what would overflow the stack).
    fn nested(&mut self, column: usize, inner: fn(&mut Self) -> Outcome<Node>) -> Outcome<Node> {
        if self.nesting >= MAX_DEPTH {
            return Err(too_deep(column));
        }
        self.nesting += 1;
        let node = inner(self);
        self.nesting -= 1;
        node
    }

    fn factor(&mut self) -> Outcome<Node> {
        let (token, column) = self.next();
        match token {
            Some(Token::Number(n)) => Ok((Expr::Number(n), 1)),
            Some(Token::Op('-')) => {
                let (inner, depth) = self.nested(column, Self::factor)?;
                Ok((Expr::Negate(Box::new(inner)), depth + 1))
            }
            Some(Token::Open) => {
                let inner = self.nested(column, Self::sum)?;
                match self.next() {
                    (Some(Token::Close), _) => Ok(inner),
                    _ => Err(at(
                        column,
                        "this `(` is not closed",
                        "balance the parentheses",
                    )),
                }
            }
            Some(Token::Reference(text)) => Ok((Expr::Reference { text, column }, 1)),
            Some(Token::Function(name)) => Ok((self.call(&name, column)?, 1)),
            other => Err(at(
                column,
                format!(
                    "expected a value, found {}",
                    other.map_or("the end".to_string(), |t| t.describe())
                ),
                "an expression is FILE#POINTER, a number, a function or a bracketed expression",
            )),
        }
    }

    /// `name(FILE#POINTER)`, the function's name already read.
    fn call(&mut self, name: &str, column: usize) -> Outcome<Expr> {
        let function = Function::named(name).ok_or_else(|| {
            at(
                column,
                format!("unknown function `{}`", cut(name)),
                "use mean, sum, min, max or count",
            )
        })?;
        if self.next().0 != Some(Token::Open) {
            return Err(at(
                column,
                format!("`{name}` needs `(`"),
                "write e.g. mean(FILE#POINTER)",
            ));
        }
        let reference = match self.next() {
            (Some(Token::Reference(r)), _) => r,
            (_, arg_column) => {
                return Err(at(
                    arg_column,
                    format!("{name}() takes one FILE#POINTER"),
                    "the file may be a glob and the pointer may use * for array elements",
                ));
            }
        };
        if self.next().0 != Some(Token::Close) {
            return Err(at(
                column,
                format!("{name}( is not closed"),
                "write e.g. mean(FILE#POINTER)",
            ));
        }
        Ok(Expr::Call {
            function,
            reference,
            column,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(text: &str, column: usize) -> Box<Expr> {
        Box::new(Expr::Reference {
            text: text.into(),
            column,
        })
    }

    #[test]
    fn precedence_and_columns() {
        let tree = parse("a#/x - b#/y * 2").unwrap();
        assert_eq!(
            tree,
            Expr::Binary {
                op: Op::Sub,
                column: 6,
                left: reference("a#/x", 1),
                right: Box::new(Expr::Binary {
                    op: Op::Mul,
                    column: 13,
                    left: reference("b#/y", 8),
                    right: Box::new(Expr::Number(2.0)),
                }),
            }
        );
        assert_eq!(
            parse("max(f@/a (b) c/)").unwrap(),
            Expr::Call {
                function: Function::Max,
                reference: "f@/a (b) c/".into(),
                column: 1
            }
        );
    }

    #[test]
    fn mistakes_point_at_their_column() {
        for (text, needle) in [
            (
                "1 + x",
                "`x` is neither a number, an operator, a function nor FILE#POINTER (column 5)",
            ),
            ("(1 + 2", "this `(` is not closed (column 1)"),
            (
                "1 2",
                "unexpected the number 2 after the expression (column 3)",
            ),
            ("1 +", "expected a value, found the end (column 4)"),
            ("median(a#/x)", "unknown function `median` (column 1)"),
            ("mean(1)", "mean() takes one FILE#POINTER (column 6)"),
            ("1.2.3", "`1.2.3` is not a number (column 1)"),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.message, needle, "{text}");
            assert!(e.hint.is_some(), "{text}");
        }
        assert!(parse("  ").unwrap_err().message.contains("empty"));
    }

    #[test]
    fn deep_trees_are_refused_at_their_column_without_overflowing_the_stack() {
        let n = 100_000;
        let brackets = format!("{}1{}", "(".repeat(n), ")".repeat(n));
        let minus = format!("{}1", "- ".repeat(n));
        let sum = vec!["1"; n].join(" + ");
        // On a thread with the stack of a rayon worker (2 MiB): the limit fires first.
        let results = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || [parse(&brackets), parse(&minus), parse(&sum)])
            .unwrap()
            .join()
            .expect("no stack overflow");
        let columns = [MAX_DEPTH + 1, 2 * MAX_DEPTH + 1, 4 * MAX_DEPTH - 1];
        for (result, column) in results.into_iter().zip(columns) {
            let e = result.unwrap_err();
            assert_eq!(
                e.message,
                format!("the expression nests deeper than {MAX_DEPTH} levels (column {column})")
            );
        }
        // At the limit, all three still parse.
        let at_limit = |e: &str| parse(e).map(|_| ()).map_err(|f| f.message);
        let k = MAX_DEPTH - 1;
        assert_eq!(
            at_limit(&format!("{}1{}", "(".repeat(k), ")".repeat(k))),
            Ok(())
        );
        assert_eq!(at_limit(&format!("{}1", "- ".repeat(k))), Ok(()));
        assert_eq!(at_limit(&vec!["1"; MAX_DEPTH].join(" + ")), Ok(()));
    }
}
