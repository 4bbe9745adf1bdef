//! One pass over a log: every analysis fed from the same stream of records.

use std::io::{self, BufRead};

use crate::analysis::banner::KernelId;
use crate::analysis::cycle_mtrr::CycleMtrr;
use crate::analysis::findings::{Finding, findings};
use crate::analysis::limits::NotKept;
use crate::analysis::mtrr::{MtrrCollector, MtrrLog};
use crate::analysis::probes::{ProbeResult, ProbeTracker};
use crate::analysis::resume::{Cycle, CycleTracker};
use crate::analysis::sequence::SequenceCheck;
use crate::analysis::trace::{TraceStats, parse_trace_line};
use crate::parse::reader::{Clock, Record, RecordReader};
use crate::parse::record::{Format, starts_with_task_name};

/// How to capture a log with the kernel's own stamps, for the hints that ask for one.
pub(crate) const KERNEL_STAMPED_CAPTURE: &str =
    "capture with dmesg, or journalctl -k -o short-monotonic";

/// What the input was made of.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct InputSummary {
    /// Lines read (every line is a record, stamped or not).
    pub records: u64,
    /// Records from the kernel.
    pub kernel_records: u64,
    /// Records from user space (journal and syslog inputs).
    pub user_records: u64,
    /// Records per format, indexed like [`Format::ALL`].
    pub format_counts: [u64; Format::ALL.len()],
    /// Coarsest resolution of any stamped kernel record, in microseconds.
    pub resolution_us: Option<u64>,
    /// Kernel records stamped with a logger's time of reading (journalctl's realtime
    /// outputs, syslog without the kernel's stamp): no duration is measured from them.
    pub logger_stamped_records: u64,
    /// What was read but not kept, because a bound of [`crate::analysis::limits`] was reached.
    pub not_kept: NotKept,
    /// The kmsg records' sequence numbers: records missing or out of order.
    pub sequence: SequenceCheck,
}

impl InputSummary {
    /// The format of most stamped records, or `Unstamped` if none carried a stamp.
    pub(crate) fn main_format(&self) -> Format {
        Format::ALL
            .iter()
            .zip(self.format_counts)
            .filter(|(f, n)| **f != Format::Unstamped && *n > 0)
            .max_by_key(|(f, n)| (*n, std::cmp::Reverse(f.index())))
            .map(|(f, _)| *f)
            .unwrap_or(Format::Unstamped)
    }

    /// Formats seen, with their counts, in [`Format::ALL`] order.
    pub fn formats(&self) -> impl Iterator<Item = (Format, u64)> + '_ {
        Format::ALL
            .iter()
            .copied()
            .zip(self.format_counts)
            .filter(|(_, n)| *n > 0)
    }
}

/// Everything the analysis found.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Analysis {
    /// What the input was made of.
    pub input: InputSummary,
    /// The suspend attempts, in log order.
    pub cycles: Vec<Cycle>,
    /// What the log says about the MTRRs.
    pub mtrr: MtrrLog,
    /// trace-cmd `function_graph` statistics (empty without trace lines).
    pub trace: TraceStats,
    /// Delay-loop speed probes, in the order they finished.
    pub probes: Vec<ProbeResult>,
    /// What a reader should know, drawn from the cycles and the MTRRs.
    pub findings: Vec<Finding>,
    /// The kernel's banner and command line, when the log has them.
    pub kernel: KernelId,
}

impl Analysis {
    /// The log lines that belong to cycle `index`: from its `PM: suspend entry` (or, in a
    /// log without one, from the line after the cycle before it ends) up to, not including,
    /// the first line of the cycle after it. MTRR runs and warnings in this range belong to
    /// that cycle, so boot-time messages before the first suspend are not counted as resume.
    pub fn cycle_lines(&self, index: usize) -> Option<std::ops::Range<u64>> {
        crate::analysis::cycle_mtrr::cycle_lines(&self.cycles, index)
    }
}

/// Feeds records to every analysis; reusable by callers that read records themselves.
///
/// [`analyze`] is this loop over a [`RecordReader`]; a caller that reads records in its own
/// way (several files, a filter, records as they arrive) pushes them one at a time:
///
/// ```
/// use kernlog::Analyzer;
/// use kernlog::parse::reader::RecordReader;
///
/// let log: &[u8] = b"\
/// [   60.352899] Enabling non-boot CPUs ...
/// [   60.353038] smpboot: Booting Node 0 Processor 1 APIC 0x2
/// [   60.370186] CPU1 is up
/// ";
/// let mut records = RecordReader::new(log);
/// let mut analyzer = Analyzer::new();
/// while let Some(record) = records.next_record() {
///     analyzer.push(&record?);
/// }
/// let analysis = analyzer.finish();
/// assert_eq!(analysis.input.records, 3);
/// assert_eq!(analysis.cycles[0].cpus[0].bringup_ms(), Some(17.148));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Analyzer {
    input: InputSummary,
    cycles: CycleTracker,
    mtrr: MtrrCollector,
    trace: TraceStats,
    probes: ProbeTracker,
    kernel: KernelId,
}

impl Analyzer {
    /// An analyzer that has seen no record yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one record.
    pub fn push(&mut self, record: &Record) {
        let input = &mut self.input;
        input.records += 1;
        input.format_counts[record.format.index()] += 1;
        match record.seq {
            Some(seq) => input.sequence.push(record.line, seq),
            None => input.sequence.push_unnumbered(record.line, record.message),
        }
        if record.is_kernel() {
            input.kernel_records += 1;
            if let Some(time) = record.time.filter(|_| !record.continuation) {
                input.resolution_us =
                    Some(input.resolution_us.unwrap_or(0).max(record.resolution_us));
                if time.clock == Clock::Received {
                    input.logger_stamped_records += 1;
                }
            }
        } else {
            input.user_records += 1;
        }
        if record.format == Format::Unstamped {
            if let Some(line) = parse_trace_line(record.message) {
                self.trace.push(&line);
                return;
            }
        }
        // What user space wrote into the kernel's log (a journal's other programs, a
        // process writing to /dev/kmsg), and the kernel's reports of a process, which start
        // with the name the process gave itself, tell nothing of the kernel's own doings.
        if !record.is_kernel() || starts_with_task_name(record.message) {
            return;
        }
        self.kernel.push(record.message);
        self.cycles.push(record);
        self.probes.push(record);
        let time_us = record.time.map(|t| t.micros);
        self.mtrr.push(record.line, time_us, record.message);
    }

    /// Finish every analysis and derive the findings.
    pub fn finish(mut self) -> Analysis {
        let (cycles, cpu_lines) = self.cycles.not_kept();
        self.input.not_kept = NotKept {
            cycles,
            cpu_lines,
            probes: self.probes.not_kept(),
            mtrr: 0,
            trace: self.trace.not_kept,
        };
        let mut analysis = Analysis {
            input: self.input,
            cycles: self.cycles.finish(),
            mtrr: self.mtrr.finish(),
            trace: self.trace,
            probes: self.probes.finish(),
            findings: Vec::new(),
            kernel: self.kernel,
        };
        analysis.input.not_kept.mtrr = analysis.mtrr.not_kept;
        analysis.findings = findings(&analysis.cycles, &analysis.mtrr);
        analysis
    }
}

/// Analyse a whole log from a reader, streaming: memory stays bounded whatever the log's
/// length (see [`crate::analysis::limits`]). The only error is the reader's.
///
/// ```
/// let log: &[u8] = b"\
/// [   60.352899] Enabling non-boot CPUs ...
/// [   60.353038] smpboot: Booting Node 0 Processor 1 APIC 0x2
/// [   60.370186] CPU1 is up
/// [   60.370300] smpboot: Booting Node 0 Processor 2 APIC 0x4
/// [   60.380300] CPU2 is up
/// ";
/// let analysis = kernlog::analyze(log)?;
/// let cpus: Vec<_> = analysis.cycles[0]
///     .cpus
///     .iter()
///     .map(|c| (c.cpu, c.bringup_ms()))
///     .collect();
/// assert_eq!(cpus, [(1, Some(17.148)), (2, Some(10.0))]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn analyze<R: BufRead>(reader: R) -> io::Result<Analysis> {
    let mut records = RecordReader::new(reader);
    let mut analyzer = Analyzer::new();
    while let Some(record) = records.next_record() {
        analyzer.push(&record?);
    }
    Ok(analyzer.finish())
}

/// Analyse a log held in memory.
pub fn analyze_str(text: &str) -> Analysis {
    match analyze(text.as_bytes()) {
        Ok(analysis) => analysis,
        Err(never) => unreachable!("reading from memory cannot fail: {never}"),
    }
}

/// How many MTRR set-state runs (one per CPU per rendezvous) happened in each step of a
/// resume: before the secondary CPUs start (`boot CPU`), while CPU n is brought up
/// (`CPU n`), and after the last one is up (`after bring-up`). Shows the cost of checking
/// every online CPU each time one more comes up. Only runs between the end of the cycle
/// before and the start of the cycle after count, so each cycle of a log has its own figures.
pub fn rendezvous_per_step(analysis: &Analysis, cycle: usize) -> Option<Vec<(String, usize)>> {
    let c = analysis.cycles.get(cycle)?;
    let enable = c.enable_start?.line;
    let of_cycle = CycleMtrr::of(&analysis.cycles, &analysis.mtrr, cycle)?;
    let mut runs: Vec<u64> = of_cycle
        .runs
        .iter()
        .filter(|r| r.flags.is_some())
        .map(|r| r.line)
        .collect();
    runs.sort_unstable();
    // Runs strictly between two lines, by binary search: one step per CPU, however many.
    let between = |after: u64, before: u64| {
        let start = runs.partition_point(|l| *l <= after);
        runs.partition_point(|l| *l < before).saturating_sub(start)
    };
    let mut steps = vec![("boot CPU".to_string(), between(0, enable))];
    let mut from = enable;
    for cpu in &c.cpus {
        let up = cpu.up?.line;
        steps.push((format!("CPU {}", cpu.cpu), between(from, up)));
        from = up;
    }
    steps.push(("after bring-up".to_string(), between(from, u64::MAX)));
    Some(steps)
}
