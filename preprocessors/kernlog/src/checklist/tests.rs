//! The checklist on small made-up logs.
use super::*;
use crate::analyze_str;

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
fn healthy_log_passes_as_not_affected() {
    let list = check(&analyze_str(HEALTHY), Limits::default());
    assert!(list.passed);
    assert!(list.verdict.contains("not affected"), "{}", list.verdict);
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
    assert_eq!(list.items[0].status, Status::Skip);
    assert!(
        list.items[0].reason.contains("logger"),
        "{}",
        list.items[0].reason
    );
    assert!(list.passed);
    assert!(
        list.verdict.contains("could not be timed"),
        "{}",
        list.verdict
    );
}

#[test]
fn each_failure_reason() {
    // Slow bring-up.
    let slow = HEALTHY.replace("100.012000", "102.500000");
    assert_eq!(statuses(&slow)[0], Status::Fail);
    // A CPU that did not come back.
    let lost = format!(
        "{HEALTHY}[  100.020000] smpboot: Booting Node 0 Processor 2 APIC 0x4\n[  110.000000] Error taking CPU2 up: -5\n"
    );
    assert_eq!(statuses(&lost)[1], Status::Fail);
    // MTRR warning.
    let warned = format!(
        "{HEALTHY}[  100.013000] mtrr: your CPUs had inconsistent variable MTRR settings\n"
    );
    assert_eq!(statuses(&warned)[4], Status::Fail);
    // Boot CPU changed (mtrr=debug) but no diagnostic.
    let changed = format!(
        "[  99.000000] MTRR cpu 0 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]\n\
         [  99.000001] MTRR cpu 0 changes:__T\n\
         [  99.000002] MTRR cpu 0 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]\n\
         [  99.500000] ACPI: PM: Low-level resume complete\n{HEALTHY}"
    );
    let s = statuses(&changed);
    assert_eq!(s[2], Status::Fail, "missing diagnostic");
    assert_eq!(s[3], Status::Fail, "CPU 1 never checked");
    // Diagnostic without a change.
    let spurious = format!(
        "[  99.000000] MTRR cpu 0 disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]\n\
         [  99.000001] MTRR cpu 0 changes:___\n\
         [  99.500000] ACPI: PM: Low-level resume complete\n{HEALTHY}[  100.013000] mtrr: your CPUs had unexpected MTRR settings on resume\n"
    );
    assert_eq!(statuses(&spurious)[2], Status::Fail);
    // No resume at all.
    let none = check(&analyze_str("[ 1.000000] hello\n"), Limits::default());
    assert!(!none.passed);
}

/// One MTRR set-state run of `cpu` at `t` as the debug patch prints it.
fn run(t: &str, cpu: u32, flags: &str) -> String {
    format!(
        "[{t}0] MTRR cpu {cpu} disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]\n\
         [{t}1] MTRR cpu {cpu} changes:{flags}\n\
         [{t}2] MTRR cpu {cpu} enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]\n"
    )
}

/// One suspend/resume cycle with one AP; `changed` makes the boot CPU's restore find
/// its MTRRs changed, `diagnostic` adds the fix's message.
fn cycle(t: u32, changed: bool, diagnostic: bool) -> String {
    let flags = if changed { "VFT" } else { "___" };
    let mut s = format!("[{t}.000000] PM: suspend entry (deep)\n");
    s += &run(&format!("{t}.10000"), 0, flags);
    s += &format!(
        "[{t}.200000] ACPI: PM: Low-level resume complete\n\
         [{t}.300000] Enabling non-boot CPUs ...\n\
         [{t}.300100] smpboot: Booting Node 0 Processor 1 APIC 0x2\n"
    );
    s += &run(&format!("{t}.30050"), 0, "___");
    s += &run(&format!("{t}.30060"), 1, "VFT");
    s += &format!("[{t}.301000] CPU1 is up\n");
    if diagnostic {
        s += &format!("[{t}.302000] mtrr: your CPUs had unexpected MTRR settings on resume\n");
    }
    s + &format!("[{t}.400000] PM: suspend exit\n")
}

#[test]
fn each_resume_is_judged_on_its_own_and_boot_warnings_do_not_count() {
    let boot = "[    0.500000] mtrr: your CPUs had inconsistent variable MTRR settings\n";
    // Changed on the second resume only, with the diagnostic there: PASS.
    let good = format!("{boot}{}{}", cycle(10, false, false), cycle(20, true, true));
    let list = check(&analyze_str(&good), Limits::default());
    assert!(list.passed, "{}", render_checklist(&list));
    assert!(
        list.items[4].reason.contains("1 earlier"),
        "{:?}",
        list.items[4]
    );
    assert!(
        list.items[2].reason.contains("1 of 2"),
        "{:?}",
        list.items[2]
    );
    // The diagnostic in the wrong resume: both directions fail.
    let swapped = format!("{boot}{}{}", cycle(10, false, true), cycle(20, true, false));
    let list = check(&analyze_str(&swapped), Limits::default());
    assert_eq!(list.items[2].status, Status::Fail);
    assert!(
        list.items[2].reason.contains("resume 2 of 2"),
        "{:?}",
        list.items[2]
    );
    // A warning inside a resume still fails.
    let warned = good.replace(
        "[20.400000]",
        "[20.350000] mtrr: your CPUs had inconsistent fixed MTRR settings\n[20.400000]",
    );
    assert_eq!(
        check(&analyze_str(&warned), Limits::default()).items[4].status,
        Status::Fail
    );
}
