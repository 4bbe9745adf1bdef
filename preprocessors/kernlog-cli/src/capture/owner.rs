//! Who a capture works for: the user who ran it through sudo, to whom the finished bundle
//! is handed, and whose folders (with root's) the bundle may be created in.

use std::ffi::OsStr;

use anyhow::{Result, bail};

/// A user and group by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub uid: u32,
    pub gid: u32,
}

/// The user who ran `sudo kernlog capture`, from `SUDO_UID` and `SUDO_GID`; `None` without
/// sudo (the bundle then stays root's, the user who ran it). Both must be set, or neither,
/// and each must be a plain decimal id: sudo writes them so, and `-1` (4294967295) would
/// mean "leave unchanged" to chown.
pub fn invoking_user(uid: Option<&OsStr>, gid: Option<&OsStr>) -> Result<Option<Owner>> {
    match (uid, gid) {
        (None, None) => Ok(None),
        (Some(uid), Some(gid)) => Ok(Some(Owner {
            uid: id("SUDO_UID", uid)?,
            gid: id("SUDO_GID", gid)?,
        })),
        (Some(_), None) | (None, Some(_)) => bail!(
            "SUDO_UID and SUDO_GID must be set together (sudo sets both), to name the user the \
             bundle is handed to; unset the one that is set, or run capture through sudo"
        ),
    }
}

fn id(name: &str, value: &OsStr) -> Result<u32> {
    let text = value.to_str().unwrap_or("");
    let plain = !text.is_empty() && text.len() <= 10 && text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<u32>() {
        Ok(id) if plain && id != u32::MAX => Ok(id),
        _ => bail!(
            "{name} is `{}`, not a user or group id (a decimal number below 4294967295): the \
             bundle is handed to the user sudo names there (hint: run capture through sudo, or \
             unset {name})",
            value.to_string_lossy().escape_debug()
        ),
    }
}

/// The users and groups, besides root, that may write the folders a bundle is created in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trusted(pub Option<Owner>);

impl Trusted {
    /// Root or the invoking user.
    pub fn user(self, uid: u32) -> bool {
        uid == 0 || self.0.is_some_and(|o| o.uid == uid)
    }

    /// Root's group or the invoking user's.
    pub fn group(self, gid: u32) -> bool {
        gid == 0 || self.0.is_some_and(|o| o.gid == gid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(uid: Option<&str>, gid: Option<&str>) -> Result<Option<Owner>, String> {
        invoking_user(uid.map(OsStr::new), gid.map(OsStr::new)).map_err(|e| e.to_string())
    }

    #[test]
    fn sudo_names_the_user_and_group() {
        assert_eq!(ids(None, None), Ok(None));
        assert_eq!(
            ids(Some("1000"), Some("1001")),
            Ok(Some(Owner {
                uid: 1000,
                gid: 1001
            }))
        );
        assert_eq!(
            ids(Some("0"), Some("0")),
            Ok(Some(Owner { uid: 0, gid: 0 }))
        );
    }

    #[test]
    fn ids_that_are_no_plain_numbers_are_refused() {
        for bad in [
            "",
            "-1",
            "+5",
            "4294967295",
            "99999999999",
            "1000 ",
            "0x10",
            "alice",
        ] {
            let e = ids(Some(bad), Some("1000")).unwrap_err();
            assert!(e.starts_with("SUDO_UID is `"), "{bad}: {e}");
            let e = ids(Some("1000"), Some(bad)).unwrap_err();
            assert!(e.starts_with("SUDO_GID is `"), "{bad}: {e}");
        }
        let e = ids(Some("1\u{1b}[2J"), Some("1")).unwrap_err();
        assert!(!e.contains('\u{1b}'), "{e}");
    }

    #[test]
    fn one_without_the_other_is_refused() {
        assert!(ids(Some("1000"), None).unwrap_err().contains("together"));
        assert!(ids(None, Some("1000")).unwrap_err().contains("together"));
    }

    #[test]
    fn root_and_the_invoking_user_are_trusted() {
        let t = Trusted(Some(Owner {
            uid: 1000,
            gid: 1001,
        }));
        assert!(t.user(0) && t.user(1000) && !t.user(1001));
        assert!(t.group(0) && t.group(1001) && !t.group(1000));
        let root = Trusted(None);
        assert!(root.user(0) && !root.user(1000) && !root.group(100));
    }
}
