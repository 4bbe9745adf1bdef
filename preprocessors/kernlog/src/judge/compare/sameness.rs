//! Do the two sides differ in more than the patch? The kernel version apart from its
//! local-version suffix, the command line (the options that only make the kernel print more
//! told apart, since printing lengthens a resume too), the machine, the sleep mode.

use crate::analysis::resume::SleepMode;
use crate::evidence::Evidence;

/// Command-line options that only make the kernel tell more: no other code path, but more
/// lines printed, and a console that shows them is waited for, so a resume can take longer.
const DEBUG_OPTIONS: &[&str] = &[
    "mtrr=debug",
    "initcall_debug",
    "no_console_suspend",
    "ignore_loglevel",
    "pm_debug_messages",
    "debug",
    "quiet",
    "splash",
];
/// Options of that kind with a value (`loglevel=7`).
const DEBUG_PREFIXES: &[&str] = &[
    "loglevel=",
    "printk.devkmsg=",
    "printk.time=",
    "log_buf_len=",
    "console=",
];

/// The image booted (`BOOT_IMAGE=/vmlinuz-7.3.4-mtrrfix`): it names the two kernels, which
/// are meant to differ.
fn is_image_name(option: &str) -> bool {
    option.starts_with("BOOT_IMAGE=")
}

/// The options of `line` that `other` lacks, of the debug kind or of the other kind, image
/// names left out.
fn only_in(line: &str, other: &str, debug: bool) -> String {
    let theirs: Vec<&str> = other.split_whitespace().collect();
    line.split_whitespace()
        .filter(|o| !is_image_name(o) && is_debug_option(o) == debug && !theirs.contains(o))
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_debug_option(option: &str) -> bool {
    DEBUG_OPTIONS.contains(&option) || DEBUG_PREFIXES.iter().any(|p| option.starts_with(p))
}

/// The version of a release without its local-version suffix: `7.3.4` of
/// `7.3.4-mtrrfix`, `6.19-rc8` of `6.19-rc8-jgross`.
pub(crate) fn base_version(release: &str) -> &str {
    let numeric = release
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(release.len());
    let rest = &release[numeric..];
    let rc = rest
        .strip_prefix("-rc")
        .map(|r| 3 + r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len()))
        .filter(|len| *len > 3)
        .unwrap_or(0);
    &release[..numeric + rc]
}

fn modes(e: &Evidence) -> Vec<SleepMode> {
    let mut m: Vec<SleepMode> = e.analysis.cycles.iter().filter_map(|c| c.mode).collect();
    m.sort_by_key(|m| m.name());
    m.dedup();
    m
}

/// Warnings, one sentence each, for every difference beyond the patch, and for what
/// cannot be told because a side does not name it.
pub fn differences(before: &Evidence, after: &Evidence) -> Vec<String> {
    let mut out = Vec::new();
    let (b, a) = (&before.kernel, &after.kernel);
    match (b.release.as_deref(), a.release.as_deref()) {
        (Some(rb), Some(ra)) if base_version(rb) != base_version(ra) => out.push(format!(
            "the kernels differ in more than a local-version suffix: {rb} against {ra}; \
             build the unpatched and the patched kernel from the same version"
        )),
        (Some(_), Some(_)) => {}
        (rb, ra) => {
            let missing: Vec<&str> = [("BEFORE", rb), ("AFTER", ra)]
                .into_iter()
                .filter(|(_, r)| r.is_none())
                .map(|(s, _)| s)
                .collect();
            out.push(format!(
                "{} {} no kernel (no `Linux version` line): whether the kernels differ \
                 only in the patch is not shown",
                missing.join(" and "),
                if missing.len() == 1 { "names" } else { "name" }
            ));
        }
    }
    if let (Some(cb), Some(ca)) = (b.cmdline.as_deref(), a.cmdline.as_deref()) {
        let apart = |debug| (only_in(cb, ca, debug), only_in(ca, cb, debug));
        let (only_b, only_a) = apart(false);
        if !only_b.is_empty() || !only_a.is_empty() {
            out.push(format!(
                "the command lines differ beyond debug options: only BEFORE has [{only_b}], \
                 only AFTER has [{only_a}]"
            ));
        }
        let (only_b, only_a) = apart(true);
        if !only_b.is_empty() || !only_a.is_empty() {
            out.push(format!(
                "the debug and logging options differ: only BEFORE has [{only_b}], only AFTER \
                 has [{only_a}]; more printing can lengthen a resume, so boot both kernels with \
                 the same ones"
            ));
        }
    }
    if let (Some(mb), Some(ma)) = (before.machine(), after.machine()) {
        if mb != ma {
            out.push(format!("the machines differ: {mb} against {ma}"));
        }
    }
    let (mb, ma) = (modes(before), modes(after));
    if !mb.is_empty() && !ma.is_empty() && mb != ma {
        let names = |m: &[SleepMode]| m.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ");
        out.push(format!(
            "the sleep modes differ: {} against {}",
            names(&mb),
            names(&ma)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_version_suffix_is_not_a_difference() {
        assert_eq!(base_version("7.3.4-mtrrfix"), "7.3.4");
        assert_eq!(base_version("7.3.4"), "7.3.4");
        assert_eq!(base_version("6.19-rc8-jgross"), "6.19-rc8");
        assert_eq!(base_version("6.8.0-45-generic"), "6.8.0");
        assert_eq!(base_version("6.1-rc"), "6.1");
    }

    fn log(banner: &str) -> Evidence {
        Evidence::from_log("x", banner.as_bytes()).unwrap()
    }

    #[test]
    fn versions_and_command_lines_are_told_apart_from_debug_options() {
        let b = log("[0.0] Linux version 7.3.4-stock (a@b) #1\n\
                     [0.0] Command line: BOOT_IMAGE=/vmlinuz-7.3.4-stock root=/dev/sda1 mtrr=debug\n");
        let a = log("[0.0] Linux version 7.3.4-mtrrfix (a@b) #1\n\
                     [0.0] Command line: BOOT_IMAGE=/vmlinuz-7.3.4-mtrrfix root=/dev/sda1 mtrr=debug\n");
        // The image names differ, as two kernels' do: no difference.
        assert_eq!(differences(&b, &a), Vec::<String>::new());
        // Debug printing on one side only is told, as such.
        let quiet = log("[0.0] Linux version 7.3.4-stock (a@b) #1\n\
                         [0.0] Command line: root=/dev/sda1 quiet\n");
        assert_eq!(
            differences(&quiet, &a),
            [
                "the debug and logging options differ: only BEFORE has [quiet], only AFTER has \
              [mtrr=debug]; more printing can lengthen a resume, so boot both kernels with the \
              same ones"
            ]
        );
        let other = log("[0.0] Linux version 6.8.0-45-generic (a@b) #1\n\
                         [0.0] Command line: root=/dev/sda1 nosmt\n");
        let d = differences(&other, &a);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(
            d[0].contains("6.8.0-45-generic against 7.3.4-mtrrfix"),
            "{d:?}"
        );
        assert!(
            d[1].contains("only BEFORE has [nosmt], only AFTER has []"),
            "{d:?}"
        );
        assert!(d[2].contains("only AFTER has [mtrr=debug]"), "{d:?}");
        let none = log("[1.0] hello\n");
        assert!(differences(&none, &a)[0].starts_with("BEFORE names no kernel"));
    }
}
