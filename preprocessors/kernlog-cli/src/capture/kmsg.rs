//! Following `/dev/kmsg` through a capture: every record read is appended to the bundle's
//! `kernel.log` as the kernel wrote it, and the messages that mark a suspend are noted.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use kernlog::analysis::resume::{SuspendStep, suspend_step};
use kernlog::parse::record::{parse_kmsg_record, starts_with_task_name};

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
    /// The sequence number the kernel gives its next record, once a record was read.
    pub next_seq: Option<u64>,
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
            next_seq: None,
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
            // Dictionary lines (` KEY=value`) and anything else that is no record are skipped.
            let line = String::from_utf8_lossy(line);
            let Some(record) = parse_kmsg_record(&line) else {
                continue;
            };
            self.first_seq.get_or_insert(record.seq);
            self.next_seq = Some(record.seq.saturating_add(1));
            // Only the kernel's own messages tell of a suspend: user space may write any
            // text to /dev/kmsg, under a facility of its own.
            // A kernel report of a process starts with the name it gave itself: not the
            // kernel's word either.
            if record.facility == 0 && !starts_with_task_name(record.message) {
                note(&mut self.marks, record.message);
            }
        }
    }
}

/// Notes what one kernel message says about the suspend in progress, as the analysis reads
/// it. A device that fails to *resume* is no abort: the machine did suspend.
fn note(marks: &mut CycleMarks, message: &str) {
    match suspend_step(message) {
        Some(SuspendStep::Entry) => marks.entered = true,
        Some(SuspendStep::Exit) => marks.exited = true,
        Some(SuspendStep::Aborted) if marks.failure.is_none() => {
            marks.failure = Some(message.trim_end().to_string());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks of these `/dev/kmsg` lines, fed to a tail as one read.
    fn marks(lines: &[&str]) -> (CycleMarks, Option<u64>) {
        let log = tempfile::tempfile().unwrap();
        let kmsg = tempfile::NamedTempFile::new().unwrap();
        let mut tail = KmsgTail::open(kmsg.path(), log).unwrap();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        tail.scan(text.as_bytes());
        (tail.marks, tail.first_seq)
    }

    #[test]
    fn the_markers_of_a_suspend_and_of_an_abort() {
        let (marks, first) = marks(&[
            "6,17,100,-;PM: suspend entry (deep)",
            " SUBSYSTEM=acpi",
            "6,18,200,-;Filesystems sync: 0.001 seconds",
            "3,19,300,-;PM: Some devices failed to suspend, or early wake event detected",
            "6,20,400,-;PM: suspend exit",
        ]);
        assert!(marks.entered && marks.exited);
        assert_eq!(
            marks.failure.as_deref(),
            Some("PM: Some devices failed to suspend, or early wake event detected")
        );
        assert_eq!(first, Some(17));
    }

    #[test]
    fn resume_failures_and_text_of_user_space_are_no_abort() {
        let (marks, _) = marks(&[
            "6,1,100,-;PM: suspend entry (deep)",
            "6,2,200,-;ACPI: PM: Waking up from system sleep state S3",
            "3,3,300,-;PM: Device 0000:00:1f.3 failed to resume async: error -5",
            // A process named `PM: fail` that segfaults.
            "6,4,400,-;PM: fail[4242]: segfault at 0 ip 0000000000401106 sp 00007ffd2b1b7d40 \
             error 6 in a.out[401000+1000] likely on CPU 1 (core 1, socket 0)",
            // Root's `echo ... >/dev/kmsg`: facility 1 (user), not the kernel's.
            "12,5,500,-;PM: Some devices failed to suspend, or early wake event detected",
            "14,6,600,-;PM: suspend exit",
        ]);
        assert_eq!(marks.failure, None);
        assert!(marks.entered && !marks.exited);
    }
}
