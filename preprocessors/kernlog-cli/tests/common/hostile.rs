//! The hostile bundles of every attack class, built from a good fixture bundle: shared by
//! `tests/hostile.rs` (what each must give) and `benches/hostile.rs` (what each costs), and
//! the copies of fixture bundles `tests/bundles.rs` spoils.

// The test and the benchmark each use a part of these builders.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bundles")
        .join(name)
}

/// A copy of fixture bundle `name`, to spoil.
pub fn copy_of(name: &str) -> TempDir {
    copy_bundle(&fixture(name))
}

/// A copy of the bundle at `from` (its files and those of its `mtrr/`), to spoil.
pub fn copy_bundle(from: &Path) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("mtrr")).unwrap();
    for sub in ["", "mtrr"] {
        for entry in fs::read_dir(from.join(sub)).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                fs::copy(entry.path(), dir.path().join(sub).join(entry.file_name())).unwrap();
            }
        }
    }
    dir
}

/// A copy of the good five-cycle bundle (4 CPUs, every dump equal to boot), to spoil.
pub fn good_copy() -> TempDir {
    copy_of("with-fix-changed-no-debug")
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn edit(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    fs::write(path, text.replace(from, to)).unwrap();
}

/// `kernel.log` replaced by a FIFO: a reader that opened it would wait for ever.
pub fn fifo_log() -> TempDir {
    let dir = good_copy();
    let log = dir.path().join("kernel.log");
    fs::remove_file(&log).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&log)
        .status()
        .unwrap();
    assert!(made.success());
    dir
}

/// `kernel.log` a sparse file of 6 GB: refused by its size, not read.
pub fn sparse_log() -> TempDir {
    let dir = good_copy();
    let log = fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("kernel.log"))
        .unwrap();
    log.set_len(6 << 30).unwrap();
    dir
}

/// 100,000 cycles in capture.yaml, every one naming the boot dump (13 MB).
pub fn many_cycles() -> TempDir {
    let dir = good_copy();
    let path = dir.path().join("capture.yaml");
    let text = fs::read_to_string(&path).unwrap();
    let (head, _) = text.split_once("cycles:\n").unwrap();
    let mut many = format!("{head}cycles:\n");
    for n in 1..=100_000 {
        many.push_str(&format!(
            "- n: {n}\n  requested: 2026-12-01T10:43:03Z\n  outcome: resumed\n  detail: null\n  mtrr: mtrr/boot.txt\n"
        ));
    }
    many.push_str("verdict: complete\n");
    fs::write(&path, many).unwrap();
    dir
}

/// capture.yaml with brackets nested 100,000 deep.
pub fn deep_yaml() -> TempDir {
    let dir = good_copy();
    let path = dir.path().join("capture.yaml");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, format!("{text}extra: {}\n", "[".repeat(100_000))).unwrap();
    dir
}

/// A boot dump of `cpus` CPUs.
pub fn many_cpus(cpus: u32) -> TempDir {
    let dir = good_copy();
    let lines: String = (0..cpus)
        .map(|n| format!("cpu{n} def=0000000000000c06 fix=none var=\n"))
        .collect();
    fs::write(dir.path().join("mtrr/boot.txt"), lines).unwrap();
    dir
}

/// 99 resumes, each with a dump of 4,096 CPUs, in short lines that keep all the dumps under
/// the bundle's cap: the most comparing a bundle can ask (405,504 CPU dumps).
pub fn many_cycle_dumps() -> TempDir {
    let dir = good_copy();
    let cpus = 4096;
    let dump: String = (0..cpus)
        .map(|n| format!("cpu{n} def=0000000000000c06 fix=none var=\n"))
        .collect();
    fs::write(dir.path().join("mtrr/boot.txt"), &dump).unwrap();
    let path = dir.path().join("capture.yaml");
    let text = fs::read_to_string(&path).unwrap();
    let (head, _) = text.split_once("cpus_online:").unwrap();
    let mut yaml = format!("{head}cpus_online:\n");
    for n in 0..cpus {
        yaml.push_str(&format!("- {n}\n"));
    }
    yaml.push_str("cycles_requested: 99\ncycles:\n");
    let mut manifest = fs::read_to_string(dir.path().join("MANIFEST.yaml")).unwrap();
    // Each new dump's entry is the first dump's, renamed.
    let first = "- path: mtrr/after-cycle-1.txt\n";
    let at = manifest.find(first).unwrap();
    let end = manifest[at + first.len()..]
        .find("- path: ")
        .map_or(manifest.len(), |e| at + first.len() + e);
    let template = manifest[at..end].to_string();
    for n in 1..=99 {
        let member = format!("mtrr/after-cycle-{n}.txt");
        yaml.push_str(&format!(
            "- n: {n}\n  requested: 2026-12-01T10:43:03Z\n  outcome: resumed\n  detail: null\n  mtrr: {member}\n"
        ));
        if !manifest.contains(&format!("- path: {member}\n")) {
            manifest
                .push_str(&template.replace("after-cycle-1.txt", &format!("after-cycle-{n}.txt")));
        }
        fs::write(dir.path().join(&member), &dump).unwrap();
    }
    yaml.push_str("verdict: complete\n");
    fs::write(&path, yaml).unwrap();
    fs::write(dir.path().join("MANIFEST.yaml"), manifest).unwrap();
    dir
}

/// Moves every record of a bundle's kmsg log `by_us` microseconds later: another boot of
/// the same kernel, as far as the stamps tell (a copy with only its bytes changed around
/// the kernel's lines is the same boot).
pub fn another_boot(bundle: &Path, by_us: u64) {
    let log = bundle.join("kernel.log");
    let moved: String = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let mut fields = l.splitn(4, ',');
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(level), Some(seq), Some(us), Some(rest)) if us.parse::<u64>().is_ok() => {
                    format!(
                        "{level},{seq},{},{rest}\n",
                        us.parse::<u64>().unwrap() + by_us
                    )
                }
                _ => format!("{l}\n"),
            }
        })
        .collect();
    fs::write(log, moved).unwrap();
}
