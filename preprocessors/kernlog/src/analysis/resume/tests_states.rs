//! The tracker on the classes of issue 31: older kernels' split lines and phase order,
//! standby and hibernation, Android's lines, time asleep, failed devices, outcomes, and
//! lines a task's name or user space could forge.

use super::tests::cycles;
use super::*;

/// A 3.x suspend to RAM: `PM: Entering mem sleep` before the devices suspend, the thaw's
/// `done.` on a record of its own.
const OLD: &str = "\
[   10.000000] PM: Syncing filesystems ... done.
[   10.010000] PM: Preparing system for mem sleep
[   10.020000] Freezing user space processes ... (elapsed 0.01 seconds) done.
[   10.040000] Freezing remaining freezable tasks ... (elapsed 0.01 seconds) done.
[   10.050000] PM: Entering mem sleep
[   10.900000] PM: noirq suspend of devices complete after 15.000 msecs
[   10.910000] ACPI: Preparing to enter system sleep state S3
[   10.920000] Disabling non-boot CPUs ...
[   10.930000] CPU 1 is now offline
[   10.940000] ACPI: Low-level resume complete
[   10.950000] Enabling non-boot CPUs ...
[   10.960000] CPU1 is up
[   10.970000] ACPI: Waking up from system sleep state S3
[   11.500000] PM: resume of devices complete after 500.000 msecs
[   11.600000] Restarting tasks ... 
[   11.610000] usb 1-1: USB disconnect, device number 2
[   11.650000] done.
[   11.700000] video LNXVIDEO:00: Restoring backlight state
";

#[test]
fn a_split_thaw_ends_the_cycle_at_its_done_and_entering_is_no_sleep() {
    let c = &cycles(OLD)[0];
    assert_eq!(c.exit.map(|e| e.line), Some(17));
    assert_eq!(c.sync_to_restart_ms(), Some(1650.0));
    let device_suspend = c.phase(PhaseName::DeviceSuspend).unwrap();
    assert_eq!(device_suspend.ms(), Some(870.0));
    assert_eq!(c.phase(PhaseName::Thaw).unwrap().ms(), Some(50.0));
    assert_eq!(c.phase(PhaseName::DeviceResume).unwrap().ms(), Some(630.0));
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
    assert_eq!(c.mode, Some(SleepMode::Deep));
}

#[test]
fn a_done_of_its_own_without_a_split_thaw_is_no_marker_of_any_cycle() {
    let log = "\
[    5.000000] Freezing user space processes ... 
[    5.010000] done.
";
    // The freezer's split line opens an attempt; its `done.` is not the thaw's.
    let found = cycles(log);
    assert!(found.iter().all(|c| c.exit.is_none()), "{found:?}");
    assert!(cycles("[    5.000000] done.\n").is_empty());
}

#[test]
fn standby_wakes_at_the_nvs_restore_and_its_suspend_half_ends_before() {
    let log = "\
[   61.973752] PM: Syncing filesystems ... done.
[   62.008084] PM: Entering standby sleep
[   62.448374] ACPI: Preparing to enter system sleep state S1
[   62.557344] CPU 3 is now offline
[   62.560011] PM: Restoring platform NVS memory
[   70.254815] PM: Finishing wakeup.
[   70.254821] Restarting tasks ... done.
";
    let c = &cycles(log)[0];
    assert_eq!(c.mode, Some(SleepMode::Shallow));
    assert_eq!(c.suspend_ms(), Some(583.592));
    assert_eq!(c.resume_ms(), Some(7694.81));
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
}

#[test]
fn a_hibernation_image_restored_on_another_clock_is_the_same_cycle() {
    let log = "\
[ 1990.000000] PM: Syncing filesystems ... done.
[ 1990.500000] PM: Preallocating image memory... done (allocated 1000 pages)
[ 1996.990994] CPU 7 is now offline
[ 1996.996443] PM: Creating hibernation image:
[ 1997.106891] PM: Need to copy 125651 pages
[   15.328751] x86 PAT enabled: cpu 0, old 0x7040600070406, new 0x7010600070106
[   15.329474] PM: Restoring platform NVS memory
[   15.333351] Enabling non-boot CPUs ...
[   15.340000] CPU1 is up
[   16.000000] Restarting tasks ... done.
";
    let found = cycles(log);
    assert_eq!(found.len(), 1, "{found:?}");
    let c = &found[0];
    assert_eq!((c.boot, c.mode), (0, Some(SleepMode::Hibernate)));
    // The suspend half ends with the image; the resume is timed on the restored clock.
    assert_eq!(c.suspend_ms(), Some(6996.443));
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
    assert_eq!(c.resume_ms(), Some(670.526));
}

#[test]
fn the_time_asleep_comes_from_timekeeping_or_androids_wall_times() {
    let timekeeping = "\
[   55.646109] PM: suspend entry (s2idle)
[   56.357057] PM: suspend-to-idle
[   69.338656] PM: Timekeeping suspended for 12.178 seconds
[   69.338879] PM: resume from suspend-to-idle
[   70.012592] PM: suspend exit
";
    let c = &cycles(timekeeping)[0];
    let asleep = c.asleep.unwrap();
    assert_eq!(
        (asleep.seconds, asleep.source, asleep.line),
        (12.178, AsleepSource::Timekeeping, 3)
    );
    assert_eq!(c.suspend_ms(), Some(710.948));
    let old = "\
[   20.000000] PM: Syncing filesystems ... done.
[   20.500000] PM: Entering mem sleep
[   20.900000] Suspended for 2.580 seconds
[   21.000000] PM: resume of devices complete after 80.000 msecs
[   21.100000] Restarting tasks ... done.
";
    let c = &cycles(old)[0];
    assert_eq!(c.asleep.map(|a| (a.seconds, a.line)), Some((2.58, 3)));
    assert_eq!(c.suspend_ms(), Some(500.0));
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
    let wall = "\
[  347.742049] PM: PM: suspend entry 2020-06-07 16:27:41.246277668 UTC
[  347.742067] PM: suspend entry (deep)
[  347.965365] PM: PM: suspend exit 2020-06-07 16:28:43.131762123 UTC
[  347.965375] PM: suspend exit
";
    let c = &cycles(wall)[0];
    let asleep = c.asleep.unwrap();
    assert_eq!(asleep.source, AsleepSource::WallClock);
    assert!((asleep.seconds - 61.662_168).abs() < 1e-3, "{asleep:?}");
    let android = "\
[  515.804107] PM: Syncing filesystems ... done.
[  516.966888] suspend: exit suspend, ret = 0 (2012-09-17 08:09:34.164855730 UTC)
";
    let c = &cycles(android)[0];
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
    assert_eq!(c.sync_to_restart_ms(), Some(1162.781));
    assert_eq!(c.asleep, None);
}

#[test]
fn outcomes_tell_a_log_that_ends_from_an_attempt_followed_by_another() {
    let log = "\
[  100.000000] PM: suspend entry (deep)
[  100.100000] Disabling non-boot CPUs ...
[  200.000000] PM: suspend entry (deep)
[  200.100000] Disabling non-boot CPUs ...
";
    let found = cycles(log);
    assert_eq!(found[0].outcome().state, OutcomeState::DidNotResume);
    assert_eq!(found[1].outcome().state, OutcomeState::Suspending);
}

#[test]
fn an_aborted_attempt_has_a_time_to_abort_and_no_suspend_figure() {
    let log = "\
[ 2284.096683] PM: Syncing filesystems ... done.
[ 2284.337404] PM: Entering freeze sleep
[ 2284.537479] PM: Device 0000:00:01.3 failed to suspend async: error -16
[ 2284.558639] PM: Some devices failed to suspend
[ 2284.670305] PM: resume of devices complete after 111.609 msecs
[ 2284.672297] Restarting tasks ... done.
[ 2288.575692] wlan0: connected
";
    let c = &cycles(log)[0];
    assert_eq!(c.outcome().state, OutcomeState::Aborted);
    assert_eq!(c.suspend_ms(), None);
    assert_eq!(c.time_to_abort_ms(), Some(440.796));
    assert_eq!(c.mode, Some(SleepMode::S2idle));
    assert_eq!(c.failed_devices.len(), 1);
    assert_eq!(c.failed_devices[0].step, "suspend async");
}

#[test]
fn a_device_that_failed_to_resume_is_told_and_the_cycle_still_resumed() {
    let log = "\
[   87.120765] PM: suspend entry (s2idle)
[   87.622136] ACPI: EC: interrupt blocked
[   99.986273] ACPI: EC: interrupt unblocked
[  102.937040] nouveau 0000:01:00.0: PM: failed to resume async: error -110
[  103.719371] PM: suspend exit
";
    let c = &cycles(log)[0];
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
    assert_eq!(c.suspend_ms(), Some(501.371));
    let d = &c.failed_devices[0];
    assert_eq!(
        (d.device.as_str(), d.step.as_str(), d.error, d.line),
        ("nouveau 0000:01:00.0", "resume async", -110, 4)
    );
}

#[test]
fn a_task_named_like_an_abort_or_user_space_writing_to_kmsg_aborts_nothing() {
    // A program named `PM: fail` that segfaults, during a suspend that resumed.
    let forged = "\
[  300.000000] PM: suspend entry (deep)
[  300.100000] PM: fail[4242]: segfault at 0 ip 000055d1c0a0 sp 00007ffd error 6 in a.out[55d1+1000]
[  300.150000] Freezing failed[77]: segfault at 0 ip 0 sp 0 error 4 in x[1000+1000]
[  300.200000] ACPI: PM: Low-level resume complete
[  300.500000] PM: suspend exit
";
    let c = &cycles(forged)[0];
    assert!(c.aborted.is_none(), "{:?}", c.aborted);
    assert_eq!(c.outcome().state, OutcomeState::Resumed);
    // `/dev/kmsg` records of user space carry facility 1 (`14` is user.info).
    let kmsg = "\
6,1,300000000,-;PM: suspend entry (deep)
14,2,300100000,-;PM: Some devices failed to suspend, or early wake event detected
6,3,300200000,-;ACPI: PM: Low-level resume complete
6,4,300500000,-;PM: suspend exit
";
    let c = &cycles(kmsg)[0];
    assert!(c.aborted.is_none(), "{:?}", c.aborted);
    let kernel = kmsg.replace("14,2,", "6,2,");
    assert!(cycles(&kernel)[0].aborted.is_some());
}
