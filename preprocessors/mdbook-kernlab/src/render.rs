//! HTML and SVG through handlebars templates.
//!
//! The built-in templates are the files in the repository's `theme/kernlab/`, compiled in;
//! a book overrides any of them by putting a file of the same name in its own template
//! directory (`[preprocessor.kernlab] templates`, default `theme/kernlab`).

use std::path::Path;

use handlebars::Handlebars;
use serde::Serialize;

use crate::error::{Failure, fail};

macro_rules! builtin {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../../theme/kernlab/", $name, ".hbs")))),*]
    };
}

/// Every template, by name.
pub const BUILTIN: [(&str, &str); 9] = builtin![
    "log", "table", "hbar", "figure", "code", "value", "sym", "thread", "ref",
];

/// The template registry of one run.
pub struct Templates {
    registry: Handlebars<'static>,
}

impl Templates {
    /// Built-in templates, overridden by `NAME.hbs` files in `dir` when it exists.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        registry.set_prevent_indent(true);
        for (name, source) in BUILTIN {
            let path = dir.join(format!("{name}.hbs"));
            let text = if path.is_file() {
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?
            } else {
                source.to_string()
            };
            registry
                .register_template_string(name, text)
                .map_err(|e| format!("template {}: {e}", path.display()))?;
        }
        Ok(Templates { registry })
    }

    /// Render a template. The result is made safe to embed in Markdown as an HTML block:
    /// no blank lines (which would end the block) and no trailing spaces.
    pub fn render<T: Serialize>(&self, name: &str, data: &T) -> Result<String, Failure> {
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

/// Escape text for HTML (handlebars' escaping, the one the templates use).
pub fn escape(text: &str) -> String {
    handlebars::html_escape(text)
}
