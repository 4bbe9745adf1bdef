//! The checklist on small made-up logs.
use super::*;
use crate::analysis::findings::FindingKind;
use crate::analyze_str;
use crate::render::checklist::render_checklist;

const HEALTHY: &str = "\
[  100.000000] Enabling non-boot CPUs ...
[  100.000100] smpboot: Booting Node 0 Processor 1 APIC 0x2
[  100.012000] CPU1 is up
";

fn statuses(text: &str) -> Vec<Status> {
    check(&analyze_str(text), Limits::default())
        .items
        .iter()
        .map(|i| i.status)
        .collect()
}

#[test]
fn a_healthy_log_without_mtrr_debug_leaves_the_mtrr_outcome_unknown() {
    let list = check(&analyze_str(HEALTHY), Limits::default());
    assert_eq!(list.overall, Overall::Unknown);
    assert!(
        list.verdict.starts_with("UNKNOWN: MTRR outcome unknown"),
        "{}",
        list.verdict
    );
    assert!(list.verdict.contains("mtrr=debug and the debug patch"));
    assert!(list.verdict.contains("kernlog capture"));
    assert!(!list.verdict.contains("not affected"), "{}", list.verdict);
}

#[test]
fn logger_times_leave_the_bring_up_untimed() {
    // The same bring-up as journalctl -o short-precise prints it: journald read all three
    // lines after the thaw, 0.3 ms apart, whatever the kernel took.
    let journal = "\
Dec 01 03:10:53.141810 qemulab kernel: Enabling non-boot CPUs ...
Dec 01 03:10:53.141900 qemulab kernel: smpboot: Booting Node 0 Processor 1 APIC 0x1
Dec 01 03:10:53.142100 qemulab kernel: CPU1 is up
";
    let list = check(&analyze_str(journal), Limits::default());
    assert_eq!(list.items[1].status, Status::Skip);
    assert!(
        list.items[1].reason.contains("logger"),
        "{}",
        list.items[1].reason
    );
    assert_eq!(list.overall, Overall::Unknown);
    assert!(
        list.verdict.contains("could not be timed"),
        "{}",
        list.verdict
    );
}

#[test]
fn stamps_that_step_back_are_said_and_judge_nothing() {
    // CPU2 took 3 s (a FAIL); CPU1's `is up` is stamped before its Booting line, which would
    // read as a 0 ms bring-up. The slow CPU still fails the item.
    // A thaw of CPUs 1 and 2, each `is up` line stamped as given.
    let thaw = |up1: &str, up2: &str| {
        format!(
            "[  100.000000] Enabling non-boot CPUs ...\n\
             [  100.000100] smpboot: Booting Node 0 Processor 1 APIC 0x2\n\
             [{up1}] CPU1 is up\n\
             [  100.100000] smpboot: Booting Node 0 Processor 2 APIC 0x4\n\
             [{up2}] CPU2 is up\n"
        )
    };
    let slow_and_back = thaw("   99.950000", "  103.100000");
    let list = check(&analyze_str(&slow_and_back), Limits::default());
    assert_eq!(
        list.items[1].status,
        Status::Fail,
        "{}",
        list.items[1].reason
    );
    // Alone, the stepped-back CPU gives no PASS: the item says why it is not judged.
    let back = thaw("   99.950000", "  100.110000");
    let list = check(&analyze_str(&back), Limits::default());
    let item = &list.items[1];
    assert_eq!(item.status, Status::Skip, "{}", item.reason);
    assert!(item.reason.contains("step back"), "{}", item.reason);
    assert!(item.reason.contains("CPU1 (line 3)"), "{}", item.reason);
    assert_ne!(list.overall, Overall::Pass);
    let a = analyze_str(&back);
    assert_eq!(a.cycles[0].cpus[0].bringup_ms(), None);
    // At the ends of the range no span fits: the same.
    let extreme = format!(
        "[  100.000000] Enabling non-boot CPUs ...\n\
         [  100.000100] smpboot: Booting Node 0 Processor 1 APIC 0x2\n\
         [{}.000000] CPU1 is up\n",
        i64::MIN / 1_000_000
    );
    let list = check(&analyze_str(&extreme), Limits::default());
    assert_ne!(
        list.items[1].status,
        Status::Pass,
        "{}",
        list.items[1].reason
    );
}

#[test]
fn each_failure_reason() {
    // Slow bring-up.
    let slow = HEALTHY.replace("100.012000", "102.500000");
    assert_eq!(statuses(&slow)[1], Status::Fail);
    // A CPU that did not come back.
    let lost = format!(
        "{HEALTHY}[  100.020000] smpboot: Booting Node 0 Processor 2 APIC 0x4\n[  110.000000] Error taking CPU2 up: -5\n"
    );
    assert_eq!(statuses(&lost)[2], Status::Fail);
    // MTRR warning.
    let warned = format!(
        "{HEALTHY}[  100.013000] mtrr: your CPUs had inconsistent variable MTRR settings\n"
    );
    assert_eq!(statuses(&warned)[5], Status::Fail);
    // Boot CPU changed (mtrr=debug), CPU 1 never checked: the boot CPU's own restore needs
    // no diagnostic, but CPU 1's values were never shown.
    let bp_only = format!(
        "[  99.000000] MTRR cpu 0 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]\n\
         [  99.000001] MTRR cpu 0 changes:__T\n\
         [  99.000002] MTRR cpu 0 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]\n\
         [  99.500000] ACPI: PM: Low-level resume complete\n{HEALTHY}"
    );
    let s = statuses(&bp_only);
    assert_eq!(s[3], Status::Pass, "no AP came back changed");
    assert_eq!(s[4], Status::Fail, "CPU 1 never checked");
    // CPU 1 came back changed (its first run rewrote it), and no diagnostic: FAIL.
    let ap_changed = format!("{}{}", cycle(10, true, false), "");
    assert_eq!(statuses(&ap_changed)[3], Status::Fail, "missing diagnostic");
    // Diagnostic without a change.
    let spurious = format!(
        "[  99.000000] MTRR cpu 0 disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]\n\
         [  99.000001] MTRR cpu 0 changes:___\n\
         [  99.500000] ACPI: PM: Low-level resume complete\n{HEALTHY}[  100.013000] mtrr: your CPUs had unexpected MTRR settings on resume\n"
    );
    assert_eq!(statuses(&spurious)[3], Status::Fail);
    // No resume at all.
    let none = check(&analyze_str("[ 1.000000] hello\n"), Limits::default());
    assert_eq!(none.overall, Overall::Unknown);
    assert_eq!(none.items[0].status, Status::Skip, "no PASS for no attempt");
    assert!(
        none.verdict.contains("no suspend attempt"),
        "{}",
        none.verdict
    );
}

/// One MTRR set-state run of `cpu` at `t` as the debug patch prints it.
fn run(t: &str, cpu: u32, flags: &str) -> String {
    format!(
        "[{t}0] MTRR cpu {cpu} disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]\n\
         [{t}1] MTRR cpu {cpu} changes:{flags}\n\
         [{t}2] MTRR cpu {cpu} enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]\n"
    )
}

/// One suspend/resume cycle with one AP; `changed` makes the firmware hand back the boot
/// CPU and CPU 1 with changed MTRRs (each one's first run rewrites it), `diagnostic` adds
/// the fix's (v2) message.
fn cycle(t: u32, changed: bool, diagnostic: bool) -> String {
    let flags = if changed { "VFT" } else { "___" };
    let mut s = format!("[{t}.000000] PM: suspend entry (deep)\n");
    s += &run(&format!("{t}.10000"), 0, flags);
    s += &format!(
        "[{t}.200000] ACPI: PM: Low-level resume complete\n\
         [{t}.300000] Enabling non-boot CPUs ...\n\
         [{t}.300100] smpboot: Booting Node 0 Processor 1 APIC 0x2\n"
    );
    s += &run(&format!("{t}.30050"), 1, flags);
    s += &format!("[{t}.301000] CPU1 is up\n");
    s += &run(&format!("{t}.30150"), 0, "___");
    s += &run(&format!("{t}.30160"), 1, "___");
    if diagnostic {
        s += &format!(
            "[{t}.302000] MTRRs of CPUs 1 differed from the saved state, restored each as it came up\n"
        );
    }
    s + &format!("[{t}.400000] PM: suspend exit\n")
}

#[test]
fn each_resume_is_judged_on_its_own_and_boot_warnings_do_not_count() {
    let boot = "[    0.500000] mtrr: your CPUs had inconsistent variable MTRR settings\n";
    // Changed on the second resume only, with the diagnostic there: PASS.
    let good = format!("{boot}{}{}", cycle(10, false, false), cycle(20, true, true));
    let list = check(&analyze_str(&good), Limits::default());
    assert_eq!(list.overall, Overall::Pass, "{}", render_checklist(&list));
    assert!(
        list.verdict.starts_with("PASS: the fix restored the MTRRs"),
        "{}",
        list.verdict
    );
    assert!(
        list.items[5].reason.contains("1 earlier"),
        "{:?}",
        list.items[5]
    );
    assert!(
        list.items[3].reason.contains("1 of 2"),
        "{:?}",
        list.items[3]
    );
    // The diagnostic in the wrong resume: both directions fail.
    let swapped = format!("{boot}{}{}", cycle(10, false, true), cycle(20, true, false));
    let list = check(&analyze_str(&swapped), Limits::default());
    assert_eq!(list.items[3].status, Status::Fail);
    assert!(
        list.items[3].reason.contains("resume 2 of 2"),
        "{:?}",
        list.items[3]
    );
    // A warning inside a resume still fails.
    let warned = good.replace(
        "[20.400000]",
        "[20.350000] mtrr: your CPUs had inconsistent fixed MTRR settings\n[20.400000]",
    );
    assert_eq!(
        check(&analyze_str(&warned), Limits::default()).items[5].status,
        Status::Fail
    );
}

#[test]
fn values_are_compared_not_just_that_a_check_ran() {
    // The AP's run rewrote variable 0 to another value than the boot CPU's restore did.
    let bp_restore = "\
[  9.000000] MTRR cpu 0 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]
[  9.000001] MTRR cpu 0 variable 0 00000000ff800005/0000007fff800800 -> 0000000080000000/0000007f80000800 [bits 000000007f800005/000000007f800000]
[  9.000002] MTRR cpu 0 changes:V_T
[  9.000003] MTRR cpu 0 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]
[  9.500000] ACPI: PM: Low-level resume complete
";
    // The fix restores CPU 1 as it comes up: its run sits between its Booting line and
    // `CPU1 is up`, the diagnostic after.
    let ap_run = |value: &str, bits: &str| {
        format!(
            "[  100.000000] Enabling non-boot CPUs ...\n\
             [  100.000100] smpboot: Booting Node 0 Processor 1 APIC 0x2\n\
             [ 100.005000] MTRR cpu 1 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]\n\
             [ 100.005001] MTRR cpu 1 variable 0 00000000ff800005/0000007fff800800 -> {value}/0000007f80000800 [bits {bits}/000000007f800000]\n\
             [ 100.005002] MTRR cpu 1 changes:V_T\n\
             [ 100.005003] MTRR cpu 1 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]\n\
             [  100.012000] CPU1 is up\n\
             [ 100.030000] mtrr: your CPUs had unexpected MTRR settings on resume\n"
        )
    };
    let same = format!(
        "{bp_restore}{}",
        ap_run("0000000080000000", "000000007f800005")
    );
    let list = check(&analyze_str(&same), Limits::default());
    assert_eq!(list.items[4].status, Status::Pass, "{:?}", list.items[4]);
    // MTRRdefType and variable 0, both shown for CPU 1 and for the boot CPU.
    assert!(
        list.items[4].reason.contains("2 register values equal"),
        "{:?}",
        list.items[4]
    );
    assert_eq!(list.overall, Overall::Pass, "{}", render_checklist(&list));
    let other = format!(
        "{bp_restore}{}",
        ap_run("0000000000000000", "00000000ff800005")
    );
    let list = check(&analyze_str(&other), Limits::default());
    assert_eq!(list.items[4].status, Status::Fail, "{:?}", list.items[4]);
    assert!(
        list.items[4].reason.contains("CPU 1 (resume 1) variable 0"),
        "{:?}",
        list.items[4]
    );
    assert!(list.verdict.starts_with("FAIL: every CPU consistent"));
}

#[test]
fn mtrr_debug_without_a_change_is_not_affected() {
    let log = format!("{}{}", cycle(10, false, false), cycle(20, false, false));
    let list = check(&analyze_str(&log), Limits::default());
    assert_eq!(list.overall, Overall::Pass, "{}", render_checklist(&list));
    assert!(
        list.verdict.starts_with("PASS: not affected: on 2 resumes"),
        "{}",
        list.verdict
    );
}

#[test]
fn attempts_that_did_not_resume_are_told_never_passed_over() {
    let freezer = "\
[   10.000000] PM: suspend entry (deep)
[   10.100000] Freezing user space processes
[   30.100000] Freezing user space processes failed after 20.000 seconds (1 tasks refusing to freeze, wq_busy=0):
[   30.200000] PM: suspend exit
";
    let list = check(&analyze_str(freezer), Limits::default());
    assert_eq!(list.overall, Overall::Unknown);
    assert!(
        list.verdict
            .contains("attempt 1 aborted at line 3, before it slept (Freezing user space"),
        "{}",
        list.verdict
    );
    assert!(!list.verdict.contains("not affected") && !list.verdict.contains("nothing to check"));
    // Aborted beside a good resume: the resume is judged, the abort still told.
    let both = format!("{freezer}{HEALTHY}");
    let list = check(&analyze_str(&both), Limits::default());
    assert!(
        list.verdict.contains("not tested: attempt 1 aborted"),
        "{}",
        list.verdict
    );
    // A suspend with no resume before the next boot: the machine did not come back.
    let hang = format!(
        "{HEALTHY}[  200.000000] PM: suspend entry (deep)\n\
         [    0.000000] Linux version 7.3.4 (builder@host) #1 SMP\n"
    );
    let list = check(&analyze_str(&hang), Limits::default());
    assert_eq!(list.overall, Overall::Fail);
    assert!(
        list.verdict.starts_with("FAIL: every attempt resumed"),
        "{}",
        list.verdict
    );
    assert!(
        list.verdict
            .contains("attempt 2 did not resume (suspend at line 4")
    );
    // The log ends right after the entry: cut off, or a hang; no FAIL rests on that.
    let cut = format!("{HEALTHY}[  200.000000] PM: suspend entry (deep)\n");
    let list = check(&analyze_str(&cut), Limits::default());
    assert_ne!(list.overall, Overall::Fail, "{}", list.verdict);
    assert!(
        list.verdict.contains("the log ends during attempt 2"),
        "{}",
        list.verdict
    );
}

#[test]
fn cpus_put_online_by_hand_after_a_resume_are_not_a_thaw() {
    // A resume with every AP offline (no thaw), then CPU 1 put online by hand: its MTRRs
    // are rewritten by ordinary hotplug, nothing prints "CPU1 is up", and the fix has
    // nothing to say. Then a real thaw in which CPU 1 comes back changed, with the line.
    let by_hand = format!(
        "[  5.000000] PM: suspend entry (deep)\n{}\
         [  5.200000] ACPI: PM: Low-level resume complete\n\
         [  5.400000] PM: suspend exit\n\
         [  6.000000] smpboot: Booting Node 0 Processor 1 APIC 0x2\n{}",
        run("5.10000", 0, "___"),
        run("6.00010", 1, "VFT")
    );
    let log = format!("{by_hand}{}", cycle(10, true, true));
    let list = check(&analyze_str(&log), Limits::default());
    let item = |name: &str| list.items.iter().find(|i| i.name == name).unwrap();
    assert_eq!(
        item("every CPU came back").status,
        Status::Pass,
        "{}",
        render_checklist(&list)
    );
    assert_eq!(
        item("diagnostic if and only if the MTRRs changed").status,
        Status::Pass,
        "{}",
        render_checklist(&list)
    );
}

#[test]
fn analyze_and_check_judge_boot_time_mtrr_rewrites_alike() {
    // The only changed runs are at boot, before the first suspend; every resume is clean.
    let boot = format!(
        "{}{}{}",
        run("1.00000", 0, "VFT"),
        run("1.10000", 1, "VFT"),
        cycle(10, false, false)
    );
    let analysis = analyze_str(&boot);
    let kinds: Vec<_> = analysis.findings.iter().map(|f| f.kind).collect();
    assert!(
        !kinds.contains(&FindingKind::MtrrBootCpuRestored)
            && !kinds.contains(&FindingKind::MtrrApsInconsistent),
        "{kinds:?}"
    );
    let list = check(&analysis, Limits::default());
    assert!(
        list.verdict.starts_with("PASS: not affected"),
        "{}",
        list.verdict
    );
    // The same rewrites in a resume are found by both.
    let resumed = cycle(10, true, false);
    let analysis = analyze_str(&resumed);
    let kinds: Vec<_> = analysis.findings.iter().map(|f| f.kind).collect();
    assert!(
        kinds.contains(&FindingKind::MtrrBootCpuRestored),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&FindingKind::MtrrApsInconsistent),
        "{kinds:?}"
    );
    assert_eq!(check(&analysis, Limits::default()).overall, Overall::Fail);
}

#[test]
fn a_boot_warning_before_a_cycle_without_an_entry_line_is_not_new() {
    // The log opens with a boot-time MTRR warning, then a bring-up with no suspend entry
    // line: the cycle owns the log from its start, but the warning came before it.
    let warnings = |log: String| {
        let list = check(&analyze_str(&log), Limits::default());
        let item = list.items.iter().find(|i| i.name == "no new warnings");
        let item = item.expect("the warnings item").clone();
        (item, render_checklist(&list))
    };
    let warning = "mtrr: your CPUs had inconsistent variable MTRR settings\n";
    let (item, shown) = warnings(format!("[    1.360000] {warning}{HEALTHY}"));
    assert_eq!(item.status, Status::Pass, "{shown}");
    assert!(
        item.reason.contains("1 earlier, before the first suspend"),
        "{}",
        item.reason
    );
    // The same warning after the bring-up began is new.
    let (item, shown) = warnings(format!("{HEALTHY}[  100.013000] {warning}"));
    assert_eq!(item.status, Status::Fail, "{shown}");
}

#[test]
fn a_log_from_boot_with_mtrr_debug_but_without_its_table_is_not_whole() {
    // The command line asks for mtrr=debug, the log starts at boot, the table is missing:
    // lines were lost or cut out, and a PASS could rest on what is left.
    let boot = "[    0.000000] Linux version 7.3.4 (b@h) #1 SMP\n\
                [    0.000000] Command line: root=/dev/sda1 mtrr=debug\n";
    let log = format!(
        "{boot}{}{}",
        cycle(10, false, false),
        cycle(20, false, false)
    );
    let list = check(&analyze_str(&log), Limits::default());
    let whole = list
        .items
        .iter()
        .find(|i| i.name == completeness::NAME)
        .unwrap();
    assert_eq!(whole.status, Status::Skip, "{}", render_checklist(&list));
    assert!(whole.reason.contains("MTRR table"), "{}", whole.reason);
    assert_eq!(list.overall, Overall::Unknown, "{}", list.verdict);
    // With the table there, nothing is missing.
    let table = "[    0.000100] MTRR default type: write-back\n\
                 [    0.000101] MTRR fixed ranges enabled:\n\
                 [    0.000102]   00000-9FFFF write-back\n\
                 [    0.000103] MTRR variable ranges enabled:\n\
                 [    0.000104]   0 base 0080000000 mask FF80000000 uncachable\n";
    let log = format!(
        "{boot}{table}{}{}",
        cycle(10, false, false),
        cycle(20, false, false)
    );
    let list = check(&analyze_str(&log), Limits::default());
    assert_eq!(list.overall, Overall::Pass, "{}", render_checklist(&list));
}

#[test]
fn a_resume_without_its_thaw_line_shows_nothing_of_its_cpus() {
    // The fix's diagnostic missing where CPU 1 came back changed: with the thaw line cut
    // out, the changed AP is no longer counted, and nothing may pass in its place.
    let log = cycle(10, true, false).replace("[10.300000] Enabling non-boot CPUs ...\n", "");
    let list = check(&analyze_str(&log), Limits::default());
    assert_ne!(list.overall, Overall::Pass, "{}", render_checklist(&list));
    let diagnostic = list
        .items
        .iter()
        .find(|i| i.name == "diagnostic if and only if the MTRRs changed")
        .unwrap();
    assert_eq!(
        diagnostic.status,
        Status::Skip,
        "{}",
        render_checklist(&list)
    );
}

#[test]
fn a_process_named_like_a_kernel_message_is_no_evidence() {
    // Any local user names a process `mtrr: 1f` or `MTRR cpu 100 x` and makes it segfault:
    // the kernel's report of it starts with that name. None of it is the kernel's own word.
    let segv = |name: &str, n: u32| {
        format!(
            "[    1.{n:06}] {name}[{}]: segfault at 0 ip 0 sp 0 error 4 in differed from the saved state[400000+1000]\n",
            1000 + n
        )
    };
    let mut log = String::new();
    for n in 0..50 {
        log += &segv("mtrr: 1f", n);
        log += &segv(&format!("MTRR cpu {} x", 100 + n), n);
        log += &segv("PM: suspend exi", n);
    }
    let log = format!(
        "{log}{}{}",
        cycle(10, false, false),
        cycle(20, false, false)
    );
    let a = analyze_str(&log);
    assert!(a.mtrr.warnings.is_empty(), "{:?}", a.mtrr.warnings.first());
    assert!(
        a.mtrr.runs.iter().all(|r| r.cpu < 2),
        "runs of named processes were read"
    );
    assert_eq!(a.cycles.len(), 2);
    let list = check(&a, Limits::default());
    assert_eq!(list.overall, Overall::Pass, "{}", render_checklist(&list));
}

#[test]
fn what_the_analysis_could_not_keep_leaves_the_outcome_unknown() {
    // More MTRR warnings than the analysis keeps: one past the bound could be the failure.
    let mut log = String::new();
    for n in 0..(crate::analysis::limits::MTRR_ITEMS_KEPT + 1) {
        log += &format!("[    1.{n:06}] mtrr: your CPUs had inconsistent MTRRdefType settings\n");
    }
    let log = format!(
        "{log}{}{}",
        cycle(10, false, false),
        cycle(20, false, false)
    );
    let list = check(&analyze_str(&log), Limits::default());
    assert_eq!(list.overall, Overall::Unknown, "{}", list.verdict);
    assert!(list.verdict.contains("not kept"), "{}", list.verdict);
}
