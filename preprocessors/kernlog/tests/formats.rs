//! The same resume, written in every format a user may paste, must give the same analysis.
//!
//! The real 6.16.3 resume capture (dmesg) is rewritten line by line into each format; the
//! cycle found must be the same, up to the resolution the format can express.

use kernlog::parse::record::Format;
use kernlog::render::document::Document;

/// The resume of the MacBook Pro notebook (its data/dmesg/), kept here as the fixture.
const RESUME: &str = include_str!("fixtures/resume-6.16.3-ubuntu-kernel.log");

/// (seconds, microseconds, message) of each line of the capture.
fn lines() -> Vec<(u64, u32, &'static str)> {
    RESUME
        .lines()
        .map(|l| {
            let (stamp, msg) = l[1..].split_once("] ").unwrap();
            let (s, us) = stamp.trim().split_once('.').unwrap();
            (s.parse().unwrap(), us.parse().unwrap(), msg)
        })
        .collect()
}

/// Calendar time for a monotonic stamp: the resume ran on 11 September 2025 at 16:04.
fn hms(secs: u64) -> (u64, u64, u64) {
    let t = 16 * 3600 + 4 * 60 + secs - 400;
    (t / 3600, t / 60 % 60, t % 60)
}

fn render(format: Format) -> String {
    let mut out = String::new();
    let mut prev: Option<(u64, u32)> = None;
    for (i, (s, us, msg)) in lines().into_iter().enumerate() {
        let (h, m, sec) = hms(s);
        let line = match format {
            Format::Dmesg => format!("[{s:>5}.{us:06}] {msg}"),
            Format::DmesgCtime => format!("[Thu Sep 11 {h:02}:{m:02}:{sec:02} 2025] {msg}"),
            Format::DmesgIso => {
                format!("2025-09-11T{h:02}:{m:02}:{sec:02},{us:06}+02:00 {msg}")
            }
            Format::DmesgReltime => match prev {
                None => format!("[Sep11 {h:02}:{m:02}] {msg}"),
                Some((ps, pus)) => {
                    let delta = (s * 1_000_000 + u64::from(us)) - (ps * 1_000_000 + u64::from(pus));
                    format!("[  +{}.{:06}] {msg}", delta / 1_000_000, delta % 1_000_000)
                }
            },
            Format::Kmsg => format!("6,{},{},-;{msg}", 1000 + i, s * 1_000_000 + u64::from(us)),
            Format::JournalShort => {
                format!("Sep 11 {h:02}:{m:02}:{sec:02} macbookpro kernel: {msg}")
            }
            Format::JournalShortPrecise => {
                format!("Sep 11 {h:02}:{m:02}:{sec:02}.{us:06} macbookpro kernel: {msg}")
            }
            Format::JournalShortIso => {
                format!("2025-09-11T{h:02}:{m:02}:{sec:02}+0200 macbookpro kernel: {msg}")
            }
            Format::JournalShortMonotonic => format!("[{s:>5}.{us:06}] macbookpro kernel: {msg}"),
            Format::Syslog => {
                format!("Sep 11 {h:02}:{m:02}:{sec:02} macbookpro kernel: [{s:>5}.{us:06}] {msg}")
            }
            Format::Unstamped => msg.to_string(),
            other => panic!("no sample of {other:?} written yet: add one here"),
        };
        out.push_str(&line);
        out.push('\n');
        prev = Some((s, us));
    }
    out
}

fn summary(text: &str) -> serde_json::Value {
    serde_json::to_value(Document::new(&kernlog::analyze_str(text))).unwrap()
}

#[test]
fn every_format_is_recognised_and_gives_the_same_cycle() {
    let reference = summary(&render(Format::Dmesg));
    let cycle = &reference["cycles"][0];
    assert_eq!(cycle["enable_phase_ms"], 16_567.281);
    for format in Format::ALL {
        let doc = summary(&render(format));
        assert_eq!(doc["input"]["format"], format.name(), "{format:?}");
        assert_eq!(doc["input"]["records"], 43, "{format:?}");
        let c = &doc["cycles"][0];
        assert_eq!(doc["cycles"].as_array().unwrap().len(), 1, "{format:?}");
        assert_eq!(c["cpus"].as_array().unwrap().len(), 7, "{format:?}");
        let phases: Vec<_> = c["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect();
        let expected: Vec<_> = cycle["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect();
        assert_eq!(phases, expected, "{format:?}");
        // journalctl's realtime outputs give the time journald read each line, which in a
        // real suspend is after the thaw for all of them (the QEMU lab's short-precise
        // capture in tests/corpus): the cycle is found, no duration is measured.
        let logger = matches!(
            format,
            Format::JournalShort | Format::JournalShortPrecise | Format::JournalShortIso
        );
        let logger_stamped = if logger { 43 } else { 0 };
        assert_eq!(
            doc["input"]["logger_stamped_records"], logger_stamped,
            "{format:?}"
        );
        if logger {
            assert!(c["enable_phase_ms"].is_null(), "{format:?}");
            assert!(c["cpus"][0]["bringup_ms"].is_null(), "{format:?}");
            assert!(c["cpus"][0]["up_line"].is_u64(), "{format:?}");
            continue;
        }
        let resolution = doc["input"]["timestamp_resolution_s"].as_f64();
        match resolution {
            // Microsecond formats reproduce the durations exactly.
            Some(r) if r <= 1e-6 => {
                assert_eq!(c["enable_phase_ms"], cycle["enable_phase_ms"], "{format:?}");
                assert_eq!(c["cpus"], cycle["cpus"], "{format:?}");
            }
            // Whole-second formats are right to the second, and say so.
            Some(r) => {
                assert!(r >= 1.0, "{format:?}");
                let ms = c["enable_phase_ms"].as_f64().unwrap();
                assert!((ms - 16_567.281).abs() <= 1000.0, "{format:?}: {ms}");
            }
            None => {
                assert_eq!(format, Format::Unstamped);
                assert!(c["enable_phase_ms"].is_null());
                assert!(c["cpus"][0]["bringup_ms"].is_null());
            }
        }
    }
}

#[test]
fn pasted_in_mail_with_crlf_and_a_caller_field() {
    let quoted: String = render(Format::Dmesg)
        .lines()
        .map(|l| format!("> {}\r\n", l.replacen("] ", "] [   T3919] ", 1)))
        .collect();
    let doc = summary(&quoted);
    assert_eq!(doc["input"]["format"], "dmesg");
    assert_eq!(doc["cycles"][0]["enable_phase_ms"], 16_567.281);
}

#[test]
fn interleaved_user_space_lines_are_counted_but_not_analysed() {
    let mut text = render(Format::JournalShortPrecise);
    text.insert_str(
        0,
        "Sep 11 16:04:13.000000 macbookpro systemd-logind[875]: Lid opened.\n",
    );
    let doc = summary(&text);
    assert_eq!(doc["input"]["user_records"], 1);
    assert_eq!(doc["input"]["kernel_records"], 43);
    assert_eq!(doc["cycles"][0]["cpus"].as_array().unwrap().len(), 7);
}

#[test]
fn two_boots_in_one_file_do_not_make_negative_durations() {
    let mut text = render(Format::Dmesg);
    text.push_str("[    0.000000] Linux version 6.16.7\n");
    text.push_str(&render(Format::Dmesg));
    let doc = summary(&text);
    let cycles = doc["cycles"].as_array().unwrap();
    assert_eq!(cycles.len(), 2);
    assert_eq!(cycles[1]["boot"], 1);
    for c in cycles {
        assert_eq!(c["enable_phase_ms"], 16_567.281);
        for g in c["gaps"].as_array().unwrap() {
            assert!(g["ms"].as_f64().unwrap() >= 0.0);
        }
    }
}
