//! Opening what the user names: a log file, `-` for standard input, or a live device such
//! as `/dev/kmsg`, which is read the way `dmesg` reads it: up to the end of the kernel's
//! buffer, then stop, instead of waiting for new messages.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use kernlog::evidence::Evidence;
use kernlog::evidence::bundle::{BundleFiles, MemberError, MemberPath};

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

/// The most bytes of a plain log that `check`, `compare` and `report` read (they keep it, to
/// quote its lines); `analyze` streams any length.
const EVIDENCE_LOG_CAP: u64 = kernlog::evidence::bundle::LOG_CAP;

/// A bundle folder or a log (a file, `-`, a device) as evidence for `check`, `compare`
/// and `report`; the log is read into memory, to be analysed and quoted.
pub fn evidence(path: &Path) -> Result<Evidence> {
    evidence_and_dumps(path).map(|(e, _)| e)
}

/// [`evidence`], with the bytes of MSR dumps it read (0 for a log).
fn evidence_and_dumps(path: &Path) -> Result<(Evidence, u64)> {
    if path.is_dir() {
        let mut files = Folder::new(path);
        let e = Evidence::from_bundle(&path.display().to_string(), &mut files).map_err(|e| {
            anyhow::anyhow!(
                "{}/{e}; name a bundle folder written by `kernlog capture`, or a log",
                path.display()
            )
        })?;
        return Ok((e, files.dump_bytes));
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
        .take(EVIDENCE_LOG_CAP + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > EVIDENCE_LOG_CAP {
        bail!(
            "{} is longer than {} MiB, which check, compare and report read at most; cut it to \
             the boots of the test (journalctl -k -b, or the lines from the first suspend on), \
             or use `kernlog analyze`, which reads any length",
            path.display(),
            EVIDENCE_LOG_CAP >> 20
        );
    }
    let e = Evidence::from_log(&path.display().to_string(), bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok((e, 0))
}

/// The bytes of regular files in a bundle's `mtrr/` folder, where capture writes its dumps:
/// what reading the bundle would add to the dumps held, known before it is read.
fn dump_folder_bytes(bundle: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(bundle.join("mtrr")) else {
        return 0;
    };
    entries
        .filter_map(|entry| entry.ok()?.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Every input as evidence, the same capture named twice refused.
pub fn evidence_list(paths: &[PathBuf]) -> Result<Vec<Evidence>> {
    let mut list: Vec<Evidence> = Vec::with_capacity(paths.len());
    let (mut held, mut dumps_held) = (0u64, 0u64);
    for (i, path) in paths.iter().enumerate() {
        // Every input's log is held for quoting its lines: together they have one bound,
        // checked on the file's size before it is read, and on what was read.
        let log = if path.is_dir() {
            path.join("kernel.log")
        } else {
            path.clone()
        };
        let size = std::fs::symlink_metadata(&log)
            .ok()
            .filter(|m| m.is_file())
            .map_or(0, |m| m.len());
        // The dumps likewise: on the sizes in `mtrr/` before, on the bytes read after.
        let dumps = if path.is_dir() {
            dump_folder_bytes(path)
        } else {
            0
        };
        if dumps_held + dumps > INPUTS_DUMPS_CAP {
            bail!(too_many_dumps(path));
        }
        let e = if held + size > INPUTS_LOG_CAP {
            None
        } else {
            let (e, read) = evidence_and_dumps(path)?;
            dumps_held += read;
            Some(e)
        };
        if dumps_held > INPUTS_DUMPS_CAP {
            bail!(too_many_dumps(path));
        }
        held += e.as_ref().map_or(size, |e| e.log.len() as u64);
        let Some(e) = e.filter(|_| held <= INPUTS_LOG_CAP) else {
            bail!(
                "{}: the logs named so far take more than {} MiB together, which compare and \
                 report hold at most (hint: name fewer inputs, or cut each log to the boots of \
                 the test)",
                path.display(),
                INPUTS_LOG_CAP >> 20
            );
        };
        if let Some(j) = list.iter().position(|earlier| earlier.same_as(&e)) {
            bail!(
                "{} and {} hold the same capture: one test named twice is not two boots \
                 (name each bundle once)",
                paths[j].display(),
                paths[i].display()
            );
        }
        list.push(e);
    }
    Ok(list)
}

/// The most bytes of log that the inputs of one command hold together: two logs at the cap
/// of one.
pub const INPUTS_LOG_CAP: u64 = 2 * EVIDENCE_LOG_CAP;

/// The most bytes of MSR dumps that the inputs of one command hold together: two bundles at
/// the cap of one.
pub const INPUTS_DUMPS_CAP: u64 = 2 * kernlog::evidence::bundle::DUMPS_CAP;

fn too_many_dumps(path: &Path) -> String {
    format!(
        "{}: the MSR dumps of the bundles named so far take more than {} MiB together, which \
         compare and report hold at most (hint: name fewer bundles, or the bundles of fewer \
         boots)",
        path.display(),
        INPUTS_DUMPS_CAP >> 20
    )
}

/// A bundle's folder on disk, read member by member: regular files only, no link anywhere
/// inside the folder, no device, FIFO or socket, each within its cap, opened without
/// blocking.
pub struct Folder {
    dir: PathBuf,
    /// Bytes read so far of members other than the log, `capture.yaml` and `MANIFEST.yaml`:
    /// the MSR dumps.
    dump_bytes: u64,
}

impl Folder {
    pub fn new(dir: &Path) -> Folder {
        Folder {
            dir: dir.to_path_buf(),
            dump_bytes: 0,
        }
    }

    /// The member's path on disk, every part of it checked to be no link; the last part
    /// must be a regular file.
    fn locate(&self, path: &MemberPath) -> Result<(PathBuf, std::fs::Metadata), MemberError> {
        let mut full = self.dir.clone();
        let mut parts = path.as_str().split('/').peekable();
        while let Some(part) = parts.next() {
            full.push(part);
            let meta = std::fs::symlink_metadata(&full).map_err(member_error)?;
            let kind = meta.file_type();
            let last = parts.peek().is_none();
            if kind.is_symlink() {
                return Err(MemberError::NotAFile("a symbolic link"));
            }
            if !last {
                if !kind.is_dir() {
                    return Err(MemberError::NotAFile(
                        "inside something other than a folder",
                    ));
                }
                continue;
            }
            return match kind_name(&kind) {
                None => Ok((full, meta)),
                Some(name) => Err(MemberError::NotAFile(name)),
            };
        }
        Err(MemberError::Missing)
    }
}

fn kind_name(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a folder")
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a plain file")
    }
}

fn member_error(e: io::Error) -> MemberError {
    if e.kind() == io::ErrorKind::NotFound {
        MemberError::Missing
    } else {
        // The system's words only: never the path, never any content.
        MemberError::Unreadable(e.kind().to_string())
    }
}

impl Folder {
    fn open_member(&self, path: &MemberPath) -> Result<std::fs::File, MemberError> {
        use rustix::fs::{CWD, Mode, OFlags, openat};
        let errno = |e: rustix::io::Errno| match e {
            rustix::io::Errno::LOOP => MemberError::NotAFile("a symbolic link"),
            rustix::io::Errno::NOTDIR => {
                MemberError::NotAFile("inside something other than a folder")
            }
            other => member_error(io::Error::from(other)),
        };
        let folder = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let mut dir = openat(CWD, &self.dir, folder, Mode::empty()).map_err(errno)?;
        let mut parts = path.as_str().split('/').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
                let fd = openat(&dir, part, flags, Mode::empty()).map_err(errno)?;
                return Ok(std::fs::File::from(fd));
            }
            dir = openat(&dir, part, folder | OFlags::NOFOLLOW, Mode::empty()).map_err(errno)?;
        }
        Err(MemberError::Missing)
    }
}

impl BundleFiles for Folder {
    fn read(&mut self, path: &MemberPath, cap: u64) -> Result<Vec<u8>, MemberError> {
        let (_, meta) = self.locate(path)?;
        if meta.len() > cap {
            return Err(MemberError::TooLarge { cap });
        }
        // The member is opened part by part from the folder's descriptor, each part with
        // O_NOFOLLOW (folders with O_DIRECTORY too), the file with O_NONBLOCK: a part swapped
        // for a link, or a file for a FIFO, since it was looked at fails to open instead of
        // being followed or blocking.
        let file = self.open_member(path)?;
        let opened = file.metadata().map_err(member_error)?;
        if let Some(name) = kind_name(&opened.file_type()) {
            return Err(MemberError::NotAFile(name));
        }
        let mut bytes = Vec::with_capacity(opened.len().min(cap) as usize);
        file.take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(member_error)?;
        if bytes.len() as u64 > cap {
            return Err(MemberError::TooLarge { cap });
        }
        if !matches!(
            path.as_str(),
            "kernel.log" | "capture.yaml" | "MANIFEST.yaml"
        ) {
            self.dump_bytes += bytes.len() as u64;
        }
        Ok(bytes)
    }

    fn check(&mut self, path: &MemberPath) -> Result<(), MemberError> {
        self.locate(path).map(|_| ())
    }
}
