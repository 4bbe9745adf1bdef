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
mod tests;
