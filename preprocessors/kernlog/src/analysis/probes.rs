//! Delay-loop speed probes: a fixed busy loop run on every CPU at a named point of the
//! resume path, printing `CPU n when POINT, looping...` before and `CPU n ...done` after.
//! The time between the two lines measures how fast that CPU runs at that point.

use std::collections::HashMap;

use crate::analysis::limits::PROBES_KEPT;
use crate::analysis::resume::Event;
use crate::parse::reader::Record;

/// One probe on one CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeResult {
    /// The probe point (`POINT` of `CPU n when POINT, looping...`).
    pub point: String,
    /// The CPU it ran on.
    pub cpu: u32,
    /// Its `looping...` line.
    pub start: Event,
    /// Its `...done` line.
    pub end: Event,
}

impl ProbeResult {
    /// Milliseconds from start to end; `None` without usable stamps.
    pub fn ms(&self) -> Option<f64> {
        self.end.ms_since(&self.start)
    }
}

/// Pairs probe start and end lines per CPU.
#[derive(Debug, Default)]
pub struct ProbeTracker {
    /// The probe each CPU is running: point and start (at most [`PROBES_KEPT`] open).
    open: HashMap<u32, (String, Event)>,
    results: Vec<ProbeResult>,
    not_kept: u64,
}

impl ProbeTracker {
    /// A tracker that has seen no line yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one record: a probe's start or end, or nothing.
    pub fn push(&mut self, record: &Record) {
        let Some(rest) = record.message.strip_prefix("CPU ") else {
            return;
        };
        let Some((cpu, rest)) = rest.split_once(' ') else {
            return;
        };
        let Ok(cpu) = cpu.parse::<u32>() else { return };
        let event = Event {
            line: record.line,
            time: record.time,
        };
        if let Some(point) = rest
            .strip_prefix("when ")
            .and_then(|p| p.strip_suffix(", looping..."))
        {
            if self.open.len() < PROBES_KEPT || self.open.contains_key(&cpu) {
                self.open.insert(cpu, (point.to_string(), event));
            } else {
                self.not_kept += 1;
            }
        } else if rest == "...done" {
            if let Some((point, start)) = self.open.remove(&cpu) {
                if self.results.len() < PROBES_KEPT {
                    self.results.push(ProbeResult {
                        point,
                        cpu,
                        start,
                        end: event,
                    });
                } else {
                    self.not_kept += 1;
                }
            }
        }
    }

    /// Probes read but not kept (beyond [`PROBES_KEPT`]).
    pub(crate) fn not_kept(&self) -> u64 {
        self.not_kept
    }

    /// Completed probes in the order they ended.
    pub fn finish(self) -> Vec<ProbeResult> {
        self.results
    }
}

/// Probe points in order of first appearance, each with its results sorted by CPU.
pub fn by_point(results: &[ProbeResult]) -> Vec<(&str, Vec<&ProbeResult>)> {
    let mut points: Vec<(&str, Vec<&ProbeResult>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for r in results {
        let at = *index.entry(&r.point).or_insert_with(|| {
            points.push((&r.point, Vec::new()));
            points.len() - 1
        });
        points[at].1.push(r);
    }
    for (_, v) in &mut points {
        v.sort_by_key(|r| r.cpu);
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::reader::RecordReader;

    #[test]
    fn pairs_interleaved_cpus() {
        let log = "\
[  10.000000] CPU 0 when thaw: all up, looping...
[  10.000001] CPU 4 when thaw: all up, looping...
[  10.060000] CPU 0 ...done
[  12.800001] CPU 4 ...done
[  12.900000] CPU 4 ...done
";
        let mut reader = RecordReader::new(log.as_bytes());
        let mut t = ProbeTracker::new();
        while let Some(r) = reader.next_record() {
            t.push(&r.unwrap());
        }
        let results = t.finish();
        assert_eq!(results.len(), 2, "an unmatched ...done is ignored");
        let points = by_point(&results);
        assert_eq!(points[0].0, "thaw: all up");
        assert_eq!(points[0].1[0].ms(), Some(60.0));
        assert_eq!(points[0].1[1].ms(), Some(2800.0));
    }

    #[test]
    fn endless_probes_are_bounded_and_counted() {
        use crate::analysis::limits::PROBES_KEPT;
        let mut t = ProbeTracker::new();
        for cpu in 0..(PROBES_KEPT + 2) as u64 {
            for message in [
                format!("CPU {cpu} when thaw, looping..."),
                format!("CPU {cpu} ...done"),
            ] {
                let text = crate::parse::record::Line::new(
                    crate::parse::record::Format::Unstamped,
                    None,
                    0,
                    &message,
                );
                t.push(&Record {
                    line: cpu + 1,
                    time: None,
                    continuation: false,
                    text,
                });
            }
        }
        assert_eq!(t.not_kept(), 2);
        assert_eq!(t.finish().len(), PROBES_KEPT);
    }
}
