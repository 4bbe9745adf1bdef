//! Opening what the user names: a log file, `-` for standard input, or a live device such
//! as `/dev/kmsg`, which is read the way `dmesg` reads it: up to the end of the kernel's
//! buffer, then stop, instead of waiting for new messages.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use anyhow::{Context, Result, bail};
use kernlog::evidence::Evidence;

const BUFFER: usize = 256 * 1024;

/// A reader for `path`, with a clear error for what cannot be read to an end.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            bail!(
                "standard input is a terminal, so there is no log to read; pipe one in \
                 (`sudo dmesg | kernlog analyze -`) or name a file"
            );
        }
        return Ok(Box::new(stdin.lock()));
    }
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot open {}", path.display()))?;
    let kind = meta.file_type();
    if kind.is_dir() {
        bail!("{} is a folder; name a log file in it", path.display());
    }
    if kind.is_char_device() {
        // /dev/kmsg blocks at the end of the buffer; without blocking it says "no more".
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .with_context(|| {
                format!(
                    "cannot open {} (reading /dev/kmsg needs root)",
                    path.display()
                )
            })?;
        return Ok(Box::new(BufReader::with_capacity(BUFFER, UpToNow(file))));
    }
    if kind.is_fifo() {
        eprintln!(
            "kernlog: {} is a FIFO: reading until the program writing to it closes it",
            path.display()
        );
    }
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Ok(Box::new(BufReader::with_capacity(BUFFER, file)))
}

/// A non-blocking device read up to what it holds now: "would block" is the end.
struct UpToNow(File);

impl Read for UpToNow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(0),
                // /dev/kmsg: records were overwritten under the reader; it goes on from the
                // oldest one still there.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
                other => return other,
            }
        }
    }
}

/// A bundle folder or a log (a file, `-`, a device) as evidence for `check`, `compare`
/// and `report`; the log is read into memory, to be analysed and searched for its banner.
pub fn evidence(path: &Path) -> Result<Evidence> {
    if path.is_dir() {
        return Evidence::open_bundle(path).map_err(|e| {
            anyhow::anyhow!("{e}; name a bundle folder written by `kernlog capture`, or a log")
        });
    }
    let name = path.file_name().and_then(|n| n.to_str());
    if let Some(file @ ("capture.yaml" | "MANIFEST.yaml")) = name {
        bail!(
            "{} is the {file} of a bundle, not a log; name the bundle's folder",
            path.display()
        );
    }
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Evidence::from_log(&path.display().to_string(), &bytes)
        .with_context(|| format!("cannot read {}", path.display()))
}
