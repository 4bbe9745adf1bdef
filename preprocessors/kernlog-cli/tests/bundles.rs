//! `check`, `compare` and `report` on capture bundles, and on what is not one. The test
//! bundles are the QEMU lab's committed runs (`tests/fixtures/bundles/make.py`); the lab's
//! own judge found every CPU's MTRRs after each of the five resumes equal to boot
//! (`data/qemu-lab/verdicts.yaml`: "all 20 equal to boot").

mod common;
#[path = "common/hostile.rs"]
mod hostile;
use common::kernlog;
use hostile::{another_boot, copy_of, fixture as bundle, s};
use std::fs;
use std::path::PathBuf;
use std::process::Output;

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_reads_a_bundle_and_its_msr_dumps() {
    let b = bundle("with-fix-changed-no-debug");
    let out = kernlog(&["check", "--max-bringup-ms", "5000", s(&b)]);
    let (stdout, stderr) = text(&out);
    // The dumps show every CPU right after each resume, but not that the fix made it so:
    // a kernel without it ends with the same values.
    assert_eq!(out.status.code(), Some(3), "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "[PASS] every CPU consistent with the boot CPU: captured MSRs: 20 CPU dumps after 5 resumes"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("[PASS] MTRRs as before the suspend"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("UNKNOWN: MTRRs as they should be"),
        "{last}"
    );
    assert!(last.contains("shown only by mtrr=debug"), "{last}");
}

#[test]
fn a_spoilt_dump_fails_with_the_register_named() {
    let dir = copy_of("with-fix-changed-no-debug");
    let path = dir.path().join("mtrr/after-cycle-3.txt");
    let dump = fs::read_to_string(&path).unwrap();
    // CPU 2's MTRRdefType with the MTRRs disabled (bit 11 clear).
    let spoilt = dump.replace("cpu2 def=0000000000000c06", "cpu2 def=0000000000000406");
    assert_ne!(dump, spoilt);
    fs::write(&path, spoilt).unwrap();
    let out = kernlog(&["check", "--max-bringup-ms", "5000", s(dir.path())]);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("CPU 2 after resume 3: MTRRdefType 0x406 against 0xc06"),
        "{stdout}"
    );
}

#[test]
fn a_cycle_left_suspending_is_a_machine_that_did_not_come_back() {
    let dir = copy_of("with-fix-changed-no-debug");
    // The fixture is with-fix-changed's boot with the debug lines left out: compared with
    // it below, it must be another boot.
    another_boot(dir.path(), 1_000_000);
    let path = dir.path().join("capture.yaml");
    let yaml = fs::read_to_string(&path).unwrap();
    let spoilt = yaml.replacen(
        "  - n: 5\n    requested: 2026-11-30T18:40:05Z\n    outcome: resumed",
        "  - n: 5\n    requested: 2026-11-30T18:40:05Z\n    outcome: suspending",
        1,
    );
    assert_ne!(yaml, spoilt);
    fs::write(&path, spoilt).unwrap();
    let out = kernlog(&["check", "--max-bringup-ms", "5000", s(dir.path())]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("[FAIL] every attempt resumed")
            && stdout.contains("capture cycle 5 did not resume (capture.yaml left at `suspending`"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("FAIL: every attempt resumed")
    );
    // compare and report tell it too.
    let out = kernlog(&["compare", s(&bundle("with-fix-changed")), s(dir.path())]);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "- AFTER: in the log, 5 of 5 attempts slept and resumed; in capture.yaml, \
             capture cycle 5 did not resume (capture.yaml left at `suspending`"
        ),
        "{stdout}"
    );
    let out = kernlog(&["report", s(dir.path())]);
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("tested  FAIL: every attempt resumed"),
        "{stdout}"
    );
}

#[test]
fn what_is_not_a_bundle_is_refused_clearly() {
    let empty = tempfile::tempdir().unwrap();
    let other = copy_of("with-fix-changed");
    let yaml = other.path().join("capture.yaml");
    let text_of = fs::read_to_string(&yaml).unwrap();
    fs::write(&yaml, text_of.replace("kernlog-capture/1", "sleepgraph/5")).unwrap();
    let missing = copy_of("with-fix-changed");
    fs::remove_file(missing.path().join("mtrr/after-cycle-2.txt")).unwrap();
    let yaml_file = bundle("with-fix-changed").join("capture.yaml");
    let cases = [
        (s(&yaml_file).to_string(), "name the bundle's folder"),
        (s(empty.path()).to_string(), "capture.yaml: not found"),
        (s(other.path()).to_string(), "sleepgraph/5"),
        (s(missing.path()).to_string(), "mtrr/after-cycle-2.txt"),
        (
            "/nonexistent/kernel.log".to_string(),
            "cannot open /nonexistent/kernel.log",
        ),
    ];
    for command in ["check", "compare", "report"] {
        for (path, said) in &cases {
            let good = bundle("with-fix-changed");
            let args: Vec<&str> = match command {
                "compare" => vec![command, s(&good), path],
                _ => vec![command, path],
            };
            let out = kernlog(&args);
            let (stdout, stderr) = text(&out);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{command} {path}: {stdout}{stderr}"
            );
            assert!(stderr.starts_with("kernlog: "), "{stderr}");
            assert!(stderr.contains(said), "{command} {path}: {stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}

#[test]
fn compare_two_bundles_and_two_logs() {
    let out = kernlog(&[
        "compare",
        s(&bundle("without-fix-changed")),
        s(&bundle("with-fix-changed")),
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.lines().all(|l| l.chars().count() <= 72), "{stdout}");
    // Enabling non-boot CPUs to CPU3 is up in the five cycles of
    // data/qemu-lab/without-fix-changed.log (lines 323-329, 416-422, ...): 509.139,
    // 681.946, 45.966, 550.479 and 100.094 ms; the median is cycle 1's.
    assert!(
        stdout.contains(
            "bring-up phase (cycles: 5 before, 5 after)\n  \
             before  median 509.139 ms  min 45.966 ms  max 681.946 ms"
        ),
        "{stdout}"
    );
    // Same kernel release and command line: the only warnings are one boot a side.
    let warnings: Vec<&str> = stdout.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(
        warnings,
        [
            "- BEFORE is one boot: the resume time, and which CPUs come back with",
            "- AFTER is one boot: the resume time, and which CPUs come back with",
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains("SAME: bring-up phase median 509.139 ms before"),
        "{stdout}"
    );
    // The lab's judge found the boot CPU restored (VFT) and every AP changed at its first
    // check in each of the five resumes of both runs (data/qemu-lab/verdicts.yaml): all
    // four CPUs, every cycle.
    assert!(
        stdout.contains(
            "CPUs with changed MTRRs (cycles: 5 before, 5 after)\n  before  median 4  min 4  \
             max 4\n  after   median 4  min 4  max 4\n  ratio 1.000: SAME"
        ),
        "{stdout}"
    );
    let captures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let out = kernlog(&[
        "compare",
        s(&captures.join("before-fix.log")),
        s(&captures.join("after-fix.log")),
        "--threshold",
        "20",
    ]);
    let (stdout, _) = text(&out);
    // before-fix.log: Enabling at 102.942035, CPU7 up at 116.447284; after-fix.log:
    // 60.352899 to 60.443996.
    assert!(
        stdout.contains("FASTER: bring-up phase median 13.505 s before, 91.097 ms"),
        "{stdout}"
    );
    assert!(
        stdout.contains("BEFORE and AFTER name no kernel"),
        "{stdout}"
    );
    let bad = kernlog(&["compare", "x", "y", "--threshold", "-5"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn report_for_the_list_fits_72_columns_and_leaves_tested_by_open() {
    let out = kernlog(&[
        "report",
        s(&bundle("without-fix-changed")),
        s(&bundle("with-fix-changed")),
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    for line in stdout.lines() {
        assert!(
            line.chars().count() <= 72,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(
        stdout.starts_with("Machine   QEMU Standard PC (Q35 + ICH9, 2009)\n"),
        "{stdout}"
    );
    // The patch is named by the bundle's label and kernel release (capture.yaml).
    assert!(
        stdout.contains("Tested    \"7.3.4 with the fix (lab firmware changes the MTRRs)\" on\n          7.3.4-qemulab"),
        "{stdout}"
    );
    assert!(
        stdout.contains("SAME: bring-up phase median 509.139 ms before"),
        "{stdout}"
    );
    // Line 386 of the AFTER bundle's kernel.log is the fix's diagnostic of the first resume.
    assert!(
        stdout.contains("   386  [    4.153476] mtrr: your CPUs had unexpected MTRR settings on\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with("Tested-by: NAME <ADDRESS>\n"), "{stdout}");
    let missing = kernlog(&["report"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn the_html_page_is_self_contained_and_escapes_the_data() {
    let dir = copy_of("with-fix-changed");
    // A tester's label is free text: make it hostile.
    let yaml = dir.path().join("capture.yaml");
    let text_of = fs::read_to_string(&yaml).unwrap();
    let hostile = "<script>alert(1)</script> & \\\"fix\\\"";
    fs::write(
        &yaml,
        text_of.replace(
            "label: \"7.3.4 with the fix (lab firmware changes the MTRRs)\"",
            &format!("label: \"{hostile}\""),
        ),
    )
    .unwrap();
    let page = dir.path().join("report.html");
    let out = kernlog(&[
        "report",
        "--html",
        s(&page),
        s(&bundle("without-fix-changed")),
        s(dir.path()),
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    let lower = html.to_lowercase();
    assert!(
        !lower.contains("<script"),
        "no JavaScript, and the label escaped"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp;"));
    // Nothing fetched: no external stylesheet, image or script.
    assert!(!lower.contains("<link") && !lower.contains("src=") && !lower.contains("url("));
    assert!(html.contains("<style>"));
    // The views of the notebook: per input and cycle, the phase timeline and the bring-up
    // chart (2 inputs x 5 cycles x 2 charts, each drawn for the page and for a phone), the
    // MTRR diff of each cycle's changed run, and the captured MTRRs (20 CPU dumps of each
    // input, none differing).
    assert_eq!(
        html.matches("<svg class=\"kl-chart kl-chart-wide\"")
            .count(),
        20
    );
    assert_eq!(
        html.matches("<svg class=\"kl-chart kl-chart-narrow\"")
            .count(),
        20
    );
    assert_eq!(html.matches("<svg").count(), 40);
    assert_eq!(html.matches("<h3>Captured MTRRs</h3>").count(), 2);
    assert!(html.contains("MTRRdefType"), "the MTRR diff view");
}

#[test]
fn report_html_links_the_findings_where_site_says_and_shows_the_checklist() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let input = bundle("with-fix-changed");
    let linked = |site: &str| {
        let out = kernlog(&["report", "--html", s(&page), "--site", site, s(&input)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
        fs::read_to_string(&page).unwrap()
    };
    // The fixture's CPU1 takes 720.521 ms to come up in one resume (kernlog check says so):
    // a slow-cpu-bringup finding, and a failed item of the checklist.
    let html = linked("https://example.org/");
    assert!(
        html.contains(
            "<a href=\"https://example.org/journey#finding-the-problematic-code-path\">slow-cpu-bringup</a>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<h3>Checklist of kernlog check</h3>"),
        "{html}"
    );
    assert!(
        html.contains(
            "<tr class=\"kl-total\"><td>verdict</td><td>FAIL</td><td>FAIL: CPU bring-up time</td>"
        ),
        "{html}"
    );
    let html = linked("");
    assert!(
        html.contains(">slow-cpu-bringup<") && !html.contains("<a "),
        "{html}"
    );
}

#[test]
fn report_html_of_standard_input_has_the_views() {
    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/before-fix.log");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kernlog"))
        .args(["report", "--html", s(&page), "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let bytes = fs::read(&log).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let html = fs::read_to_string(&page).unwrap();
    assert!(!html.contains("no views"), "{html}");
    assert!(html.contains("CPU bring-up, standard input"), "{html}");
    // CPU1: Booting at 102.942180, up at 103.596184 (the fixture's lines 2 and 4).
    let cpu1 = html
        .lines()
        .find(|l| l.contains("<td>CPU1</td>"))
        .unwrap_or_else(|| panic!("no CPU1 row in {html}"));
    assert!(cpu1.contains(">654.004 ms<"), "{cpu1}");
}

#[test]
fn report_html_of_a_plain_log_and_an_unwritable_file() {
    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/before-fix.log");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let out = kernlog(&["report", "--html", s(&page), s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let html = fs::read_to_string(&page).unwrap();
    // One resume: its timeline is not complete in this excerpt, its bring-up chart is.
    assert!(html.matches("<svg").count() >= 1, "{html}");
    // A link named on the command line is followed (examples/captures links into data/).
    let link = dir.path().join("link.log");
    std::os::unix::fs::symlink(&log, &link).unwrap();
    let out = kernlog(&["report", "--html", s(&page), s(&link)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let bad = kernlog(&["report", "--html", "/nonexistent/dir/page.html", s(&log)]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad)
            .1
            .contains("cannot write /nonexistent/dir/page.html")
    );
}

#[test]
fn a_file_of_another_kind_is_told_to_have_no_suspend_in_it() {
    // The first bytes of this test's own binary: not a log of any format.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-log.bin");
    let bytes = fs::read(env!("CARGO_BIN_EXE_kernlog")).unwrap();
    fs::write(&path, &bytes[..bytes.len().min(65536)]).unwrap();
    let out = kernlog(&["check", s(&path)]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(3), "{stdout}{stderr}");
    assert!(stdout.contains("[SKIP] every attempt resumed: no suspend attempt in the log"));
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("UNKNOWN: no suspend attempt")
    );
    let other = dir.path().join("not-a-log-either.bin");
    fs::write(&other, &bytes[..bytes.len().min(32768)]).unwrap();
    let out = kernlog(&["compare", s(&path), s(&other)]);
    let (stdout, _) = text(&out);
    assert!(
        stdout.ends_with(
            "verdict  UNKNOWN: nothing to compare: no figure has a value on both\n  sides\n"
        ),
        "{stdout}"
    );
    let out = kernlog(&["report", s(&path)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out).0.lines().all(|l| l.chars().count() <= 72));
}

/// The QEMU lab's real bundles (`kernlog capture` in the guest, 8 vCPUs,
/// SeaBIOS): every AP comes back reset, the boot CPU kept, so the MTRR diff of a resume is
/// an AP's, not the boot CPU's. Read in the lab's logs: without the fix no diagnostic in
/// 3 resumes; with v2 the line "MTRRs of CPUs 1-7 differed from the saved state" in each.
#[test]
fn report_on_the_lab_bundles_where_only_the_aps_changed() {
    let lab = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/qemu-lab");
    let (before, after) = (
        lab.join("without-fix-seabios"),
        lab.join("with-fix-seabios"),
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let args = [
        "report",
        "--html",
        page.to_str().unwrap(),
        before.to_str().unwrap(),
        after.to_str().unwrap(),
    ];
    let out = kernlog(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("before [FAIL] diagnostic if and only if the MTRRs changed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("after  [PASS] diagnostic if and only if the MTRRs changed"),
        "{stdout}"
    );
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<svg") && !html.contains("<script"),
        "a page of views"
    );
}

#[test]
fn report_on_a_bundle_without_dmi_data_says_the_capture_found_none() {
    // As the QEMU lab's kernel leaves it: no /sys/class/dmi/id, so capture writes nulls.
    let dir = copy_of("without-fix-changed");
    let yaml = dir.path().join("capture.yaml");
    let text_before = fs::read_to_string(&yaml).unwrap();
    let edited = text_before
        .replace("sys_vendor: QEMU", "sys_vendor: null")
        .replace(
            "product_name: Standard PC (Q35 + ICH9, 2009)",
            "product_name: null",
        );
    assert_ne!(edited, text_before);
    fs::write(&yaml, edited).unwrap();
    let out = kernlog(&["report", s(dir.path())]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.starts_with(
            "Machine not recorded (the capture found no DMI data: the kernel it ran on had no \
             vendor or product name in /sys/class/dmi/id)"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("plain logs"), "{stdout}");
}
