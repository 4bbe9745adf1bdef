//! Snapshot tests of the plain-text summary and the JSON document on real captures.
//! Review changes with `cargo insta review`.

use kernlog::report::Report;
use kernlog::summary::render_summary;

use notebook_checks::read_data as data;

/// Links of a made-up site: the summary shows whatever address the caller gives.
fn links(kind: kernlog::findings::FindingKind) -> Option<String> {
    Some(format!("https://example.invalid/findings#{}", kind.id()))
}

macro_rules! summary_snapshot {
    ($name:ident, $file:expr) => {
        #[test]
        fn $name() {
            let analysis = kernlog::analyze_str(&data($file));
            insta::assert_snapshot!(render_summary(&analysis, &links));
        }
    };
}

summary_snapshot!(
    summary_slow_resume_6_16_3,
    "dmesg/resume-6.16.3-ubuntu-kernel.log"
);
summary_snapshot!(
    summary_suspend_6_16_3,
    "dmesg/suspend-6.16.3-ubuntu-kernel.log"
);
summary_snapshot!(
    summary_journal_resume,
    "journal/resume-6.16.3-ubuntu-kernel.log"
);
summary_snapshot!(
    summary_mtrr_slow_resume,
    "mtrr/resume-6.16.7-debug-slow.log"
);
summary_snapshot!(summary_mtrr_boot_table, "mtrr/boot-mtrr-debug-6.16.7.log");
summary_snapshot!(summary_proc_mtrr, "mtrr/proc-mtrr-6.16.7.txt");
summary_snapshot!(
    summary_fixed_kernel,
    "dmesg/resume-cpu-bringup-fix-6.16.7.log"
);
summary_snapshot!(summary_t2_mac, "dmesg/t2-mac-s3-wake-to-ec-unblock.log");
summary_snapshot!(
    summary_trace,
    "ftrace/online-callbacks-slow-calls-6.16.7.log"
);
summary_snapshot!(
    summary_probes,
    "dmesg/resume-cpu-bringup-arch-end-slow-6.16.7.log"
);

#[test]
fn json_conditional_fix() {
    let analysis = kernlog::analyze_str(&data("mtrr/resume-6.16.7-debug-conditional-fix.log"));
    insta::assert_json_snapshot!(Report::new(&analysis));
}

#[test]
fn json_boot_table_and_proc_mtrr() {
    let mut text = data("mtrr/boot-mtrr-debug-6.16.7.log");
    text.push_str(&data("mtrr/proc-mtrr-6.16.7.txt"));
    let analysis = kernlog::analyze_str(&text);
    insta::assert_json_snapshot!(Report::new(&analysis).mtrr);
}
