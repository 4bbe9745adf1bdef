//! Snapshot tests of the plain-text summary and the JSON document on real captures.
//! Review changes with `cargo insta review`.

use kernlog::render::document::Document;
use kernlog::render::summary::render_summary;

use notebook_checks::read_data as data;

/// Links of a made-up site: the summary shows whatever address the caller gives.
fn links(kind: kernlog::analysis::findings::FindingKind) -> Option<String> {
    Some(format!("https://example.invalid/findings#{}", kind.id()))
}

/// The captures whose summaries are kept, each under the snapshot name `summary_NAME`.
const SUMMARIES: &[(&str, &str)] = &[
    (
        "slow_resume_6_16_3",
        "dmesg/resume-6.16.3-ubuntu-kernel.log",
    ),
    ("suspend_6_16_3", "dmesg/suspend-6.16.3-ubuntu-kernel.log"),
    ("journal_resume", "journal/resume-6.16.3-ubuntu-kernel.log"),
    ("mtrr_slow_resume", "mtrr/resume-6.16.7-debug-slow.log"),
    ("mtrr_boot_table", "mtrr/boot-mtrr-debug-6.16.7.log"),
    ("proc_mtrr", "mtrr/proc-mtrr-6.16.7.txt"),
    ("fixed_kernel", "dmesg/resume-cpu-bringup-fix-6.16.7.log"),
    ("t2_mac", "dmesg/t2-mac-s3-wake-to-ec-unblock.log"),
    ("trace", "ftrace/online-callbacks-slow-calls-6.16.7.log"),
    (
        "probes",
        "dmesg/resume-cpu-bringup-arch-end-slow-6.16.7.log",
    ),
];

#[test]
fn summaries() {
    for (name, file) in SUMMARIES {
        let analysis = kernlog::analyze_str(&data(file));
        insta::assert_snapshot!(format!("summary_{name}"), render_summary(&analysis, &links));
    }
}

#[test]
fn json_conditional_fix() {
    let analysis = kernlog::analyze_str(&data("mtrr/resume-6.16.7-debug-conditional-fix.log"));
    insta::assert_json_snapshot!(Document::new(&analysis));
}

#[test]
fn json_boot_table_and_proc_mtrr() {
    let mut text = data("mtrr/boot-mtrr-debug-6.16.7.log");
    text.push_str(&data("mtrr/proc-mtrr-6.16.7.txt"));
    let analysis = kernlog::analyze_str(&text);
    insta::assert_json_snapshot!(Document::new(&analysis).mtrr);
}
