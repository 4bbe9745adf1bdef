//! The bundle as capture fills it: files added once, `capture.yaml` and the manifest
//! rewritten atomically at each checkpoint, all through the folder's descriptor.

use std::path::Path;

use anyhow::{Context, Result};
use kernlog::evidence::bundle::{
    self, Capture, CpuMtrrs, EntryCommon, ManifestEntry, count_kmsg_records, render_dump,
    render_manifest,
};

use super::folder::BundleDir;
use super::kmsg::KmsgTail;

/// The subfolder of the MTRR dumps ([`bundle::MTRR_BOOT`], [`bundle::mtrr_after_cycle`]).
const MTRR_FOLDER: &str = "mtrr";

/// An open bundle.
pub struct Writer<'a> {
    dir: &'a BundleDir,
    pub capture: Capture,
    common: EntryCommon,
    /// The manifest entries of the files written so far, other than the log and capture.yaml.
    files: Vec<ManifestEntry>,
    pub kmsg: KmsgTail,
}

impl<'a> Writer<'a> {
    /// Creates the subfolder of the dumps and starts following the kernel's log into the
    /// new folder `dir`.
    pub fn create(
        dir: &'a BundleDir,
        capture: Capture,
        command: String,
        kmsg: &Path,
    ) -> Result<Writer<'a>> {
        dir.mkdir(MTRR_FOLDER)?;
        let log = dir.new_file(bundle::KERNEL_LOG)?;
        let kmsg = KmsgTail::open(kmsg, log)
            .with_context(|| format!("cannot read the kernel's log from {}", kmsg.display()))?;
        let common = EntryCommon {
            source: format!("kernlog capture {}", env!("CARGO_PKG_VERSION")),
            command,
            kernel: capture.kernel.release.clone(),
            follows: capture.label.clone(),
        };
        Ok(Writer {
            dir,
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
        self.dir.write_new(path, text)?;
        let records = bundle::count_lines(text);
        self.files
            .push(self.common.entry(path, kind, description, records, text));
        Ok(())
    }

    /// Writes an MTRR dump.
    pub fn add_dump(&mut self, path: &str, when: &str, cpus: &[CpuMtrrs]) -> Result<()> {
        let text = render_dump(cpus);
        self.dir.write_new(path, text.as_bytes())?;
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

    /// Brings the kernel's log up to date, then rewrites `capture.yaml` and the manifest.
    /// The verdict written is what the file shows if it stays as it is: before a suspend,
    /// that the cycle did not resume.
    pub fn checkpoint(&mut self) -> Result<()> {
        self.kmsg.drain().context("cannot follow /dev/kmsg")?;
        self.capture.verdict = self.capture.settled_verdict();
        let yaml = self.capture.to_yaml();
        self.dir.replace(bundle::CAPTURE_FILE, yaml.as_bytes())?;
        let log = self.kmsg.log_bytes().with_context(|| {
            let path = self.dir.path().join(bundle::KERNEL_LOG);
            format!("cannot read back {}", path.display())
        })?;
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
        self.dir
            .replace(bundle::MANIFEST_FILE, render_manifest(&entries).as_bytes())
    }
}
