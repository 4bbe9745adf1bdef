//! Following `/dev/kmsg` through a capture: every record read is appended to the bundle's
//! `kernel.log` as the kernel wrote it, and the messages that mark a suspend are noted.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// What the kernel's log said since [`KmsgTail::start_cycle`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CycleMarks {
    /// `PM: suspend entry (...)` was seen.
    pub entered: bool,
    /// `PM: suspend exit` was seen.
    pub exited: bool,
    /// The first message saying that the suspend failed or was aborted.
    pub failure: Option<String>,
}

/// `/dev/kmsg` opened once and read to its current end at each look.
pub struct KmsgTail {
    source: File,
    log: File,
    /// The end of a record that a read split (a plain file may end mid-line).
    partial: Vec<u8>,
    /// The sequence number of the first record read, when one was read.
    pub first_seq: Option<u64>,
    /// How many times the kernel reported records overwritten before they were read.
    pub lost: u64,
    pub marks: CycleMarks,
}

impl KmsgTail {
    /// Opens `kmsg` without blocking (the kernel's buffer from its oldest record); what it
    /// reads goes to `log`, the bundle's new `kernel.log`.
    pub fn open(kmsg: &Path, log: File) -> io::Result<KmsgTail> {
        let source = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(kmsg)?;
        Ok(KmsgTail {
            source,
            log,
            partial: Vec::new(),
            first_seq: None,
            lost: 0,
            marks: CycleMarks::default(),
        })
    }

    /// Everything written to the log so far, read back through its descriptor.
    pub fn log_bytes(&self) -> io::Result<Vec<u8>> {
        let length = self.log.metadata()?.len();
        let mut bytes = vec![0; usize::try_from(length).unwrap_or(usize::MAX)];
        self.log.read_exact_at(&mut bytes, 0)?;
        Ok(bytes)
    }

    /// Forgets the marks of the last cycle.
    pub fn start_cycle(&mut self) {
        self.marks = CycleMarks::default();
    }

    /// Reads what the kernel has logged since the last look, appends it to the log and
    /// flushes the log to the disk.
    pub fn drain(&mut self) -> io::Result<()> {
        // One read returns one record from the device (up to about 8 KiB with its
        // dictionary lines), or any number of lines from a plain file.
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            match self.source.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    self.log.write_all(&buffer[..n])?;
                    self.scan(&buffer[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // EPIPE: the kernel overwrote records before they were read; the next
                // read continues with the oldest one left.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => self.lost += 1,
                Err(e) => return Err(e),
            }
        }
        self.log.sync_data()
    }

    fn scan(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        let Some(end) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let complete: Vec<u8> = self.partial.drain(..=end).collect();
        for line in complete.split(|&b| b == b'\n') {
            let line = String::from_utf8_lossy(line);
            let Some((prefix, message)) = line.split_once(';') else {
                continue; // a dictionary line (` KEY=value`) or not a record
            };
            if self.first_seq.is_none() {
                self.first_seq = prefix.split(',').nth(1).and_then(|s| s.parse().ok());
            }
            note(&mut self.marks, message);
        }
    }
}

/// Notes what one message says about the suspend in progress.
fn note(marks: &mut CycleMarks, message: &str) {
    if message.starts_with("PM: suspend entry") {
        marks.entered = true;
    } else if message.starts_with("PM: suspend exit") {
        marks.exited = true;
    } else if marks.failure.is_none() && is_failure(message) {
        marks.failure = Some(message.trim_end().to_string());
    }
}

/// The kernel's words for a suspend that did not go through: devices or tasks that failed
/// to suspend or freeze, a wakeup event that aborted it. A device that fails to *resume*
/// is no abort: the machine did suspend.
fn is_failure(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    let about_suspend = lower.starts_with("pm: ") || lower.starts_with("freezing ");
    about_suspend
        && !lower.contains("resume")
        && (lower.contains("fail") || lower.contains("abort"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_markers_of_a_suspend_and_of_an_abort() {
        let mut marks = CycleMarks::default();
        for message in [
            "PM: suspend entry (deep)",
            "Filesystems sync: 0.001 seconds",
            "PM: Some devices failed to suspend, or early wake event detected",
            "PM: suspend exit",
        ] {
            note(&mut marks, message);
        }
        assert!(marks.entered && marks.exited);
        assert_eq!(
            marks.failure.as_deref(),
            Some("PM: Some devices failed to suspend, or early wake event detected")
        );
    }

    #[test]
    fn freezing_failures_count_and_resume_lines_do_not() {
        let mut marks = CycleMarks::default();
        note(&mut marks, "ACPI: PM: Waking up from system sleep state S3");
        note(&mut marks, "PM: resume from suspend-to-idle");
        note(
            &mut marks,
            "PM: Device 0000:00:1f.3 failed to resume async: error -5",
        );
        assert_eq!(marks.failure, None);
        note(&mut marks, "PM: Wakeup pending, aborting suspend");
        assert_eq!(
            marks.failure.as_deref(),
            Some("PM: Wakeup pending, aborting suspend")
        );
        marks.failure = None;
        note(
            &mut marks,
            "Freezing user space processes failed after 20.004 seconds (1 tasks refusing to freeze)",
        );
        assert!(marks.failure.unwrap().starts_with("Freezing user space"));
    }
}
