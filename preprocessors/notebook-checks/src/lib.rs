//! The checks of this notebook, apart from the crates it is built with: `tests/` recomputes
//! the figures of `data/facts.yaml` from `data/`, renders every directive on the notebook's
//! data (snapshots), builds the book twice to identical bytes, follows every anchor and
//! link, and checks the patches and the published address. The library crates
//! (`kernlab-log`, `kernlog-cli`, `mdbook-kernlab`) test themselves on fixtures of their own.
