//! HTML and SVG through handlebars templates.
//!
//! The built-in templates are the files in the crate's `assets/templates/`, compiled in;
//! a caller may replace any of them with a text of its own ([`Templates::with_overrides`]),
//! as mdbook-kernlab does with the files of a book's template directory.

use handlebars::Handlebars;
use serde::Serialize;

use crate::error::{Result, fail};
use crate::escape::escape;

macro_rules! builtin {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../assets/templates/", $name, ".hbs")))),*]
    };
}

/// Every template, by name.
pub const BUILTIN: [(&str, &str); 11] = builtin![
    "log", "table", "hbar", "heatmap", "figure", "code", "value", "sym", "thread", "ref", "site",
];

/// A template's replacement: the built-in template it replaces, its text, and where the
/// text came from (named in messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// The name of a built-in template (see [`BUILTIN`]).
    pub name: String,
    /// The handlebars text.
    pub text: String,
    /// Where it came from, e.g. a file's path.
    pub origin: String,
}

/// A template registry: the built-in templates, some perhaps replaced.
pub struct Templates {
    registry: Handlebars<'static>,
}

impl Templates {
    /// The built-in templates alone.
    pub fn builtin() -> std::result::Result<Self, String> {
        Self::with_overrides(&[])
    }

    /// The built-in templates, those named in `overrides` replaced. An override of a name
    /// that is no template is refused rather than ignored.
    pub fn with_overrides(overrides: &[Override]) -> std::result::Result<Self, String> {
        if let Some(o) = overrides
            .iter()
            .find(|o| !BUILTIN.iter().any(|(name, _)| *name == o.name))
        {
            return Err(format!(
                "{}: `{}` overrides no template; the templates are: {}",
                o.origin,
                o.name,
                BUILTIN.map(|(name, _)| name).join(", ")
            ));
        }
        let mut registry = Handlebars::new();
        registry.register_escape_fn(escape);
        registry.set_strict_mode(true);
        registry.set_prevent_indent(true);
        for (name, source) in BUILTIN {
            let (text, shown) = match overrides.iter().find(|o| o.name == name) {
                Some(o) => (o.text.clone(), o.origin.clone()),
                None => (source.to_string(), format!("{name} (built in)")),
            };
            registry
                .register_template_string(name, text)
                .map_err(|e| format!("template {shown}: {e}"))?;
        }
        Ok(Templates { registry })
    }

    /// Render a template. The result is made safe to embed in Markdown as an HTML block:
    /// no blank lines (which would end the block) and no trailing spaces.
    pub fn render<T: Serialize>(&self, name: &str, data: &T) -> Result<String> {
        let html = self.registry.render(name, data).map_err(|e| {
            fail(
                format!("template `{name}` failed: {e}"),
                "if the book overrides this template, compare it with the built-in one",
            )
        })?;
        Ok(html
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replacing(name: &str, text: &str) -> Override {
        Override {
            name: name.into(),
            text: text.into(),
            origin: format!("theme/{name}.hbs"),
        }
    }

    #[test]
    fn an_override_replaces_its_template_and_one_of_no_template_is_refused() {
        let t = Templates::with_overrides(&[replacing("value", "<b>{{text}}</b>")]).unwrap();
        #[derive(Serialize)]
        struct Value<'a> {
            text: &'a str,
        }
        assert_eq!(
            t.render("value", &Value { text: "<x>" }).unwrap(),
            "<b>&lt;x&gt;</b>"
        );
        let e = Templates::with_overrides(&[replacing("hbars", "x")])
            .err()
            .unwrap();
        assert!(
            e.starts_with("theme/hbars.hbs: `hbars` overrides no template"),
            "{e}"
        );
    }

    #[test]
    fn a_broken_override_names_where_it_came_from() {
        let e = Templates::with_overrides(&[replacing("figure", "{{#if}}")])
            .err()
            .unwrap();
        assert!(e.starts_with("template theme/figure.hbs: "), "{e}");
    }
}
