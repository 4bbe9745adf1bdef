//! Compiles syntect's default syntaxes plus the notebook's own (dmesg, ftrace) into one
//! binary dump at build time, so that a book build loads it instead of linking every
//! syntax again: that linking was most of a cold `mdbook build`'s preprocessor time.

use std::path::{Path, PathBuf};

use syntect::parsing::{SyntaxDefinition, SyntaxSet};

const SYNTAXES: &str = "assets/syntaxes";

fn main() {
    let dir = Path::new(SYNTAXES);
    println!("cargo::rerun-if-changed={SYNTAXES}");
    let mut builder = SyntaxSet::load_defaults_newlines().into_builder();
    for name in ["dmesg", "ftrace"] {
        let file = dir.join(format!("{name}.sublime-syntax"));
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let def = SyntaxDefinition::load_from_str(&text, true, Some(name))
            .unwrap_or_else(|e| panic!("{} is not a valid syntax: {e}", file.display()));
        builder.add(def);
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    syntect::dumps::dump_to_uncompressed_file(&builder.build(), out.join("syntaxes.bin"))
        .expect("the syntax dump is written");
}
