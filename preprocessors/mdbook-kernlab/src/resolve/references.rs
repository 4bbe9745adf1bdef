//! The kernel symbol index and the thread index, for links in the prose.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Outcome, fail};

/// What a symbol is; decides how its name is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Function,
    Macro,
    Variable,
    Constant,
    File,
}

/// One entry of `symbols.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub path: String,
    /// Kernel version tag -> line of the definition (`null` for a whole file).
    pub lines: BTreeMap<String, Option<u32>>,
    #[serde(default)]
    pub fixed: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SymbolFile {
    pinned: String,
    symbols: Vec<Symbol>,
}

/// A resolved link to a definition on elixir.bootlin.com.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolLink {
    pub url: String,
    pub text: String,
    pub path: String,
    pub line: Option<u32>,
    pub version: String,
}

/// Read and deserialize one index file (size and nesting bounded like data files); errors
/// name the file and, where the parser knows it, the line.
fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<(T, String), String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if size > crate::resolve::data::MAX_DOCUMENT_BYTES {
        return Err(format!(
            "{}: {} bytes, more than the {} MiB an index may have; keep one entry per symbol or thread the book links to",
            path.display(),
            size,
            crate::resolve::data::MAX_DOCUMENT_BYTES >> 20
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value = kernlog::parse::yaml::from_str(&text).map_err(|e| {
        let line = e.location().map_or(String::new(), |l| format!(":{}", l.line));
        format!(
            "{}{line}: not an index of the kind book.toml says it is: {} (the format is in mdbook-kernlab's README, `symbols.yaml` and `threads.yaml`)",
            path.display(),
            crate::error::short(&e)
        )
    })?;
    Ok((value, text))
}

/// `path:LINE`, the line being the `nth` (from 1) holding `field: value` (`- ` and quotes
/// allowed), or `path` alone when none does.
fn place(path: &Path, text: &str, field: &str, value: &str, nth: usize) -> String {
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start().trim_start_matches("- ").trim_start();
            l.strip_prefix(field)
                .and_then(|r| r.strip_prefix(':'))
                .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == value)
        })
        .nth(nth.saturating_sub(1))
        .map_or(String::new(), |(i, _)| format!(":{}", i + 1));
    format!("{}{line}", path.display())
}

/// A name, path, version, key or URL: it goes into a link, so it holds no blank and no
/// control character.
fn check_word(path: &Path, text: &str, field: &str, value: &str) -> Result<(), String> {
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "{}: `{field}: {}` is empty or holds a blank or a control character; {field} values are single words",
            place(path, text, field, value, 1),
            views::escape(value)
        ));
    }
    Ok(())
}

/// Where an index was looked for, so that the hint for an unknown name says which file to edit.
#[derive(Debug, Default)]
struct IndexFile {
    path: String,
    missing: bool,
}

impl IndexFile {
    fn new(path: &Path, missing: bool) -> Self {
        IndexFile {
            path: path.display().to_string(),
            missing,
        }
    }

    /// The file, or "the KIND index" when none was named.
    fn shown(&self, kind: &str) -> String {
        if self.path.is_empty() {
            format!("the {kind} index")
        } else {
            self.path.clone()
        }
    }

    /// The hint for a `name` the index of `kind` (`symbol` or `thread`) lacks: the nearest
    /// of its `names`, or how to add `entry`.
    fn unknown<'a>(
        &self,
        name: &str,
        names: impl Iterator<Item = &'a String>,
        kind: &str,
        entry: &str,
    ) -> String {
        match closest(name, names) {
            Some(best) => format!(
                "did you mean `{best}`? The {kind}s are listed in {}",
                self.shown(kind)
            ),
            None => self.add(entry, kind),
        }
    }

    /// How to add `entry` to the index of `kind`.
    fn add(&self, entry: &str, kind: &str) -> String {
        if self.missing {
            format!(
                "there is no {kind} index at {}: create it (its format is in mdbook-kernlab's README) and add {entry}, or point `{kind}s` under [preprocessor.kernlab] in book.toml at yours",
                self.path
            )
        } else {
            format!("add {entry} to {}", self.shown(kind))
        }
    }
}

/// The symbol index.
#[derive(Debug, Default)]
pub struct Symbols {
    pinned: String,
    by_name: BTreeMap<String, Symbol>,
    file: IndexFile,
}

impl Symbols {
    /// An empty index for a book without `path`: every symbol is unknown, and the hint says
    /// where the index was looked for.
    pub fn missing(path: &Path) -> Self {
        Symbols {
            file: IndexFile::new(path, true),
            ..Symbols::default()
        }
    }

    /// Read a symbol index (`symbols.yaml`, its format in the README).
    pub fn load(path: &Path) -> Result<Self, String> {
        let (file, text): (SymbolFile, String) = read_yaml(path)?;
        check_word(path, &text, "pinned", &file.pinned)?;
        let mut by_name = BTreeMap::new();
        for s in file.symbols {
            check_word(path, &text, "name", &s.name)?;
            check_word(path, &text, "path", &s.path)?;
            for version in s.lines.keys() {
                check_word(path, &text, "version", version)?;
            }
            if !s.lines.contains_key(&file.pinned) && s.lines.is_empty() {
                return Err(format!(
                    "{}: symbol {} has no line",
                    place(path, &text, "name", &s.name, 1),
                    s.name
                ));
            }
            if let Some(old) = by_name.insert(s.name.clone(), s) {
                return Err(format!(
                    "{}: symbol {} is listed twice",
                    place(path, &text, "name", &old.name, 2),
                    old.name
                ));
            }
        }
        Ok(Symbols {
            pinned: file.pinned,
            by_name,
            file: IndexFile::new(path, false),
        })
    }

    /// The link for `name`, at the pinned version or at `version`.
    pub fn link(&self, name: &str, version: Option<&str>) -> Outcome<SymbolLink> {
        let symbol = self.by_name.get(name).ok_or_else(|| {
            let hint = self.file.unknown(
                name,
                self.by_name.keys(),
                "symbol",
                "the symbol, its file and its definition line",
            );
            fail(format!("unknown kernel symbol `{name}`"), hint)
        })?;
        let version = version.unwrap_or(&self.pinned);
        let line = *symbol.lines.get(version).ok_or_else(|| {
            fail(
                format!("no line of `{name}` is recorded for {version}"),
                format!(
                    "known versions: {}",
                    symbol.lines.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        let text = match symbol.kind {
            SymbolKind::Function => format!("{}()", symbol.name),
            SymbolKind::File => symbol
                .path
                .rsplit('/')
                .next()
                .unwrap_or(&symbol.path)
                .to_string(),
            _ => symbol.name.clone(),
        };
        let anchor = line.map_or(String::new(), |l| format!("#L{l}"));
        Ok(SymbolLink {
            url: format!(
                "https://elixir.bootlin.com/linux/{version}/source/{}{anchor}",
                symbol.path
            ),
            text,
            path: symbol.path.clone(),
            line,
            version: version.to_string(),
        })
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// One entry of `threads.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thread {
    pub key: String,
    pub source: String,
    pub title: String,
    pub url: String,
    pub prov: String,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadFile {
    threads: Vec<Thread>,
}

/// The thread index.
#[derive(Debug, Default)]
pub struct Threads {
    by_key: BTreeMap<String, Thread>,
    file: IndexFile,
}

impl Threads {
    /// An empty index for a book without `path` (see [`Symbols::missing`]).
    pub fn missing(path: &Path) -> Self {
        Threads {
            file: IndexFile::new(path, true),
            ..Threads::default()
        }
    }

    /// Read a thread index (`threads.yaml`, its format in the README).
    pub fn load(path: &Path) -> Result<Self, String> {
        let (file, text): (ThreadFile, String) = read_yaml(path)?;
        let mut by_key = BTreeMap::new();
        for t in file.threads {
            check_word(path, &text, "key", &t.key)?;
            check_word(path, &text, "url", &t.url)?;
            if !t.url.starts_with("https://") {
                return Err(format!(
                    "{}: thread {} has no https URL",
                    place(path, &text, "key", &t.key, 1),
                    t.key
                ));
            }
            if let Some(old) = by_key.insert(t.key.clone(), t) {
                return Err(format!(
                    "{}: thread {} is listed twice",
                    place(path, &text, "key", &old.key, 2),
                    old.key
                ));
            }
        }
        Ok(Threads {
            by_key,
            file: IndexFile::new(path, false),
        })
    }

    pub fn get(&self, key: &str) -> Outcome<&Thread> {
        self.by_key.get(key).ok_or_else(|| {
            let hint = self.file.unknown(
                key,
                self.by_key.keys(),
                "thread",
                "its key, source, title, url and prov",
            );
            fail(format!("unknown thread `{key}`"), hint)
        })
    }
}

fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a String>) -> Option<&'a String> {
    candidates
        .map(|c| (strsim::levenshtein(name, c), c))
        .filter(|(d, c)| *d <= 3.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn symbols_link_to_their_pinned_line_and_suggest_near_names() {
        let (_d, path) = fixture(
            "symbols.yaml",
            "pinned: v6.16.6\nsymbols:\n- name: pat_bp_init\n  kind: function\n  path: arch/x86/mm/pat/memtype.c\n  lines:\n    v6.16.6: 250\n    v7.3.4: 251\n",
        );
        let s = Symbols::load(&path).unwrap();
        assert_eq!(s.len(), 1);
        let l = s.link("pat_bp_init", None).unwrap();
        assert_eq!(
            l.url,
            "https://elixir.bootlin.com/linux/v6.16.6/source/arch/x86/mm/pat/memtype.c#L250"
        );
        assert_eq!(l.text, "pat_bp_init()");
        assert_eq!(
            s.link("pat_bp_init", Some("v7.3.4")).unwrap().line,
            Some(251)
        );
        let err = s.link("pat_bt_init", None).unwrap_err();
        assert!(err.hint.unwrap().contains("pat_bp_init"));
        assert!(s.link("pat_bp_init", Some("v2.6.32")).is_err());
    }

    #[test]
    fn an_unknown_name_is_sent_to_the_index_file_or_told_the_file_is_missing() {
        let (_d, path) = fixture(
            "symbols.yaml",
            "pinned: v7.3.4\nsymbols:\n- name: cache_aps_init\n  kind: function\n  path: a.c\n  lines:\n    v7.3.4: 1\n",
        );
        let hint = |e: crate::error::Failure| e.hint.unwrap();
        let s = Symbols::load(&path).unwrap();
        let h = hint(s.link("stop_machine", None).unwrap_err());
        assert!(
            h.starts_with("add the symbol") && h.ends_with("symbols.yaml"),
            "{h}"
        );
        let h = hint(s.link("cache_ap_init", None).unwrap_err());
        assert!(
            h.contains("`cache_aps_init`") && h.ends_with("symbols.yaml"),
            "{h}"
        );
        // The starter notebook has no index until its author writes one.
        let none = Path::new("data/references/symbols.yaml");
        let h = hint(
            Symbols::missing(none)
                .link("stop_machine", None)
                .unwrap_err(),
        );
        assert!(
            h.starts_with("there is no symbol index at data/references/symbols.yaml: create it"),
            "{h}"
        );
        assert!(h.contains("`symbols` under [preprocessor.kernlab]"), "{h}");
        let none = Path::new("refs/threads.yaml");
        let h = hint(Threads::missing(none).get("fix-2026").unwrap_err());
        assert!(
            h.starts_with("there is no thread index at refs/threads.yaml"),
            "{h}"
        );
        assert!(h.contains("`threads` under"), "{h}");
    }

    #[test]
    fn threads_by_key_with_a_suggestion() {
        let (_d, path) = fixture(
            "threads.yaml",
            "threads:\n  - key: fix-2026\n    source: x\n    title: The fix\n    url: https://lore.kernel.org/all/x/\n    prov: derived\n",
        );
        let threads = Threads::load(&path).unwrap();
        let fix = threads.get("fix-2026").unwrap();
        assert_eq!(fix.url, "https://lore.kernel.org/all/x/");
        let unknown = threads.get("fix-2025").unwrap_err();
        assert!(unknown.message.contains("fix-2025"), "{unknown:?}");
        assert!(unknown.hint.is_some_and(|h| h.contains("fix-2026")));
    }

    #[test]
    fn broken_indexes_are_reported_with_their_file_and_line() {
        let entry = "  - key: a\n    source: x\n    title: A\n    url: https://lore.kernel.org/a/\n    prov: derived\n";
        let cases = [
            (
                format!("threads:\n{entry}{entry}"),
                ":7: thread a is listed twice",
            ),
            (
                "threads:\n  - key: a\n    title: A\n".to_string(),
                ":2: not an index of the kind book.toml says it is: threads[0]: missing field `source`",
            ),
            (
                entry
                    .replace("https://lore.kernel.org/a/", "http://x/")
                    .replace("  - ", "threads:\n  - "),
                ":2: thread a has no https URL",
            ),
            (
                format!(
                    "threads:\n{}",
                    entry
                        .replace("/a/", "/a/\\n[x](javascript:alert(1))")
                        .replace("url: ", "url: \"")
                        .replace("prov", "\"\n    prov")
                ),
                ": `url: https://lore.kernel.org/a/&#10;[x](javascript:alert(1)) ` is empty or holds a blank",
            ),
        ];
        for (text, wanted) in cases {
            let (_d, path) = fixture("threads.yaml", &text);
            let e = Threads::load(&path).unwrap_err();
            assert!(e.starts_with(&path.display().to_string()), "{e}");
            assert!(e.contains(wanted), "{e}\nwanted: {wanted}\n{text}");
        }
        let (_d, path) = fixture(
            "symbols.yaml",
            "pinned: v6.16.6\nsymbols:\n- name: f\n  kind: function\n  path: \"a.c\\n\\n![x](https://tracker.invalid/x.png)\"\n  lines:\n    v6.16.6: 1\n",
        );
        let e = Symbols::load(&path).unwrap_err();
        assert!(
            e.contains(
                "`path: a.c&#10;&#10;![x](https://tracker.invalid/x.png)` is empty or holds a blank"
            ),
            "{e}"
        );
    }
}
