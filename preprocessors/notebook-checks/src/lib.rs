//! The checks of this notebook, apart from the crates it is built with: `tests/` recomputes
//! the figures of `data/facts.yaml` from `data/`, renders every directive on the notebook's
//! data (snapshots), builds the book twice to identical bytes, follows every anchor and
//! link, and checks the patches and the published address. The library crates
//! (`kernlab-log`, `kernlog-cli`, `mdbook-kernlab`) test themselves on fixtures of their own.

use std::path::PathBuf;

/// The notebook's root: the repository that holds `book.toml`, `src/` and `data/`.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// A file of the notebook's `data/`, as text.
pub fn read_data(rel: &str) -> String {
    let path = repo().join("data").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
