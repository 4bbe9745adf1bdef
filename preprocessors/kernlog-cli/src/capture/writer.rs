//! The bundle's folder as capture fills it: files added once, `capture.yaml` and the
//! manifest rewritten atomically at each checkpoint.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use kernlog::evidence::bundle::{
    self, Capture, CpuMtrrs, EntryCommon, ManifestEntry, count_kmsg_records, render_dump,
    render_manifest,
};

use super::kmsg::KmsgTail;

/// An open bundle.
pub struct Writer {
    dir: PathBuf,
    pub capture: Capture,
    common: EntryCommon,
    /// The manifest entries of the files written so far, other than the log and capture.yaml.
    files: Vec<ManifestEntry>,
    pub kmsg: KmsgTail,
}

impl Writer {
    /// Creates the folder and starts following the kernel's log into it.
    pub fn create(dir: &Path, capture: Capture, command: String, kmsg: &Path) -> Result<Writer> {
        fs::create_dir_all(dir.join("mtrr"))
            .with_context(|| format!("cannot create the bundle {}", dir.display()))?;
        let kmsg = KmsgTail::open(kmsg, &dir.join(bundle::KERNEL_LOG))
            .with_context(|| format!("cannot read the kernel's log from {}", kmsg.display()))?;
        let common = EntryCommon {
            source: format!("kernlog capture {}", env!("CARGO_PKG_VERSION")),
            command,
            kernel: capture.kernel.release.clone(),
            follows: capture.label.clone(),
        };
        Ok(Writer {
            dir: dir.to_path_buf(),
            capture,
            common,
            files: Vec::new(),
            kmsg,
        })
    }

    /// Writes a file of the bundle and lists it in the manifest.
    pub fn add_file(
        &mut self,
        path: &str,
        kind: &str,
        description: &str,
        text: &[u8],
    ) -> Result<()> {
        self.write(path, text)?;
        let records = bundle::count_lines(text);
        self.files
            .push(self.common.entry(path, kind, description, records, text));
        Ok(())
    }

    /// Writes an MTRR dump.
    pub fn add_dump(&mut self, path: &str, when: &str, cpus: &[CpuMtrrs]) -> Result<()> {
        let text = render_dump(cpus);
        self.write(path, text.as_bytes())?;
        let description = format!("every online CPU's MTRRs read from /dev/cpu/N/msr {when}");
        let entry = self.common.entry(
            path,
            "msr-dump",
            &description,
            cpus.len() as u64,
            text.as_bytes(),
        );
        self.files.push(entry);
        Ok(())
    }

    fn write(&self, path: &str, bytes: &[u8]) -> Result<()> {
        write_atomic(&self.dir, path, bytes)
            .with_context(|| format!("cannot write {}", self.dir.join(path).display()))
    }

    /// Brings the kernel's log up to date, then rewrites `capture.yaml` and the manifest.
    /// The verdict written is what the file shows if it stays as it is: before a suspend,
    /// that the cycle did not resume.
    pub fn checkpoint(&mut self) -> Result<()> {
        self.kmsg.drain().context("cannot follow /dev/kmsg")?;
        self.capture.verdict = self.capture.settled_verdict();
        let yaml = self.capture.to_yaml();
        self.write(bundle::CAPTURE_FILE, yaml.as_bytes())?;
        let log = fs::read(self.dir.join(bundle::KERNEL_LOG)).unwrap_or_default();
        let mut description = String::from(
            "the kernel's log of this boot from /dev/kmsg (PRIO,SEQ,USEC,FLAGS;MESSAGE), through \
             the end of the last cycle",
        );
        if let Some(first) = self.kmsg.first_seq.filter(|&s| s > 0) {
            description.push_str(&format!(
                "; records before {first} had left the kernel's buffer when the capture started"
            ));
        }
        if self.kmsg.lost > 0 {
            description.push_str("; the kernel overwrote some records before they were read");
        }
        let mut entries = vec![
            self.common.entry(
                bundle::CAPTURE_FILE,
                "capture",
                "what kernlog capture captured and how, and the outcome of every cycle",
                self.capture.cycles.len() as u64,
                yaml.as_bytes(),
            ),
            self.common.entry(
                bundle::KERNEL_LOG,
                "kmsg",
                &description,
                count_kmsg_records(&log),
                &log,
            ),
        ];
        entries.extend(self.files.iter().cloned());
        self.write(bundle::MANIFEST_FILE, render_manifest(&entries).as_bytes())
    }
}

/// Replaces `dir/name` with `bytes` through a temporary file renamed over it, flushed to
/// the disk first, so that a machine that never comes back leaves the old or the new file,
/// never a part.
fn write_atomic(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let target = dir.join(name);
    let parent = target.parent().unwrap_or(dir);
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = parent.join(format!(".{file_name}.tmp"));
    let mut file = std::fs::File::create(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&temp, &target)?;
    match std::fs::File::open(parent)?.sync_all() {
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
        other => other,
    }
}
