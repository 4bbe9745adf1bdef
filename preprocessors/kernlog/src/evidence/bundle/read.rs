//! Reading a bundle that may be hostile: it travels by mail, and every name in it is the
//! sender's. One policy for every path a bundle names ([`MemberPath`]), a cap on every
//! member's size, bounds on cycles and CPUs, each member read once, and errors that name a
//! member and what is wrong with it, never what an outside file holds.
//!
//! Where the bytes come from is the caller's: [`BundleFiles`] is a folder for the CLI and
//! dropped files for a page; [`MemoryFiles`] holds them in memory.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::manifest::parse_manifest;
use super::{
    CAPTURE_FILE, Capture, CpuMtrrs, FORMAT, KERNEL_LOG, MANIFEST_FILE, MTRR_BOOT, ManifestEntry,
    mtrr_after_cycle, parse_dump,
};

/// The most cycles a bundle may hold (`kernlog capture --cycles` accepts 1 to 99).
pub const MAX_CYCLES: usize = 99;
/// The most CPUs a dump or `cpus_online` may list (the kernel's largest `NR_CPUS` default).
pub const MAX_CPUS: usize = 8192;
/// The most bytes of `capture.yaml` or `MANIFEST.yaml` (99 cycles take about 20 KB).
pub const YAML_CAP: u64 = 256 * 1024;
/// The most bytes of `kernel.log` (a kernel's ring buffer is at most 32 MiB).
pub const LOG_CAP: u64 = 64 * 1024 * 1024;
/// The most bytes of one MTRR dump (8,192 CPUs with 10 variable ranges take under 6 MB).
pub const DUMP_CAP: u64 = 8 * 1024 * 1024;
/// The most bytes of all the dumps of a bundle together (99 resumes of 64 CPUs take under
/// 4 MB), so that a small archive cannot unpack into a bundle that fills the memory, and two
/// bundles at every bound (`compare`, `report`) stay under 200 MB.
pub const DUMPS_CAP: u64 = 32 * 1024 * 1024;

/// A path inside a bundle: one or two parts (`kernel.log`, `mtrr/boot.txt`) of ASCII
/// letters, digits, `.`, `_` and `-`, neither part empty nor starting with a dot.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MemberPath(String);

impl MemberPath {
    /// Checks `path` against the policy; the error says which rule it breaks.
    pub fn new(path: &str) -> Result<MemberPath, String> {
        let shown = super::msr::clip(path);
        if path.len() > 128 {
            return Err(format!("path `{shown}` is longer than 128 bytes"));
        }
        let parts: Vec<&str> = path.split('/').collect();
        if parts.len() > 2 {
            return Err(format!("path `{shown}` has more than two parts"));
        }
        for part in &parts {
            if part.is_empty() || part.starts_with('.') {
                return Err(format!(
                    "path `{shown}` leaves the bundle or names a hidden file"
                ));
            }
            if !part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            {
                return Err(format!(
                    "path `{shown}` has a character outside A-Z a-z 0-9 . _ -"
                ));
            }
        }
        Ok(MemberPath(path.to_string()))
    }

    /// The path, `/`-separated.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The folder part, for a path of two parts (`mtrr` of `mtrr/boot.txt`).
    pub fn folder(&self) -> Option<&str> {
        self.0.split_once('/').map(|(folder, _)| folder)
    }
}

impl fmt::Display for MemberPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why one member could not be had. None of them quotes the member's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberError {
    /// Nothing of that name in the bundle.
    Missing,
    /// There, but not a regular file: a link, a folder, a FIFO, a device or a socket.
    NotAFile(&'static str),
    /// Larger than the cap for that member.
    TooLarge {
        /// The cap, in bytes.
        cap: u64,
    },
    /// The system's error, in its words (no path, no content).
    Unreadable(String),
}

impl fmt::Display for MemberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemberError::Missing => f.write_str("is missing from the bundle"),
            MemberError::NotAFile(kind) => write!(f, "is {kind}, not a regular file"),
            MemberError::TooLarge { cap } => {
                write!(
                    f,
                    "is larger than the {} KiB a bundle may hold there",
                    cap / 1024
                )
            }
            MemberError::Unreadable(why) => write!(f, "cannot be read: {why}"),
        }
    }
}

/// The files of one bundle, by member path.
pub trait BundleFiles {
    /// The member's bytes; more than `cap` bytes is [`MemberError::TooLarge`].
    fn read(&mut self, path: &MemberPath, cap: u64) -> Result<Vec<u8>, MemberError>;
    /// Whether the member is there as a regular file, without reading it.
    fn check(&mut self, path: &MemberPath) -> Result<(), MemberError>;
}

/// A bundle's files held in memory (tests, files dropped into a page).
#[derive(Debug, Clone, Default)]
pub struct MemoryFiles(pub BTreeMap<String, Vec<u8>>);

impl BundleFiles for MemoryFiles {
    fn read(&mut self, path: &MemberPath, cap: u64) -> Result<Vec<u8>, MemberError> {
        let bytes = self.0.get(path.as_str()).ok_or(MemberError::Missing)?;
        if bytes.len() as u64 > cap {
            return Err(MemberError::TooLarge { cap });
        }
        Ok(bytes.clone())
    }

    fn check(&mut self, path: &MemberPath) -> Result<(), MemberError> {
        self.0
            .contains_key(path.as_str())
            .then_some(())
            .ok_or(MemberError::Missing)
    }
}

/// Why a bundle cannot be read: the member, the line where known, what is wrong, a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleError {
    /// The member at fault (`capture.yaml`, `mtrr/after-cycle-2.txt`).
    pub member: String,
    /// The member's line at fault, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do about it, when there is a hint.
    pub hint: Option<String>,
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.member)?;
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

pub(crate) fn error(member: &str, message: impl Into<String>, hint: Option<&str>) -> BundleError {
    BundleError {
        member: member.to_string(),
        line: None,
        message: message.into(),
        hint: hint.map(str::to_string),
    }
}

/// Everything a bundle holds, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    /// `capture.yaml`.
    pub capture: Capture,
    /// `MANIFEST.yaml`.
    pub manifest: Vec<ManifestEntry>,
    /// `kernel.log`, in `/dev/kmsg` record format.
    pub log: Vec<u8>,
    /// Every CPU's MTRRs before the first suspend, when the bundle has them.
    pub boot: Option<Vec<CpuMtrrs>>,
    /// Every CPU's MTRRs after resume `n`, for the cycles that have a dump.
    pub after: Vec<(u32, Vec<CpuMtrrs>)>,
}

/// Reads and checks a bundle: `capture.yaml` of [`FORMAT`] within the bounds, a manifest
/// whose members are all there, the log, and the dumps at the paths `kernlog capture`
/// gives them.
pub fn read_bundle(files: &mut dyn BundleFiles) -> Result<Bundle, BundleError> {
    let capture = read_capture(files)?;
    let manifest = read_manifest(files)?;
    let log = read_member(files, KERNEL_LOG, LOG_CAP)?;
    let listed = |path: &str| manifest.iter().any(|e| e.path == path);
    let boot_path = member(MTRR_BOOT);
    let (boot, boot_bytes) = if listed(MTRR_BOOT) || files.check(&boot_path).is_ok() {
        let (dump, bytes) = read_dump(files, MTRR_BOOT, DUMP_CAP)?;
        (Some(dump), bytes)
    } else {
        (None, 0)
    };
    if boot.is_none() && capture.cycles.iter().any(|c| c.mtrr.is_some()) {
        // Capture writes the boot dump before the first suspend: without it, the dumps after
        // each resume have nothing of their own to be compared with.
        return Err(error(
            MTRR_BOOT,
            "is missing, though the bundle has dumps after a resume",
            Some("kernlog capture writes it before the first suspend: copy the whole folder"),
        ));
    }
    let mut after = Vec::new();
    let mut budget = DUMPS_CAP - boot_bytes;
    for cycle in &capture.cycles {
        if let Some(path) = &cycle.mtrr {
            let (dump, bytes) = read_dump(files, path, budget.min(DUMP_CAP))?;
            budget -= bytes;
            after.push((cycle.n, dump));
        }
    }
    Ok(Bundle {
        capture,
        manifest,
        log,
        boot,
        after,
    })
}

/// A path of this module's own, which passes the policy.
fn member(path: &str) -> MemberPath {
    MemberPath(path.to_string())
}

fn read_member(files: &mut dyn BundleFiles, path: &str, cap: u64) -> Result<Vec<u8>, BundleError> {
    let path = MemberPath::new(path).map_err(|m| error(path, m, None))?;
    files.read(&path, cap).map_err(|e| {
        let hint = match e {
            MemberError::Missing => Some("copy the whole folder, not single files"),
            MemberError::NotAFile(_) => Some("a bundle holds regular files only"),
            _ => None,
        };
        error(path.as_str(), e.to_string(), hint)
    })
}

fn read_text(files: &mut dyn BundleFiles, path: &str, cap: u64) -> Result<String, BundleError> {
    let bytes = read_member(files, path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        error(
            path,
            format!("is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
            None,
        )
    })
}

fn read_capture(files: &mut dyn BundleFiles) -> Result<Capture, BundleError> {
    let text = read_text(files, CAPTURE_FILE, YAML_CAP).map_err(|mut e| {
        if e.message == MemberError::Missing.to_string() {
            e.message = "not found: this folder is not a kernlog capture bundle".to_string();
            e.hint = Some("a bundle is the folder `kernlog capture` wrote".to_string());
        }
        e
    })?;
    let capture = Capture::from_yaml(&text).map_err(|message| {
        error(
            CAPTURE_FILE,
            message,
            Some("a bundle is the folder `kernlog capture` wrote"),
        )
    })?;
    check_capture(&capture).map_err(|m| error(CAPTURE_FILE, m, Some(FOLDER_HINT)))?;
    Ok(capture)
}

const FOLDER_HINT: &str = "capture.yaml is kernlog capture's own: an edited one is refused";

/// The bounds and the shape `kernlog capture` gives `capture.yaml`.
fn check_capture(capture: &Capture) -> Result<(), String> {
    debug_assert_eq!(capture.format, FORMAT);
    if capture.cycles.len() > MAX_CYCLES || capture.cycles_requested as usize > MAX_CYCLES {
        return Err(format!("more than {MAX_CYCLES} cycles"));
    }
    if capture.cycles.len() > capture.cycles_requested as usize {
        return Err(format!(
            "{} cycles recorded of {} requested",
            capture.cycles.len(),
            capture.cycles_requested
        ));
    }
    if capture.cpus_online.len() > MAX_CPUS {
        return Err(format!("more than {MAX_CPUS} CPUs online"));
    }
    let online: BTreeSet<u32> = capture.cpus_online.iter().copied().collect();
    if online.len() != capture.cpus_online.len() {
        return Err("cpus_online lists a CPU twice".to_string());
    }
    for (index, cycle) in capture.cycles.iter().enumerate() {
        let n = index as u32 + 1;
        if cycle.n != n {
            return Err(format!("cycle {} stands where cycle {n} belongs", cycle.n));
        }
        if let Some(path) = cycle.mtrr.as_ref().filter(|p| **p != mtrr_after_cycle(n)) {
            return Err(format!(
                "cycle {n}'s MTRR dump is `{}`; kernlog capture writes it as `{}`",
                super::msr::clip(path),
                mtrr_after_cycle(n)
            ));
        }
    }
    Ok(())
}

fn read_manifest(files: &mut dyn BundleFiles) -> Result<Vec<ManifestEntry>, BundleError> {
    let text = read_text(files, MANIFEST_FILE, YAML_CAP)?;
    let manifest = parse_manifest(&text).map_err(|m| error(MANIFEST_FILE, m, None))?;
    let mut seen = BTreeSet::new();
    for entry in &manifest {
        let path = MemberPath::new(&entry.path).map_err(|m| error(MANIFEST_FILE, m, None))?;
        if !seen.insert(path.clone()) {
            return Err(error(MANIFEST_FILE, format!("names `{path}` twice"), None));
        }
        files.check(&path).map_err(|e| {
            let hint = match e {
                MemberError::Missing => "copy the whole folder, not single files",
                _ => "a bundle holds regular files only",
            };
            error(
                MANIFEST_FILE,
                format!("names `{path}`, which {e}"),
                Some(hint),
            )
        })?;
    }
    Ok(manifest)
}

/// One dump within `cap` bytes (what is left of [`DUMPS_CAP`], at most [`DUMP_CAP`]), and
/// its size.
fn read_dump(
    files: &mut dyn BundleFiles,
    path: &str,
    cap: u64,
) -> Result<(Vec<CpuMtrrs>, u64), BundleError> {
    let text = read_text(files, path, cap).map_err(|mut e| {
        if cap < DUMP_CAP && e.message.starts_with("is larger than") {
            e.message = format!(
                "takes the dumps of the bundle past the {} MiB they may hold together",
                DUMPS_CAP >> 20
            );
        }
        e
    })?;
    let bytes = text.len() as u64;
    let dump = parse_dump(&text).map_err(|e| BundleError {
        member: path.to_string(),
        line: Some(e.line),
        message: e.message,
        hint: None,
    })?;
    Ok((dump, bytes))
}
