//! The capture bundle of `kernlog capture`: one folder with the kernel's log of a series of
//! suspend/resume cycles, every CPU's MTRRs after boot and after each resume, and what was
//! captured how (`capture.yaml`), described by a `MANIFEST.yaml` in the notebook's form.
//!
//! ```text
//! BUNDLE/
//!   MANIFEST.yaml  capture.yaml  kernel.log  proc-mtrr.txt
//!   mtrr/boot.txt  mtrr/after-cycle-1.txt ...
//! ```
//!
//! The models ([`Capture`], [`ManifestEntry`], [`CpuMtrrs`]) render to and parse from their
//! files' text without I/O; [`Bundle::open`] reads a folder and checks it. Writing a bundle
//! is the job of `kernlog capture`, which does it as root with care of its own.

mod capture;
mod manifest;
mod msr;

pub use capture::*;
pub use manifest::*;
pub use msr::*;

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// `capture.yaml`.
pub const CAPTURE_FILE: &str = "capture.yaml";
/// `MANIFEST.yaml`.
pub const MANIFEST_FILE: &str = "MANIFEST.yaml";
/// The kernel's log, in `/dev/kmsg` record format.
pub const KERNEL_LOG: &str = "kernel.log";
/// `/proc/mtrr` before the first suspend.
pub const PROC_MTRR: &str = "proc-mtrr.txt";
/// The MTRR dump before the first suspend.
pub const MTRR_BOOT: &str = "mtrr/boot.txt";

/// The MTRR dump after resume `n` (from 1).
pub fn mtrr_after_cycle(n: u32) -> String {
    format!("mtrr/after-cycle-{n}.txt")
}

/// Why a bundle cannot be read: the file, the line where known, what is wrong, a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for BundleError {}

fn error(path: PathBuf, message: impl Into<String>, hint: Option<&str>) -> BundleError {
    BundleError {
        path,
        line: None,
        message: message.into(),
        hint: hint.map(str::to_string),
    }
}

/// A bundle read from its folder: `capture.yaml` and the manifest, checked against the
/// files present.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub dir: PathBuf,
    pub capture: Capture,
    pub manifest: Vec<ManifestEntry>,
}

impl Bundle {
    /// Reads `dir`: it must hold a `capture.yaml` of [`FORMAT`] and a `MANIFEST.yaml`
    /// whose files all exist inside the folder.
    pub fn open(dir: &Path) -> Result<Bundle, BundleError> {
        let capture_path = dir.join(CAPTURE_FILE);
        let text = read_text(
            &capture_path,
            "not a kernlog capture bundle (no capture.yaml)",
        )?;
        let capture = Capture::from_yaml(&text).map_err(|message| {
            error(
                capture_path.clone(),
                message,
                Some("a bundle is the folder `kernlog capture` wrote"),
            )
        })?;
        let manifest_path = dir.join(MANIFEST_FILE);
        let text = read_text(&manifest_path, "the bundle has no MANIFEST.yaml")?;
        let manifest =
            parse_manifest(&text).map_err(|message| error(manifest_path.clone(), message, None))?;
        for entry in &manifest {
            let safe = Path::new(&entry.path)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !safe {
                return Err(error(
                    manifest_path,
                    format!("path `{}` leaves the bundle", entry.path),
                    None,
                ));
            }
            if !dir.join(&entry.path).is_file() {
                return Err(error(
                    manifest_path,
                    format!("names `{}`, which is missing from the bundle", entry.path),
                    Some("copy the whole folder, not single files"),
                ));
            }
        }
        Ok(Bundle {
            dir: dir.to_path_buf(),
            capture,
            manifest,
        })
    }

    /// The path of the kernel's log.
    pub fn kernel_log(&self) -> PathBuf {
        self.dir.join(KERNEL_LOG)
    }

    /// Reads one MTRR dump of the bundle (`mtrr/boot.txt`, or a cycle's `mtrr` path).
    pub fn mtrr_dump(&self, path: &str) -> Result<Vec<CpuMtrrs>, BundleError> {
        let full = self.dir.join(path);
        let text = read_text(&full, "the MTRR dump is missing")?;
        parse_dump(&text).map_err(|e| BundleError {
            path: full,
            line: Some(e.line),
            message: e.message,
            hint: None,
        })
    }
}

fn read_text(path: &Path, missing: &str) -> Result<String, BundleError> {
    fs::read_to_string(path).map_err(|e| {
        let message = if e.kind() == io::ErrorKind::NotFound {
            missing.to_string()
        } else {
            format!("cannot read: {e}")
        };
        error(path.to_path_buf(), message, None)
    })
}

#[cfg(test)]
mod tests;
