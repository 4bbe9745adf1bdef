//! The tracker on small hand-written logs.

use super::classify::classify_device_pm;
use super::*;
use crate::parse::reader::RecordReader;

/// The cycles the tracker finds in `text`.
pub(super) fn cycles(text: &str) -> Vec<Cycle> {
    let mut reader = RecordReader::new(text.as_bytes());
    let mut tracker = CycleTracker::new();
    while let Some(r) = reader.next_record() {
        tracker.push(&r.unwrap());
    }
    tracker.finish()
}

const NEW: &str = "\
[  100.000000] PM: suspend entry (deep)
[  100.100000] Freezing user space processes
[  100.200000] Freezing remaining freezable tasks completed (elapsed 0.001 seconds)
[  101.000000] ACPI: PM: Preparing to enter system sleep state S3
[  101.100000] Disabling non-boot CPUs ...
[  101.200000] smpboot: CPU 1 is now offline
[  101.300000] ACPI: PM: Low-level resume complete
[  101.400000] Enabling non-boot CPUs ...
[  101.500000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[  103.500000] CPU1 is up
[  103.600000] ACPI: PM: Waking up from system sleep state S3
[  103.700000] ACPI: EC: interrupt unblocked
[  104.000000] ACPI: EC: event unblocked
[  105.000000] OOM killer enabled.
[  105.100000] Restarting tasks: Done
[  105.200000] PM: suspend exit
";

#[test]
fn a_device_suspend_callback_that_fails_aborts_a_resume_callback_does_not() {
    let failed = "\
[   10.000000] Freezing user space processes
[   10.500000] apple-drm soc:display-subsystem: PM: dpm_run_callback(): platform_pm_suspend returns -22
";
    assert_eq!(cycles(failed)[0].aborted.as_ref().map(|a| a.line), Some(2));
    let resume_error = "\
[   10.000000] Freezing user space processes
[   10.100000] Disabling non-boot CPUs ...
[   20.000000] Enabling non-boot CPUs ...
[   20.500000] nvme 0000:01:00.0: PM: pci_pm_resume+0x0/0xe0 returns -5
[   20.600000] port serial8250: PM: failed to suspend: error -16
";
    assert!(cycles(resume_error)[0].aborted.is_none());
    assert_eq!(classify_device_pm("x: PM: cb suspend returns -"), None);
    assert_eq!(
        classify_device_pm("x: PM: cb suspend returns -5 then"),
        None
    );
}

#[test]
fn older_entry_lines_of_one_attempt_make_one_cycle_with_its_mode() {
    let log = "\
[   10.000000] PM: Syncing filesystems ... done.
[   10.100000] PM: Preparing system for sleep (mem)
[   10.200000] Freezing user space processes ... (elapsed 0.001 seconds) done.
[   12.000000] Restarting tasks ... done.
[   20.000000] PM: Syncing filesystems ... done.
[   20.100000] PM: Preparing system for mem sleep
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    assert_eq!(cs[0].mode, Some(SleepMode::Deep));
    assert_eq!(cs[0].sync_to_restart_ms(), Some(2000.0));
    assert_eq!(cs[1].mode, Some(SleepMode::Deep));
    let debug = "[1.0] PM: suspend entry (s2idle)\n[1.1] PM: Preparing system for sleep (s2idle)\n";
    assert_eq!(cycles(debug).len(), 1);
}

#[test]
fn suspend_exit_after_old_style_thaw_ends_the_same_cycle() {
    let log = "\
[   10.000000] Enabling non-boot CPUs ...
[   10.050000] CPU1 is up
[   10.300000] Restarting tasks ... done.
[   10.400000] PM: suspend exit
[   30.000000] PM: suspend entry (s2idle)
[   40.000000] PM: resume from suspend-to-idle
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    assert_eq!(cs[0].exit.map(|e| e.line), Some(4));
    assert!(!cs[0].legacy_markers);
    assert_eq!(cs[1].mode, Some(SleepMode::S2idle));
}

#[test]
fn new_wording_cycle() {
    let c = &cycles(NEW)[0];
    assert_eq!(c.mode, Some(SleepMode::Deep));
    assert_eq!(c.suspend_span_ms(), Some(5200.0));
    assert_eq!(c.enable_phase_ms(), Some(2100.0));
    assert_eq!(c.ec_wake_to_unblock_ms(), Some(100.0));
    assert_eq!(c.cpus[0].bringup_ms(), Some(2000.0));
    assert_eq!(c.cpus[0].apic.as_deref(), Some("0x2"));
    assert_eq!(c.suspend_ms(), Some(1200.0));
    assert_eq!(c.resume_ms(), Some(3900.0));
    let names: Vec<_> = c.phases.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            PhaseName::Freeze,
            PhaseName::DeviceSuspend,
            PhaseName::DisableCpus,
            PhaseName::LowLevelResume,
            PhaseName::EnableCpus,
            PhaseName::PlatformWake,
            PhaseName::EcUnblock,
            PhaseName::DeviceResume,
            PhaseName::Thaw,
        ]
    );
    assert_eq!(c.gaps[0].us, 2_000_000);
    assert_eq!(c.gaps[0].to.line, 10);
    assert!(c.cpus_not_up().is_empty());
}

#[test]
fn old_wording_cycles_and_a_cpu_that_failed() {
    let log = "\
[   10.000000] PM: Syncing filesystems ... done.
[   10.100000] Freezing user space processes ... (elapsed 0.001 seconds) done.
[   10.200000] Disabling non-boot CPUs ...
[   10.300000] CPU 1 is now offline
[   10.400000] CPU 2 is now offline
[   10.500000] ACPI: Low-level resume complete
[   10.600000] Enabling non-boot CPUs ...
[   10.700000] Booting processor 1 APIC 0x1 ip 0x6000
[   10.800000] CPU1 is up
[   10.900000] Booting processor 2 APIC 0x2 ip 0x6000
[   11.900000] Error taking CPU2 up: -5
[   12.000000] Restarting tasks ... done.
[   20.000000] PM: Syncing filesystems ... done.
[   21.000000] Restarting tasks ... done.
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2);
    // No `PM: suspend entry`/`exit`: no suspend span, but the older markers' span.
    assert_eq!(cs[0].suspend_span_ms(), None);
    assert_eq!(cs[0].sync_to_restart_ms(), Some(2000.0));
    assert_eq!(cs[0].cpus_not_up(), [2]);
    assert_eq!(cs[0].failures[0].error, -5);
    assert_eq!(cs[0].cpus[0].bringup_ms(), Some(100.0));
    assert_eq!(cs[1].sync_to_restart_ms(), Some(1000.0));
}

#[test]
fn a_log_that_stays_on_the_earlier_clock_starts_a_new_boot() {
    let log = "\
[  500.000000] Enabling non-boot CPUs ...
[  500.100000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[    1.000000] Enabling non-boot CPUs ...
[    1.100000] CPU1 is up
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[1].boot, 1);
    assert_eq!(cs[0].cpus_not_up(), [1]);
    assert_eq!(cs[1].enable_start.map(|e| e.line), Some(3));
    assert!(cs.iter().all(|c| c.gaps.iter().all(|g| g.us >= 0)));
}

#[test]
fn a_line_stamped_out_of_order_keeps_the_resume_whole() {
    // A secondary CPU prints with its clock not yet in step: the stamp falls back near
    // zero for one line and the timeline goes on. One resume, every CPU up, bring-up
    // times from the good stamps; the stray line's stamp is dropped.
    let log = "\
[  500.000000] Enabling non-boot CPUs ...
[  500.100000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[    0.008000] Calibrating delay loop (skipped) already calibrated this CPU
[  500.150000] CPU1 is up
[  500.200000] smpboot: Booting Node 0 Processor 2 APIC 0x4
[  500.260000] CPU2 is up
[    0.009000] CPU3 is up
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 1, "{cs:#?}");
    let c = &cs[0];
    assert_eq!(c.boot, 0);
    assert_eq!(c.cpus[0].bringup_ms(), Some(50.0));
    assert_eq!(c.cpus[1].bringup_ms(), Some(60.0));
    // The last line, out of order at the end of the log: CPU3 came up, time unknown.
    assert!(c.cpus_not_up().is_empty());
    assert_eq!(c.cpus[2].up.and_then(|e| e.time), None);
    assert!(c.gaps.iter().all(|g| g.us >= 0));
}

#[test]
fn arm_style_resume_without_booting_lines() {
    let log = "\
[   50.000000] Enabling non-boot CPUs ...
[   50.010000] Detected PIPT I-cache on CPU1
[   50.020000] CPU1 is up
[   50.040000] CPU2 is up
";
    let c = &cycles(log)[0];
    assert_eq!(c.cpus.len(), 2);
    assert_eq!(c.cpus[0].bringup_ms(), None);
    assert_eq!(c.up_after_enable_ms(&c.cpus[1]), Some(40.0));
    assert_eq!(c.enable_phase_ms(), Some(40.0));
}

#[test]
fn two_resume_excerpts_make_two_cycles() {
    let log = "\
[   10.000000] ACPI: PM: Low-level resume complete
[   10.100000] Enabling non-boot CPUs ...
[   10.200000] CPU1 is up
[   20.000000] ACPI: PM: Low-level resume complete
[   20.100000] Enabling non-boot CPUs ...
[   20.400000] CPU1 is up
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[0].enable_phase_ms(), Some(100.0));
    assert_eq!(cs[1].enable_phase_ms(), Some(300.0));
}

#[test]
fn s2idle_mode() {
    let log = "\
[   1.000000] PM: suspend entry (s2idle)
[   2.000000] PM: suspend-to-idle
[   9.000000] PM: resume from suspend-to-idle
[  10.000000] PM: suspend exit
";
    let c = &cycles(log)[0];
    assert_eq!(c.mode, Some(SleepMode::S2idle));
    assert_eq!(c.suspend_span_ms(), Some(9000.0));
}

#[test]
fn power_off_is_not_a_cycle() {
    let log = "\
[   10.000000] PM: suspend entry (deep)
[   10.100000] ACPI: PM: Preparing to enter system sleep state S3
[   10.200000] ACPI: PM: Low-level resume complete
[   10.300000] PM: suspend exit
[   16.403976] ACPI: PM: Preparing to enter system sleep state S5
[   16.405806] reboot: Power down
";
    assert_eq!(cycles(log).len(), 1);
}

#[test]
fn an_aborted_attempt_is_no_resume_and_later_cycles_are_unaffected() {
    let log = "\
[  100.000000] PM: suspend entry (deep)
[  100.100000] PM: Device 0000:00:14.0 failed to suspend async: error -16
[  100.200000] PM: Some devices failed to suspend, or early wake event detected
[  100.300000] PM: suspend exit
[  200.000000] PM: suspend entry (deep)
[  200.500000] ACPI: PM: Low-level resume complete
[  200.600000] Enabling non-boot CPUs ...
[  200.610000] CPU1 is up
[  201.000000] PM: suspend exit
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2);
    let aborted = cs[0].aborted.as_ref().expect("first attempt aborted");
    assert_eq!(aborted.line, 2);
    assert_eq!(cs[0].resume_ms(), None);
    assert!(cs[1].aborted.is_none());
    assert_eq!(cs[1].resume_ms(), Some(500.0));
    assert_eq!(cs[1].enable_phase_ms(), Some(10.0));
}

#[test]
fn an_entry_after_an_attempt_under_way_starts_the_next_attempt() {
    // Excerpts that begin inside an attempt (its entry above them): `PM: suspend entry` is
    // printed before anything else of an attempt, so one after a freeze, or after a freezer
    // that gave up, belongs to the next attempt.
    let log = "\
[   18.820001] Freezing user space processes ... (elapsed 0.002 seconds) done.
[   18.831327] Freezing remaining freezable tasks ... (elapsed 0.037 seconds) done.
[   20.378531] PM: suspend entry (deep)
[   74.286478] Freezing remaining freezable tasks ...
[   94.307128] Freezing of tasks failed after 20.012 seconds (0 tasks refusing to freeze, wq_busy=1):
[   94.640270] PM: suspend entry (deep)
[  100.000000] Freezing remaining freezable tasks ... (elapsed 0.039 seconds) done.
[  103.000000] PM: suspend entry (s2idle)
";
    let cs = cycles(log);
    let modes: Vec<_> = cs.iter().map(|c| c.mode).collect();
    let deep = Some(SleepMode::Deep);
    assert_eq!(modes, [None, deep, deep, Some(SleepMode::S2idle)]);
    assert!(cs[1].aborted.is_some(), "{:?}", cs[1].aborted);
    assert!(cs[0].aborted.is_none() && cs[2].aborted.is_none());
}

#[test]
fn android_wording_a_wakeup_that_aborts_the_freezer_and_dated_entry_and_exit() {
    let log = "\
[  613.670710] Freezing of tasks aborted after 0.000 seconds
[  613.670723] Restarting tasks ... done.
[  613.671882] PM: suspend exit 2016-03-01 16:26:05.961222028 UTC
[  613.965209] PM: suspend entry 2016-03-01 16:26:06.254544580 UTC
[  613.989645] PM: Preparing system for mem sleep
[  613.996534] PM: Entering mem sleep
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[0].aborted.as_ref().map(|a| a.line), Some(1));
    assert!(
        cs[0].exit.is_some(),
        "the dated exit line ends the first attempt"
    );
    assert_eq!(
        (cs[1].mode, cs[1].entry.map(|e| e.line)),
        (Some(SleepMode::Deep), Some(4))
    );
}

#[test]
fn a_hibernation_is_named_so() {
    // 4.x wording: the disk mode, then the image; 5.x on: its own entry and exit lines.
    let old = "\
[  100.000000] PM: Hibernation mode set to 'platform'
[  100.100000] PM: Syncing filesystems ... done.
[  100.200000] Freezing user space processes ... (elapsed 0.074 seconds) done.
[  100.300000] PM: Preallocating image memory... done (allocated 492884 pages)
";
    let modes: Vec<_> = cycles(old).iter().map(|c| c.mode).collect();
    assert_eq!(modes, [Some(SleepMode::Hibernate)]);
    let new = "\
[  200.000000] PM: hibernation: hibernation entry
[  200.100000] Freezing user space processes
[  200.200000] PM: hibernation: Creating image:
[  260.000000] PM: hibernation: hibernation exit
";
    let cs = cycles(new);
    assert_eq!((cs.len(), cs[0].mode), (1, Some(SleepMode::Hibernate)));
    assert_eq!(cs[0].suspend_span_ms(), Some(60_000.0));
}

#[test]
fn a_loggers_times_give_the_cycle_but_no_durations() {
    // NEW as journalctl prints it: with -o short-monotonic the kernel's stamps, with
    // -o short-precise the times journald read the lines (all after the thaw, the way the
    // QEMU lab's capture shows it).
    let monotonic: String = NEW
        .lines()
        .map(|l| l.replacen("] ", "] host kernel: ", 1) + "\n")
        .collect();
    let read_times: String = NEW
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let message = &l[l.find("] ").unwrap() + 2..];
            format!("Dec 01 03:10:53.{:06} host kernel: {message}\n", 100 + i)
        })
        .collect();
    let kernel = &cycles(&monotonic)[0];
    assert_eq!(kernel.enable_phase_ms(), Some(2100.0));
    let logger = &cycles(&read_times)[0];
    assert_eq!(logger.mode, Some(SleepMode::Deep));
    assert_eq!(logger.phases.len(), kernel.phases.len());
    assert!(logger.cpus[0].up.is_some());
    assert_eq!(logger.enable_phase_ms(), None);
    assert_eq!(logger.suspend_span_ms(), None);
    assert_eq!(logger.cpus[0].bringup_ms(), None);
    assert!(logger.phases.iter().all(|p| p.ms().is_none()));
    assert!(logger.gaps.is_empty());
}

#[test]
fn lines_stamped_near_zero_during_a_bring_up_are_no_new_boot() {
    // Two lines from a CPU whose clock is not yet in step, then one a few ms back: one
    // resume, CPU 1 up with its time from the good stamps.
    let log = "\
[  500.000000] PM: suspend entry (deep)
[  500.200000] ACPI: PM: Low-level resume complete
[  500.210000] Enabling non-boot CPUs ...
[  500.220000] smpboot: Booting Node 0 Processor 1 APIC 0x2
[    0.000000] masked ExtINT on CPU#1
[    0.001000] Calibrating delay using timer specific routine.. 5000.00 BogoMIPS
[  500.215000] microcode: CPU1: patch_level=0x0a50000c
[  500.226000] CPU1 is up
[  500.300000] PM: suspend exit
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 1, "{cs:#?}");
    assert!(cs[0].cpus_not_up().is_empty());
    assert_eq!(cs[0].cpus[0].bringup_ms(), Some(6.0));
    assert_eq!(cs[0].suspend_span_ms(), Some(300.0));
    assert!(cs[0].gaps.iter().all(|g| g.us >= 0));
}

#[test]
fn a_stamp_reset_with_boot_lines_or_a_long_run_behind_is_a_new_boot() {
    // No banner captured, but the command line: a new boot at once.
    let log = "\
[  500.000000] Enabling non-boot CPUs ...
[  500.100000] CPU1 is up
[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1
[    0.100000] x86/fpu: Supporting XSAVE feature 0x001
";
    let cs = cycles(log);
    assert_eq!(cs.len(), 1);
    // The next boot's lines count on its own clock: no gap spans the two boots.
    assert!(cs[0].gaps.iter().all(|g| g.to.line <= 2));
    // More lines behind than a bring-up prints, then a resume on the new clock.
    let mut log = String::from("[  500.000000] Enabling non-boot CPUs ...\n");
    for i in 0..20 {
        log.push_str(&format!("[    1.{i:06}] usb 1-1: line {i}\n"));
    }
    log.push_str("[    2.000000] smpboot: Booting Node 0 Processor 1 APIC 0x2\n");
    log.push_str("[    2.050000] CPU1 is up\n");
    let cs = cycles(&log);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    assert_eq!((cs[0].boot, cs[1].boot), (0, 1));
    assert_eq!(cs[1].cpus[0].bringup_ms(), Some(50.0));
}

#[test]
fn endless_input_keeps_a_bounded_part_and_counts_the_rest() {
    use crate::analysis::limits::{CPUS_KEPT, CYCLES_KEPT};
    // More distinct CPUs than any kernel has, in one resume.
    let mut log = String::from("[    1.000000] Enabling non-boot CPUs ...\n");
    for cpu in 1..=CPUS_KEPT + 2 {
        log.push_str(&format!("[    2.000000] CPU{cpu} is up\n"));
    }
    let mut reader = RecordReader::new(log.as_bytes());
    let mut tracker = CycleTracker::new();
    while let Some(r) = reader.next_record() {
        tracker.push(&r.unwrap());
    }
    assert_eq!(tracker.not_kept(), (0, 2));
    let cs = tracker.finish();
    assert_eq!(cs[0].cpus.len(), CPUS_KEPT);
    // More cycles than are kept.
    let cycle = "[    3.000000] PM: suspend entry (deep)\n[    3.100000] PM: suspend exit\n";
    let log = cycle.repeat(CYCLES_KEPT + 3);
    let mut reader = RecordReader::new(log.as_bytes());
    let mut tracker = CycleTracker::new();
    while let Some(r) = reader.next_record() {
        tracker.push(&r.unwrap());
    }
    assert_eq!(tracker.not_kept(), (3, 0));
    assert_eq!(tracker.finish().len(), CYCLES_KEPT);
}

#[test]
fn many_cycles_of_many_cpus_keep_the_first_bring_ups_only() {
    use crate::analysis::limits::CPU_BRINGUPS_KEPT;
    // Fifth attacker review: cycles of 200 CPUs each, far more bring-ups than one log keeps.
    let mut cycle = String::from(
        "[    3.000000] PM: suspend entry (deep)\n[    3.100000] Enabling non-boot CPUs ...\n",
    );
    for cpu in 1..=200 {
        cycle.push_str(&format!("[    3.200000] CPU{cpu} is up\n"));
    }
    cycle.push_str("[    3.300000] PM: suspend exit\n");
    let cycles = CPU_BRINGUPS_KEPT / 200 + 10;
    let log = cycle.repeat(cycles);
    let mut reader = RecordReader::new(log.as_bytes());
    let mut tracker = CycleTracker::new();
    while let Some(r) = reader.next_record() {
        tracker.push(&r.unwrap());
    }
    let kept = CPU_BRINGUPS_KEPT / 200;
    assert_eq!(tracker.not_kept(), ((cycles - kept) as u64, 0));
    let cs = tracker.finish();
    assert_eq!(cs.len(), kept);
    assert!(cs.iter().map(|c| c.cpus.len()).sum::<usize>() <= CPU_BRINGUPS_KEPT);
}
