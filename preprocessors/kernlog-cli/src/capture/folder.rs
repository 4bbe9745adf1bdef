//! The bundle's folder, created by capture itself (mode 0700) and written only through its
//! descriptor: every file is created new (`O_EXCL|O_NOFOLLOW`, mode 0600) relative to the
//! folder or one of its subfolders opened without following links, and a file rewritten is
//! a new temporary file renamed over it in the same folder. At the end the whole folder is
//! handed to the invoking user, again by descriptor.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use rustix::fs::{
    AtFlags, Dir, FileType, Gid, Mode, OFlags, Uid, chownat, fchmod, fchown, fstat, fsync, mkdirat,
    openat, renameat, unlinkat,
};

use super::owner::{Owner, Trusted};
use super::parent;

const FOLDER_MODE: u32 = 0o700;
const FILE_MODE: u32 = 0o600;
/// The bundle and its subfolders (`mtrr/`): deeper folders are none of capture's.
const MAX_DEPTH: usize = 2;

/// The open bundle folder.
pub struct BundleDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl BundleDir {
    /// Creates the folder `out`, which must not exist, in a parent reached safely (see
    /// [`parent::open`]); `owner` is the user it will be handed to.
    pub fn create(out: &Path, owner: Option<Owner>) -> Result<BundleDir> {
        let absolute = if out.is_absolute() {
            out.to_path_buf()
        } else {
            std::env::current_dir()
                .context("cannot tell the current folder")?
                .join(out)
        };
        let (Some(Component::Normal(name)), Some(parent)) =
            (absolute.components().next_back(), absolute.parent())
        else {
            bail!(
                "--out {}: name a new folder (its last part cannot be `..` or `/`)",
                out.display()
            );
        };
        let at = parent::open(parent, Trusted(owner))
            .with_context(|| format!("cannot create the bundle {}", out.display()))?;
        if let Some(owner) = owner {
            invoker_may_create_in(at.as_fd(), owner, parent)?;
        }
        match mkdirat(&at, name, Mode::from_raw_mode(FOLDER_MODE)) {
            Ok(()) => {}
            Err(e) if e == rustix::io::Errno::EXIST => bail!(
                "{} already exists: capture creates the bundle's folder itself and never writes \
                 into one it did not create (an existing folder or link may be another user's) \
                 (hint: name a new folder with --out, or move this one away)",
                out.display()
            ),
            Err(e) => {
                return Err(io::Error::from(e))
                    .with_context(|| format!("cannot create the bundle {}", out.display()));
            }
        }
        // The new name reaches the disk with the parent, so that a machine that never comes
        // back still shows the bundle (best effort: a file system may not flush a folder).
        if let Ok(parent) = open_folder(at.as_fd(), ".") {
            let _ = fsync(parent);
        }
        let fd = open_folder(at.as_fd(), name)
            .with_context(|| format!("cannot open the new bundle {}", out.display()))?;
        let stat = fstat(&fd)?;
        if stat.st_uid != rustix::process::geteuid().as_raw() {
            bail!(
                "{} was replaced by user {}'s folder just after capture created it (hint: name a \
                 folder under one only you and root can change)",
                out.display(),
                stat.st_uid
            );
        }
        // Another of root's folders swapped in between mkdir and open (a rename exchange in a
        // parent the user owns) is no new folder: it has other modes, or holds something.
        if stat.st_mode & 0o077 != 0 || stat.st_nlink != 2 || !is_empty(fd.as_fd())? {
            bail!(
                "{} was replaced by another folder just after capture created it (hint: name a \
                 folder under one only you and root can change)",
                out.display()
            );
        }
        // The mode asked of mkdir passes through the umask; the bundle's does not depend on it.
        fchmod(&fd, Mode::from_raw_mode(FOLDER_MODE))?;
        Ok(BundleDir {
            fd,
            path: out.to_path_buf(),
        })
    }

    /// The folder as the command line named it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the subfolder `name` (0700).
    pub fn mkdir(&self, name: &str) -> Result<()> {
        let made = mkdirat(&self.fd, name, Mode::from_raw_mode(FOLDER_MODE))
            .map_err(io::Error::from)
            .and_then(|()| open_folder(self.fd.as_fd(), name))
            .and_then(|fd| Ok(fchmod(&fd, Mode::from_raw_mode(FOLDER_MODE))?));
        made.with_context(|| format!("cannot create {}", self.path.join(name).display()))
    }

    /// Creates the new file `rel` (`mtrr/boot.txt`), 0600, open for reading and writing.
    pub fn new_file(&self, rel: &str) -> Result<File> {
        let (folder, name) = self.folder_of(rel)?;
        self.create_in(folder.as_ref(), name)
            .with_context(|| format!("cannot create {}", self.path.join(rel).display()))
    }

    /// Writes the new file `rel` and flushes it, and the folder that lists it, to the disk.
    pub fn write_new(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let (folder, name) = self.folder_of(rel)?;
        let at = folder.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
        let mut file = self
            .create_in(folder.as_ref(), name)
            .with_context(|| format!("cannot create {}", self.path.join(rel).display()))?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", self.path.join(rel).display()))?;
        self.flush_folder(at)
    }

    /// Replaces `rel` with `bytes`: a new `.NAME.tmp` beside it, flushed, then renamed over
    /// it, so that a machine that never comes back leaves the old file or the new one.
    pub fn replace(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let (folder, name) = self.folder_of(rel)?;
        let temp = format!(".{name}.tmp");
        let at = folder.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
        let mut file = self.create_in(folder.as_ref(), &temp).with_context(|| {
            format!(
                "cannot create {} to replace {rel} (a name capture never leaves behind)",
                self.path.join(&temp).display()
            )
        })?;
        let written = file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .and_then(|()| Ok(renameat(at, &temp, at, name)?));
        if let Err(e) = written {
            let _ = unlinkat(at, &temp, AtFlags::empty());
            return Err(e)
                .with_context(|| format!("cannot write {}", self.path.join(rel).display()));
        }
        self.flush_folder(at)
    }

    /// A new name or a rename reaches the disk with its folder; a file system that cannot
    /// flush a folder (EINVAL) has no more to offer, and the file itself is on disk already.
    fn flush_folder(&self, folder: BorrowedFd<'_>) -> Result<()> {
        match fsync(folder) {
            Err(e) if e != rustix::io::Errno::INVAL => Err(io::Error::from(e))
                .with_context(|| format!("cannot flush a folder of {}", self.path.display())),
            _ => Ok(()),
        }
    }

    /// Gives the folder, its subfolders and its files to `owner`, without following any
    /// link; the folder itself last, so that nothing in it changes hands while root writes.
    pub fn hand_back(&self, owner: Owner) -> Result<()> {
        chown_tree(self.fd.as_fd(), owner, 1)
            .and_then(|()| chown(self.fd.as_fd(), owner))
            .with_context(|| {
                format!(
                    "cannot hand the bundle {} to user {} (group {})",
                    self.path.display(),
                    owner.uid,
                    owner.gid
                )
            })
    }

    /// The subfolder that holds `rel` (opened without following links; `None` for the
    /// bundle itself) and the file's name in it.
    fn folder_of<'a>(&self, rel: &'a str) -> Result<(Option<OwnedFd>, &'a str)> {
        let Some((folders, name)) = rel.rsplit_once('/') else {
            return Ok((None, rel));
        };
        let mut here: Option<OwnedFd> = None;
        for folder in folders.split('/') {
            let at = here.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
            let next = open_folder(at, folder).with_context(|| {
                format!(
                    "cannot open {} as the bundle's own folder (not a link)",
                    self.path.join(folder).display()
                )
            })?;
            here = Some(next);
        }
        Ok((here, name))
    }

    fn create_in(&self, folder: Option<&OwnedFd>, name: &str) -> io::Result<File> {
        let at = folder.map_or(self.fd.as_fd(), AsFd::as_fd);
        let flags =
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = openat(at, name, flags, Mode::from_raw_mode(FILE_MODE))?;
        fchmod(&fd, Mode::from_raw_mode(FILE_MODE))?;
        Ok(File::from(fd))
    }
}

/// True when the folder holds nothing but `.` and `..`.
fn is_empty(dir: BorrowedFd<'_>) -> io::Result<bool> {
    for entry in Dir::read_from(dir)? {
        let name = entry?.file_name().to_owned();
        if name.as_c_str() != c"." && name.as_c_str() != c".." {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The bundle goes to the invoking user at the end: capture creates it only where that
/// user could have created a folder themselves (their own folder, a group folder of their
/// primary group, or a sticky folder anyone may write, like `/tmp`), never in one of
/// root's, where a folder of theirs could be run as root.
fn invoker_may_create_in(parent: BorrowedFd<'_>, owner: Owner, shown: &Path) -> Result<()> {
    let stat = fstat(parent)?;
    let mode = stat.st_mode;
    let writable = (stat.st_uid == owner.uid && mode & 0o300 == 0o300)
        || (stat.st_gid == owner.gid && mode & 0o030 == 0o030)
        || (mode & 0o003 == 0o003 && mode & 0o1000 != 0);
    if writable {
        return Ok(());
    }
    bail!(
        "{} is not a folder user {} could create a folder in; capture hands the bundle to that \
         user, so it creates it only where they could have (hint: --out in your home folder, \
         or in /tmp)",
        shown.display(),
        owner.uid
    )
}

/// Opens the folder `name` in `at` for reading, refusing a link.
fn open_folder(at: BorrowedFd<'_>, name: impl rustix::path::Arg) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(openat(at, name, flags, Mode::empty())?)
}

fn chown(fd: BorrowedFd<'_>, owner: Owner) -> io::Result<()> {
    let (uid, gid) = (Uid::from_raw(owner.uid), Gid::from_raw(owner.gid));
    Ok(fchown(fd, Some(uid), Some(gid))?)
}

/// Hands over every regular file and folder in `dir` (folders to `MAX_DEPTH`). Each entry is
/// opened as a path only (`O_PATH|O_NOFOLLOW`: no device opened, no link followed) and
/// changed through that descriptor; whatever else is there stays root's.
fn chown_tree(dir: BorrowedFd<'_>, owner: Owner, depth: usize) -> io::Result<()> {
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = openat(dir, name, flags, Mode::empty())?;
        match FileType::from_raw_mode(fstat(&fd)?.st_mode) {
            FileType::RegularFile => {
                let (uid, gid) = (Uid::from_raw(owner.uid), Gid::from_raw(owner.gid));
                chownat(&fd, "", Some(uid), Some(gid), AtFlags::EMPTY_PATH)?;
            }
            FileType::Directory if depth < MAX_DEPTH => {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                let sub = openat(&fd, ".", flags, Mode::empty())?;
                chown_tree(sub.as_fd(), owner, depth + 1)?;
                chown(sub.as_fd(), owner)?;
            }
            _ => {}
        }
    }
    Ok(())
}
