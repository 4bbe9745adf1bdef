//! Numbered figures, tables and listings, and references to them across chapters.

use std::collections::BTreeMap;

use crate::blocks::common;
use crate::error::{Outcome, fail};
use crate::scan::{Found, scan};

#[derive(Debug, Clone)]
struct Entry {
    /// The chapter's HTML path, relative to the book root (`related/t2.html`).
    chapter: String,
    label: String,
}

/// Every captioned block of the book, numbered per chapter and kind.
#[derive(Debug, Default)]
pub struct Figures {
    by_id: BTreeMap<String, Entry>,
    /// Labels of each chapter's blocks in order (`None` for uncaptioned ones).
    labels: BTreeMap<String, Vec<Option<String>>>,
    duplicates: BTreeMap<String, Vec<String>>,
}

impl Figures {
    /// Number the blocks of one chapter. `number` is mdBook's section number ("2.").
    pub fn collect(&mut self, chapter: &str, number: Option<&str>, markdown: &str) {
        let mut counters: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut labels = Vec::new();
        for site in scan(markdown) {
            let Found::Block { body } = site.found else {
                continue;
            };
            // Malformed blocks are reported when the chapter is rendered.
            let Ok(c) = common(&body) else {
                labels.push(None);
                continue;
            };
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
                        .push(format!("`{id}` (also in {})", existing.chapter));
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

    /// The label of the `index`-th block of a chapter.
    pub fn label(&self, chapter: &str, index: usize) -> Option<&str> {
        self.labels.get(chapter)?.get(index)?.as_deref()
    }

    /// Ids used twice, reported against the later chapter.
    pub fn duplicates(&self, chapter: &str) -> &[String] {
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
            let depth = from_chapter.matches('/').count();
            format!("{}{}#{id}", "../".repeat(depth), entry.chapter)
        };
        Ok((href, entry.label.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_and_links() {
        let mut f = Figures::default();
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
    }
}
