//! Inline directives, `{{kl:NAME ARGS}}`:
//!
//! | form | renders |
//! | --- | --- |
//! | `{{kl:value EXPR unit=s digits=1}}` | a number computed from data, e.g. `16.6 s` |
//! | `{{kl:claim EXPR stated=16.5 unit=s tol=0.1}}` | the stated number; the build fails if the data disagrees by more than `tol` |
//! | `{{kl:compare EXPR stated=16.5 unit=s}}` | the stated number with the computed one beside it |
//! | `{{kl:reported 20 s}}` | a number reported without data, marked as such |
//! | `{{kl:text FILE#POINTER}}` | a text field of a data file, e.g. a table cell |
//! | `{{kl:sym NAME}}`, `{{kl:sym NAME@v7.3.4}}` | a link to the symbol's definition on elixir.bootlin.com |
//! | `{{kl:thread KEY}}` | a link to a mailing-list thread or commit |
//! | `{{kl:ref ID}}` | "Figure 2.3", linked |
//!
//! EXPR is described in [`crate::expr`]. Options are `key=value` or `key="several words"`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::Engine;
use crate::error::{Outcome, fail};
use crate::resolve::book_index::BookIndex;
use crate::resolve::expr::{Unit, evaluate, format_value};

/// Split on blanks, keeping `"quoted text"` together; `key=value` pairs become options.
fn split_args(text: &str) -> Outcome<(Vec<String>, BTreeMap<String, String>)> {
    let mut words = Vec::new();
    let mut options = BTreeMap::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut push = |word: &mut String, words: &mut Vec<String>| -> Outcome<()> {
        if word.is_empty() {
            return Ok(());
        }
        let w = std::mem::take(word);
        match w.split_once('=') {
            Some((k, v)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase()) => {
                if options
                    .insert(k.to_string(), v.trim_matches('"').to_string())
                    .is_some()
                {
                    return Err(fail(
                        format!("option `{k}` is given twice"),
                        "give each option once",
                    ));
                }
            }
            _ => words.push(w),
        }
        Ok(())
    };
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                word.push(c);
            }
            c if c.is_whitespace() && !quoted => push(&mut word, &mut words)?,
            c => word.push(c),
        }
    }
    if quoted {
        return Err(fail("a `\"` is not closed", "close the quoted text"));
    }
    push(&mut word, &mut words)?;
    Ok((words, options))
}

fn check_options(options: &BTreeMap<String, String>, allowed: &[&str], form: &str) -> Outcome<()> {
    for key in options.keys() {
        if !allowed.contains(&key.as_str()) {
            return Err(fail(
                format!("`{form}` has no option `{key}`"),
                if allowed.is_empty() {
                    format!("`{form}` takes no options")
                } else {
                    format!("its options are: {}", allowed.join(", "))
                },
            ));
        }
    }
    Ok(())
}

#[derive(Serialize, Default)]
struct ValueModel {
    class: &'static str,
    title: String,
    text: String,
    computed: String,
    reported: String,
}

/// A finite number option; NaN and infinities are refused, since every comparison with
/// them would let a claim pass or fail for no reason.
fn number_option(options: &BTreeMap<String, String>, key: &str) -> Outcome<Option<f64>> {
    options
        .get(key)
        .map(|v| match v.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(n),
            _ => Err(fail(
                format!("`{key}={}` is not a finite number", crate::error::cut(v)),
                format!("write e.g. {key}=16.5"),
            )),
        })
        .transpose()
}

fn digits_option(options: &BTreeMap<String, String>) -> Outcome<Option<usize>> {
    number_option(options, "digits")?
        .map(|d| crate::resolve::expr::check_digits(d, "digits"))
        .transpose()
}

fn decimals_of(text: &str) -> usize {
    text.split_once('.').map_or(0, |(_, f)| f.len())
}

/// Render one inline directive.
pub fn render(engine: &Engine, text: &str, figures: &BookIndex, chapter: &str) -> Outcome<String> {
    let (form, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let (words, options) = split_args(rest)?;
    let expression = words.join(" ");
    match form {
        "value" | "claim" | "compare" => {
            let allowed: &[&str] = match form {
                "value" => &["unit", "digits"],
                "claim" => &["unit", "stated", "tol"],
                _ => &["unit", "stated", "digits"],
            };
            check_options(&options, allowed, form)?;
            let q = evaluate(&expression, &engine.data)?;
            let unit = Unit::parse(
                options
                    .get("unit")
                    .map_or(if q.time == 1 { "s" } else { "none" }, String::as_str),
            )?;
            let computed = unit.convert(q)?;
            let title = format!("computed from {expression}");
            let model = match form {
                "value" => {
                    let digits = digits_option(&options)?.unwrap_or(1);
                    ValueModel {
                        class: "kl-computed-value",
                        title,
                        text: format_value(computed, digits, unit),
                        ..ValueModel::default()
                    }
                }
                _ => {
                    let stated_text = options.get("stated").ok_or_else(|| {
                        fail(
                            format!("`{form}` needs `stated=`"),
                            "give the number the prose states, e.g. stated=16.5",
                        )
                    })?;
                    let stated = number_option(&options, "stated")?.unwrap_or_default();
                    let digits = decimals_of(stated_text);
                    if digits > crate::resolve::expr::MAX_DIGITS {
                        return Err(fail(
                            format!(
                                "`stated={}` has {digits} decimals",
                                crate::error::cut(stated_text)
                            ),
                            format!(
                                "state the number as the prose does, with at most {} decimals",
                                crate::resolve::expr::MAX_DIGITS
                            ),
                        ));
                    }
                    if form == "claim" {
                        let tol = number_option(&options, "tol")?
                            .unwrap_or(0.5 * 10f64.powi(-(digits as i32)));
                        if tol < 0.0 {
                            return Err(fail(
                                format!("`tol={tol}` is negative"),
                                "the tolerance is how far the data may be from the stated number: 0 or more",
                            ));
                        }
                        if (computed - stated).abs() > tol + 1e-12 {
                            return Err(fail(
                                format!(
                                    "the prose says {}, the data says {} (difference {}, tolerance {})",
                                    format_value(stated, digits, unit),
                                    format_value(computed, digits + 3, unit),
                                    format_value((computed - stated).abs(), digits + 3, unit),
                                    format_value(tol, digits + 3, unit),
                                ),
                                "correct the number in the prose, or use {{kl:compare ...}} to show both",
                            ));
                        }
                        ValueModel {
                            class: "kl-claim",
                            title: format!("{title}: {}", format_value(computed, digits + 3, unit)),
                            text: format_value(stated, digits, unit),
                            ..ValueModel::default()
                        }
                    } else {
                        let shown = digits_option(&options)?.unwrap_or(digits + 2);
                        ValueModel {
                            class: "kl-compare",
                            title,
                            text: format_value(stated, digits, unit),
                            computed: format_value(computed, shown, unit),
                            ..ValueModel::default()
                        }
                    }
                }
            };
            Ok(engine.templates.render("value", &model)?)
        }
        "text" => {
            check_options(&options, &[], form)?;
            let [reference] = words.as_slice() else {
                return Err(fail(
                    "`text` takes one FILE#POINTER",
                    "write e.g. {{kl:text t.yaml#/rows/0/name}}",
                ));
            };
            let (file, pointer) = reference
                .split_once('#')
                .ok_or_else(|| fail(format!("`{reference}` has no `#`"), "write FILE#POINTER"))?;
            let doc = engine.data.document(file)?;
            let found = crate::resolve::expr::select(&doc, pointer.trim_start_matches('/'));
            let [value] = found.as_slice() else {
                return Err(fail(
                    format!("`{reference}` designates {} values, not one", found.len()),
                    "check the pointer against the file",
                ));
            };
            let scalar = |v: &serde_json::Value| match v {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => Some(v.to_string()),
                _ => None,
            };
            let text = match *value {
                serde_json::Value::Null => {
                    return Err(fail(
                        format!("`{reference}` is null"),
                        "point at a field with a value",
                    ));
                }
                serde_json::Value::Array(items) => items
                    .iter()
                    .map(scalar)
                    .collect::<Option<Vec<_>>>()
                    .map(|v| v.join(", ")),
                other => scalar(other),
            }
            .ok_or_else(|| {
                fail(
                    format!("`{reference}` is a structure, not text"),
                    "point at one of its text or number fields, or show it with a `table:` block",
                )
            })?;
            Ok(engine.templates.render(
                "value",
                &ValueModel {
                    class: "kl-data-text",
                    title: format!("from {reference}"),
                    text,
                    ..ValueModel::default()
                },
            )?)
        }
        "reported" => {
            check_options(&options, &["by"], form)?;
            if words.is_empty() {
                return Err(fail(
                    "`reported` needs the figure",
                    "write e.g. {{kl:reported 20 s}}",
                ));
            }
            let by = options
                .get("by")
                .map(|key| engine.threads.get(key).map(|t| format!(" by {}", t.title)))
                .transpose()?
                .unwrap_or_default();
            Ok(engine.templates.render(
                "value",
                &ValueModel {
                    class: "kl-reported",
                    title: format!("reported{by}, without data to recompute it"),
                    text: words.join("\u{a0}"),
                    reported: "reported".into(),
                    ..ValueModel::default()
                },
            )?)
        }
        "sym" => {
            check_options(&options, &["text"], form)?;
            let [name] = words.as_slice() else {
                return Err(fail(
                    "`sym` takes one symbol name",
                    "write e.g. {{kl:sym cache_bp_restore}}",
                ));
            };
            let (name, version) = match name.split_once('@') {
                Some((n, v)) => (n, Some(v)),
                None => (name.as_str(), None),
            };
            let link = engine.symbols.link(name, version)?;
            #[derive(Serialize)]
            struct Sym<'a> {
                url: &'a str,
                text: &'a str,
                path: &'a str,
                line: String,
                version: &'a str,
            }
            Ok(engine.templates.render(
                "sym",
                &Sym {
                    url: &link.url,
                    text: options.get("text").unwrap_or(&link.text),
                    path: &link.path,
                    line: link.line.map_or("-".to_string(), |l| l.to_string()),
                    version: &link.version,
                },
            )?)
        }
        "thread" => {
            check_options(&options, &["text"], form)?;
            let [key] = words.as_slice() else {
                return Err(fail(
                    "`thread` takes one key",
                    "write e.g. {{kl:thread chen-yu-2017}}",
                ));
            };
            let t = engine.threads.get(key)?;
            #[derive(Serialize)]
            struct Link<'a> {
                url: &'a str,
                title: &'a str,
                text: &'a str,
            }
            Ok(engine.templates.render(
                "thread",
                &Link {
                    url: &t.url,
                    title: &t.title,
                    text: options.get("text").unwrap_or(&t.title),
                },
            )?)
        }
        "site" => {
            check_options(&options, &[], form)?;
            let [path] = words.as_slice() else {
                return Err(fail(
                    "`site` takes one path",
                    "write e.g. {{kl:site /journey#changes-after-resume}}",
                ));
            };
            if !path.starts_with('/') || path.contains(char::is_whitespace) {
                return Err(fail(
                    format!("`{}` is not a path of the site", crate::error::cut(path)),
                    "write a path that starts with `/`, e.g. /journey#changes-after-resume",
                ));
            }
            let site = engine.config.site.as_deref().ok_or_else(|| {
                fail(
                    "book.toml names no `site` for `{{kl:site}}`",
                    "add `site = \"https://...\"` under [preprocessor.kernlab]",
                )
            })?;
            #[derive(Serialize)]
            struct Site {
                url: String,
            }
            Ok(engine.templates.render(
                "site",
                &Site {
                    url: format!("{}{path}", site.trim_end_matches('/')),
                },
            )?)
        }
        "ref" => {
            check_options(&options, &[], form)?;
            let [id] = words.as_slice() else {
                return Err(fail(
                    "`ref` takes one id",
                    "write e.g. {{kl:ref fig-bringup}}",
                ));
            };
            let (href, label) = figures.link(id, chapter)?;
            #[derive(Serialize)]
            struct Ref {
                href: String,
                label: String,
            }
            Ok(engine.templates.render("ref", &Ref { href, label })?)
        }
        other => Err(fail(
            format!("unknown inline directive `{other}`"),
            "use value, claim, compare, reported, text, sym, thread or ref",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let (w, o) = split_args(r#"a.log#/x - b.log#/y unit=s text="two words""#).unwrap();
        assert_eq!(w, ["a.log#/x", "-", "b.log#/y"]);
        assert_eq!(o["unit"], "s");
        assert_eq!(o["text"], "two words");
        assert!(split_args("unit=s unit=ms").is_err());
        assert!(split_args("\"open").is_err());
    }
}
