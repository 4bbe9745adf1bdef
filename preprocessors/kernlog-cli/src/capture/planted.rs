//! Capture against another local user who plants folders and links where root writes:
//! each attack fails cleanly, the file it aimed at stays as it was, and
//! what capture wrote is handed to the invoking user. The tests run as root, as capture does,
//! in temporary folders; the "other user" is uid 5000, the invoking user 4242 (group 4243).

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, chown, lchown, symlink};
use std::path::{Path, PathBuf};

use kernlog::evidence::bundle::Outcome;

use super::Host;
use super::tests::{Act, FakeHost, capture, refused};

const OTHER: u32 = 5000;

/// A root-only file an attacker would like root to overwrite, in a folder of its own.
struct Victim {
    _dir: tempfile::TempDir,
    file: PathBuf,
    folder: PathBuf,
}

impl Victim {
    fn new() -> Victim {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ld.so.preload");
        fs::write(&file, "root's own text\n").unwrap();
        fs::set_permissions(&file, PermissionsExt::from_mode(0o600)).unwrap();
        let folder = dir.path().join("etc");
        fs::create_dir(&folder).unwrap();
        Victim {
            _dir: dir,
            file,
            folder,
        }
    }

    /// Nothing was written to the file or created in the folder, and both are still root's.
    fn untouched(&self) {
        assert_eq!(fs::read_to_string(&self.file).unwrap(), "root's own text\n");
        let meta = fs::metadata(&self.file).unwrap();
        assert_eq!((meta.uid(), meta.mode() & 0o7777), (0, 0o600));
        assert_eq!(fs::read_dir(&self.folder).unwrap().count(), 0);
        assert_eq!(fs::metadata(&self.folder).unwrap().uid(), 0);
    }
}

fn sudo_host() -> FakeHost {
    let mut host = FakeHost::new();
    host.sudo("4242", "4243");
    host
}

fn owner(path: &Path) -> (u32, u32) {
    let meta = fs::symlink_metadata(path).unwrap();
    (meta.uid(), meta.gid())
}

#[test]
fn an_empty_folder_of_another_user_is_refused() {
    let mut host = sudo_host();
    let out = host.path("bundle");
    fs::create_dir(&out).unwrap();
    chown(&out, Some(OTHER), Some(OTHER)).unwrap();
    let e = capture(&mut host, &out, &[]).unwrap_err();
    assert!(e.contains("bundle already exists"), "{e}");
    assert!(e.contains("hint: name a new folder with --out"), "{e}");
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    assert_eq!(owner(&out), (OTHER, OTHER));
    assert!(host.requests.is_empty());
}

#[test]
fn a_folder_with_a_planted_kernel_log_link_is_refused() {
    let victim = Victim::new();
    let mut host = sudo_host();
    let out = host.path("bundle");
    fs::create_dir(&out).unwrap();
    symlink(&victim.file, out.join("kernel.log")).unwrap();
    let e = capture(&mut host, &out, &[]).unwrap_err();
    assert!(e.contains("already exists"), "{e}");
    victim.untouched();
}

#[test]
fn out_as_a_link_is_refused_whoever_made_it() {
    let victim = Victim::new();
    let mut host = sudo_host();
    // A link to an empty folder of root's, and one that points nowhere yet.
    let out = host.path("bundle");
    symlink(&victim.folder, &out).unwrap();
    lchown(&out, Some(OTHER), Some(OTHER)).unwrap();
    let e = capture(&mut host, &out, &[]).unwrap_err();
    assert!(e.contains("already exists"), "{e}");
    let dangling = host.path("later");
    symlink(victim.folder.join("new"), &dangling).unwrap();
    let e = capture(&mut host, &dangling, &[]).unwrap_err();
    assert!(e.contains("already exists"), "{e}");
    victim.untouched();
    assert!(host.requests.is_empty());
}

#[test]
fn a_folder_another_user_owns_or_links_is_no_parent() {
    let victim = Victim::new();
    let mut host = sudo_host();
    let theirs = host.path("theirs");
    fs::create_dir(&theirs).unwrap();
    chown(&theirs, Some(OTHER), Some(OTHER)).unwrap();
    let e = capture(&mut host, &theirs.join("bundle"), &[]).unwrap_err();
    assert!(e.contains("theirs belongs to user 5000"), "{e}");
    assert_eq!(fs::read_dir(&theirs).unwrap().count(), 0);

    // In a sticky folder such as /tmp, another user's link to a folder of root's.
    let tmp = host.path("tmp");
    fs::create_dir(&tmp).unwrap();
    fs::set_permissions(&tmp, PermissionsExt::from_mode(0o1777)).unwrap();
    symlink(&victim.folder, tmp.join("captures")).unwrap();
    lchown(tmp.join("captures"), Some(OTHER), Some(OTHER)).unwrap();
    let e = capture(&mut host, &tmp.join("captures/bundle"), &[]).unwrap_err();
    assert!(e.contains("captures is a link made by user 5000"), "{e}");
    victim.untouched();

    // The sticky folder itself is fine.
    host.script = [Act::Resume(0xc06)].into();
    let out = tmp.join("bundle");
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    assert_eq!(owner(&out), (4242, 4243));
}

/// A capture during whose first suspend `plant` runs on the bundle's folder; its error.
fn planted(host: &mut FakeHost, plant: impl FnOnce(&Path) + 'static) -> String {
    let out = host.path("bundle");
    let inside = out.clone();
    host.meanwhile = Some(Box::new(move || plant(&inside)));
    host.script = [Act::Resume(0xc06), Act::Resume(0xc06)].into();
    let e = capture(host, &out, &["--cycles", "2"]).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "the capture stopped; what it wrote is in {}",
            out.display()
        )),
        "{e}"
    );
    assert_eq!(host.requests.len(), 1, "no cycle after the failed write");
    // Handed back all the same.
    assert_eq!(owner(&out), (4242, 4243));
    assert_eq!(owner(&out.join("capture.yaml")), (4242, 4243));
    e
}

#[test]
fn a_planted_temporary_link_is_not_written_through() {
    for (temp, file) in [
        (".capture.yaml.tmp", "capture.yaml"),
        (".MANIFEST.yaml.tmp", "MANIFEST.yaml"),
    ] {
        let victim = Victim::new();
        let target = victim.file.clone();
        let mut host = sudo_host();
        let e = planted(&mut host, move |out| {
            symlink(&target, out.join(temp)).unwrap();
        });
        assert!(e.contains(&format!("{temp} to replace {file}")), "{e}");
        assert!(e.contains("File exists"), "{e}");
        victim.untouched();
        // The link itself stays as it was, root's: the hand-back changed nothing through it.
        assert_eq!(owner(&host.path(&format!("bundle/{temp}"))), (0, 0));
    }
}

#[test]
fn a_swapped_mtrr_link_is_not_followed() {
    let victim = Victim::new();
    let target = victim.folder.clone();
    let mut host = sudo_host();
    let e = planted(&mut host, move |out| {
        fs::rename(out.join("mtrr"), out.join("mtrr.old")).unwrap();
        symlink(&target, out.join("mtrr")).unwrap();
    });
    assert!(
        e.contains("bundle/mtrr as the bundle's own folder (not a link)"),
        "{e}"
    );
    victim.untouched();
    // The real folder, moved aside, was handed back; the link was not followed.
    assert_eq!(owner(&host.path("bundle/mtrr.old")), (4242, 4243));
    assert_eq!(owner(&host.path("bundle/mtrr.old/boot.txt")), (4242, 4243));
}

#[test]
fn a_kernel_log_swapped_for_a_link_is_not_written_through() {
    let victim = Victim::new();
    let target = victim.file.clone();
    let mut host = sudo_host();
    let out = host.path("bundle");
    let inside = out.clone();
    host.meanwhile = Some(Box::new(move || {
        fs::remove_file(inside.join("kernel.log")).unwrap();
        symlink(&target, inside.join("kernel.log")).unwrap();
    }));
    host.script = [Act::Resume(0xc06)].into();
    // The log is written through the descriptor opened when the file was created: the
    // capture goes on into the file the link replaced, and never opens the link.
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    victim.untouched();
    assert_eq!(owner(&out.join("kernel.log")), (0, 0));
}

#[test]
fn the_bundle_is_private_and_handed_to_the_invoking_user() {
    let mut host = sudo_host();
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    let mut seen = 0;
    for path in [out.clone(), out.join("mtrr")] {
        let meta = fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.mode() & 0o7777, 0o700, "{}", path.display());
        assert_eq!(owner(&path), (4242, 4243), "{}", path.display());
        for entry in fs::read_dir(&path).unwrap() {
            let entry = entry.unwrap().path();
            let meta = fs::symlink_metadata(&entry).unwrap();
            if meta.is_file() {
                seen += 1;
                assert_eq!(meta.mode() & 0o7777, 0o600, "{}", entry.display());
                assert_eq!(owner(&entry), (4242, 4243), "{}", entry.display());
            }
        }
    }
    // MANIFEST.yaml, capture.yaml, kernel.log, proc-mtrr.txt, two dumps; no temporary file.
    assert_eq!(seen, 6);
}

#[test]
fn without_sudo_the_bundle_stays_roots() {
    let mut host = FakeHost::new();
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    assert_eq!(owner(&out), (0, 0));
    assert_eq!(fs::metadata(&out).unwrap().mode() & 0o7777, 0o700);
}

#[test]
fn an_invalid_sudo_user_is_refused_before_anything_is_written() {
    let mut host = FakeHost::new();
    host.sudo("4294967295", "4243");
    let e = refused(&mut host, &[]);
    assert!(e.contains("SUDO_UID is `4294967295`"), "{e}");
}

#[test]
fn a_capture_stopped_by_a_signal_is_handed_back_with_its_cycle_left_suspending() {
    let mut host = sudo_host();
    host.script = [Act::Resume(0xc06), Act::NeverWakes].into();
    host.interrupt_after = Some(3);
    let out = host.path("bundle");
    let e = capture(&mut host, &out, &["--cycles", "3"]).unwrap_err();
    assert!(
        e.ends_with(
            "stopped by SIGINT in cycle 2, before the kernel's log showed its resume \
                     (capture.yaml leaves the cycle `suspending`)"
        ),
        "{e}"
    );
    assert_eq!(host.requests.len(), 2);
    assert_eq!(owner(&out), (4242, 4243));
    assert_eq!(owner(&out.join("mtrr/after-cycle-1.txt")), (4242, 4243));
    let bundle = super::tests::open_bundle(&out);
    let outcomes: Vec<_> = bundle.capture.cycles.iter().map(|c| c.outcome).collect();
    assert_eq!(outcomes, [Outcome::Resumed, Outcome::Suspending]);
    // No alarm is left to wake the machine later.
    let alarm = fs::read_to_string(host.path("sys/class/rtc/rtc0/wakealarm")).unwrap();
    assert_eq!(alarm, "0");
}

#[test]
fn a_folder_of_roots_is_no_place_for_a_bundle_handed_to_the_user() {
    // `sudo kernlog capture --out /etc/systemd/system/x.d` would give the user a folder that
    // root reads as configuration: refused before anything is created.
    let mut host = sudo_host();
    let roots = host.path("etc");
    fs::create_dir(&roots).unwrap();
    chown(&roots, Some(0), Some(0)).unwrap();
    fs::set_permissions(&roots, PermissionsExt::from_mode(0o755)).unwrap();
    let out = roots.join("getty.service.d");
    let e = capture(&mut host, &out, &[]).unwrap_err();
    assert!(
        e.contains("is not a folder user 4242 could create a folder in"),
        "{e}"
    );
    assert!(!out.exists());
    assert!(host.requests.is_empty());
    // /tmp's kind of folder (sticky, anyone may write) is one.
    let shared = host.path("tmp");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, PermissionsExt::from_mode(0o1777)).unwrap();
    let out = shared.join("bundle");
    host.script = [Act::Resume(0xc06)].into();
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    assert_eq!(owner(&out), (4242, 4243));
}

#[test]
fn a_folder_of_roots_swapped_in_for_the_new_one_is_never_handed_over() {
    // The user owns the parent and exchanges the new folder with a folder of root's, over and
    // over, while capture runs: root must never chmod or chown that folder or its files.
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut host = sudo_host();
    let theirs = host.path("rootdir");
    fs::create_dir(&theirs).unwrap();
    fs::set_permissions(&theirs, PermissionsExt::from_mode(0o755)).unwrap();
    let secret = theirs.join("secret");
    fs::write(&secret, "root's\n").unwrap();
    fs::set_permissions(&secret, PermissionsExt::from_mode(0o600)).unwrap();
    let out = host.path("bundle");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, a, b) = (stop.clone(), out.clone(), theirs.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &a,
                    rustix::fs::CWD,
                    &b,
                    rustix::fs::RenameFlags::EXCHANGE,
                );
            }
        })
    };
    for _ in 0..20 {
        // The last round's bundle, wherever it ended up, out of the way (root's folder stays).
        for place in [&out, &theirs] {
            if place.exists() && !place.join("secret").exists() {
                let _ = fs::remove_dir_all(place);
            }
        }
        host.script = [Act::Resume(0xc06)].into();
        host.requests.clear();
        let _ = capture(&mut host, &out, &["--cycles", "1"]);
        // Wherever the swaps left it, root's folder and file are as they were. Each place is
        // looked at through one descriptor, since the swaps go on meanwhile: the folder
        // that holds `secret` is the one whose owner and mode are read.
        for place in [&out, &theirs] {
            use rustix::fs::{AtFlags, CWD, Mode, OFlags, fstat, openat, statat};
            let Ok(dir) = openat(
                CWD,
                place,
                OFlags::RDONLY | OFlags::DIRECTORY,
                Mode::empty(),
            ) else {
                continue;
            };
            if let Ok(file) = statat(&dir, "secret", AtFlags::SYMLINK_NOFOLLOW) {
                assert_eq!((file.st_uid, file.st_mode & 0o777), (0, 0o600));
                let folder = fstat(&dir).unwrap();
                assert_eq!((folder.st_uid, folder.st_mode & 0o777), (0, 0o755));
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
}
