use super::manifest::KERNEL_EVIDENCE;
use super::msr::MSR_DEF_TYPE;
use super::*;

const CPU0: &str = "cpu0 def=0000000000000c06 fix=0606060606060606,0606060606060606,\
0000000000000000,0505050505050505,0505050505050505,0505050505050505,0505050505050505,\
0505050505050505,0505050505050505,0505050505050505,0505050505050505 \
var=00000000c0000006/0000007fc0000800,0000000000000000/0000000000000000\n";

/// The MSRs of a CPU with fixed ranges and two variable ranges, as a map.
fn msr_of_cpu0(msr: u32) -> Result<u64, String> {
    Ok(match msr {
        MSR_MTRRCAP => 0x502,
        MSR_DEF_TYPE => 0xc06,
        0x250 | 0x258 => 0x0606_0606_0606_0606,
        0x259 => 0,
        0x268..=0x26f => 0x0505_0505_0505_0505,
        0x200 => 0xc000_0006,
        0x201 => 0x7f_c000_0800,
        0x202 | 0x203 => 0,
        other => return Err(format!("MSR {other:#x} not expected")),
    })
}

#[test]
fn a_cpu_read_through_its_msrs_renders_as_the_dump_line() {
    let registers = read_registers(msr_of_cpu0).unwrap();
    let dump = render_dump(&[CpuMtrrs {
        cpu: 0,
        registers: Ok(registers),
    }]);
    assert_eq!(dump, CPU0);
}

#[test]
fn a_cpu_without_fixed_ranges_reads_none_and_skips_their_msrs() {
    let registers = read_registers(|msr| match msr {
        MSR_MTRRCAP => Ok(0x001),
        MSR_DEF_TYPE => Ok(0x800),
        0x200 => Ok(6),
        0x201 => Ok(0x800),
        other => Err(format!("read of {other:#x}")),
    })
    .unwrap();
    let line = render_dump(&[CpuMtrrs {
        cpu: 2,
        registers: Ok(registers),
    }]);
    assert_eq!(
        line,
        "cpu2 def=0000000000000800 fix=none var=0000000000000006/0000000000000800\n"
    );
}

#[test]
fn a_failed_read_is_the_reason_of_an_unreadable_line() {
    let registers = read_registers(|_| Err("Input/output error".to_string()));
    let dump = render_dump(&[CpuMtrrs { cpu: 3, registers }]);
    assert_eq!(dump, "cpu3 unreadable: Input/output error\n");
    let parsed = parse_dump(&dump).unwrap();
    assert_eq!(parsed[0].registers, Err("Input/output error".to_string()));
}

#[test]
fn a_dump_parses_back_to_what_was_read() {
    let text = format!("{CPU0}cpu1 unreadable: no such device\n");
    let parsed = parse_dump(&text).unwrap();
    assert_eq!(parsed.len(), 2);
    assert_eq!(parsed[0].registers, read_registers(msr_of_cpu0));
    assert_eq!(render_dump(&parsed), text);
}

#[test]
fn bad_dump_lines_name_their_line_and_fault() {
    let short = "cpu0 def=0000000000000c06 fix=0000000000000000 var=\n";
    let e = parse_dump(&format!("\n{short}")).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(
        e.message.contains("1 values, the dump has 11"),
        "{}",
        e.message
    );

    let e = parse_dump("cpu0 def=C06 fix=none var=\n").unwrap_err();
    assert!(
        e.message.contains("`C06` is not a register value"),
        "{}",
        e.message
    );

    let e = parse_dump("processor 0\n").unwrap_err();
    assert!(e.message.contains("expected `cpuN`"), "{}", e.message);

    let twice = "cpu1 unreadable: x\ncpu1 unreadable: y\n";
    assert_eq!(parse_dump(twice).unwrap_err().line, 2);
}

fn sample_capture() -> Capture {
    Capture {
        format: FORMAT.to_string(),
        tool: "kernlog 0.1.0".to_string(),
        started: utc_stamp(1_796_119_200),
        label: "7.3.4 with v2 of the fix: \"quoted\"".to_string(),
        method: Method::Sysfs,
        sleep: Sleep::Suspend,
        wake: Wake::Rtc,
        wake_after_s: 20,
        timeout_s: 120,
        kernel: Kernel {
            release: "7.3.4-mtrrfix".to_string(),
            cmdline: "BOOT_IMAGE=/vmlinuz mtrr=debug".to_string(),
        },
        machine: Machine {
            sys_vendor: Some("Apple Inc.".to_string()),
            product_name: Some("MacBookPro11,4".to_string()),
            bios_version: None,
            bios_date: None,
        },
        mem_sleep: Some("s2idle [deep]".to_string()),
        hibernation_mode: None,
        cpus_online: vec![0, 1, 2, 3],
        cycles_requested: 2,
        cycles: vec![CapturedCycle {
            n: 1,
            requested: utc_stamp(1_796_119_205),
            outcome: Outcome::Resumed,
            detail: None,
            mtrr: Some(mtrr_after_cycle(1)),
            log_from_seq: None,
            wakeup_events: None,
        }],
        verdict: Verdict::Incomplete("1 of 2 cycles recorded".to_string()),
    }
}

#[test]
fn utc_stamps_match_date() {
    // Both figures from `date -u -d ... +%s`.
    assert_eq!(utc_stamp(1_796_119_200), "2026-12-01T10:00:00Z");
    assert_eq!(utc_stamp(951_868_799), "2000-02-29T23:59:59Z");
    assert_eq!(utc_stamp(0), "1970-01-01T00:00:00Z");
}

#[test]
fn capture_yaml_round_trips_with_the_spec_spelling() {
    let capture = sample_capture();
    let text = capture.to_yaml();
    for expected in [
        "format: kernlog-capture/1\n",
        "method: sysfs\n",
        "sleep: suspend\n",
        "wake: rtc\n",
        "outcome: resumed\n",
        "mtrr: mtrr/after-cycle-1.txt\n",
        "verdict: incomplete (1 of 2 cycles recorded)\n",
        "started: 2026-12-01T10:00:00Z\n",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from\n{text}");
    }
    assert_eq!(Capture::from_yaml(&text).unwrap(), capture);
}

#[test]
fn the_spec_example_of_capture_yaml_reads() {
    let text = r#"format: kernlog-capture/1
tool: kernlog 0.1.0
started: 2026-12-01T10:00:00Z
label: "7.3.4 with v2 of the fix"
method: systemd
wake: rtc
wake_after_s: 20
timeout_s: 120
kernel:
  release: 7.3.4-mtrrfix
  cmdline: "BOOT_IMAGE=... mtrr=debug"
machine:
  sys_vendor: Apple Inc.
  product_name: MacBookPro11,4
  bios_version: "..."
  bios_date: null
mem_sleep: "s2idle [deep]"
cpus_online: [0, 1, 2, 3, 4, 5, 6, 7]
cycles_requested: 5
cycles:
  - n: 1
    requested: 2026-12-01T10:00:05Z
    outcome: suspending
    detail: null
    mtrr: null
verdict: incomplete (capturing)
"#;
    let capture = Capture::from_yaml(text).unwrap();
    assert_eq!(capture.method, Method::Systemd);
    // Written before hibernation was captured: the file names no `sleep`.
    assert_eq!(capture.sleep, Sleep::Suspend);
    assert_eq!(capture.hibernation_mode, None);
    assert_eq!(capture.cpus_online.len(), 8);
    assert_eq!(capture.cycles[0].outcome.settled(), Outcome::DidNotResume);
    assert_eq!(
        capture.settled_verdict(),
        Verdict::Incomplete("cycle 1: did-not-resume".to_string())
    );
}

#[test]
fn a_hibernation_capture_names_its_sleep_and_mode() {
    let mut capture = sample_capture();
    capture.sleep = Sleep::Hibernate;
    capture.hibernation_mode = Some("platform [shutdown] reboot".to_string());
    let text = capture.to_yaml();
    assert!(text.contains("sleep: hibernate\n"), "{text}");
    assert!(
        text.contains("hibernation_mode: platform [shutdown] reboot\n"),
        "{text}"
    );
    assert_eq!(Capture::from_yaml(&text).unwrap(), capture);
    // A suspend's file has no hibernation_mode line at all.
    assert!(!sample_capture().to_yaml().contains("hibernation_mode"));
}

#[test]
fn another_format_is_named_as_such() {
    let text = sample_capture().to_yaml().replace(FORMAT, "sleepgraph/5");
    let e = Capture::from_yaml(&text).unwrap_err();
    assert!(e.contains("`sleepgraph/5` is not kernlog-capture/1"), "{e}");
    let e = Capture::from_yaml("cycles: []\n").unwrap_err();
    assert!(e.contains("no `format:` field"), "{e}");
}

#[test]
fn the_verdict_follows_the_first_cycle_that_did_not_resume() {
    let mut capture = sample_capture();
    capture.cycles.push(CapturedCycle {
        n: 2,
        requested: utc_stamp(1_796_119_300),
        outcome: Outcome::Aborted,
        detail: Some("writing mem to /sys/power/state: Device or resource busy".to_string()),
        mtrr: None,
        log_from_seq: None,
        wakeup_events: None,
    });
    assert_eq!(
        capture.settled_verdict(),
        Verdict::Incomplete(
            "cycle 2: aborted: writing mem to /sys/power/state: Device or resource busy"
                .to_string()
        )
    );
    capture.cycles[1].outcome = Outcome::Resumed;
    assert_eq!(capture.settled_verdict(), Verdict::Complete);
}

#[test]
fn counts_of_lines_and_kmsg_records() {
    assert_eq!(count_lines(b""), 0);
    assert_eq!(count_lines(b"a\nb"), 2);
    assert_eq!(count_lines(b"a\nb\n"), 2);
    let kmsg = b"6,1,0,-;first\n SUBSYSTEM=acpi\n6,2,5,-;second\n";
    assert_eq!(count_kmsg_records(kmsg), 2);
}

/// A bundle in memory: capture.yaml, a manifest naming kernel.log, the log.
fn bundle_files() -> MemoryFiles {
    let common = EntryCommon {
        source: "kernlog capture 0.1.0".to_string(),
        command: "kernlog capture --method sysfs".to_string(),
        kernel: "7.3.4-mtrrfix".to_string(),
        follows: "7.3.4 with v2 of the fix".to_string(),
    };
    let log = b"6,1,0,-;Linux version 7.3.4\n";
    let capture = sample_capture().to_yaml();
    let entries = [
        common.entry(KERNEL_LOG, "kmsg", "the kernel's log", 1, log),
        common.entry(CAPTURE_FILE, "capture", "how", 1, capture.as_bytes()),
    ];
    let mut files = MemoryFiles::default();
    for cycle in &sample_capture().cycles {
        if let Some(path) = &cycle.mtrr {
            files.0.insert(path.clone(), CPU0.as_bytes().to_vec());
        }
    }
    files.0.insert(MTRR_BOOT.into(), CPU0.as_bytes().to_vec());
    files.0.insert(KERNEL_LOG.into(), log.to_vec());
    files.0.insert(CAPTURE_FILE.into(), capture.into_bytes());
    files
        .0
        .insert(MANIFEST_FILE.into(), render_manifest(&entries).into_bytes());
    files
}

#[test]
fn a_bundle_reads_with_its_manifest() {
    let bundle = read_bundle(&mut bundle_files()).unwrap();
    assert_eq!(bundle.capture, sample_capture());
    assert_eq!(bundle.manifest.len(), 2);
    assert_eq!(bundle.manifest[0].lines, 1);
    assert_eq!(bundle.manifest[0].kernel_evidence, KERNEL_EVIDENCE);
    assert_eq!(bundle.log, b"6,1,0,-;Linux version 7.3.4\n");
    assert_eq!(bundle.boot, Some(parse_dump(CPU0).unwrap()));
    assert_eq!(bundle.after.len(), 1);
    assert_eq!(bundle.after[0].1, parse_dump(CPU0).unwrap());
}

#[test]
fn without_capture_yaml_it_is_not_a_bundle() {
    let mut files = bundle_files();
    files.0.remove(CAPTURE_FILE);
    let e = read_bundle(&mut files).unwrap_err();
    assert_eq!(e.member, "capture.yaml");
    assert!(
        e.to_string()
            .starts_with("capture.yaml: not found: this folder is not a kernlog capture bundle"),
        "{e}"
    );
}

#[test]
fn a_file_the_manifest_names_must_be_there() {
    let mut files = bundle_files();
    files.0.remove(KERNEL_LOG);
    let e = read_bundle(&mut files).unwrap_err();
    assert!(
        e.to_string()
            .contains("MANIFEST.yaml: names `kernel.log`, which is missing"),
        "{e}"
    );
}

#[test]
fn every_path_a_bundle_names_keeps_to_the_policy() {
    for bad in [
        "../kernel.log",
        "/etc/passwd",
        "mtrr/../../x",
        "a/b/c",
        ".hidden",
        "mtrr/",
        "",
        "kernel log",
        "caf\u{e9}",
    ] {
        assert!(MemberPath::new(bad).is_err(), "{bad:?} accepted");
        let mut files = bundle_files();
        let text = String::from_utf8(files.0[MANIFEST_FILE].clone()).unwrap();
        let text = text.replace("path: kernel.log", &format!("path: '{bad}'"));
        files.0.insert(MANIFEST_FILE.into(), text.into_bytes());
        let e = read_bundle(&mut files).unwrap_err();
        assert_eq!(e.member, MANIFEST_FILE, "{bad:?}: {e}");
    }
    for good in ["kernel.log", "mtrr/after-cycle-12.txt", "proc-mtrr.txt"] {
        assert_eq!(MemberPath::new(good).unwrap().as_str(), good);
    }
}

#[test]
fn a_cycles_dump_is_where_kernlog_capture_writes_it() {
    // Pointing a cycle at the boot dump (or outside the bundle) would compare the boot
    // state with itself: refused before any dump is read.
    for path in [
        "mtrr/boot.txt",
        "../../etc/passwd",
        "mtrr/after-cycle-2.txt",
    ] {
        let mut capture = sample_capture();
        capture.cycles[0].mtrr = Some(path.to_string());
        let mut files = bundle_files();
        files
            .0
            .insert(CAPTURE_FILE.into(), capture.to_yaml().into_bytes());
        let e = read_bundle(&mut files).unwrap_err();
        assert!(
            e.to_string()
                .contains("kernlog capture writes it as `mtrr/after-cycle-1.txt`"),
            "{path}: {e}"
        );
    }
}

#[test]
fn the_bounds_of_a_bundle() {
    let mut capture = sample_capture();
    capture.cycles_requested = 100;
    let mut files = bundle_files();
    files
        .0
        .insert(CAPTURE_FILE.into(), capture.to_yaml().into_bytes());
    let e = read_bundle(&mut files).unwrap_err();
    assert!(e.to_string().contains("more than 99 cycles"), "{e}");

    let mut files = bundle_files();
    files
        .0
        .insert(CAPTURE_FILE.into(), vec![b'#'; YAML_CAP as usize + 1]);
    let e = read_bundle(&mut files).unwrap_err();
    assert!(e.to_string().contains("larger than the 256 KiB"), "{e}");

    // Brackets nested 100,000 deep are refused by a linear scan, not parsed.
    let deep = format!("format: {}\n", "[".repeat(100_000));
    let mut files = bundle_files();
    files.0.insert(CAPTURE_FILE.into(), deep.into_bytes());
    let e = read_bundle(&mut files).unwrap_err();
    assert!(e.to_string().contains("nest deeper"), "{e}");

    let many: String = (0..=MAX_CPUS as u32)
        .map(|n| CPU0.replacen("cpu0", &format!("cpu{n}"), 1))
        .collect();
    let e = parse_dump(&many).unwrap_err();
    assert_eq!(e.line, MAX_CPUS + 1);
    assert!(e.message.contains("more than 8192 CPUs"), "{e:?}");
}

#[test]
fn a_bad_dump_in_a_bundle_names_member_and_line() {
    let mut files = bundle_files();
    files.0.insert(
        MTRR_BOOT.into(),
        format!("{CPU0}cpu1 def=zz\n").into_bytes(),
    );
    let e = read_bundle(&mut files).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.to_string().starts_with("mtrr/boot.txt:2: "), "{e}");
}

#[test]
fn the_dumps_of_a_bundle_have_one_cap_together() {
    // Nine dumps at the cap of one: each would pass alone; with the boot dump, the fourth
    // goes past the bundle's cap.
    let mut capture = sample_capture();
    let mut files = bundle_files();
    let first = capture.cycles[0].clone();
    capture.cycles_requested = 9;
    capture.cycles = (1..=9)
        .map(|n| CapturedCycle {
            n,
            mtrr: Some(mtrr_after_cycle(n)),
            ..first.clone()
        })
        .collect();
    let padded = format!("{CPU0}{}", "\n".repeat(DUMP_CAP as usize - CPU0.len()));
    for n in 1..=9 {
        files
            .0
            .insert(mtrr_after_cycle(n), padded.clone().into_bytes());
    }
    files
        .0
        .insert(CAPTURE_FILE.into(), capture.to_yaml().into_bytes());
    let e = read_bundle(&mut files).unwrap_err();
    assert_eq!(e.member, "mtrr/after-cycle-4.txt", "{e}");
    assert!(e.to_string().contains("past the 32 MiB"), "{e}");
}
