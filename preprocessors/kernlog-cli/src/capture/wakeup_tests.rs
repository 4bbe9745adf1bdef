//! What woke each cycle, as the kernel's wakeup sources counted it, on the fake machine.

use super::Host;
use super::tests::{Act, FakeHost, capture_with_progress, open_bundle};
use kernlog::evidence::bundle::Verdict;

#[test]
fn each_cycle_records_the_wakeup_sources_that_counted_events() {
    let mut host = FakeHost::new();
    // The RTC's device holds the rtc class folder; the power button is ACPI's; a keyboard.
    for (folder, name, count) in [
        ("wakeup5", "LNXPWRBN:00", "0"),
        ("wakeup6", "00:06", "2"),
        ("wakeup9", "serio0", "7"),
    ] {
        host.write(
            &format!("sys/class/wakeup/{folder}/name"),
            &format!("{name}\n"),
        );
        host.write(
            &format!("sys/class/wakeup/{folder}/event_count"),
            &format!("{count}\n"),
        );
    }
    std::fs::create_dir_all(host.path("sys/class/wakeup/wakeup6/device/rtc/rtc0")).unwrap();
    host.script = [Act::Resume(0xc06), Act::Resume(0xc06), Act::Resume(0xc06)].into();
    host.wakes = ["wakeup6", "wakeup5"].into();
    let out = host.path("bundle");
    let (verdict, progress) = capture_with_progress(&mut host, &out, &["--method", "sysfs"]);
    assert_eq!(verdict, Ok(Verdict::Complete));
    let bundle = open_bundle(&out);
    let woken: Vec<_> = bundle.capture.cycles.iter().map(|c| c.woken_by()).collect();
    assert_eq!(
        woken,
        [
            Some("RTC alarm (00:06)".to_string()),
            Some("power button (LNXPWRBN:00)".to_string()),
            Some("no wakeup source counted an event".to_string()),
        ]
    );
    let first = bundle.capture.cycles[0].wakeup_events.as_ref().unwrap();
    assert_eq!(first[0].events, 1);
    assert!(
        progress.contains("cycle 2: resumed (woken by: power button (LNXPWRBN:00))"),
        "{progress}"
    );
}

#[test]
fn without_the_kernels_wakeup_class_no_wake_is_claimed() {
    let mut host = FakeHost::new();
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    let (verdict, progress) =
        capture_with_progress(&mut host, &out, &["--method", "sysfs", "--cycles", "1"]);
    assert_eq!(verdict, Ok(Verdict::Complete));
    assert_eq!(open_bundle(&out).capture.cycles[0].woken_by(), None);
    assert!(!progress.contains("woken by"), "{progress}");
}
