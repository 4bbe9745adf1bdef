//! `MANIFEST.yaml` of a bundle, in the notebook's manifest form: one entry a file.

use serde::{Deserialize, Serialize};

/// One file of a bundle as the notebook's `data/MANIFEST.yaml` describes its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Relative to the bundle (and to `data/` once dropped in).
    pub path: String,
    /// `kernlog capture VERSION`.
    pub source: String,
    /// What the file holds (`kmsg`, `msr-dump`, ...).
    pub kind: String,
    /// The command line that produced the capture.
    pub command: String,
    /// `uname -r` of the kernel that produced it.
    pub kernel: String,
    /// How the kernel release is known (`recorded by kernlog capture` in a bundle).
    pub kernel_evidence: String,
    /// The tester's label: the kernel and patch the capture follows.
    pub follows: String,
    /// What the file is, in words.
    pub description: String,
    /// Log records (for YAML files: entries of the main list; for dumps: CPUs).
    pub records: u64,
    /// Lines of the file.
    pub lines: u64,
}

/// What every entry of one bundle shares.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryCommon {
    /// `kernlog capture VERSION`.
    pub source: String,
    /// The command line that produced the capture.
    pub command: String,
    /// `uname -r` of the kernel that produced it.
    pub kernel: String,
    /// The tester's label: the kernel and patch the capture follows.
    pub follows: String,
}

/// How `kernlog capture` names itself as the evidence of the kernel release.
pub(crate) const KERNEL_EVIDENCE: &str = "recorded by kernlog capture";

impl EntryCommon {
    /// The entry of one file, its line count taken from its text.
    pub fn entry(
        &self,
        path: &str,
        kind: &str,
        description: &str,
        records: u64,
        text: &[u8],
    ) -> ManifestEntry {
        ManifestEntry {
            path: path.to_string(),
            source: self.source.clone(),
            kind: kind.to_string(),
            command: self.command.clone(),
            kernel: self.kernel.clone(),
            kernel_evidence: KERNEL_EVIDENCE.to_string(),
            follows: self.follows.clone(),
            description: description.to_string(),
            records,
            lines: count_lines(text),
        }
    }
}

/// Lines of a text, a last line without its newline included.
pub fn count_lines(text: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text).count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with(b"\n"))
}

/// Records of `/dev/kmsg` text: lines that are not a record's continuation (` KEY=value`).
pub fn count_kmsg_records(text: &[u8]) -> u64 {
    text.split(|&b| b == b'\n')
        .filter(|line| !line.is_empty() && !line.starts_with(b" "))
        .count() as u64
}

/// The manifest's text.
pub fn render_manifest(entries: &[ManifestEntry]) -> String {
    let head = "# Provenance of every file of this kernlog capture bundle, one entry a file, in\n\
                # the notebook's data/MANIFEST.yaml form.\n";
    format!(
        "{head}{}",
        yaml_serde::to_string(entries).unwrap_or_default()
    )
}

/// Reads a manifest's text.
pub(crate) fn parse_manifest(text: &str) -> Result<Vec<ManifestEntry>, String> {
    crate::parse::yaml::from_str(text).map_err(|e| e.to_string())
}
