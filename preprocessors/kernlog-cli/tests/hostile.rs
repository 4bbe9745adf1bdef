//! Bundles and logs built to attack the reader: paths and links out of
//! the bundle, members that are devices, FIFOs or huge, bounds, terminal escapes and forged
//! lines in every command's output, and verdicts a bundle does not support. Each must end
//! in a clean refusal or in output that is correct and inert. The times and memory of the
//! same cases are printed by `cargo bench -p kernlog-cli --bench hostile`.

mod common;
#[path = "common/hostile.rs"]
mod hostile;
use common::kernlog;
use hostile::*;
use std::fs;
use std::path::Path;
use std::process::Output;

/// Runs `kernlog ARGS`, and checks what every run must hold: no panic, no raw control
/// character but the line end on either stream.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out: Output = kernlog(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        let raw: Vec<char> = text
            .chars()
            .filter(|&c| c != '\n' && (c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)))
            .collect();
        assert!(raw.is_empty(), "{args:?}: raw {raw:?} on {name}: {text}");
    }
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    (out.status.code(), stdout, stderr)
}

/// `check BUNDLE` must be refused (exit 2) with `said` in the error, and with nothing of
/// `secret` (an outside file's content) in it.
fn refused(dir: &Path, said: &str) -> String {
    let (code, stdout, stderr) = run(&["check", s(dir)]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains(said), "expected {said:?} in: {stderr}");
    for secret in ["root:", "PATH=", "HOME="] {
        assert!(!stderr.contains(secret), "leaked {secret:?}: {stderr}");
    }
    stderr
}

#[test]
fn a_cycles_dump_path_outside_the_bundle_is_refused_unread() {
    for path in [
        "/etc/passwd",
        "../../../../proc/self/environ",
        "mtrr/boot.txt",
    ] {
        let dir = good_copy();
        edit(
            &dir.path().join("capture.yaml"),
            "mtrr: mtrr/after-cycle-2.txt",
            &format!("mtrr: {path}"),
        );
        refused(
            dir.path(),
            "kernlog capture writes it as `mtrr/after-cycle-2.txt`",
        );
    }
}

#[test]
fn links_in_a_bundle_are_not_followed() {
    let dir = good_copy();
    fs::remove_file(dir.path().join("kernel.log")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("kernel.log")).unwrap();
    refused(
        dir.path(),
        "names `kernel.log`, which is a symbolic link, not a regular file",
    );

    // The dumps' folder swapped for a link to a folder outside.
    let dir = good_copy();
    let outside = good_copy();
    fs::remove_dir_all(dir.path().join("mtrr")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("mtrr"), dir.path().join("mtrr")).unwrap();
    refused(dir.path(), "is a symbolic link");

    let dir = good_copy();
    fs::remove_file(dir.path().join("mtrr/after-cycle-1.txt")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("mtrr/after-cycle-1.txt")).unwrap();
    refused(
        dir.path(),
        "`mtrr/after-cycle-1.txt`, which is a symbolic link",
    );
}

#[test]
fn fifos_devices_and_huge_members_are_refused_without_reading() {
    refused(
        fifo_log().path(),
        "`kernel.log`, which is a FIFO, not a regular file",
    );
    refused(
        sparse_log().path(),
        "kernel.log: is larger than the 65536 KiB",
    );

    // A character device inside the bundle (mknod needs root, which CI has).
    let dir = good_copy();
    let dump = dir.path().join("mtrr/after-cycle-1.txt");
    fs::remove_file(&dump).unwrap();
    let made = std::process::Command::new("mknod")
        .arg(&dump)
        .args(["c", "1", "5"])
        .status();
    if made.is_ok_and(|s| s.success()) {
        refused(
            dir.path(),
            "`mtrr/after-cycle-1.txt`, which is a device, not a regular file",
        );
    } else {
        eprintln!("mknod refused (not root): the device case was not run");
    }
}

#[test]
fn bundles_past_the_bounds_are_refused() {
    refused(
        many_cycles().path(),
        "capture.yaml: is larger than the 256 KiB",
    );
    refused(deep_yaml().path(), "nest deeper than 128 levels");
    refused(
        many_cpus(9000).path(),
        "mtrr/boot.txt:8193: more than 8192 CPUs in one dump",
    );
}

#[test]
fn an_endless_device_as_a_plain_log_stops_at_the_cap() {
    let (code, _, stderr) = run(&["check", "/dev/zero"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("longer than 64 MiB"), "{stderr}");
}

#[test]
fn verdicts_the_bundle_does_not_support_are_not_given() {
    // Dumps of CPU 0 alone: CPU 0 would be compared with itself.
    let dir = good_copy();
    for n in 1..=5 {
        let path = dir.path().join(format!("mtrr/after-cycle-{n}.txt"));
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("{}\n", text.lines().next().unwrap())).unwrap();
    }
    let (code, stdout, _) = run(&["check", "--max-bringup-ms", "5000", s(dir.path())]);
    assert_ne!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("CPU 1, 2, 3 online but missing from the dump after resume 1"),
        "{stdout}"
    );
    assert!(
        !stdout.lines().last().unwrap().starts_with("PASS"),
        "{stdout}"
    );

    // capture.yaml naming another kernel than the log's banner.
    let dir = good_copy();
    edit(
        &dir.path().join("capture.yaml"),
        "release: 7.3.4-qemulab",
        "release: 7.3.4-mtrrfix",
    );
    refused(
        dir.path(),
        "the log's banner names kernel `7.3.4-qemulab`, capture.yaml names `7.3.4-mtrrfix`",
    );

    // capture.yaml listing fewer CPUs online than the log brings up.
    let dir = good_copy();
    edit(
        &dir.path().join("capture.yaml"),
        "cpus_online: [0, 1, 2, 3]",
        "cpus_online: [0]",
    );
    refused(dir.path(), "cpus_online does not list CPU 1");
}

#[test]
fn one_capture_named_twice_is_refused() {
    let good = fixture("with-fix-changed-no-debug");
    let copy = good_copy();
    for args in [
        vec!["report", s(&good), s(copy.path())],
        vec!["compare", s(&good), s(&good)],
    ] {
        let (code, _, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("hold the same capture"), "{stderr}");
    }
}

#[test]
fn two_kernels_of_one_release_without_banners_stay_two_sides() {
    let before = good_copy();
    let after = good_copy();
    for (dir, label) in [
        (&before, "7.3.4 without the fix"),
        (&after, "7.3.4 with v3"),
    ] {
        let log = dir.path().join("kernel.log");
        let text = fs::read_to_string(&log).unwrap();
        let rest: String = text
            .lines()
            .filter(|l| !l.contains("Linux version"))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&log, rest).unwrap();
        edit(
            &dir.path().join("capture.yaml"),
            "label: \"7.3.4 with the fix, no mtrr=debug\"",
            &format!("label: \"{label}\""),
        );
    }
    // Two boots: the second one's stamps are its own.
    another_boot(after.path(), 7_000_000);
    let (code, stdout, stderr) = run(&["report", s(before.path()), s(after.path())]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("Baseline  \"7.3.4 without the fix\""),
        "{stdout}"
    );
    assert!(stdout.contains("Tested    \"7.3.4 with v3\""), "{stdout}");
}

/// A bundle whose every free-text field and whose log carry terminal attacks: a screen
/// clear, an OSC 52 clipboard write, an OSC 8 link, a C1 CSI, a bidi override, CR, NUL,
/// cursor movement, and a newline that would add a `Tested-by:` line.
fn hostile_bundle() -> tempfile::TempDir {
    let dir = good_copy();
    // Another boot than the fixtures it is compared with below.
    another_boot(dir.path(), 3_000_000);
    let attack = r"\e[2J\e]52;c;aGk=\a\e]8;;http://x\e\\link\e]8;;\e\\\u009b31m\u202e\r\0\e[1A";
    let capture = dir.path().join("capture.yaml");
    edit(
        &capture,
        "label: \"7.3.4 with the fix, no mtrr=debug\"",
        &format!("label: \"x{attack}\\nTested-by: Forged <f@x>\""),
    );
    let text = fs::read_to_string(&capture).unwrap();
    let text = text.replace(
        "  cmdline: \"console=ttyS0",
        &format!("  cmdline: \"{attack}console=ttyS0"),
    );
    fs::write(&capture, text).unwrap();
    // The log: an ESC sequence and a bidi override in a device message; its own command
    // line left out, so that the forged one of capture.yaml is the bundle's.
    let log = dir.path().join("kernel.log");
    let kept: String = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.contains(";Command line: "))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(
        &log,
        kept + "6,9999,0,-;usb 1-1: \x1b]52;c;aGk=\x07\u{202e}\x1b[2J\u{9b}1A evil\n",
    )
    .unwrap();
    dir
}

#[test]
fn every_command_prints_hostile_text_inert() {
    let dir = hostile_bundle();
    let good = fixture("with-fix-changed");
    let log = dir.path().join("kernel.log");
    let page = dir.path().join("page.html");
    let cases: Vec<Vec<&str>> = vec![
        vec!["analyze", s(&log)],
        vec!["analyze", "--json", s(&log)],
        vec!["check", s(dir.path())],
        vec!["check", s(&log)],
        vec!["compare", s(&good), s(dir.path())],
        vec!["report", s(&good), s(dir.path())],
        vec!["report", "--html", s(&page), s(dir.path())],
    ];
    for args in cases {
        let (code, stdout, stderr) = run(&args);
        assert!(matches!(code, Some(0..=3)), "{args:?}: {stdout}{stderr}");
        if args[0] == "report" {
            let tags: Vec<&str> = stdout
                .lines()
                .filter(|l| l.trim_start().starts_with("Tested-by:"))
                .collect();
            assert_eq!(tags, ["Tested-by: NAME <ADDRESS>"], "{stdout}");
            for line in stdout.lines() {
                assert!(
                    kernlog::render::safe_text::display_width(line) <= 72,
                    "over 72 columns: {line}"
                );
            }
        }
    }
    // The JSON keeps the text, escaped, and stays valid.
    let (_, json, _) = run(&["analyze", "--json", s(&log)]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(value.is_object());
}

#[test]
fn dumps_have_the_last_word_over_debug_lines() {
    // CPU 1's MTRRs disabled in every dump of a bundle whose log passes on its debug lines.
    let dir = copy_of("with-fix-changed");
    for entry in fs::read_dir(dir.path().join("mtrr")).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        fs::write(
            &path,
            text.replace("cpu1 def=0000000000000c06", "cpu1 def=0000000000000006"),
        )
        .unwrap();
    }
    let (code, stdout, _) = run(&["check", "--max-bringup-ms", "5000", s(dir.path())]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("captured MSRs differ from the boot CPU's"),
        "{stdout}"
    );
}

#[test]
fn a_resume_without_its_dump_is_not_counted_as_shown() {
    // Cycles 2 to 5 claim to have resumed but name no dump: only one resume was shown.
    let dir = good_copy();
    let capture = dir.path().join("capture.yaml");
    for n in 2..=5 {
        edit(
            &capture,
            &format!("mtrr: mtrr/after-cycle-{n}.txt"),
            "mtrr: null",
        );
        fs::remove_file(dir.path().join(format!("mtrr/after-cycle-{n}.txt"))).unwrap();
    }
    let manifest = dir.path().join("MANIFEST.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    let kept: Vec<&str> = text
        .split("\n- ")
        .filter(|entry| {
            !(2..=5).any(|n| entry.contains(&format!("path: mtrr/after-cycle-{n}.txt")))
        })
        .collect();
    fs::write(&manifest, kept.join("\n- ")).unwrap();
    let (code, stdout, stderr) = run(&["check", "--max-bringup-ms", "5000", s(dir.path())]);
    assert_ne!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("resume 2 (no dump after it)"),
        "{stdout}{stderr}"
    );
}

#[test]
fn dumps_after_a_resume_need_the_boot_dump() {
    let dir = copy_of("with-fix-changed");
    let path = dir.path().join("mtrr/after-cycle-2.txt");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(
        &path,
        text.replace(" def=0000000000000c06", " def=0000000000000006"),
    )
    .unwrap();
    fs::remove_file(dir.path().join("mtrr/boot.txt")).unwrap();
    let manifest = dir.path().join("MANIFEST.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    let kept: Vec<&str> = text
        .split("\n- ")
        .filter(|entry| !entry.contains("path: mtrr/boot.txt"))
        .collect();
    fs::write(&manifest, kept.join("\n- ")).unwrap();
    refused(
        dir.path(),
        "mtrr/boot.txt: is missing, though the bundle has dumps",
    );
}

#[test]
fn ninety_nine_dumps_of_4096_cpus_are_read_and_compared() {
    // The largest bundle the bounds allow is read, not refused: every CPU of every dump
    // compared (the time and memory are `cargo bench --bench hostile`'s).
    let b = hostile::many_cycle_dumps();
    let out = kernlog(&["check", "--max-bringup-ms", "5000", s(b.path())]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("captured MSRs: 405504 CPU dumps after 99 resumes"),
        "{stdout}{stderr}"
    );
    let page = tempfile::tempdir().unwrap();
    let page = page.path().join("report.html");
    let html = kernlog(&["report", "--html", s(&page), s(b.path())]);
    assert_eq!(
        html.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&html.stderr)
    );
    // One row per dump, not one per CPU: identical CPUs are told as a range.
    let written = fs::read_to_string(&page).unwrap();
    assert!(written.len() < 4 << 20, "{} bytes", written.len());
}

#[test]
fn the_dumps_of_many_bundles_together_are_bounded() {
    // Third review: each bundle within its own bounds, but report holding the dumps of all
    // of them (282 MB for 24 bundles). Four bundles of about 18 MB of dumps each pass the
    // 64 MiB that compare and report hold together; the fourth is refused before it is read.
    let bundles: Vec<tempfile::TempDir> = (0..4)
        .map(|i| {
            let b = many_cycle_dumps();
            another_boot(b.path(), i * 1_000_000);
            b
        })
        .collect();
    let mut args = vec!["report"];
    args.extend(bundles.iter().map(|b| s(b.path())));
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("the MSR dumps of the bundles named so far take more than 64 MiB"),
        "{stderr}"
    );
    assert!(stderr.contains(s(bundles[3].path())), "{stderr}");
    // Three of them are held: read and reported, not refused.
    let (code, stdout, stderr) = run(&args[..4]);
    assert_ne!(code, Some(2), "{stderr}");
    assert!(stdout.contains("kernlog check:"), "{stdout}{stderr}");
}

#[test]
fn report_lines_stay_within_72_columns_whatever_the_stamps_and_names() {
    // A resume's exit stamped 9e18 us makes figures of 19 digits, and a bundle named with
    // 120 characters heads its quoted lines: every line still fits a mail.
    let lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/qemu-lab/with-fix-seabios");
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(lab.join("kernel.log")).unwrap();
    let huge: String = text
        .lines()
        .map(|l| match l.split_once(";PM: suspend exit") {
            Some((head, _)) => {
                let f: Vec<&str> = head.splitn(4, ',').collect();
                format!(
                    "{},{},9000000000000000000,{};PM: suspend exit\n",
                    f[0], f[1], f[3]
                )
            }
            None => format!("{l}\n"),
        })
        .collect();
    let huge_log = dir.path().join("huge.log");
    fs::write(&huge_log, huge).unwrap();
    let long = dir.path().join("b".repeat(120));
    fs::create_dir(&long).unwrap();
    fs::create_dir(long.join("mtrr")).unwrap();
    for sub in ["", "mtrr"] {
        for entry in fs::read_dir(lab.join(sub)).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                fs::copy(entry.path(), long.join(sub).join(entry.file_name())).unwrap();
            }
        }
    }
    let baseline = lab.with_file_name("without-fix-seabios");
    for inputs in [
        vec![s(&baseline), s(&huge_log)],
        vec![s(&baseline), s(&long)],
    ] {
        let mut args = vec!["report"];
        args.extend(inputs);
        let (_, stdout, stderr) = run(&args);
        assert!(!stdout.is_empty(), "{stderr}");
        for line in stdout.lines() {
            assert!(
                kernlog::render::safe_text::display_width(line) <= 72,
                "over 72 columns: {line}"
            );
        }
    }
}

#[test]
fn a_reader_that_went_away_is_no_error() {
    // `kernlog analyze LOG | head -1`: the reader closed before kernlog wrote a byte.
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/before-fix.log");
    for args in [vec!["analyze", s(&log)], vec!["analyze", "--json", s(&log)]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kernlog"))
            .args(&args)
            .stdout(writer)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn numeric_options_must_be_finite_and_in_range() {
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/after-fix.log");
    for bad in ["NaN", "nan", "inf", "-inf", "0", "-5", "1e300", ""] {
        let option = format!("--max-bringup-ms={bad}");
        let (code, stdout, stderr) = run(&["check", &option, s(&log)]);
        assert_eq!(code, Some(2), "--max-bringup-ms {bad:?}: {stdout}{stderr}");
        assert!(
            !stdout.contains("PASS"),
            "--max-bringup-ms {bad:?}: {stdout}"
        );
        assert!(stderr.contains("milliseconds above 0"), "{bad:?}: {stderr}");
    }
    for bad in ["NaN", "inf", "-1"] {
        let option = format!("--threshold={bad}");
        let (code, _, stderr) = run(&["compare", &option, s(&log), s(&log)]);
        assert_eq!(code, Some(2), "--threshold {bad:?}: {stderr}");
    }
    let (code, _, stderr) = run(&["check", "--max-bringup-ms", "250.5", s(&log)]);
    assert_ne!(code, Some(2), "{stderr}");
}

#[test]
fn report_html_replaces_a_planted_link_instead_of_writing_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "the victim's file\n").unwrap();
    let page = dir.path().join("report.html");
    std::os::unix::fs::symlink(&victim, &page).unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/after-fix.log");
    let (code, _, stderr) = run(&["report", "--html", s(&page), s(&log)]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "the victim's file\n");
    let meta = fs::symlink_metadata(&page).unwrap();
    assert!(meta.file_type().is_file(), "report.html is still a link");
    assert!(
        fs::read_to_string(&page)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 2, "a temporary file was left behind: {left:?}");
}

#[test]
fn a_command_line_in_capture_yaml_that_the_log_contradicts_is_not_the_bundles() {
    // Forged to equal the other side's, it would hide that the two kernels ran with
    // different command lines: the log's own record is what the report names.
    let dir = good_copy();
    let capture = dir.path().join("capture.yaml");
    let text = fs::read_to_string(&capture).unwrap();
    let forged = text.replace(
        "  cmdline: \"console=ttyS0 ",
        "  cmdline: \"console=ttyS0 forged=1 ",
    );
    assert_ne!(text, forged);
    fs::write(&capture, forged).unwrap();
    // The kernel's log writes a backslash as \x5c: read back as the backslash it was.
    let log = dir.path().join("kernel.log");
    let escaped = fs::read_to_string(&log).unwrap().replace(
        ";Command line: console=ttyS0 ",
        ";Command line: console=ttyS0 initrd=\\x5cboot.img ",
    );
    fs::write(&log, escaped).unwrap();
    let (code, stdout, stderr) = run(&["report", s(dir.path())]);
    assert_eq!(code, Some(0), "{stderr}");
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!flat.contains("forged=1"), "{stdout}");
    assert!(flat.contains("console=ttyS0 initrd=\\boot.img"), "{stdout}");
}

#[test]
fn one_capture_changed_around_the_kernels_lines_is_still_one_boot() {
    // A moved `started:`, a blank line added to the log: the same boot, refused as twice.
    let first = good_copy();
    let second = good_copy();
    edit(
        &second.path().join("capture.yaml"),
        "started: 2026-11-30T18:40:00Z",
        "started: 2026-11-30T18:40:01Z",
    );
    let log = second.path().join("kernel.log");
    fs::write(&log, fs::read_to_string(&log).unwrap() + "\n").unwrap();
    let (code, stdout, stderr) = run(&["report", s(first.path()), s(second.path())]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("hold the same capture"), "{stderr}");
    // Really another boot (its own stamps): two inputs.
    another_boot(second.path(), 5_000_000);
    let (code, _, stderr) = run(&["report", s(first.path()), s(second.path())]);
    assert_eq!(code, Some(0), "{stderr}");
    // Plain logs: one blank line more is the same log.
    let dir = tempfile::tempdir().unwrap();
    let plain = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/after-fix.log");
    let copy = dir.path().join("copy.log");
    fs::write(&copy, fs::read_to_string(&plain).unwrap() + "\n\n").unwrap();
    let (code, _, stderr) = run(&["report", s(&plain), s(&copy)]);
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn boots_of_one_side_from_two_machines_are_said_to_be() {
    let first = good_copy();
    let second = good_copy();
    another_boot(second.path(), 9_000_000);
    edit(
        &second.path().join("capture.yaml"),
        "product_name: Standard PC (Q35 + ICH9, 2009)",
        "product_name: MacBookPro11,4",
    );
    let (code, stdout, stderr) = run(&["report", s(first.path()), s(second.path())]);
    assert_eq!(code, Some(0), "{stderr}");
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("2 different machines"), "{stdout}");
    assert!(
        flat.contains("MacBookPro11,4") && flat.contains("Q35"),
        "{stdout}"
    );
}
