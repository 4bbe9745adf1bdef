//! Names the commit `kernlog --version` was built from, and the compiler.
//!
//! `KERNLOG_COMMIT` is the commit of the git checkout the crate sits in (with `-modified`
//! when tracked files differed from it at the build); in a crate unpacked from a `cargo package` archive
//! (crates.io), which has no git checkout, it is the commit cargo recorded in
//! `.cargo_vcs_info.json`; otherwise `unknown`. `KERNLOG_RUSTC` is `rustc --version`.

use std::path::Path;
use std::process::Command;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&dir);
    let commit = packaged_commit(dir)
        .or_else(|| git_commit(dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=KERNLOG_COMMIT={commit}");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let rustc = output(Command::new(rustc).arg("--version")).unwrap_or_else(|| "rustc".into());
    println!("cargo:rustc-env=KERNLOG_RUSTC={rustc}");
    println!("cargo:rerun-if-changed=build.rs");
}

/// The commit of a packaged crate: `"sha1": "..."` in `.cargo_vcs_info.json`.
fn packaged_commit(dir: &Path) -> Option<String> {
    let file = dir.join(".cargo_vcs_info.json");
    println!("cargo:rerun-if-changed={}", file.display());
    let text = std::fs::read_to_string(file).ok()?;
    let (_, rest) = text.split_once("\"sha1\"")?;
    let sha = rest.split('"').nth(1)?;
    if sha.len() != 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // `cargo package --allow-dirty` records that the checkout had changes.
    let dirty = text.replace(' ', "").contains("\"dirty\":true");
    Some(marked(sha, dirty))
}

/// The checkout's commit, from git, and whether tracked files differ from it.
fn git_commit(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| output(Command::new("git").arg("-C").arg(dir).args(args));
    let sha = git(&["rev-parse", "HEAD"])?;
    // Run again when HEAD moves, the index changes or a source of the binary's crates is
    // edited, so that `-modified` follows the checkout.
    for sources in [
        "src",
        "../kernlog/src",
        "../mdbook-kernlab/src",
        "../mdbook-kernlab/assets",
    ] {
        println!("cargo:rerun-if-changed={}", dir.join(sources).display());
    }
    for name in ["HEAD", "index", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &branch])
    {
        println!("cargo:rerun-if-changed={path}");
    }
    let modified = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|changes| !changes.is_empty());
    Some(marked(&sha, modified))
}

/// The commit as `--version` shows it: `-modified` when the checkout had changes.
fn marked(sha: &str, modified: bool) -> String {
    if modified {
        format!("{sha}-modified")
    } else {
        sha.to_string()
    }
}

/// The trimmed standard output of a command that succeeded.
fn output(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success()).then(|| text.trim().to_string())
}
