//! A log in memory read as a stream that says how far it got, for the page's progress bar.

use std::io::{self, BufRead, Read};

/// Progress is reported each time this many more bytes of the input were read.
pub const PROGRESS_STEP: usize = 1 << 20;

/// `bytes` read as a stream, telling `report` how many were read every [`PROGRESS_STEP`].
pub struct Progress<'a, 'r> {
    bytes: &'a [u8],
    pos: usize,
    reported: usize,
    report: &'r mut dyn FnMut(u64),
}

impl<'a, 'r> Progress<'a, 'r> {
    /// A stream of `bytes`, from the start.
    pub fn new(bytes: &'a [u8], report: &'r mut dyn FnMut(u64)) -> Self {
        Progress {
            bytes,
            pos: 0,
            reported: 0,
            report,
        }
    }
}

impl Read for Progress<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Progress<'_, '_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // At most one step at a time, so that every step is seen by consume().
        let end = self.bytes.len().min(self.pos + PROGRESS_STEP);
        Ok(&self.bytes[self.pos..end])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.bytes.len());
        if self.pos >= self.reported + PROGRESS_STEP {
            self.reported = self.pos;
            (self.report)(self.pos as u64);
        }
    }
}
