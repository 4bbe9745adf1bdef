//! The collector: reads kernel messages one at a time and fills an [`MtrrLog`].

use std::collections::HashMap;

use super::decode::*;
use super::model::*;
use super::proc::{ProcMtrrEntry, parse_proc_mtrr_line};
use crate::analysis::limits::{MTRR_ITEMS_KEPT as ITEMS, MTRR_PARTS_KEPT as PARTS, push_capped};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TableSection {
    Fixed,
    Variable,
    Map,
}

/// Reads log messages one at a time and collects MTRR information.
#[derive(Debug, Default)]
pub struct MtrrCollector {
    report: MtrrLog,
    table: Option<(BootTable, Option<TableSection>)>,
    proc_dump: Vec<ProcMtrrEntry>,
    /// The run each CPU is in (at most [`ITEMS`] open at once).
    open_runs: HashMap<u32, MtrrRun>,
    /// A `/proc/mtrr` pasted as a unified diff: `--- ` seen, waiting for `+++ `.
    diff_header: bool,
    /// Inside such a diff: the old dump (context and `-` lines) and the new one (context and
    /// `+` lines).
    diff: Option<(Vec<ProcMtrrEntry>, Vec<ProcMtrrEntry>)>,
}

impl MtrrCollector {
    /// A collector that has read nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed one message (any origin, stamped or not) with its line number and time.
    pub fn push(&mut self, line: u64, time_us: Option<i64>, message: &str) {
        // Most lines of a log are none of these: with nothing open, one byte tells.
        let idle = self.table.is_none()
            && self.diff.is_none()
            && !self.diff_header
            && self.proc_dump.is_empty();
        let may_matter = matches!(
            message.as_bytes().first(),
            Some(b'r' | b'M' | b'm' | b'x' | b'-' | b'+' | b' ' | b'\t')
        );
        if idle && !may_matter {
            return;
        }
        if self.diff_line(message) {
            return;
        }
        if let Some(entry) = parse_proc_mtrr_line(message) {
            if self.proc_dump.last().is_some_and(|e| e.reg >= entry.reg) {
                self.flush_proc_dump();
            }
            push_capped(&mut self.proc_dump, entry, PARTS, &mut self.report.not_kept);
            return;
        }
        self.flush_proc_dump();
        if self.table_line(line, message) {
            return;
        }
        if let Some(rest) = message.strip_prefix("MTRR cpu ") {
            if !self.change_line(line, time_us, rest) {
                let report = &mut self.report;
                push_capped(&mut report.unread, line, ITEMS, &mut report.not_kept);
            }
            return;
        }
        if is_warning(message) {
            let warning = MtrrWarning {
                line,
                text: message.to_string(),
            };
            let report = &mut self.report;
            push_capped(&mut report.warnings, warning, ITEMS, &mut report.not_kept);
        }
    }

    /// Everything collected.
    pub fn finish(mut self) -> MtrrLog {
        self.flush_diff();
        self.flush_proc_dump();
        self.flush_table();
        let report = &mut self.report;
        for run in std::mem::take(&mut self.open_runs).into_values() {
            push_capped(&mut report.runs, run, ITEMS, &mut report.not_kept);
        }
        self.report.runs.sort_by_key(|r| (r.line, r.cpu));
        self.report
    }

    /// A line of a unified diff of two `/proc/mtrr` dumps, as people paste them on the
    /// lists; true when the line was taken.
    fn diff_line(&mut self, message: &str) -> bool {
        if message.starts_with("--- ") {
            self.flush_diff();
            self.diff_header = true;
            return true;
        }
        if self.diff_header && message.starts_with("+++ ") {
            self.diff_header = false;
            self.flush_proc_dump();
            self.diff = Some((Vec::new(), Vec::new()));
            return true;
        }
        self.diff_header = false;
        let Some((old, new)) = self.diff.as_mut() else {
            return false;
        };
        if message.starts_with("@@") {
            return true;
        }
        let (to_old, to_new, rest) = match message.as_bytes().first() {
            Some(b'-') => (true, false, &message[1..]),
            Some(b'+') => (false, true, &message[1..]),
            _ => (true, true, message),
        };
        match parse_proc_mtrr_line(rest) {
            Some(entry) => {
                let not_kept = &mut self.report.not_kept;
                if to_old {
                    push_capped(old, entry, PARTS, not_kept);
                }
                if to_new {
                    push_capped(new, entry, PARTS, not_kept);
                }
                true
            }
            None => {
                self.flush_diff();
                false
            }
        }
    }

    fn flush_diff(&mut self) {
        if let Some((old, new)) = self.diff.take() {
            let report = &mut self.report;
            for dump in [old, new] {
                if !dump.is_empty() {
                    push_capped(&mut report.proc_dumps, dump, ITEMS, &mut report.not_kept);
                }
            }
        }
    }

    fn flush_proc_dump(&mut self) {
        if !self.proc_dump.is_empty() {
            let dump = std::mem::take(&mut self.proc_dump);
            let report = &mut self.report;
            push_capped(&mut report.proc_dumps, dump, ITEMS, &mut report.not_kept);
        }
    }

    fn flush_table(&mut self) {
        if let Some((table, _)) = self.table.take() {
            let report = &mut self.report;
            push_capped(&mut report.boot_tables, table, ITEMS, &mut report.not_kept);
        }
    }

    /// Lines of the boot-time table; true when the line belonged to it.
    fn table_line(&mut self, line: u64, m: &str) -> bool {
        if let Some(t) = m.strip_prefix("MTRR default type: ") {
            self.flush_table();
            let table = BootTable {
                line,
                default_type: MemType::from_name(t.trim()),
                ..BootTable::default()
            };
            self.table = Some((table, None));
            return true;
        }
        let Some((table, section)) = self.table.as_mut() else {
            return false;
        };
        if let Some(state) = m.strip_prefix("MTRR fixed ranges ") {
            table.fixed_enabled = Some(state.starts_with("enabled"));
            *section = Some(TableSection::Fixed);
            return true;
        }
        if let Some(state) = m.strip_prefix("MTRR variable ranges ") {
            table.variable_enabled = Some(state.starts_with("enabled"));
            *section = Some(TableSection::Variable);
            return true;
        }
        if m.starts_with("MTRR map: ") {
            table.map_summary = Some(m.to_string());
            *section = Some(TableSection::Map);
            return true;
        }
        let n = &mut self.report.not_kept;
        let parsed = match section {
            Some(TableSection::Fixed) => {
                parse_fixed_table_line(m).map(|r| push_capped(&mut table.fixed, r, PARTS, n))
            }
            Some(TableSection::Variable) => parse_variable_table_line(m).map(|v| match v {
                Ok(range) => push_capped(&mut table.variable, range, PARTS, n),
                Err(reg) => push_capped(&mut table.disabled, reg, PARTS, n),
            }),
            Some(TableSection::Map) => {
                parse_map_line(m).map(|e| push_capped(&mut table.map, e, PARTS, n))
            }
            None => None,
        };
        if parsed.is_none() {
            self.flush_table();
        }
        parsed.is_some()
    }

    /// One `MTRR cpu N ...` line of the debug patch; false when it does not read as one
    /// (a line edited, or cut short), so that the checklist can tell it.
    fn change_line(&mut self, line: u64, time_us: Option<i64>, rest: &str) -> bool {
        let Some((cpu, rest)) = rest.split_once(' ') else {
            return false;
        };
        let Ok(cpu) = cpu.parse::<u32>() else {
            return false;
        };
        if let Some(values) = rest.strip_prefix("disable: ") {
            self.close_run(cpu);
            let Some((old, _new)) = parse_old_new(values, line, &mut self.report) else {
                return false;
            };
            let deftype = Some(decode_deftype(old));
            if let Some(run) = self.open_run(cpu, line, time_us) {
                run.deftype_before = deftype;
            }
            return true;
        }
        let known = ["changes:", "enable: ", "variable ", "fixed "];
        if !known.iter().any(|k| rest.starts_with(k)) {
            return false;
        }
        // A capture that starts inside a run: open one without a `disable:` line. Past the
        // bound on open runs the line is read, not kept.
        if self.open_run(cpu, line, time_us).is_none() {
            return true;
        }
        let report = &mut self.report;
        let Some(run) = self.open_runs.get_mut(&cpu) else {
            return true;
        };
        if let Some(flags) = rest.strip_prefix("changes:") {
            run.flags = Some(flags.trim().to_string());
            true
        } else if let Some(values) = rest.strip_prefix("enable: ") {
            let read = parse_old_new(values, line, report);
            if let Some((_, new)) = read {
                run.deftype_after = Some(decode_deftype(new));
            }
            self.close_run(cpu);
            read.is_some()
        } else if let Some(rest) = rest.strip_prefix("variable ") {
            let Some(change) = variable_change(rest, line, report) else {
                return false;
            };
            push_capped(&mut run.changes, change, PARTS, &mut report.not_kept);
            true
        } else {
            let Some(change) = rest
                .strip_prefix("fixed ")
                .and_then(|rest| fixed_change(rest, line, report))
            else {
                return false;
            };
            push_capped(&mut run.changes, change, PARTS, &mut report.not_kept);
            true
        }
    }

    /// The run `cpu` is in, opened at this line if it has none; `None` when [`ITEMS`] runs
    /// are open already.
    fn open_run(&mut self, cpu: u32, line: u64, time_us: Option<i64>) -> Option<&mut MtrrRun> {
        if self.open_runs.len() >= ITEMS && !self.open_runs.contains_key(&cpu) {
            self.report.not_kept += 1;
            return None;
        }
        Some(self.open_runs.entry(cpu).or_insert_with(|| MtrrRun {
            cpu,
            line,
            time_us,
            flags: None,
            deftype_before: None,
            deftype_after: None,
            changes: Vec::new(),
        }))
    }

    fn close_run(&mut self, cpu: u32) {
        if let Some(run) = self.open_runs.remove(&cpu) {
            let report = &mut self.report;
            push_capped(&mut report.runs, run, ITEMS, &mut report.not_kept);
        }
    }
}

/// `OLD -> NEW [bits X]` with 64-bit hex values.
fn parse_old_new(values: &str, line: u64, report: &mut MtrrLog) -> Option<(u64, u64)> {
    let (old, new) = values.split_once(" -> ")?;
    let new = new.split(" [").next()?;
    let old = u64::from_str_radix(old.trim(), 16).ok()?;
    let new = u64::from_str_radix(new.trim(), 16).ok()?;
    check_bits(values, &[old ^ new], line, report);
    Some((old, new))
}

/// `BASE/MASK` in hex.
fn parse_pair(text: &str) -> Option<(u64, u64)> {
    let (a, b) = text.trim().split_once('/')?;
    Some((
        u64::from_str_radix(a, 16).ok()?,
        u64::from_str_radix(b, 16).ok()?,
    ))
}

/// The `[bits a/b]` field must be the XOR of old and new.
fn check_bits(values: &str, expected: &[u64], line: u64, report: &mut MtrrLog) {
    let Some(bits) = values
        .split_once("[bits ")
        .and_then(|(_, b)| b.strip_suffix(']'))
    else {
        return;
    };
    let found: Option<Vec<u64>> = bits
        .split('/')
        .map(|b| u64::from_str_radix(b.trim(), 16).ok())
        .collect();
    if found.as_deref() != Some(expected) {
        let mismatch = BitsMismatch { line };
        push_capped(
            &mut report.bits_mismatches,
            mismatch,
            ITEMS,
            &mut report.not_kept,
        );
    }
}

/// `00000-9FFFF write-back`.
fn parse_fixed_table_line(m: &str) -> Option<FixedRange> {
    let (range, t) = m.trim().split_once(' ')?;
    let (start, end) = range.split_once('-')?;
    Some(FixedRange {
        start: u32::from_str_radix(start, 16).ok()?,
        end: u32::from_str_radix(end, 16).ok()?,
        mem_type: MemType::from_name(t.trim())?,
    })
}

/// `0 base 0000080000000 mask 0007F80000000 uncachable`, or `4 disabled` (as `Err(4)`).
fn parse_variable_table_line(m: &str) -> Option<Result<VariableRange, u32>> {
    let mut words = m.split_whitespace();
    let reg: u32 = words.next()?.parse().ok()?;
    match words.next()? {
        "disabled" => Some(Err(reg)),
        "base" => {
            let base = u64::from_str_radix(words.next()?, 16).ok()?;
            if words.next()? != "mask" {
                return None;
            }
            let mask = u64::from_str_radix(words.next()?, 16).ok()?;
            let mem_type = MemType::from_name(words.next()?)?;
            range_from_addresses(reg, base, mask, mem_type).map(Ok)
        }
        _ => None,
    }
}

/// `0: 0000000000000000-000000000009ffff write-back`.
fn parse_map_line(m: &str) -> Option<(u64, u64, MemType)> {
    let (_, rest) = m.split_once(": ")?;
    let (range, t) = rest.trim().split_once(' ')?;
    let (start, end) = range.split_once('-')?;
    Some((
        u64::from_str_radix(start, 16).ok()?,
        u64::from_str_radix(end, 16).ok()?,
        MemType::from_name(t.trim())?,
    ))
}

/// `R OLD_BASE/OLD_MASK -> NEW_BASE/NEW_MASK [bits ...]` of a `variable` line.
fn variable_change(rest: &str, line: u64, report: &mut MtrrLog) -> Option<RegisterChange> {
    let (reg, values) = rest.split_once(' ')?;
    let reg = reg.parse::<u32>().ok()?;
    let (old, new) = values.split_once(" -> ")?;
    let new = new.split(" [").next().unwrap_or(new);
    let ((ob, om), (nb, nm)) = (parse_pair(old)?, parse_pair(new)?);
    check_bits(values, &[ob ^ nb, om ^ nm], line, report);
    Some(RegisterChange::Variable {
        reg,
        line,
        before: decode_variable(reg, ob, om),
        after: decode_variable(reg, nb, nm),
    })
}

/// `BLOCK,REG: OLD -> NEW [bits ...]` of a `fixed` line.
fn fixed_change(rest: &str, line: u64, report: &mut MtrrLog) -> Option<RegisterChange> {
    let (pos, values) = rest.split_once(": ")?;
    let (block, reg) = pos.split_once(',')?;
    let msr = fixed_msr_index(block.parse().ok()?, reg.parse().ok()?)?;
    let (before, after) = parse_old_new(values, line, report)?;
    Some(RegisterChange::Fixed {
        msr,
        line,
        before,
        after,
    })
}

fn is_warning(m: &str) -> bool {
    // The last is v2's diagnostic, printed without a prefix (v3's starts with `mtrr: `).
    ["mtrr: ", "MTRR: ", "x86/mtrr: ", "MTRRs of CPUs "]
        .iter()
        .any(|p| m.starts_with(p))
}
