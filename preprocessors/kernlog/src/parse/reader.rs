//! Streaming over a whole log: line splitting, decoding, and placing stamps on a clock.
//!
//! [`RecordReader`] reads any [`BufRead`] one line at a time into a buffer it reuses, so
//! memory stays flat however large the input. It accepts LF, CRLF and lone CR line ends,
//! drops NUL bytes, decodes invalid UTF-8 lossily, and cuts overlong lines at
//! [`MAX_LINE_BYTES`]. A mail saved whole (an mbox message from a list archive) is read as
//! its body says: after a `Content-Transfer-Encoding: quoted-printable` header, soft line
//! breaks are joined and `=XX` escapes decoded, so a log quoted in such a mail reads as it
//! was written.

use std::io::{self, BufRead};

use crate::parse::mail;
use crate::parse::record::{Format, Line, Origin, Stamp, WallTime, parse_line};

/// Lines longer than this are cut; the rest of the line is skipped.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Which clock a [`Time`] is on. Durations are only taken between times on one clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Seconds since boot (dmesg, kmsg, short-monotonic, kern.log's bracketed stamp).
    Monotonic,
    /// Calendar time, in microseconds since 1970 (UTC where the line said its offset).
    Wall,
    /// Calendar time at which a logger (journald, syslogd) read the line: see
    /// [`Stamp::Received`]. Lines keep their order on it, but no duration is taken from it.
    Received,
}

/// A point in time, in microseconds on its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time {
    /// Microseconds on `clock`.
    pub micros: i64,
    /// The clock.
    pub clock: Clock,
}

impl Time {
    /// Seconds, as a float (for display and JSON).
    pub fn seconds(self) -> f64 {
        self.micros as f64 / 1e6
    }

    /// Microseconds from `earlier` to `self`; `None` across clocks, or when the difference
    /// does not fit (stamps at the ends of the range are no real span).
    pub fn since(self, earlier: Time) -> Option<i64> {
        (self.clock == earlier.clock)
            .then(|| self.micros.checked_sub(earlier.micros))
            .flatten()
    }

    /// Microseconds the kernel took from `earlier` to `self`: as [`Time::since`], but `None`
    /// on a logger's clock, whose steps are when the logger read the lines.
    pub(crate) fn kernel_since(self, earlier: Time) -> Option<i64> {
        self.since(earlier)
            .filter(|_| self.clock != Clock::Received)
    }
}

/// One record of the log: a parsed line with its line number and its place in time. The
/// line's fields (`format`, `level`, `caller`, `host`, `origin`, `message`,
/// `resolution_us`) are read through the record (it dereferences to its [`Line`]).
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// 1-based line number in the input.
    pub line: u64,
    /// `None` for lines that carry no stamp and follow no stamped line.
    pub time: Option<Time>,
    /// An unstamped line after a stamped one: it inherits that line's time.
    pub continuation: bool,
    /// The parsed text; its `resolution_us` is that of `time` (0 when there is no time).
    pub text: Line<'a>,
}

impl<'a> std::ops::Deref for Record<'a> {
    type Target = Line<'a>;

    fn deref(&self) -> &Line<'a> {
        &self.text
    }
}

impl Record<'_> {
    /// True for kernel messages (everything but interleaved user-space journal lines).
    pub fn is_kernel(&self) -> bool {
        self.origin == Origin::Kernel
    }
}

/// Reads records one at a time from a buffered reader.
///
/// Lines are taken from `inner` a block at a time (at most [`BLOCK_BYTES`] of whole lines).
/// A block that is valid UTF-8 without NUL bytes or no-break spaces, as nearly every log is,
/// is checked once and its lines are parsed where they lie; any other block's lines are
/// copied out one by one and cleaned.
pub struct RecordReader<R> {
    inner: R,
    /// Whole lines read from `inner` and not yet served, from `pos` on.
    block: Block,
    pos: usize,
    /// The start of a line whose end has not been read yet, capped at [`MAX_LINE_BYTES`].
    partial: Vec<u8>,
    /// The partial line reached the cap: the rest of it is dropped up to its end.
    dropping: bool,
    /// The line a record is made of when its block is not clean text, or it is mail.
    bytes: Vec<u8>,
    text: String,
    line_no: u64,
    /// The last line served ended in CR: an LF right after it ends nothing more.
    skip_lf: bool,
    /// Inside the body of a quoted-printable mail.
    quoted_printable: bool,
    clock: ClockState,
}

/// At most this many bytes of whole lines are taken from the input at a time.
pub const BLOCK_BYTES: usize = 64 * 1024;

/// Whole lines, ending in their line ends (but the input's last line, which may have none).
enum Block {
    /// Valid UTF-8, without NUL bytes and no-break spaces: read in place.
    Text(String),
    /// Anything else: each line is cleaned and decoded on its own.
    Bytes(Vec<u8>),
}

impl Block {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Block::Text(s) => s.as_bytes(),
            Block::Bytes(b) => b,
        }
    }

    /// The buffer back, emptied, to be filled again.
    fn take_buffer(&mut self) -> Vec<u8> {
        let mut buf = match std::mem::replace(self, Block::Bytes(Vec::new())) {
            Block::Text(s) => s.into_bytes(),
            Block::Bytes(b) => b,
        };
        buf.clear();
        buf
    }

    /// A block of these bytes, as text when they are clean.
    fn of(buf: Vec<u8>) -> Block {
        if memchr::memchr2(0, 0xc2, &buf).is_some() {
            return Block::Bytes(buf);
        }
        match String::from_utf8(buf) {
            Ok(text) => Block::Text(text),
            Err(e) => Block::Bytes(e.into_bytes()),
        }
    }
}

#[derive(Default)]
struct ClockState {
    last: Option<(Time, u64)>,
    /// Years added to wall times printed without a year, after a December -> January wrap.
    year_offset: i32,
}

impl<R: BufRead> RecordReader<R> {
    /// A reader of the lines of `inner`, from line 1.
    pub fn new(inner: R) -> Self {
        RecordReader {
            inner,
            block: Block::Text(String::new()),
            pos: 0,
            partial: Vec::new(),
            dropping: false,
            bytes: Vec::with_capacity(256),
            text: String::with_capacity(256),
            line_no: 0,
            skip_lf: false,
            quoted_printable: false,
            clock: ClockState::default(),
        }
    }

    /// The next record, `None` at the end of input, or the I/O error that stopped reading.
    #[inline]
    pub fn next_record(&mut self) -> Option<io::Result<Record<'_>>> {
        let (start, end) = match self.next_span() {
            Ok(Some(span)) => span,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        self.line_no += 1;
        let first_line = self.line_no;
        // Mail is rare: one byte decides whether this line may be a header or QP body.
        let block = self.block.as_bytes();
        let mail = self.quoted_printable || matches!(block.get(start), Some(b'C' | b'c' | b'F'));
        let in_place = !mail && matches!(self.block, Block::Text(_));
        if !in_place {
            self.bytes.clear();
            append_capped(&mut self.bytes, &self.block.as_bytes()[start..end]);
            if let Err(e) = self.clean_line(mail) {
                return Some(Err(e));
            }
        }
        let text = match (&self.block, in_place) {
            (Block::Text(block), true) => &block[start..end],
            _ => &self.text,
        };
        let line = parse_line(text);
        Some(Ok(self.clock.place(first_line, line)))
    }

    /// Decode the line in `bytes` into `text`: mail joined and decoded, NUL bytes dropped,
    /// no-break spaces read as blanks, invalid UTF-8 replaced.
    #[cold]
    fn clean_line(&mut self, mail: bool) -> io::Result<()> {
        if mail {
            self.read_mail_line()?;
        }
        // One pass finds both rare bytes: NUL (dropped) and the lead byte of a no-break space
        // (which mail clients and web pages put in a stamp's padding; it reads as a blank).
        let mut nbsp = false;
        if memchr::memchr2(0, 0xc2, &self.bytes).is_some() {
            self.bytes.retain(|&b| b != 0);
            nbsp = memchr::memchr_iter(0xc2, &self.bytes)
                .any(|i| self.bytes.get(i + 1) == Some(&0xa0));
        }
        self.text.clear();
        self.text.push_str(&String::from_utf8_lossy(&self.bytes));
        if nbsp {
            self.text = self.text.replace('\u{a0}', " ");
        }
        Ok(())
    }

    /// Mail headers switch quoted-printable decoding on and off; in a quoted-printable body,
    /// lines ending in a soft break (`=`) are joined with the next and escapes decoded. The
    /// record keeps the number of its first line.
    fn read_mail_line(&mut self) -> io::Result<()> {
        if let Some(on) = mail::encoding_switch(&self.bytes) {
            self.quoted_printable = on;
            return Ok(());
        }
        if !self.quoted_printable || memchr::memchr(b'=', &self.bytes).is_none() {
            return Ok(());
        }
        while let Some(kept) = mail::soft_break(&self.bytes) {
            self.bytes.truncate(kept);
            let Some((start, end)) = self.next_span()? else {
                break;
            };
            append_capped(&mut self.bytes, &self.block.as_bytes()[start..end]);
            self.line_no += 1;
        }
        let decoded = quoted_printable::decode(&self.bytes, quoted_printable::ParseMode::Robust)
            .unwrap_or_else(|_| std::mem::take(&mut self.bytes));
        self.bytes = mail::utf8_or_latin1(decoded);
        Ok(())
    }

    /// Where the next line lies in the block, without its line end (reading another block
    /// when this one is done); `None` at the end of input.
    #[inline]
    fn next_span(&mut self) -> io::Result<Option<(usize, usize)>> {
        loop {
            if self.pos >= self.block.as_bytes().len() && !self.fill_block()? {
                return Ok(None);
            }
            let block = self.block.as_bytes();
            if std::mem::take(&mut self.skip_lf) && block[self.pos] == b'\n' {
                self.pos += 1;
                if self.pos == block.len() {
                    continue;
                }
            }
            let start = self.pos;
            let end =
                memchr::memchr2(b'\n', b'\r', &block[start..]).map_or(block.len(), |i| start + i);
            self.skip_lf = block.get(end) == Some(&b'\r');
            self.pos = end + 1;
            return Ok(Some((start, end)));
        }
    }

    /// Take the next block of whole lines from the input; false when it has no more bytes.
    fn fill_block(&mut self) -> io::Result<bool> {
        let mut buf = self.block.take_buffer();
        self.pos = 0;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                // The input's last line, without a line end.
                buf.append(&mut self.partial);
                self.dropping = false;
                break;
            }
            let take = &chunk[..chunk.len().min(BLOCK_BYTES)];
            let taken = take.len();
            match memchr::memrchr2(b'\n', b'\r', take) {
                Some(last) => {
                    // The partial line ends at the first line end: capped, then the lines after.
                    let first = memchr::memchr2(b'\n', b'\r', take).unwrap_or(last);
                    if !std::mem::take(&mut self.dropping) {
                        append_capped(&mut self.partial, &take[..first]);
                    }
                    buf.append(&mut self.partial);
                    buf.extend_from_slice(&take[first..=last]);
                    append_capped(&mut self.partial, &take[last + 1..]);
                    self.dropping = self.partial.len() >= MAX_LINE_BYTES;
                    self.inner.consume(taken);
                    break;
                }
                None => {
                    if !self.dropping {
                        append_capped(&mut self.partial, take);
                        self.dropping = self.partial.len() >= MAX_LINE_BYTES;
                    }
                    self.inner.consume(taken);
                }
            }
        }
        self.block = Block::of(buf);
        Ok(!self.block.as_bytes().is_empty())
    }
}

fn append_capped(buf: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_LINE_BYTES.saturating_sub(buf.len());
    buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

impl ClockState {
    #[inline]
    fn place<'a>(&mut self, line_no: u64, line: Line<'a>) -> Record<'a> {
        let placed = match line.stamp {
            Some(Stamp::Monotonic(us)) => Some(Time {
                micros: us,
                clock: Clock::Monotonic,
            }),
            // A sum of steps that leaves the range is no time: the record is placed nowhere
            // rather than at the end of the range, where it would give false durations.
            Some(Stamp::Delta(us)) => match self.last {
                Some((t, _)) => t.micros.checked_add(us).map(|micros| Time {
                    micros,
                    clock: t.clock,
                }),
                None => Some(Time {
                    micros: us,
                    clock: Clock::Monotonic,
                }),
            },
            Some(Stamp::Wall(w)) => Some(self.wall(w, line.format, Clock::Wall)),
            Some(Stamp::Received(w)) => Some(self.wall(w, line.format, Clock::Received)),
            None => None,
        };
        // `dmesg --reltime` gives the wall time to the minute on the first line (and again
        // when the minute changes), then the exact step from each line to the next. The
        // first anchor is the origin those steps count from: every difference measured
        // after it is as exact as the steps, so it does not coarsen the figures.
        let origin = line.format == Format::DmesgReltime
            && matches!(line.stamp, Some(Stamp::Wall(_)))
            && self.last.is_none_or(|(t, _)| t.clock != Clock::Wall);
        let resolution_us = if origin { 1 } else { line.resolution_us };
        let (time, resolution_us, continuation) = match placed {
            Some(t) => {
                self.last = Some((t, resolution_us));
                (Some(t), resolution_us, false)
            }
            // A stamp that could not be placed: no time, and no continuation either.
            None if line.stamp.is_some() => (None, 0, false),
            None => match self.last {
                Some((t, res)) => (Some(t), res, true),
                None => (None, 0, false),
            },
        };
        Record {
            line: line_no,
            time,
            continuation,
            text: Line {
                resolution_us,
                ..line
            },
        }
    }

    fn wall(&mut self, w: WallTime, format: Format, clock: Clock) -> Time {
        let yearless = w.year.is_none();
        let mut micros = wall_micros(&w, self.year_offset);
        if yearless {
            if let Some((last, _)) = self.last.filter(|(t, _)| t.clock == clock) {
                // A year-less stamp far before the previous one is the next January.
                if last.micros.saturating_sub(micros) > 180 * 86_400 * 1_000_000 {
                    self.year_offset += 1;
                    micros = wall_micros(&w, self.year_offset);
                }
            }
        }
        // A reltime anchor has minute resolution: never let it move time backwards.
        if format == Format::DmesgReltime {
            if let Some((last, _)) = self.last.filter(|(t, _)| t.clock == Clock::Wall) {
                micros = micros.max(last.micros);
            }
        }
        Time { micros, clock }
    }
}

/// Year assumed for stamps printed without one: a leap year, so that 29 February parses.
const YEARLESS_BASE: i32 = 2000;

fn wall_micros(w: &WallTime, year_offset: i32) -> i64 {
    let year = w.year.unwrap_or(YEARLESS_BASE + year_offset);
    let days = days_from_civil(year, u32::from(w.month), u32::from(w.day));
    let secs =
        days * 86_400 + i64::from(w.hour) * 3600 + i64::from(w.minute) * 60 + i64::from(w.second)
            - i64::from(w.utc_offset_s.unwrap_or(0));
    secs * 1_000_000 + i64::from(w.micros)
}

/// Seconds since the Unix epoch of a wall time that names its year (UTC unless it names an
/// offset).
pub(crate) fn unix_seconds(w: &WallTime) -> f64 {
    wall_micros(w, 0) as f64 / 1e6
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i32, month: u32, day: u32) -> i64 {
    let y = i64::from(year) - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
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
        let recs =
            collect(b"2025-09-11T16:04:13,000000+02:00 a\n2025-09-11T14:04:14,000000+00:00 b\n");
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
}
