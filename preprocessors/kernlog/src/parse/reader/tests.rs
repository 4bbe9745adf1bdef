use super::*;

fn collect(input: &[u8]) -> Vec<(u64, Option<i64>, String, bool)> {
    let mut reader = RecordReader::new(input);
    let mut out = Vec::new();
    while let Some(r) = reader.next_record() {
        let r = r.unwrap();
        out.push((
            r.line,
            r.time.map(|t| t.micros),
            r.message.to_string(),
            r.continuation,
        ));
    }
    out
}

#[test]
fn a_quoted_printable_mail_reads_as_written() {
    let mail = b"Subject: sleep\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n\
        [   96.730589] Filesystems sync: 0.000 s=\r\neconds\r\n\
        [   96.736343] Freezing user space proce=\r\nsses ... =\r\n\r\n\
        [  116.757631] Freezing of tasks failed (wq_busy=3D0): =E2=9C=93\r\n\
        From next@example.org Wed Feb 23 2022\r\n\
        [  117.000000] plain s=\r\n";
    let recs = collect(mail);
    let lines: Vec<(u64, &str)> = recs.iter().map(|r| (r.0, r.2.as_str())).collect();
    assert_eq!(
        lines[3..],
        [
            (4, "Filesystems sync: 0.000 seconds"),
            (6, "Freezing user space processes ..."),
            (9, "Freezing of tasks failed (wq_busy=0): \u{2713}"),
            (10, "From next@example.org Wed Feb 23 2022"),
            (11, "plain s="),
        ]
    );
    // Without the header nothing is joined or decoded.
    let plain = collect(b"[    1.000000] a=\n[    2.000000] b=3D\n");
    assert_eq!((plain[0].2.as_str(), plain[1].2.as_str()), ("a=", "b=3D"));
}

#[test]
fn no_break_spaces_in_a_stamp_read_as_blanks() {
    // A Latin-1 quoted-printable mail, and text copied from a web page.
    let mail = b"Content-Transfer-Encoding: quoted-printable\n\
        > [=A0=A0 75.538497] PM: suspend entry (s2idle)\n";
    let recs = collect(mail);
    assert_eq!(recs[1].1, Some(75_538_497));
    assert_eq!(recs[1].2, "PM: suspend entry (s2idle)");
    let web = collect("[\u{a0}\u{a0} 95.827808] PM: suspend exit".as_bytes());
    assert_eq!(
        (web[0].1, web[0].2.as_str()),
        (Some(95_827_808), "PM: suspend exit")
    );
}

#[test]
fn line_endings_nul_and_invalid_utf8() {
    let input =
        b"[    1.000000] a\r\n[    2.000000] b\r[    3.000000] c\x00d\n[    4.000000] \xff e";
    let recs = collect(input);
    let messages: Vec<&str> = recs.iter().map(|r| r.2.as_str()).collect();
    assert_eq!(messages, ["a", "b", "cd", "\u{fffd} e"]);
    assert_eq!(recs[3].0, 4);
}

#[test]
fn crlf_split_across_buffer_boundary() {
    let data = b"[    1.000000] a\r\n[    2.000000] b\n";
    // A one-byte buffer puts the CR and the LF in different chunks.
    let mut reader = RecordReader::new(io::BufReader::with_capacity(1, &data[..]));
    let mut lines = Vec::new();
    while let Some(r) = reader.next_record() {
        lines.push(r.unwrap().line);
    }
    assert_eq!(lines, [1, 2]);
}

#[test]
fn continuation_inherits_time() {
    let recs = collect(b"first\n[    5.000000] stamped\n  more text\n");
    assert_eq!(recs[0].1, None);
    assert!(!recs[0].3);
    assert_eq!(recs[2].1, Some(5_000_000));
    assert!(recs[2].3);
}

#[test]
fn reltime_accumulates() {
    let recs = collect(b"[Sep11 16:04] a\n[  +0.500000] b\n[  +1.250000] c\n");
    let t0 = recs[0].1.unwrap();
    assert_eq!(recs[1].1.unwrap() - t0, 500_000);
    assert_eq!(recs[2].1.unwrap() - t0, 1_750_000);
}

#[test]
fn reltime_origin_keeps_the_steps_exact() {
    // The lab's capture starts so (util-linux pads the day with a space); a later
    // anchor, printed when the minute changes, hides the step before it.
    let input = b"[Dec 1 02:51] a\n[  +0.000894] b\n[Dec 1 02:52] c\n[  +0.000001] d\n";
    let mut reader = RecordReader::new(&input[..]);
    let mut resolutions = Vec::new();
    while let Some(r) = reader.next_record() {
        resolutions.push(r.unwrap().resolution_us);
    }
    assert_eq!(resolutions, [1, 1, 60_000_000, 1]);
}

#[test]
fn yearless_wall_time_wraps_into_january() {
    let recs = collect(b"Dec 31 23:59:59 h kernel: a\nJan  1 00:00:01 h kernel: b\n");
    assert_eq!(recs[1].1.unwrap() - recs[0].1.unwrap(), 2_000_000);
}

#[test]
fn iso_offsets_are_applied() {
    let recs = collect(b"2025-09-11T16:04:13,000000+02:00 a\n2025-09-11T14:04:14,000000+00:00 b\n");
    assert_eq!(recs[1].1.unwrap() - recs[0].1.unwrap(), 1_000_000);
}

#[test]
fn extreme_stamps_give_no_false_durations() {
    // A `--reltime` step past the end of the range: that record has no time (it is not
    // a continuation either), and the next step counts from the last real time.
    let recs = collect(b"6,1,9223372036854775000,-;a\n[  +9.000000] b\n[  -0.000001] c\n");
    assert_eq!((recs[1].1, recs[1].3), (None, false));
    assert_eq!(recs[2].1, Some(9_223_372_036_854_774_999));
    let a = Time {
        micros: i64::MAX,
        clock: Clock::Wall,
    };
    let b = Time {
        micros: -1_000_000,
        clock: Clock::Wall,
    };
    assert_eq!(a.since(b), None);
    assert_eq!(a.since(a), Some(0));
}

#[test]
fn civil_days() {
    assert_eq!(days_from_civil(1970, 1, 1), 0);
    assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    assert_eq!(days_from_civil(2025, 9, 11), 20_342);
}

#[test]
fn an_endless_line_is_read_in_bounded_memory() {
    use std::io::Read;
    // 16 MiB without a line end, then a record: the buffer stays at the cap.
    let endless = io::repeat(b'x').take(16 << 20);
    let input = endless.chain(&b"\n[    2.000000] next\n"[..]);
    let mut reader = RecordReader::new(io::BufReader::new(input));
    let first = reader.next_record().unwrap().unwrap();
    assert_eq!(first.message.len(), MAX_LINE_BYTES);
    assert!(reader.partial.capacity() <= 2 * MAX_LINE_BYTES);
    assert!(reader.block.as_bytes().len() <= MAX_LINE_BYTES + BLOCK_BYTES);
    assert_eq!(reader.next_record().unwrap().unwrap().message, "next");
}

/// Every record of `input` read through a buffer of `capacity` bytes.
fn messages_through(input: &[u8], capacity: usize) -> Vec<(u64, String)> {
    let mut reader = RecordReader::new(io::BufReader::with_capacity(capacity, input));
    let mut out = Vec::new();
    while let Some(r) = reader.next_record() {
        let r = r.unwrap();
        out.push((r.line, r.message.to_string()));
    }
    out
}

#[test]
fn lines_read_alike_across_block_and_buffer_boundaries() {
    // Multi-byte text, CR LF, a lone CR, an empty line, an invalid byte and a NUL among
    // clean lines, and a last line without its end: any buffer size, the same records.
    let mut input = Vec::new();
    for i in 0..3000 {
        let line: &[u8] = match i % 7 {
            0 => "[    1.000000] PM: suspend entry (deep) \u{2713}\r\n".as_bytes(),
            1 => b"\n",
            2 => b"[    2.000000] CPU1 is up\r",
            3 => b"[    3.000000] bad \xff byte\n",
            4 => b"[    4.000000] nul\x00 byte\n",
            5 => "[    5.000000] \u{e9}t\u{e9} \u{1f600}\n".as_bytes(),
            _ => b"[    6.000000] usb 1-1: plain\n",
        };
        input.extend_from_slice(line);
    }
    input.extend_from_slice(b"[    7.000000] last");
    let expected = messages_through(&input, input.len());
    assert_eq!(expected.len(), 3001);
    assert_eq!(expected[1].1, "");
    assert_eq!(expected[2].1, "CPU1 is up");
    assert_eq!(expected[3].1, "bad \u{fffd} byte");
    assert_eq!(expected[4].1, "nul byte");
    assert_eq!(expected[5].1, "\u{e9}t\u{e9} \u{1f600}");
    assert_eq!(expected[3000], (3001, "last".to_string()));
    for capacity in [1, 3, 7, 64, 4096, BLOCK_BYTES - 1, BLOCK_BYTES + 5] {
        assert_eq!(
            messages_through(&input, capacity),
            expected,
            "buffer {capacity}"
        );
    }
}

#[test]
fn overlong_lines_are_cut() {
    let mut input = b"[    1.000000] ".to_vec();
    input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES * 2));
    input.extend_from_slice(b"\n[    2.000000] next\n");
    let recs = collect(&input);
    assert_eq!(recs.len(), 2);
    assert!(recs[0].2.len() < MAX_LINE_BYTES);
    assert_eq!(recs[1].2, "next");
}
