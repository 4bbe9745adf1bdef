//! Numbered figures, tables and listings, and references to them across chapters.

use std::collections::{BTreeMap, BTreeSet};

use globset::{Glob, GlobMatcher};
use serde_json::Value;

use crate::error::{Outcome, fail};
use crate::parse::directive::{KINDS, common};
use crate::parse::scan::{Found, scan};

#[derive(Debug, Clone)]
struct Entry {
    /// The chapter's HTML path, relative to the book root (`related/t2.html`).
    chapter: String,
    label: String,
}

/// Every captioned block of the book, numbered per chapter and kind.
#[derive(Debug, Default)]
pub struct BookIndex {
    by_id: BTreeMap<String, Entry>,
    /// Labels of each chapter's blocks in order (`None` for uncaptioned ones).
    labels: BTreeMap<String, Vec<Option<String>>>,
    /// Per chapter: (line of the block, what is repeated).
    duplicates: BTreeMap<String, Vec<(usize, String)>>,
    /// Data files (or globs) the chapters read, and the chapters' titles.
    uses: BTreeMap<String, FileUse>,
    titles: BTreeMap<String, String>,
}

/// The chapters that read one data file or glob.
#[derive(Debug)]
struct FileUse {
    /// Compiled once when the name is a glob.
    matcher: Option<GlobMatcher>,
    chapters: BTreeSet<String>,
}

impl BookIndex {
    /// Number the blocks of one chapter. `number` is mdBook's section number ("2.").
    pub fn collect(&mut self, chapter: &str, number: Option<&str>, markdown: &str) {
        let mut counters: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut labels = Vec::new();
        let headings = heading_ids(markdown);
        // Blocks without an id that show the same view of the same file: their charts would
        // share the ids of their SVG title and description.
        let mut views: BTreeSet<String> = BTreeSet::new();
        for site in scan(markdown) {
            let line = site.line + 1;
            let body = match site.found {
                Found::Block { body } => body,
                Found::Inline { text } => {
                    for word in text.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
                        if let Some((file, _)) =
                            word.split_once('#').or_else(|| word.split_once("@/"))
                        {
                            self.record_use(file, chapter);
                        }
                    }
                    continue;
                }
                Found::Code { .. } | Found::Malformed { .. } => continue,
            };
            self.record_files(&body, chapter);
            // Malformed blocks are reported when the chapter is rendered.
            let Ok(c) = common(&body) else {
                labels.push(None);
                continue;
            };
            if c.id.is_none() {
                let view = view_key(c.kind, &body);
                if !views.insert(view.clone()) {
                    self.duplicates
                        .entry(chapter.to_string())
                        .or_default()
                        .push((
                            line,
                            format!("`{view}` is shown twice on this page without an `id:`"),
                        ));
                }
            }
            if let Some(id) = c.id.as_ref().filter(|id| headings.contains(*id)) {
                self.duplicates
                    .entry(chapter.to_string())
                    .or_default()
                    .push((
                        line,
                        format!("the id `{id}` is also a heading's id on this page"),
                    ));
            }
            let Some(_) = c.caption else {
                labels.push(None);
                continue;
            };
            let n = counters.entry(c.figure.word()).or_default();
            *n += 1;
            let label = format!("{} {}{}", c.figure.word(), number.unwrap_or(""), n);
            if let Some(id) = c.id {
                if let Some(existing) = self.by_id.get(&id) {
                    self.duplicates
                        .entry(chapter.to_string())
                        .or_default()
                        .push((
                            line,
                            format!("the id `{id}` is used twice (also in {})", existing.chapter),
                        ));
                } else {
                    self.by_id.insert(
                        id,
                        Entry {
                            chapter: chapter.to_string(),
                            label: label.clone(),
                        },
                    );
                }
            }
            labels.push(Some(label));
        }
        self.labels.insert(chapter.to_string(), labels);
    }

    /// Remember the chapter's title for links to it.
    pub fn set_title(&mut self, chapter: &str, title: &str) {
        self.titles.insert(chapter.to_string(), title.to_string());
    }

    fn record_use(&mut self, file: &str, chapter: &str) {
        self.uses
            .entry(file.to_string())
            .or_insert_with(|| FileUse {
                matcher: file
                    .contains(['*', '?', '['])
                    .then(|| Glob::new(file).ok().map(|g| g.compile_matcher()))
                    .flatten(),
                chapters: BTreeSet::new(),
            })
            .chapters
            .insert(chapter.to_string());
    }

    /// The data files named by a block: the value of its kind key (a path, or a mapping
    /// of names to paths for `compare`).
    fn record_files(&mut self, body: &str, chapter: &str) {
        let Ok(Value::Object(map)) = kernlog::parse::yaml::from_str::<Value>(body) else {
            return;
        };
        for (kind, _, _) in KINDS {
            match map.get(kind) {
                Some(Value::String(file)) => self.record_use(file, chapter),
                Some(Value::Object(groups)) => {
                    for file in groups.values().filter_map(Value::as_str) {
                        self.record_use(file, chapter);
                    }
                }
                _ => {}
            }
        }
    }

    /// `(chapter, title)` of every chapter that reads `file` (directly or through a glob).
    pub fn uses(&self, file: &str) -> Vec<(String, String)> {
        let mut chapters = BTreeSet::new();
        for (pattern, users) in &self.uses {
            let hit = pattern == file || users.matcher.as_ref().is_some_and(|m| m.is_match(file));
            if hit {
                chapters.extend(users.chapters.iter().cloned());
            }
        }
        chapters
            .into_iter()
            .map(|c| {
                let title = self.titles.get(&c).cloned().unwrap_or_else(|| c.clone());
                (c, title)
            })
            .collect()
    }

    /// A link from one chapter to another (relative, as mdBook pages need).
    pub fn chapter_href(&self, to: &str, from: &str) -> String {
        format!("{}{to}", "../".repeat(from.matches('/').count()))
    }

    /// The label of the `index`-th block of a chapter.
    pub fn label(&self, chapter: &str, index: usize) -> Option<&str> {
        self.labels.get(chapter)?.get(index)?.as_deref()
    }

    /// Ids used twice, and views repeated without an id, with the line of the later block.
    pub fn duplicates(&self, chapter: &str) -> &[(usize, String)] {
        self.duplicates.get(chapter).map_or(&[], Vec::as_slice)
    }

    /// `(href, label)` for a reference from `from_chapter` to `id`.
    pub fn link(&self, id: &str, from_chapter: &str) -> Outcome<(String, String)> {
        let entry = self.by_id.get(id).ok_or_else(|| {
            fail(
                format!("no captioned block has the id `{id}`"),
                "give the block `id:` and `caption:` (only captioned blocks are numbered)",
            )
        })?;
        let href = if entry.chapter == from_chapter {
            format!("#{id}")
        } else {
            format!("{}#{id}", self.chapter_href(&entry.chapter, from_chapter))
        };
        Ok((href, entry.label.clone()))
    }
}

/// The ids mdBook gives the chapter's headings: `{#id}` where written, else the title
/// lower-cased, spaces as `-`, and only letters, digits, `-` and `_` kept.
fn heading_ids(markdown: &str) -> BTreeSet<String> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut ids = BTreeSet::new();
    let mut open: Option<(Option<String>, String)> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_HEADING_ATTRIBUTES) {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                open = Some((id.map(|i| i.to_string()), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, text)) = open.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((id, text)) = open.take() {
                    ids.insert(id.unwrap_or_else(|| {
                        text.trim()
                            .chars()
                            .filter_map(|c| match c {
                                c if c.is_whitespace() => Some('-'),
                                c if c.is_alphanumeric() || c == '_' || c == '-' => {
                                    Some(c.to_ascii_lowercase())
                                }
                                _ => None,
                            })
                            .collect()
                    }));
                }
            }
            _ => {}
        }
    }
    ids
}

/// What a block shows, for spotting the same view twice: its kind, file and view options.
fn view_key(kind: &str, body: &str) -> String {
    let Ok(Value::Object(map)) = kernlog::parse::yaml::from_str::<Value>(body) else {
        return kind.to_string();
    };
    let mut key = format!(
        "{kind}: {}",
        map.get(kind).map(Value::to_string).unwrap_or_default()
    );
    for option in [
        "show", "cpu", "cycle", "value", "function", "from", "to", "lines", "match", "time",
    ] {
        if let Some(v) = map.get(option) {
            key.push_str(&format!(", {option}: {v}"));
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_and_links() {
        let mut f = BookIndex::default();
        let md = "```kernlab\nlog: a\ncaption: A\nid: l1\n```\n\n```kernlab\nbringup: b\ncaption: B\nid: f1\n```\n\n```kernlab\nlog: c\n```\n\n```kernlab\nlog: d\ncaption: D\n```\n";
        f.collect("journey.html", Some("2."), md);
        assert_eq!(f.label("journey.html", 0), Some("Listing 2.1"));
        assert_eq!(f.label("journey.html", 1), Some("Figure 2.1"));
        assert_eq!(f.label("journey.html", 2), None);
        assert_eq!(f.label("journey.html", 3), Some("Listing 2.2"));
        assert_eq!(f.link("f1", "journey.html").unwrap().0, "#f1");
        assert_eq!(
            f.link("f1", "related/t2.html").unwrap().0,
            "../journey.html#f1"
        );
        assert!(f.link("nope", "journey.html").is_err());
        f.collect(
            "other.html",
            None,
            "```kernlab\nlog: a\ncaption: again\nid: l1\n```\n",
        );
        assert_eq!(f.duplicates("other.html").len(), 1);
        f.collect(
            "related/x.html",
            None,
            "{{kl:value mean(dmesg/run*.log#/cycles/0/x_ms)}}\n\n```kernlab\ncompare:\n  a: b.log\nvalue: /x\n```\n",
        );
        f.set_title("related/x.html", "X");
        assert_eq!(
            f.uses("dmesg/run1.log"),
            [("related/x.html".to_string(), "X".to_string())]
        );
        assert_eq!(f.uses("b.log").len(), 1);
        assert_eq!(f.uses("a").len(), 2);
        assert!(f.uses("zzz").is_empty());
    }
}
