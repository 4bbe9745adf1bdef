//! The folder a bundle is created in, reached one name at a time from `/`: each folder on
//! the way must be one that only root or the invoking user can change (or a sticky one such
//! as `/tmp`, where nobody else can rename what root puts there), and a link is followed only
//! when root or the invoking user made it. So nobody else can steer where root creates the
//! bundle, or swap its folder between its creation and its opening.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use rustix::fs::{CWD, FileType, Mode, OFlags, Stat, fstat, openat, readlinkat};

use super::owner::Trusted;

/// As many links as the kernel follows in one path before it gives up (ELOOP).
const MAX_LINKS: usize = 40;

const HINT: &str = "hint: run capture through sudo, which tells it who you are, from a \
                    folder only you and root can change, such as your home, or name one with \
                    --out";

/// Opens the folder `dir` (an absolute path) for `*at` calls (`O_PATH`), checking every
/// folder and link on the way.
pub fn open(dir: &Path, trusted: Trusted) -> Result<OwnedFd> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_front(&mut pending, dir);
    let (mut here, mut shown) = open_root(trusted)?;
    let mut links = 0;
    while let Some(name) = pending.pop_front() {
        let next = shown.join(&name);
        let fd = openat(&here, name.as_os_str(), at_path(), Mode::empty())
            .with_context(|| format!("cannot reach {}", next.display()))?;
        let stat = fstat(&fd).with_context(|| format!("cannot inspect {}", next.display()))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Symlink => {
                if !trusted.user(stat.st_uid) {
                    bail!(
                        "{} is a link made by user {}, who could point it anywhere: root does \
                         not follow it ({HINT})",
                        next.display(),
                        stat.st_uid
                    );
                }
                links += 1;
                if links > MAX_LINKS {
                    bail!("{}: too many links on the way", dir.display());
                }
                let target = readlinkat(&fd, "", Vec::new())
                    .with_context(|| format!("cannot read the link {}", next.display()))?;
                let target = PathBuf::from(OsStr::from_bytes(target.as_bytes()));
                if target.is_absolute() {
                    (here, shown) = open_root(trusted)?;
                }
                push_front(&mut pending, &target);
            }
            FileType::Directory => {
                check_folder(&stat, &next, trusted)?;
                here = fd;
                if name == ".." {
                    shown.pop();
                } else {
                    shown = next;
                }
            }
            _ => bail!("{} is not a folder", next.display()),
        }
    }
    Ok(here)
}

fn at_path() -> OFlags {
    OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

fn open_root(trusted: Trusted) -> Result<(OwnedFd, PathBuf)> {
    let root = PathBuf::from("/");
    let fd =
        openat(CWD, "/", at_path() | OFlags::DIRECTORY, Mode::empty()).context("cannot open /")?;
    check_folder(&fstat(&fd).context("cannot inspect /")?, &root, trusted)?;
    Ok((fd, root))
}

/// Puts the names of `path` before those still to be walked (`.` dropped; the root is the
/// caller's business).
fn push_front(pending: &mut VecDeque<OsString>, path: &Path) {
    let names: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    for name in names.into_iter().rev() {
        pending.push_front(name);
    }
}

/// A folder root may create the bundle in, or pass through: owned by root or the invoking
/// user, and writable by nobody else unless sticky.
pub fn check_folder(stat: &Stat, path: &Path, trusted: Trusted) -> Result<()> {
    let mode = stat.st_mode;
    let sticky = mode & 0o1000 != 0;
    if !trusted.user(stat.st_uid) {
        bail!(
            "{} belongs to user {}, who could swap the bundle's folder for one of their own or \
             a link ({HINT})",
            path.display(),
            stat.st_uid
        );
    }
    if !sticky && mode & 0o002 != 0 {
        bail!(
            "{} is writable by every user and not sticky: any of them could swap the bundle's \
             folder ({HINT})",
            path.display()
        );
    }
    if !sticky && mode & 0o020 != 0 && !trusted.group(stat.st_gid) {
        bail!(
            "{} is writable by group {}, whose members could swap the bundle's folder ({HINT})",
            path.display(),
            stat.st_gid
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt, chown, symlink};

    use super::super::owner::Owner;
    use super::*;

    const ALICE: Trusted = Trusted(Some(Owner {
        uid: 4242,
        gid: 4243,
    }));

    /// A temporary folder only root can change (the tests run as root).
    fn private() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), PermissionsExt::from_mode(0o700)).unwrap();
        dir
    }

    fn mkdir(path: &Path, mode: u32, uid: u32, gid: u32) {
        std::fs::create_dir(path).unwrap();
        std::fs::set_permissions(path, PermissionsExt::from_mode(mode)).unwrap();
        chown(path, Some(uid), Some(gid)).unwrap();
    }

    fn refused(path: &Path, trusted: Trusted) -> String {
        format!("{:#}", open(path, trusted).unwrap_err())
    }

    #[test]
    fn folders_of_root_and_of_the_invoking_user_are_reached() {
        let dir = private();
        let home = dir.path().join("home");
        mkdir(&home, 0o755, 4242, 4243);
        // Group-writable by the user's own group (umask 002): still only theirs.
        mkdir(&home.join("captures"), 0o775, 4242, 4243);
        assert!(open(&home.join("captures"), ALICE).is_ok());
        // Through `..` and a link the user made.
        symlink("captures", home.join("here")).unwrap();
        std::os::unix::fs::lchown(home.join("here"), Some(4242), Some(4243)).unwrap();
        assert!(open(&home.join("here/../captures"), ALICE).is_ok());
        // A sticky folder everyone may write, such as /tmp.
        mkdir(&dir.path().join("tmp"), 0o1777, 0, 0);
        assert!(open(&dir.path().join("tmp"), Trusted(None)).is_ok());
    }

    #[test]
    fn another_users_folder_or_link_on_the_way_is_refused() {
        let dir = private();
        let theirs = dir.path().join("theirs");
        mkdir(&theirs, 0o755, 5000, 5000);
        mkdir(&theirs.join("inside"), 0o755, 0, 0);
        let e = refused(&theirs.join("inside"), ALICE);
        assert!(e.contains("theirs belongs to user 5000"), "{e}");

        // In a sticky folder, another user's link to a folder of root's.
        let tmp = dir.path().join("tmp");
        mkdir(&tmp, 0o1777, 0, 0);
        mkdir(&dir.path().join("etc"), 0o755, 0, 0);
        symlink(dir.path().join("etc"), tmp.join("out")).unwrap();
        std::os::unix::fs::lchown(tmp.join("out"), Some(5000), Some(5000)).unwrap();
        let e = refused(&tmp.join("out"), ALICE);
        assert!(e.contains("out is a link made by user 5000"), "{e}");
    }

    #[test]
    fn folders_others_may_write_are_refused() {
        let dir = private();
        mkdir(&dir.path().join("open"), 0o777, 0, 0);
        let e = refused(&dir.path().join("open"), ALICE);
        assert!(e.contains("writable by every user and not sticky"), "{e}");
        mkdir(&dir.path().join("staff"), 0o775, 0, 50);
        let e = refused(&dir.path().join("staff"), ALICE);
        assert!(e.contains("writable by group 50"), "{e}");
        assert!(
            open(
                &dir.path().join("staff"),
                Trusted(Some(Owner { uid: 7, gid: 50 }))
            )
            .is_ok()
        );
    }

    #[test]
    fn a_file_or_a_missing_name_is_no_folder() {
        let dir = private();
        std::fs::write(dir.path().join("file"), "").unwrap();
        assert!(refused(&dir.path().join("file"), ALICE).contains("is not a folder"));
        let e = refused(&dir.path().join("missing/deeper"), ALICE);
        assert!(e.contains("cannot reach"), "{e}");
    }

    #[test]
    fn a_loop_of_links_ends() {
        let dir = private();
        symlink("b", dir.path().join("a")).unwrap();
        symlink("a", dir.path().join("b")).unwrap();
        assert!(refused(&dir.path().join("a"), ALICE).contains("too many links"));
    }
}
