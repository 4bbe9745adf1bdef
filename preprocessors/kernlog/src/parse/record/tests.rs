//! Every format on hand-written lines.

use super::calendar::localized_month;
use super::*;

fn monotonic(line: &Line) -> i64 {
    match line.stamp {
        Some(Stamp::Monotonic(us)) => us,
        other => panic!("expected a monotonic stamp, got {other:?}"),
    }
}

#[test]
fn dmesg_plain_and_caller() {
    let l = parse_line("[  426.169808] PM: suspend entry (deep)");
    assert_eq!(l.format, Format::Dmesg);
    assert_eq!(monotonic(&l), 426_169_808);
    assert_eq!(l.resolution_us, 1);
    assert_eq!(l.message, "PM: suspend entry (deep)");

    let l = parse_line("[  426.169808] [   T3919] CPU5 is up");
    assert_eq!(l.caller, Some("T3919"));
    assert_eq!(l.message, "CPU5 is up");

    let l = parse_line("<6>[    0.000000] Linux version 6.16.7");
    assert_eq!(l.level, Some(6));
    assert_eq!(l.message, "Linux version 6.16.7");
}

#[test]
fn dmesg_stamp_with_the_cpu_after_it() {
    let l = parse_line("[ 5655.287196,0] PM: Preparing system for mem sleep");
    assert_eq!(l.format, Format::Dmesg);
    assert_eq!(monotonic(&l), 5_655_287_196);
    assert_eq!(l.message, "PM: Preparing system for mem sleep");
    assert_eq!(parse_line("[ 5655.287196,] x").format, Format::Unstamped);
}

#[test]
fn dmesg_messages_that_look_like_hosts_stay_dmesg() {
    let l = parse_line("[  450.410235] sd 1:0:0:0: [sda] Starting disk");
    assert_eq!(l.format, Format::Dmesg);
    assert_eq!(l.message, "sd 1:0:0:0: [sda] Starting disk");
    let l = parse_line("[  448.982214] pcieport 0000:00:1c.0: Enabling MPC IRBNCE");
    assert_eq!(l.format, Format::Dmesg);
}

#[test]
fn dmesg_decoded_prefix() {
    let l = parse_line("kern  :info  : [  433.004880] CPU1 is up");
    assert_eq!(l.level, Some(6));
    assert_eq!(l.format, Format::Dmesg);
    assert_eq!(l.message, "CPU1 is up");
}

#[test]
fn dmesg_ctime_in_two_locales() {
    let en = parse_line("[Thu Sep 11 16:04:13 2025] CPU1 is up");
    let de = parse_line("[Do Sep 11 16:04:13 2025] CPU1 is up");
    assert_eq!(en.format, Format::DmesgCtime);
    assert_eq!(en.stamp, de.stamp);
    assert_eq!(en.resolution_us, 1_000_000);
    let Some(Stamp::Wall(w)) = en.stamp else {
        panic!()
    };
    assert_eq!((w.year, w.month, w.day, w.hour), (Some(2025), 9, 11, 16));
}

#[test]
fn dmesg_iso_and_reltime() {
    let l = parse_line("2025-09-11T16:04:13,400350+02:00 CPU1 is up");
    assert_eq!(l.format, Format::DmesgIso);
    assert_eq!(l.resolution_us, 1);
    let Some(Stamp::Wall(w)) = l.stamp else {
        panic!()
    };
    assert_eq!((w.micros, w.utc_offset_s), (400_350, Some(7200)));

    let l = parse_line("[  +0.000894] CPU1 is up");
    assert_eq!(
        (l.format, l.stamp),
        (Format::DmesgReltime, Some(Stamp::Delta(894)))
    );
    // A step back, as the QEMU lab's capture shows one during boot.
    let l = parse_line("[  -0.303932] calibrate_delay_direct() failed");
    assert_eq!(l.stamp, Some(Stamp::Delta(-303_932)));
    assert_eq!(parse_line("[  -] x").format, Format::Unstamped);
    let l = parse_line("[Sep11 16:04] ACPI: PM: Low-level resume complete");
    assert_eq!(l.format, Format::DmesgReltime);
    assert_eq!(l.resolution_us, 60_000_000);
    // util-linux pads a one-digit day with a space (`%b%e`), as in the QEMU lab's capture.
    let l = parse_line("[Dec 1 02:51] Linux version 7.3.4-qemulab (root@vm)");
    assert_eq!(l.format, Format::DmesgReltime);
    let Some(Stamp::Wall(w)) = l.stamp else {
        panic!("no anchor read from {l:?}")
    };
    assert_eq!((w.month, w.day, w.hour, w.minute), (12, 1, 2, 51));
    assert_eq!(l.message, "Linux version 7.3.4-qemulab (root@vm)");
    assert_eq!(parse_line("[Dec 1 2 02:51] x").format, Format::Unstamped);
    let l = parse_line("[<    0.000037>] CPU1 is up");
    assert_eq!(l.stamp, Some(Stamp::Delta(37)));
}

#[test]
fn kmsg() {
    let l = parse_line("6,1234,426169808,-;CPU1 is up");
    assert_eq!(l.format, Format::Kmsg);
    assert_eq!(monotonic(&l), 426_169_808);
    assert_eq!(l.level, Some(6));
    let l = parse_line("4,99,5,c,caller=T12;mtrr: warning");
    assert_eq!(l.caller, Some("T12"));
    assert_eq!(l.level, Some(4));
}

#[test]
fn journal_formats() {
    let l = parse_line("Sep 11 16:04:13 macbookpro kernel: CPU7 is up");
    assert_eq!(l.format, Format::JournalShort);
    assert_eq!(l.host, Some("macbookpro"));
    assert_eq!(l.origin, Origin::Kernel);
    assert_eq!(l.message, "CPU7 is up");
    assert_eq!(l.resolution_us, 1_000_000);

    let l = parse_line("Sep 11 16:02:48 macbookpro systemd-logind[875]: Lid closed.");
    assert_eq!(
        l.origin,
        Origin::User {
            ident: "systemd-logind[875]"
        }
    );

    let l = parse_line("Sep 11 16:04:13.400350 macbookpro kernel: CPU7 is up");
    assert_eq!(
        (l.format, l.resolution_us),
        (Format::JournalShortPrecise, 1)
    );

    let l = parse_line("2025-09-11T16:04:13+0200 macbookpro kernel: CPU7 is up");
    assert_eq!(l.format, Format::JournalShortIso);
    // journald's time of reading, not the kernel's: the other kind of calendar stamp.
    assert!(matches!(l.stamp, Some(Stamp::Received(_))), "{l:?}");
    for msg in [
        "ACPI: PM: Low-level resume complete",
        "usb 1-8: reset full-speed",
    ] {
        let text = format!("2025-09-11T16:04:13,000001+02:00 {msg}");
        let l = parse_line(&text);
        assert_eq!((l.format, l.message), (Format::DmesgIso, msg));
        assert!(matches!(l.stamp, Some(Stamp::Wall(_))), "{l:?}");
    }

    let l = parse_line("[  432.400350] macbookpro kernel: CPU7 is up");
    assert_eq!(l.format, Format::JournalShortMonotonic);
    assert_eq!(monotonic(&l), 432_400_350);
    assert_eq!(l.message, "CPU7 is up");
}

#[test]
fn syslog_prefers_the_kernel_stamp() {
    let l = parse_line("Aug  2 09:27:17 host kernel: [318955.681791] CPU5 is up");
    assert_eq!(l.format, Format::Syslog);
    assert_eq!(monotonic(&l), 318_955_681_791);
    assert_eq!(l.message, "CPU5 is up");
    assert_eq!(l.host, Some("host"));
}

#[test]
fn quoting_and_unstamped() {
    let l = parse_line(">  > [  426.169808] CPU1 is up");
    assert_eq!(l.format, Format::Dmesg);
    let l = parse_line("    continuation of the previous record");
    assert_eq!(l.format, Format::Unstamped);
    assert_eq!(l.message, "continuation of the previous record");
    // Bad stamps are text, not errors.
    for text in [
        "[ 12.x] a",
        "[Foo 99 25:61:00 2025] b",
        "13,not;kmsg",
        "Sep 99 1 x",
    ] {
        assert_eq!(parse_line(text).format, Format::Unstamped, "{text}");
    }
}

#[test]
fn months_in_other_scripts() {
    let jp = parse_line(" 3月 13 18:33:21 tejo kernel: PM: suspend entry (deep)");
    assert_eq!(jp.format, Format::JournalShort);
    assert_eq!(jp.message, "PM: suspend entry (deep)");
    let Some(Stamp::Received(w)) = jp.stamp else {
        panic!("{jp:?}")
    };
    assert_eq!((w.month, w.day, w.hour), (3, 13, 18));
    let ml = parse_line("നവം 27 11:06:53 archie kernel: CPU1 is up");
    assert_eq!(
        (ml.format, ml.message),
        (Format::JournalShort, "CPU1 is up")
    );
    assert_eq!(localized_month("13月"), None);
    assert_eq!(
        localized_month("Foo"),
        None,
        "unknown ASCII words stay no month"
    );
}

#[test]
fn a_home_made_bracketed_time_is_dropped_from_the_message() {
    let l = parse_line("[Fr, 27. Jan 2023, 09:29:20] CPU1 is up");
    assert_eq!((l.format, l.message), (Format::Unstamped, "CPU1 is up"));
    let footnote = parse_line("[1] - https://github.com/raspberrypi/firmware/issues/1894");
    assert_eq!(footnote.format, Format::Unstamped);
    let drm = parse_line("[drm] PCIE GART of 1024M enabled.");
    assert_eq!(drm.message, "[drm] PCIE GART of 1024M enabled.");
}

#[test]
fn a_capture_tools_date_gives_way_to_the_kernels_stamp() {
    // KernelCI's mail reports quote LAVA's log: host date, then the raw kernel line.
    let l =
        parse_line("    2020-10-05 16:45:52.842000  <6>[   20.378531] PM: suspend entry (deep)");
    assert_eq!(l.format, Format::Dmesg);
    assert_eq!(monotonic(&l), 20_378_531);
    assert_eq!((l.level, l.message), (Some(6), "PM: suspend entry (deep)"));
    let l = parse_line("2020-10-05T16:45:52 [   20.378531] CPU1 is up");
    assert_eq!((monotonic(&l), l.message), (20_378_531, "CPU1 is up"));
    // A date with no kernel stamp after it stays where it was.
    let user = "    2020-10-05 16:45:52.824000  rtcwake: wakeup from \"mem\"";
    assert_eq!(parse_line(user).format, Format::Unstamped);
    assert!(parse_line(user).message.starts_with("2020-10-05"));
    let drm = parse_line("2020-10-05 16:45:52 [drm] GART enabled");
    assert_eq!(drm.format, Format::Unstamped);
    // Journal and syslog lines that start with an ISO date keep their own reading.
    let iso =
        parse_line("2023-12-11T22:20:08.416224+01:00 desktop kernel: [   66.618204] CPU1 is up");
    assert_eq!((iso.format, iso.message), (Format::Syslog, "CPU1 is up"));
    for raw in [
        "2020-10-05 16:45:5\u{e9}  [ 1.0] x",
        "2020-10-05 16:45:52.\u{e9} [ 1.0] x",
        "2020-10-05 16:45:52",
    ] {
        let _ = parse_line(raw);
    }
}

#[test]
fn kern_log_lines_without_their_date_keep_the_kernel_stamp() {
    let l = parse_line("main kernel: [99371.053924] PM: Entering mem sleep");
    assert_eq!((l.format, l.host), (Format::Syslog, Some("main")));
    assert_eq!(
        (monotonic(&l), l.message),
        (99_371_053_924, "PM: Entering mem sleep")
    );
    // Without the kernel's stamp, or from another program, it is text.
    assert_eq!(
        parse_line("main kernel: PM: Entering mem sleep").format,
        Format::Unstamped
    );
    let user = parse_line("main sudo[42]: [99371.053924] x");
    assert_eq!(user.format, Format::Unstamped);
}

#[test]
fn a_closing_bracket_without_an_opening_one_is_no_stamp() {
    // Found by the `formats` fuzz target: a journal line whose message starts with `]`.
    let line = parse_line("2025-09-11T16:04:12+0000 host kernel: ]2'''");
    assert!(line.message.contains("]2"), "{line:?}");
}

#[test]
fn multi_byte_text_in_stamp_fields_is_no_stamp() {
    // Each of these once sliced a character in two and panicked.
    for raw in [
        "2025-09-11T16:04:1\u{e9} host kernel: x",
        "2025-09-11T16:04:12.123456+1\u{e9}1 host kernel: x",
        "2025-09-11T16:04:12+\u{e9}:00 host kernel: x",
        "2025-09-1\u{e9}T16:04:12 host kernel: x",
        "Se\u{e9} 11 16:04:13 host kernel: x",
        "Sep\u{e9}11 16:04:13 host kernel: x",
        "Sep 11 16:0\u{e9}:13 host kernel: x",
        "[Sep\u{e9}1 16:04] x",
    ] {
        let line = parse_line(raw);
        assert!(line.message.ends_with('x'), "{raw}: {line:?}");
    }
}

#[test]
fn journal_without_a_host_column() {
    // `journalctl --no-hostname -o short-precise`: a logger's time, the kernel's message.
    let l = parse_line("Dec 01 10:00:00.123456 kernel: PM: suspend entry (deep)");
    assert_eq!(l.format, Format::JournalShortPrecise);
    assert_eq!((l.host, l.origin), (None, Origin::Kernel));
    assert_eq!(l.message, "PM: suspend entry (deep)");
    assert!(matches!(l.stamp, Some(Stamp::Received(w)) if w.micros == 123_456));
    let l = parse_line("Dec 01 10:00:01 systemd-sleep[812]: Entering sleep state 'suspend'...");
    assert_eq!(
        l.origin,
        Origin::User {
            ident: "systemd-sleep[812]"
        }
    );
    assert_eq!(l.format, Format::JournalShort);
    // `-o short-monotonic`: the kernel's own clock.
    let l = parse_line("[  123.456789] kernel: CPU1 is up");
    assert_eq!(l.format, Format::JournalShortMonotonic);
    assert_eq!(
        (monotonic(&l), l.host, l.message),
        (123_456_789, None, "CPU1 is up")
    );
    let l = parse_line("2025-09-11T16:04:13+0200 kernel: CPU1 is up");
    assert_eq!((l.format, l.host), (Format::JournalShortIso, None));
    // dmesg shows user space's /dev/kmsg lines with their ident: they stay dmesg, and a
    // month word before text that is no ident stays text.
    let l = parse_line("[    4.000000] systemd[1]: Detected architecture x86-64.");
    assert_eq!(l.format, Format::Dmesg);
    assert_eq!(l.message, "systemd[1]: Detected architecture x86-64.");
    assert_eq!(
        parse_line("May 01 10:00:00 note: x").format,
        Format::Unstamped
    );
    assert_eq!(parse_line("[    4.000000] kernel:x").format, Format::Dmesg);
}

#[test]
fn text_glued_before_a_kernel_stamp() {
    // Firmware writing to the same serial console.
    let l = parse_line("abc[   12.345678] Enabling non-boot CPUs ...");
    assert_eq!((l.format, monotonic(&l)), (Format::Dmesg, 12_345_678));
    assert_eq!(l.message, "Enabling non-boot CPUs ...");
    let l = parse_line("\u{1b}[0m\u{1b}[12345.678901] CPU1 is up");
    assert_eq!((monotonic(&l), l.message), (12_345_678_901, "CPU1 is up"));
    // A test tool's output on the same console (a real one: linux-kernel, June 2020).
    let l =
        parse_line("Pass 1 out of 1, mode=none, tp_al[ 3449.952654] PM: suspend entry (shallow)");
    assert_eq!(
        (monotonic(&l), l.message),
        (3_449_952_654, "PM: suspend entry (shallow)")
    );
    // Text with a bracketed number stays text: a blank in front, a short or long fraction,
    // no padding, nothing after, too much in front.
    for text in [
        "see [   12.345678] above",
        "got x [   12.345678] y",
        "value[12.5] x",
        "value[   12.3456789] x",
        "v[1.000000] x",
        "abc[   12.345678]",
        "abc[   12.34a678] x",
        "sleep=, [   12.345678] x",
        &format!("{}[   12.345678] x", "y".repeat(129)),
    ] {
        assert_eq!(parse_line(text).format, Format::Unstamped, "{text}");
    }
}

#[test]
fn kmsg_records_keep_their_facility_and_sequence() {
    let r = parse_kmsg_record("6,1234,426169808,-,caller=T1;PM: suspend exit").unwrap();
    assert_eq!(
        (r.facility, r.level, r.seq, r.usec, r.caller, r.message),
        (0, 6, 1234, 426_169_808, Some("T1"), "PM: suspend exit")
    );
    // `<14>` written to /dev/kmsg by user space: facility 1 (user), level 6.
    let r = parse_kmsg_record("14,7,5,-;PM: suspend exit").unwrap();
    assert_eq!((r.facility, r.level), (1, 6));
    for text in [
        " SUBSYSTEM=acpi",
        "6,x,5,-;m",
        "6,1,5;m",
        "6,1,5,--;m",
        "no record",
    ] {
        assert_eq!(parse_kmsg_record(text), None, "{text}");
    }
}

#[test]
fn the_kernels_reports_of_a_task_start_with_its_name() {
    // Third and fourth attacker reviews: a segfault, a bad signal frame (no colon after the
    // pid) and drop_caches, each led by a name the process chose.
    for message in [
        "mtrr: CPUs 1-7[2869]: segfault at 0 ip 0 sp 0 error 4 in a[400000+1000]",
        "mtrr: CPUs 1-7[2869] bad frame in rt_sigreturn frame:fffffffffffffff8 ip:401654 sp:0 orax:f in resumed with changed MTRRs, restored early[1654,401000+78000]",
        "PM: suspend ex (1234): drop_caches: 3",
        "a[7] x",
    ] {
        assert!(starts_with_task_name(message), "{message}");
    }
    // The kernel's own messages, brackets and parentheses in them included.
    for message in [
        "mtrr: CPUs 1-7 resumed with changed MTRRs, restored early",
        "sd 0:0:0:0: [sda] Synchronizing SCSI cache",
        "PM: suspend exit",
        "smpboot: Booting Node 0 Processor 1 APIC 0x2",
        "[8086:9c10] type 01 class 0x060400",
        "CPU1 is up",
        "ACPI: PM: Waking up from system sleep state S3 (2)",
        "Freezing user space processes completed (elapsed 0.001 seconds)",
    ] {
        assert!(!starts_with_task_name(message), "{message}");
    }
}
