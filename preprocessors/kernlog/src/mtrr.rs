//! x86 memory type range registers: decoding MSR values and reading what the kernel
//! prints about them.
//!
//! Decoding ([`decode_deftype`], [`decode_variable`], [`decode_fixed`]) is pure
//! arithmetic on register values. [`MtrrCollector`] reads log messages one at a time and
//! gathers the boot-time `mtrr=debug` tables, `/proc/mtrr` dumps, the per-CPU change lines
//! of the debug patch (`MTRR cpu N ...`), and the kernel's MTRR warnings.

use std::fmt;

use serde::{Serialize, Serializer};

/// A memory type, named as the kernel names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemType {
    Uncachable,
    WriteCombining,
    WriteThrough,
    WriteProtect,
    WriteBack,
    /// Encodings 2, 3 and 7..=255 are reserved.
    Reserved(u8),
}

impl MemType {
    /// From the 8-bit type field of an MTRR.
    pub fn from_code(code: u8) -> Self {
        match code {
            0 => MemType::Uncachable,
            1 => MemType::WriteCombining,
            4 => MemType::WriteThrough,
            5 => MemType::WriteProtect,
            6 => MemType::WriteBack,
            other => MemType::Reserved(other),
        }
    }

    /// From the kernel's printed name (`write-back`, `uncachable`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "uncachable" => MemType::Uncachable,
            "write-combining" => MemType::WriteCombining,
            "write-through" => MemType::WriteThrough,
            "write-protect" => MemType::WriteProtect,
            "write-back" => MemType::WriteBack,
            _ => return None,
        })
    }

    /// The kernel's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            MemType::Uncachable => "uncachable",
            MemType::WriteCombining => "write-combining",
            MemType::WriteThrough => "write-through",
            MemType::WriteProtect => "write-protect",
            MemType::WriteBack => "write-back",
            MemType::Reserved(_) => "reserved",
        }
    }
}

impl fmt::Display for MemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemType::Reserved(code) => write!(f, "reserved({code})"),
            other => f.write_str(other.name()),
        }
    }
}

impl Serialize for MemType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// IA32_MTRR_DEF_TYPE, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefType {
    pub raw: u64,
    /// Bit 11: MTRRs enabled.
    pub enabled: bool,
    /// Bit 10: fixed-range MTRRs enabled.
    pub fixed_enabled: bool,
    /// Bits 0..8: type of memory no MTRR covers.
    pub default_type: MemType,
}

/// Decode an IA32_MTRR_DEF_TYPE value.
pub fn decode_deftype(raw: u64) -> DefType {
    DefType {
        raw,
        enabled: raw & (1 << 11) != 0,
        fixed_enabled: raw & (1 << 10) != 0,
        default_type: MemType::from_code((raw & 0xff) as u8),
    }
}

impl fmt::Display for DefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#x}: MTRRs {}, fixed ranges {}, default {}",
            self.raw,
            on_off(self.enabled),
            on_off(self.fixed_enabled),
            self.default_type
        )
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "enabled" } else { "disabled" }
}

/// One enabled variable-range MTRR as a range of physical addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariableRange {
    pub reg: u32,
    pub base: u64,
    /// Last address of the range (inclusive).
    pub end: u64,
    pub size_bytes: u64,
    pub mem_type: MemType,
    /// Physical address width implied by the mask (its highest set bit + 1).
    pub phys_bits: u32,
    /// False when the mask has holes: then the MTRR matches more than one range and
    /// `end` describes only the first.
    pub contiguous: bool,
}

impl fmt::Display for VariableRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#X}-{:#X} {}", self.base, self.end, self.mem_type)?;
        if !self.contiguous {
            f.write_str(" (non-contiguous mask)")?;
        }
        Ok(())
    }
}

const PAGE_MASK: u64 = !0xfff;
const MASK_VALID: u64 = 1 << 11;

/// Decode a variable MTRR from its PHYSBASE and PHYSMASK register values; `None` when the
/// valid bit is clear.
pub fn decode_variable(reg: u32, base_msr: u64, mask_msr: u64) -> Option<VariableRange> {
    if mask_msr & MASK_VALID == 0 {
        return None;
    }
    let mem_type = MemType::from_code((base_msr & 0xff) as u8);
    range_from_addresses(reg, base_msr & PAGE_MASK, mask_msr & PAGE_MASK, mem_type)
}

/// A variable range from base and mask addresses (as `mtrr=debug` prints them); `None`
/// for an empty mask.
pub fn range_from_addresses(
    reg: u32,
    base: u64,
    mask: u64,
    mem_type: MemType,
) -> Option<VariableRange> {
    if mask == 0 {
        return None;
    }
    let phys_bits = 64 - mask.leading_zeros();
    let low = mask.trailing_zeros();
    let size_bytes = 1u64 << low;
    let top = if phys_bits == 64 {
        0
    } else {
        1u64 << phys_bits
    };
    let contiguous = mask.wrapping_add(size_bytes) == top;
    let base = base & mask;
    Some(VariableRange {
        reg,
        base,
        end: base.wrapping_add(size_bytes - 1),
        size_bytes,
        mem_type,
        phys_bits,
        contiguous,
    })
}

/// One fixed-range MSR: its name, the first address it covers and the size of each of
/// its eight sub-ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedMsr {
    pub name: &'static str,
    pub start: u32,
    pub unit: u32,
}

/// The 11 fixed-range MSRs in address order; 88 sub-ranges cover the first MiB.
pub const FIXED_MSRS: [FixedMsr; 11] = [
    fixed("MTRRfix64K_00000", 0x00000, 0x10000),
    fixed("MTRRfix16K_80000", 0x80000, 0x4000),
    fixed("MTRRfix16K_A0000", 0xA0000, 0x4000),
    fixed("MTRRfix4K_C0000", 0xC0000, 0x1000),
    fixed("MTRRfix4K_C8000", 0xC8000, 0x1000),
    fixed("MTRRfix4K_D0000", 0xD0000, 0x1000),
    fixed("MTRRfix4K_D8000", 0xD8000, 0x1000),
    fixed("MTRRfix4K_E0000", 0xE0000, 0x1000),
    fixed("MTRRfix4K_E8000", 0xE8000, 0x1000),
    fixed("MTRRfix4K_F0000", 0xF0000, 0x1000),
    fixed("MTRRfix4K_F8000", 0xF8000, 0x1000),
];

const fn fixed(name: &'static str, start: u32, unit: u32) -> FixedMsr {
    FixedMsr { name, start, unit }
}

/// A range of the first MiB with one memory type (inclusive end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedRange {
    pub start: u32,
    pub end: u32,
    pub mem_type: MemType,
}

impl fmt::Display for FixedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:05X}-{:05X} {}", self.start, self.end, self.mem_type)
    }
}

/// The eight sub-ranges of fixed-range MSR `index` (0..11); byte 0 is the lowest address.
pub fn decode_fixed(index: usize, value: u64) -> Option<[FixedRange; 8]> {
    let msr = FIXED_MSRS.get(index)?;
    Some(std::array::from_fn(|i| {
        let start = msr.start + msr.unit * i as u32;
        FixedRange {
            start,
            end: start + msr.unit - 1,
            mem_type: MemType::from_code((value >> (8 * i)) as u8),
        }
    }))
}

/// The MSR index of the debug patch's `fixed B,R` notation: block 0 is the 64K MSR,
/// block 1 the two 16K MSRs, block 2 the eight 4K MSRs.
pub fn fixed_msr_index(block: u32, reg: u32) -> Option<usize> {
    let (first, count) = match block {
        0 => (0, 1),
        1 => (1, 2),
        2 => (3, 8),
        _ => return None,
    };
    (reg < count).then_some(first + reg as usize)
}

/// The debug patch's `(block, reg)` for a fixed MSR index: the inverse of [`fixed_msr_index`].
pub fn fixed_msr_position(index: usize) -> Option<(u32, u32)> {
    match index {
        0 => Some((0, 0)),
        1 | 2 => Some((1, index as u32 - 1)),
        3..=10 => Some((2, index as u32 - 3)),
        _ => None,
    }
}

/// A boot-time `mtrr=debug` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BootTable {
    pub line: u64,
    pub default_type: Option<MemType>,
    pub fixed_enabled: Option<bool>,
    pub variable_enabled: Option<bool>,
    pub fixed: Vec<FixedRange>,
    pub variable: Vec<VariableRange>,
    pub disabled: Vec<u32>,
    /// The `MTRR map:` summary line and its entries, when the kernel prints one.
    pub map_summary: Option<String>,
    pub map: Vec<(u64, u64, MemType)>,
}

/// One `/proc/mtrr` register line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcMtrrEntry {
    pub reg: u32,
    pub base: u64,
    pub size_bytes: u64,
    pub count: Option<u32>,
    pub mem_type: MemType,
}

impl ProcMtrrEntry {
    pub fn end(&self) -> u64 {
        self.base.wrapping_add(self.size_bytes.max(1) - 1)
    }
}

/// The registers that differ between two `/proc/mtrr` dumps (present in one only, or
/// with another base, size or type), in register order.
pub fn changed_proc_registers(old: &[ProcMtrrEntry], new: &[ProcMtrrEntry]) -> Vec<u32> {
    let key = |e: &ProcMtrrEntry| (e.base, e.size_bytes, e.mem_type);
    let mut regs: Vec<u32> = old.iter().chain(new).map(|e| e.reg).collect();
    regs.sort_unstable();
    regs.dedup();
    regs.retain(|reg| {
        let a = old.iter().find(|e| e.reg == *reg).map(key);
        let b = new.iter().find(|e| e.reg == *reg).map(key);
        a != b
    });
    regs
}

/// Parse one `/proc/mtrr` line, in the current (`size=..., count=N: type`) or the old
/// (`size=...: type, count=N`) order; sizes in KB, MB or GB.
pub fn parse_proc_mtrr_line(text: &str) -> Option<ProcMtrrEntry> {
    let rest = text.trim_start().strip_prefix("reg")?.trim_end();
    let (reg, rest) = rest.split_once(':')?;
    let reg: u32 = reg.parse().ok()?;
    let (mut base, mut size, mut count, mut mem_type) = (None, None, None, None);
    for part in rest.split(',') {
        let part = part.trim();
        let (field, type_name) = match part.split_once(": ") {
            Some((f, t)) => (f.trim(), Some(t.trim())),
            None => (part, None),
        };
        if let Some(t) = type_name {
            mem_type = Some(MemType::from_name(t)?);
        }
        if let Some(v) = field.strip_prefix("base=") {
            let hex = v.split_whitespace().next()?.strip_prefix("0x")?;
            base = Some(u64::from_str_radix(hex, 16).ok()?);
        } else if let Some(v) = field.strip_prefix("size=") {
            size = Some(parse_size(v.trim())?);
        } else if let Some(v) = field.strip_prefix("count=") {
            count = Some(v.trim().parse().ok()?);
        }
    }
    Some(ProcMtrrEntry {
        reg,
        base: base?,
        size_bytes: size?,
        count,
        mem_type: mem_type?,
    })
}

fn parse_size(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let n: u64 = text[..split].parse().ok()?;
    let shift = match &text[split..] {
        "KB" => 10,
        "MB" => 20,
        "GB" => 30,
        _ => return None,
    };
    n.checked_shl(shift).filter(|v| v >> shift == n)
}

/// One register rewrite reported by the debug patch.
#[derive(Debug, Clone, PartialEq)]
pub enum RegisterChange {
    Variable {
        reg: u32,
        line: u64,
        before: Option<VariableRange>,
        after: Option<VariableRange>,
    },
    Fixed {
        /// Index into [`FIXED_MSRS`].
        msr: usize,
        line: u64,
        before: u64,
        after: u64,
    },
}

/// One pass of the kernel's MTRR set routine on one CPU: `disable:` .. `enable:`.
#[derive(Debug, Clone, PartialEq)]
pub struct MtrrRun {
    pub cpu: u32,
    pub line: u64,
    pub time_us: Option<i64>,
    /// The `changes:` flags as printed (`VFT`, `___`); `None` if the line is missing.
    pub flags: Option<String>,
    /// IA32_MTRR_DEF_TYPE as found (the `disable:` line's old value).
    pub deftype_before: Option<DefType>,
    /// IA32_MTRR_DEF_TYPE as written back (the `enable:` line's new value).
    pub deftype_after: Option<DefType>,
    pub changes: Vec<RegisterChange>,
}

impl MtrrRun {
    /// True when the CPU's registers differed from the state being written.
    pub fn changed(&self) -> bool {
        self.flags
            .as_deref()
            .is_some_and(|f| f.chars().any(|c| c != '_'))
            || !self.changes.is_empty()
    }

    /// The differences in words, one line each.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(b), Some(a)) = (self.deftype_before, self.deftype_after)
            && self.flags.as_deref().is_some_and(|f| f.contains('T'))
        {
            if b.default_type != a.default_type {
                out.push(format!(
                    "default type: {} -> {}",
                    b.default_type, a.default_type
                ));
            } else {
                out.push(format!("MTRRdefType: {:#x} -> {:#x}", b.raw, a.raw));
            }
        }
        for change in &self.changes {
            if let RegisterChange::Variable {
                reg, before, after, ..
            } = change
            {
                out.push(format!(
                    "variable {reg}: {} -> {}",
                    describe_range(before),
                    describe_range(after)
                ));
            }
        }
        let fixed = self.changes.iter().filter_map(|c| match c {
            RegisterChange::Fixed {
                msr, before, after, ..
            } => Some((*msr, *before, *after)),
            RegisterChange::Variable { .. } => None,
        });
        for (b, a) in fixed_differences(fixed) {
            out.push(format!(
                "fixed {:#07X}-{:#07X}: {} -> {}",
                b.start, b.end, b.mem_type, a.mem_type
            ));
        }
        out
    }
}

fn describe_range(range: &Option<VariableRange>) -> String {
    match range {
        Some(r) => r.to_string(),
        None => "disabled".to_string(),
    }
}

/// Sub-ranges of the first MiB whose type changed, given `(msr index, before, after)`
/// register values; adjacent sub-ranges with the same change are merged, across MSRs too.
pub fn fixed_differences(
    registers: impl IntoIterator<Item = (usize, u64, u64)>,
) -> Vec<(FixedRange, FixedRange)> {
    let mut pairs: Vec<(FixedRange, FixedRange)> = registers
        .into_iter()
        .filter_map(|(msr, before, after)| {
            Some((decode_fixed(msr, before)?, decode_fixed(msr, after)?))
        })
        .flat_map(|(b, a)| b.into_iter().zip(a))
        .filter(|(b, a)| b.mem_type != a.mem_type)
        .collect();
    pairs.sort_by_key(|(b, _)| b.start);
    let mut out: Vec<(FixedRange, FixedRange)> = Vec::new();
    for (rb, ra) in pairs {
        match out.last_mut() {
            Some((pb, pa))
                if pb.end + 1 == rb.start
                    && pb.mem_type == rb.mem_type
                    && pa.mem_type == ra.mem_type =>
            {
                pb.end = rb.end;
                pa.end = ra.end;
            }
            _ => out.push((rb, ra)),
        }
    }
    out
}

/// A line of kernel text that mentions a problem with the MTRRs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MtrrWarning {
    pub line: u64,
    pub text: String,
}

/// A debug-patch line whose `[bits ...]` field is not the XOR of old and new: a sign of a
/// garbled capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitsMismatch {
    pub line: u64,
}

/// Everything MTRR-related found in a log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MtrrReport {
    pub boot_tables: Vec<BootTable>,
    pub proc_dumps: Vec<Vec<ProcMtrrEntry>>,
    pub runs: Vec<MtrrRun>,
    pub warnings: Vec<MtrrWarning>,
    pub bits_mismatches: Vec<BitsMismatch>,
}

impl MtrrReport {
    /// CPUs that had at least one run, ascending.
    pub fn cpus(&self) -> Vec<u32> {
        let mut cpus: Vec<u32> = self.runs.iter().map(|r| r.cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    }

    /// CPUs (including the boot CPU) whose registers had to be rewritten at least once.
    pub fn changed_cpus(&self) -> Vec<u32> {
        let mut cpus: Vec<u32> = self
            .runs
            .iter()
            .filter(|r| r.changed())
            .map(|r| r.cpu)
            .collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    }

    /// Secondary CPUs whose registers disagreed with the boot CPU's saved state.
    pub fn inconsistent_aps(&self) -> Vec<u32> {
        self.changed_cpus()
            .into_iter()
            .filter(|c| *c != 0)
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TableSection {
    Fixed,
    Variable,
    Map,
}

/// Reads log messages one at a time and collects MTRR information.
#[derive(Debug, Default)]
pub struct MtrrCollector {
    report: MtrrReport,
    table: Option<(BootTable, Option<TableSection>)>,
    proc_dump: Vec<ProcMtrrEntry>,
    open_runs: Vec<MtrrRun>,
    /// A `/proc/mtrr` pasted as a unified diff: `--- ` seen, waiting for `+++ `.
    diff_header: bool,
    /// Inside such a diff: the old dump (context and `-` lines) and the new one (context and
    /// `+` lines).
    diff: Option<(Vec<ProcMtrrEntry>, Vec<ProcMtrrEntry>)>,
}

impl MtrrCollector {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed one message (any origin, stamped or not) with its line number and time.
    pub fn push(&mut self, line: u64, time_us: Option<i64>, message: &str) {
        if self.diff_line(message) {
            return;
        }
        if let Some(entry) = parse_proc_mtrr_line(message) {
            if self.proc_dump.last().is_some_and(|e| e.reg >= entry.reg) {
                self.flush_proc_dump();
            }
            self.proc_dump.push(entry);
            return;
        }
        self.flush_proc_dump();
        if self.table_line(line, message) {
            return;
        }
        if let Some(rest) = message.strip_prefix("MTRR cpu ") {
            self.change_line(line, time_us, rest);
            return;
        }
        if is_warning(message) {
            self.report.warnings.push(MtrrWarning {
                line,
                text: message.to_string(),
            });
        }
    }

    /// Everything collected.
    pub fn finish(mut self) -> MtrrReport {
        self.flush_diff();
        self.flush_proc_dump();
        self.flush_table();
        let mut open = std::mem::take(&mut self.open_runs);
        self.report.runs.append(&mut open);
        self.report.runs.sort_by_key(|r| r.line);
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
                if to_old {
                    old.push(entry);
                }
                if to_new {
                    new.push(entry);
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
            for dump in [old, new] {
                if !dump.is_empty() {
                    self.report.proc_dumps.push(dump);
                }
            }
        }
    }

    fn flush_proc_dump(&mut self) {
        if !self.proc_dump.is_empty() {
            let dump = std::mem::take(&mut self.proc_dump);
            self.report.proc_dumps.push(dump);
        }
    }

    fn flush_table(&mut self) {
        if let Some((table, _)) = self.table.take() {
            self.report.boot_tables.push(table);
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
        let parsed = match section {
            Some(TableSection::Fixed) => parse_fixed_table_line(m).map(|r| table.fixed.push(r)),
            Some(TableSection::Variable) => parse_variable_table_line(m).map(|v| match v {
                Ok(range) => table.variable.push(range),
                Err(reg) => table.disabled.push(reg),
            }),
            Some(TableSection::Map) => parse_map_line(m).map(|e| table.map.push(e)),
            None => None,
        };
        if parsed.is_none() {
            self.flush_table();
        }
        parsed.is_some()
    }

    fn change_line(&mut self, line: u64, time_us: Option<i64>, rest: &str) {
        let Some((cpu, rest)) = rest.split_once(' ') else {
            return;
        };
        let Ok(cpu) = cpu.parse::<u32>() else { return };
        if let Some(values) = rest.strip_prefix("disable: ") {
            self.close_run(cpu);
            let (old, _new) = match parse_old_new(values, line, &mut self.report) {
                Some(v) => v,
                None => return,
            };
            self.open_runs.push(MtrrRun {
                cpu,
                line,
                time_us,
                flags: None,
                deftype_before: Some(decode_deftype(old)),
                deftype_after: None,
                changes: Vec::new(),
            });
            return;
        }
        let report = &mut self.report;
        let run = match self.open_runs.iter_mut().find(|r| r.cpu == cpu) {
            Some(run) => run,
            None => {
                // A capture that starts inside a run: open one without a `disable:` line.
                self.open_runs.push(MtrrRun {
                    cpu,
                    line,
                    time_us,
                    flags: None,
                    deftype_before: None,
                    deftype_after: None,
                    changes: Vec::new(),
                });
                self.open_runs.last_mut().expect("just pushed")
            }
        };
        if let Some(flags) = rest.strip_prefix("changes:") {
            run.flags = Some(flags.trim().to_string());
        } else if let Some(values) = rest.strip_prefix("enable: ") {
            if let Some((_, new)) = parse_old_new(values, line, report) {
                run.deftype_after = Some(decode_deftype(new));
            }
            self.close_run(cpu);
        } else if let Some(rest) = rest.strip_prefix("variable ") {
            let Some((reg, values)) = rest.split_once(' ') else {
                return;
            };
            let Ok(reg) = reg.parse::<u32>() else { return };
            let Some((old, new)) = values.split_once(" -> ") else {
                return;
            };
            let new = new.split(" [").next().unwrap_or(new);
            let (Some((ob, om)), Some((nb, nm))) = (parse_pair(old), parse_pair(new)) else {
                return;
            };
            check_bits(values, &[ob ^ nb, om ^ nm], line, report);
            run.changes.push(RegisterChange::Variable {
                reg,
                line,
                before: decode_variable(reg, ob, om),
                after: decode_variable(reg, nb, nm),
            });
        } else if let Some(rest) = rest.strip_prefix("fixed ") {
            let Some((pos, values)) = rest.split_once(": ") else {
                return;
            };
            let Some((block, reg)) = pos.split_once(',') else {
                return;
            };
            let (Ok(block), Ok(reg)) = (block.parse(), reg.parse()) else {
                return;
            };
            let Some(msr) = fixed_msr_index(block, reg) else {
                return;
            };
            if let Some((before, after)) = parse_old_new(values, line, report) {
                run.changes.push(RegisterChange::Fixed {
                    msr,
                    line,
                    before,
                    after,
                });
            }
        }
    }

    fn close_run(&mut self, cpu: u32) {
        if let Some(pos) = self.open_runs.iter().position(|r| r.cpu == cpu) {
            let run = self.open_runs.remove(pos);
            self.report.runs.push(run);
        }
    }
}

/// `OLD -> NEW [bits X]` with 64-bit hex values.
fn parse_old_new(values: &str, line: u64, report: &mut MtrrReport) -> Option<(u64, u64)> {
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
fn check_bits(values: &str, expected: &[u64], line: u64, report: &mut MtrrReport) {
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
        report.bits_mismatches.push(BitsMismatch { line });
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

fn is_warning(m: &str) -> bool {
    ["mtrr: ", "MTRR: ", "x86/mtrr: "]
        .iter()
        .any(|p| m.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deftype() {
        let d = decode_deftype(0xc06);
        assert!(d.enabled && d.fixed_enabled);
        assert_eq!(d.default_type, MemType::WriteBack);
        let d = decode_deftype(0xc00);
        assert_eq!(d.default_type, MemType::Uncachable);
        assert_eq!(
            d.to_string(),
            "0xc00: MTRRs enabled, fixed ranges enabled, default uncachable"
        );
    }

    #[test]
    fn variable_ranges_and_width() {
        let r = decode_variable(0, 0xff80_0005, 0x7f_ff80_0800).unwrap();
        assert_eq!((r.base, r.end), (0xFF80_0000, 0xFFFF_FFFF));
        assert_eq!(r.mem_type, MemType::WriteProtect);
        assert_eq!(r.phys_bits, 39);
        assert_eq!(r.to_string(), "0xFF800000-0xFFFFFFFF write-protect");
        // 36-bit part, 2 GiB write-back at 0.
        let r = range_from_addresses(0, 0, 0xF_8000_0000, MemType::WriteBack).unwrap();
        assert_eq!(
            (r.phys_bits, r.size_bytes, r.end),
            (36, 1 << 31, 0x7FFF_FFFF)
        );
        assert!(decode_variable(4, 0x7000_0006, 0x7f_f800_0000).is_none());
        let holes = range_from_addresses(0, 0, 0xF_0F00_0000, MemType::WriteBack).unwrap();
        assert!(!holes.contiguous);
    }

    #[test]
    fn fixed_ranges() {
        let r = decode_fixed(0, 0x0000_0000_0000_0005).unwrap();
        assert_eq!(r[0].to_string(), "00000-0FFFF write-protect");
        assert_eq!(r[7].to_string(), "70000-7FFFF uncachable");
        let last = decode_fixed(10, 0x0606_0606_0606_0606).unwrap();
        assert_eq!((last[7].start, last[7].end), (0xFF000, 0xFFFFF));
        assert_eq!(fixed_msr_index(2, 3), Some(6));
        assert_eq!(fixed_msr_index(1, 2), None);
        for i in 0..11 {
            let (block, reg) = fixed_msr_position(i).unwrap();
            assert_eq!(fixed_msr_index(block, reg), Some(i));
        }
        assert_eq!(fixed_msr_position(11), None);
        let all: usize = (0..11).map(|i| decode_fixed(i, 0).unwrap().len()).sum();
        assert_eq!(all, 88);
        let diff = fixed_differences([(0, 0x05, 0x0606_0606_0606_0606)]);
        assert_eq!(diff.len(), 2);
        assert_eq!(diff[1].0.start, 0x10000);
        assert_eq!(diff[1].0.end, 0x7FFFF);
        // Two adjacent 4K MSRs with the same change read as one range.
        let diff =
            fixed_differences([(4, 0, 0x0505_0505_0505_0505), (3, 0, 0x0505_0505_0505_0505)]);
        assert_eq!(diff.len(), 1);
        assert_eq!((diff[0].0.start, diff[0].0.end), (0xC0000, 0xCFFFF));
    }

    #[test]
    fn proc_mtrr_both_orders() {
        let new = parse_proc_mtrr_line(
            "reg01: base=0x07c000000 ( 1984MB), size= 64MB, count=1: uncachable",
        )
        .unwrap();
        assert_eq!(
            (new.reg, new.base, new.size_bytes, new.count),
            (1, 0x7c00_0000, 64 << 20, Some(1))
        );
        assert_eq!(new.mem_type, MemType::Uncachable);
        let old = parse_proc_mtrr_line(
            "reg00: base=0x00000000 (   0MB), size=2048MB: write-back, count=1",
        )
        .unwrap();
        assert_eq!(
            (old.size_bytes, old.mem_type),
            (2048 << 20, MemType::WriteBack)
        );
        let kb = parse_proc_mtrr_line(
            "reg02: base=0x000a0000 (   0MB), size= 128KB, count=1: write-combining",
        )
        .unwrap();
        assert_eq!(kb.size_bytes, 128 << 10);
        assert!(parse_proc_mtrr_line("reg03: base=0xzz, size=1MB, count=1: write-back").is_none());
        assert!(
            parse_proc_mtrr_line(
                "reg03: base=0x0 (0MB), size=99999999999999999999MB, count=1: write-back"
            )
            .is_none()
        );
    }

    #[test]
    fn change_lines_make_runs() {
        let mut c = MtrrCollector::new();
        let lines = [
            "MTRR cpu 1 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]",
            "MTRR cpu 1 variable 0 00000000ff800005/0000007fff800800 -> 0000000080000000/0000007f80000800 [bits 000000007f800005/000000007f800000]",
            "MTRR cpu 1 fixed 0,0: 0000000000000000 -> 0606060606060606 [bits 0606060606060606]",
            "MTRR cpu 1 changes:VFT",
            "MTRR cpu 1 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]",
            "MTRR cpu 2 disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]",
            "MTRR cpu 2 changes:___",
            "MTRR cpu 2 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c07]",
        ];
        for (i, l) in lines.iter().enumerate() {
            c.push(i as u64 + 1, None, l);
        }
        let report = c.finish();
        assert_eq!(report.runs.len(), 2);
        assert_eq!(report.changed_cpus(), [1]);
        assert_eq!(report.inconsistent_aps(), [1]);
        assert_eq!(report.bits_mismatches, [BitsMismatch { line: 8 }]);
        let words = report.runs[0].describe();
        assert_eq!(
            words,
            [
                "default type: uncachable -> write-back",
                "variable 0: 0xFF800000-0xFFFFFFFF write-protect -> 0x80000000-0xFFFFFFFF uncachable",
                "fixed 0x00000-0x7FFFF: uncachable -> write-back",
            ]
        );
    }

    #[test]
    fn proc_mtrr_pasted_as_a_unified_diff_is_two_dumps() {
        let mut c = MtrrCollector::new();
        let text = "\
--- before
+++ after
@@ -1,3 +1,3 @@
 reg00: base=0x000000000 (    0MB), size= 2048MB, count=1: write-back
-reg01: base=0x080000000 ( 2048MB), size= 1024MB, count=1: write-back
+reg01: base=0x080000000 ( 2048MB), size=  512MB, count=1: write-back
 reg02: base=0x100000000 ( 4096MB), size= 4096MB, count=1: write-back
after the diff";
        for (i, line) in text.lines().enumerate() {
            c.push(i as u64 + 1, None, line);
        }
        let report = c.finish();
        assert_eq!(report.proc_dumps.len(), 2, "{:?}", report.proc_dumps);
        let (old, new) = (&report.proc_dumps[0], &report.proc_dumps[1]);
        assert_eq!(old.len(), 3);
        assert_eq!(new.len(), 3);
        assert_eq!(old[1].size_bytes, 1024 << 20);
        assert_eq!(new[1].size_bytes, 512 << 20);
        assert_eq!(changed_proc_registers(old, new), vec![1]);
    }
}
