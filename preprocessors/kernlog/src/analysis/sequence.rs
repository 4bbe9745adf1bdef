//! The order of a `/dev/kmsg` log's records: the kernel numbers every record it keeps, one
//! after the other, so a number that repeats or steps back shows a log that was edited or
//! joined from two reads, and a number skipped shows records that are not in the log (lost
//! when the kernel's buffer overflowed, or cut out).

use std::ops::Range;

use crate::analysis::limits::{MTRR_ITEMS_KEPT, push_capped};

/// Where the numbering broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequenceBreak {
    /// The line of the record after the break.
    pub line: u64,
    /// The number the kernel would have given that record.
    pub expected: u64,
    /// The number it carries.
    pub found: u64,
}

impl SequenceBreak {
    /// Records missing before this one (0 when the number repeats or steps back).
    pub fn missing(&self) -> u64 {
        self.found.saturating_sub(self.expected)
    }
}

/// The sequence numbers of a log's kmsg records, checked one after the other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SequenceCheck {
    /// Records that carried a number.
    pub numbered: u64,
    /// Numbers skipped: records that are not in the log.
    pub gaps: Vec<SequenceBreak>,
    /// Numbers that repeat or step back.
    pub repeats: Vec<SequenceBreak>,
    /// Lines of a numbered log that carry no number and are no record's continuation (the
    /// kernel's ` SUBSYSTEM=` and ` DEVICE=` lines): text put between the kernel's records.
    pub unnumbered: Vec<u64>,
    /// Breaks beyond the kept ones (past the bound, every later range counts as broken).
    pub not_kept: u64,
    /// The first line whose break was not kept.
    first_not_kept: Option<u64>,
    /// The number of the last record.
    last: Option<u64>,
}

impl SequenceCheck {
    /// Take the number of the record at `line`.
    pub fn push(&mut self, line: u64, seq: u64) {
        self.numbered += 1;
        // Nothing follows the type's last number: a record after it is a repeat.
        if let Some(last) = self.last.filter(|&l| l.checked_add(1) != Some(seq)) {
            let brk = SequenceBreak {
                line,
                expected: last.saturating_add(1),
                found: seq,
            };
            let list = if seq > last {
                &mut self.gaps
            } else {
                &mut self.repeats
            };
            let before = self.not_kept;
            push_capped(list, brk, MTRR_ITEMS_KEPT, &mut self.not_kept);
            if self.not_kept > before {
                self.first_not_kept.get_or_insert(line);
            }
        }
        self.last = Some(seq);
    }

    /// Take a line without a number (`text` as read, its leading blanks dropped): once the
    /// log has numbered records, only a record's continuation belongs there: the kernel's
    /// `SUBSYSTEM=` and `DEVICE=` lines, or an empty line.
    pub fn push_unnumbered(&mut self, line: u64, text: &str) {
        if self.numbered == 0 {
            return;
        }
        let continuation =
            text.is_empty() || text.starts_with("SUBSYSTEM=") || text.starts_with("DEVICE=");
        if !continuation {
            let before = self.not_kept;
            push_capped(
                &mut self.unnumbered,
                line,
                MTRR_ITEMS_KEPT,
                &mut self.not_kept,
            );
            if self.not_kept > before {
                self.first_not_kept.get_or_insert(line);
            }
        }
    }

    /// The breaks whose record lies in `lines`: records are missing from that part of the
    /// log, or it holds records out of order. Past the bound on kept breaks, every range
    /// after the first break not kept counts as broken (its line is given).
    pub fn breaks_in(&self, lines: &Range<u64>) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .gaps
            .iter()
            .chain(&self.repeats)
            .map(|b| b.line)
            .chain(self.unnumbered.iter().copied())
            .filter(|l| lines.contains(l))
            .collect();
        if let Some(first) = self.first_not_kept.filter(|&f| f < lines.end) {
            out.push(first.max(lines.start));
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(seqs: &[u64]) -> SequenceCheck {
        let mut c = SequenceCheck::default();
        for (i, s) in seqs.iter().enumerate() {
            c.push(i as u64 + 1, *s);
        }
        c
    }

    #[test]
    fn numbers_one_after_the_other_break_nothing() {
        let c = check(&[7, 8, 9, 10]);
        assert_eq!((c.numbered, c.gaps.len(), c.repeats.len()), (4, 0, 0));
        assert!(c.breaks_in(&(0..u64::MAX)).is_empty());
    }

    #[test]
    fn the_types_last_number_is_followed_by_nothing() {
        // A record after the largest number repeats it or steps back: never "no gap".
        let c = check(&[u64::MAX - 1, u64::MAX, u64::MAX, u64::MAX]);
        assert_eq!((c.gaps.len(), c.repeats.len()), (0, 2));
        assert_eq!(c.breaks_in(&(3..5)), vec![3, 4]);
        let c = check(&[u64::MAX, 0]);
        assert_eq!(c.repeats.len(), 1);
    }

    #[test]
    fn a_skipped_number_is_a_gap_and_a_repeat_is_told_apart() {
        let c = check(&[1, 2, 5, 6, 6, 3]);
        assert_eq!(
            c.gaps,
            vec![SequenceBreak {
                line: 3,
                expected: 3,
                found: 5
            }]
        );
        assert_eq!(c.gaps[0].missing(), 2);
        let repeats: Vec<(u64, u64)> = c.repeats.iter().map(|b| (b.line, b.found)).collect();
        assert_eq!(repeats, vec![(5, 6), (6, 3)]);
        assert_eq!(c.repeats[0].missing(), 0);
        assert_eq!(c.breaks_in(&(1..4)), vec![3]);
        assert_eq!(c.breaks_in(&(4..6)), vec![5]);
        assert!(c.breaks_in(&(7..9)).is_empty());
    }

    #[test]
    fn a_line_without_a_number_between_numbered_records_is_a_break() {
        let mut c = check(&[1, 2]);
        c.push_unnumbered(3, "SUBSYSTEM=pci");
        c.push_unnumbered(4, "");
        assert!(c.breaks_in(&(0..u64::MAX)).is_empty());
        c.push_unnumbered(5, "MTRR cpu 1 changes:___");
        assert_eq!(c.breaks_in(&(0..u64::MAX)), vec![5]);
        // Before the first numbered record, a line is nobody's insertion.
        let mut fresh = SequenceCheck::default();
        fresh.push_unnumbered(1, "From: someone");
        assert!(fresh.unnumbered.is_empty());
    }

    #[test]
    fn past_the_bound_every_later_range_counts_as_broken() {
        let seqs: Vec<u64> = (0..2 * MTRR_ITEMS_KEPT as u64 + 10)
            .map(|i| 2 * i)
            .collect();
        let c = check(&seqs);
        assert_eq!(c.gaps.len(), MTRR_ITEMS_KEPT);
        assert!(c.not_kept > 0);
        let late = seqs.len() as u64 - 1;
        assert_eq!(c.breaks_in(&(late..late + 1)), vec![late]);
    }
}
