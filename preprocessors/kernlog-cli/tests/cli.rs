//! The `kernlog` binary as a user runs it.

mod common;
use common::kernlog;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

#[test]
fn analyze_json_has_the_documented_fields() {
    let file = data("resume-6.16.3-ubuntu-kernel.log");
    let out = kernlog(&["analyze", "--json", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["input"]["format"], "dmesg");
    assert_eq!(doc["input"]["records"], 43);
    assert_eq!(doc["input"]["timestamp_resolution_s"], 1e-6);
    let cycle = &doc["cycles"][0];
    assert_eq!(cycle["mode"], "deep");
    assert!(
        cycle["suspend_span_ms"].is_null(),
        "the excerpt has no suspend entry"
    );
    assert_eq!(cycle["enable_phase_ms"], 16_567.281);
    assert_eq!(cycle["ec_wake_to_unblock_ms"], 2.966);
    let cpu1 = &cycle["cpus"][0];
    assert_eq!(cpu1["cpu"], 1);
    assert_eq!(cpu1["apic"], "0x2");
    assert_eq!(cpu1["bringup_ms"], 603.894);
    assert_eq!(cpu1["up_after_enable_ms"], 604.042);
    let phase = &cycle["phases"][1];
    assert_eq!(phase["name"], "enable_cpus");
    assert_eq!(phase["start_s"], 432.400838);
    assert_eq!(doc["findings"][0]["id"], "slow-cpu-bringup");
    assert_eq!(
        doc["findings"][0]["see"],
        "https://macbook-pro-resume-delay.pages.dev/journey#finding-the-problematic-code-path",
        "the CLI links findings to the notebook by default"
    );
}

#[test]
fn analyze_reads_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kernlog"))
        .args(["analyze", "--site", "https://notebook.example", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let log = std::fs::read(data("t2-mac-s3-wake-to-ec-unblock.log")).unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&log).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[ec-wake-gap]"), "{text}");
    assert!(text.contains("19.579 s"), "{text}");
    assert!(
        text.contains("see https://notebook.example/related/t2-macs"),
        "{text}"
    );
}

#[test]
fn unreadable_input_is_one_line_and_exit_2() {
    let out = kernlog(&["analyze", "/nonexistent/dmesg.log"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("kernlog: cannot open /nonexistent/dmesg.log"),
        "{err}"
    );
    let dir = kernlog(&["analyze", env!("CARGO_MANIFEST_DIR")]);
    assert_eq!(dir.status.code(), Some(2));
}

/// `kernlog check` on the committed captures, none of them with `mtrr=debug` except the
/// two so named: the exit status scripts rely on, and verdicts written by reading the logs.
#[test]
fn check_verdicts_on_the_example_captures() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/dmesg");
    let unknown = "UNKNOWN: MTRR outcome unknown: nothing failed on 1 resume with a CPU bring-up, \
                   but the log has no mtrr=debug lines";
    for (path, code, verdict) in [
        // Six of seven CPUs take 0.5-2 s each to come up: slow, whatever the MTRRs.
        (
            fixtures.join("before-fix.log"),
            1,
            "FAIL: CPU bring-up time",
        ),
        (
            fixtures.join("before-fix-mtrr-debug.log"),
            1,
            "FAIL: CPU bring-up time, diagnostic",
        ),
        // The fix's diagnostic on line 19 but no MTRR cpu lines: the outcome is not shown.
        (fixtures.join("after-fix.log"), 3, unknown),
        (
            fixtures.join("conditional-fix-no-diagnostic-mtrr-debug.log"),
            1,
            "FAIL: diagnostic",
        ),
        (fixtures.join("healthy-synthetic.log"), 3, unknown),
        (
            fixtures.join("resume-6.16.3-ubuntu-kernel.log"),
            1,
            "FAIL: CPU bring-up time",
        ),
        // Two lines of a T2 Mac's wake, no CPU bring-up at all.
        (
            fixtures.join("t2-mac-s3-wake-to-ec-unblock.log"),
            3,
            "UNKNOWN: no attempt resumed with a CPU bring-up",
        ),
        // 88 CPUs, only "Enabling non-boot CPUs" and "End enabling" 2.3 s later: no
        // per-CPU line to time, no mtrr=debug.
        (
            data.join("lkml-2017-chen-yu-xeon-88cpu-after-patch-run1.log"),
            3,
            unknown,
        ),
        // The suspend half only: it ends with the last CPU offline, so the log cannot
        // tell a hang from a cut (no FAIL for it).
        (
            data.join("suspend-6.16.3-ubuntu-kernel.log"),
            3,
            "UNKNOWN: no attempt resumed with a CPU bring-up, so nothing of the fix was shown: \
             the log ends during attempt 1 (suspend at line 1)",
        ),
    ] {
        let out = kernlog(&["check", path.to_str().unwrap()]);
        let text = String::from_utf8(out.stdout).unwrap();
        let file = path.display();
        assert_eq!(out.status.code(), Some(code), "{file}:\n{text}");
        let last = text.lines().last().unwrap();
        assert!(last.starts_with(verdict), "{file}:\n{text}");
        if code == 3 && verdict == unknown {
            assert!(
                last.contains("boot with mtrr=debug and the debug patch"),
                "{last}"
            );
        }
        assert!(
            !last.contains("not affected") && !last.contains("restored"),
            "{file}: {last}"
        );
    }
}

#[test]
fn a_live_device_is_read_to_its_end_not_waited_on() {
    // /dev/kmsg blocks at the end of the kernel's buffer; kernlog must stop there, as dmesg
    // does. Where the test may not read it (not root, no /dev/kmsg), there is nothing to run.
    if std::fs::File::open("/dev/kmsg").is_err() {
        eprintln!("/dev/kmsg is not readable here: skipped");
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_kernlog"))
        .args(["analyze", "/dev/kmsg"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kernlog runs");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().ok();
            panic!("kernlog analyze /dev/kmsg was still reading after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("kmsg"),
        "the records are read as kmsg: {text}"
    );
}

#[test]
fn a_folder_is_refused_with_a_hint() {
    let out = kernlog(&["analyze", env!("CARGO_MANIFEST_DIR")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a folder"), "{err}");
}

/// No committed log without the debug patch's lines gets a PASS that names an MTRR outcome:
/// every capture of data/ (dmesg, journal, mtrr), examples/captures and the fixtures.
#[test]
fn no_pass_without_mtrr_evidence_on_any_committed_log() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut checked = 0;
    for dir in [
        "data/dmesg",
        "data/journal",
        "data/mtrr",
        "examples/captures",
        "preprocessors/kernlog-cli/tests/fixtures",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue; // a packaged crate has no data/
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "log") {
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            if text.contains("MTRR cpu ") {
                continue;
            }
            let out = kernlog(&["check", path.to_str().unwrap()]);
            let stdout = String::from_utf8(out.stdout).unwrap();
            let last = stdout.lines().last().unwrap_or("");
            assert!(
                !last.starts_with("PASS") && out.status.code() != Some(0),
                "{}: {last}",
                path.display()
            );
            assert!(
                !last.contains("not affected") && !last.contains("restored the MTRRs"),
                "{}: {last}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 40 || !root.join("data").is_dir(),
        "{checked} logs"
    );
    eprintln!("{checked} logs without mtrr=debug lines checked");
}

/// Refused before it looks at the machine, so the test never suspends it, root or not.
#[test]
fn capture_refuses_a_timeout_shorter_than_the_wake_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("kernlog-cli-capture-{}", std::process::id()));
    let out = kernlog(&[
        "capture",
        "--wake-after",
        "30",
        "--timeout",
        "10",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--timeout (10 s) must be longer than --wake-after (30 s)"),
        "{stderr}"
    );
    assert!(!dir.exists());
}

#[test]
fn capture_takes_one_to_99_cycles_and_names_its_methods() {
    let out = kernlog(&["capture", "--cycles", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cycles"));
    let out = kernlog(&["capture", "--method", "rtcwake"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[possible values: systemd, sysfs]"),
        "{stderr}"
    );
}

#[test]
fn version_names_the_commit_of_this_checkout() {
    let out = kernlog(&["--version"]);
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let rest = line
        .strip_prefix(concat!("kernlog ", env!("CARGO_PKG_VERSION"), " (commit "))
        .unwrap_or_else(|| panic!("unexpected --version line: {line}"));
    let (commit, compiler) = rest.split_once(", ").unwrap();
    assert!(
        compiler.starts_with("rustc ") && compiler.ends_with(")\n"),
        "{line}"
    );
    let head = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output();
    match head {
        // In a checkout: its HEAD, with `-modified` or without.
        Ok(head) if head.status.success() => {
            let head = String::from_utf8(head.stdout).unwrap();
            let head = head.trim();
            assert_eq!(head.len(), 40);
            assert!(
                commit == head || commit == format!("{head}-modified"),
                "{commit} is not {head}"
            );
        }
        _ => assert_eq!(commit, "unknown"),
    }
}
