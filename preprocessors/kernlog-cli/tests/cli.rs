//! The `kernlog` binary as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn kernlog(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernlog"))
        .args(args)
        .env_remove("KERNLOG_SITE")
        .output()
        .expect("kernlog runs")
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

/// `kernlog check` on the example captures: the exit status scripts rely on.
#[test]
fn check_verdicts_on_the_example_captures() {
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (file, code, verdict) in [
        ("before-fix.log", 1, "FAIL: CPU bring-up time"),
        (
            "before-fix-mtrr-debug.log",
            1,
            "FAIL: CPU bring-up time, diagnostic",
        ),
        ("after-fix.log", 0, "PASS: the fix restored the MTRRs"),
        (
            "conditional-fix-no-diagnostic-mtrr-debug.log",
            1,
            "FAIL: diagnostic",
        ),
        ("healthy-synthetic.log", 0, "PASS: not affected"),
    ] {
        let path = examples.join(file);
        let out = kernlog(&["check", path.to_str().unwrap()]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(code), "{file}:\n{text}");
        assert!(
            text.lines().last().unwrap().starts_with(verdict),
            "{file}:\n{text}"
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
