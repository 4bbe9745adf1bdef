//! Records held while the log's clock steps back, until the log shows which timeline they
//! belong to.

use crate::parse::reader::{Record, Time};
use crate::parse::record::Line;

/// An owned copy of the fields of a [`Record`] that the tracker reads.
#[derive(Debug)]
pub(super) struct HeldRecord {
    line: u64,
    time: Option<Time>,
    continuation: bool,
    resolution_us: u64,
    format: crate::parse::record::Format,
    message: String,
}

impl HeldRecord {
    pub(super) fn of(record: &Record) -> Self {
        HeldRecord {
            line: record.line,
            time: record.time,
            continuation: record.continuation,
            resolution_us: record.resolution_us,
            format: record.format,
            message: record.message.to_string(),
        }
    }

    /// The record again, with its stamp or, for a line printed out of order, without one.
    pub(super) fn record(&self, keep_time: bool) -> Record<'_> {
        Record {
            line: self.line,
            time: self.time.filter(|_| keep_time),
            continuation: self.continuation && keep_time,
            text: Line::new(self.format, None, self.resolution_us, &self.message),
        }
    }
}
