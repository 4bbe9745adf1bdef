//! `/proc/mtrr` lines (`reg00: base=0x000000000 (    0MB), size= 2048MB, count=1: write-back`)
//! and the registers that differ between two dumps.

use super::decode::MemType;

/// One `/proc/mtrr` register line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcMtrrEntry {
    /// The register's number (`reg01`).
    pub reg: u32,
    /// The range's first address.
    pub base: u64,
    /// Its size in bytes.
    pub size_bytes: u64,
    /// `count=`, when the line has it.
    pub count: Option<u32>,
    /// Its memory type.
    pub mem_type: MemType,
}

impl ProcMtrrEntry {
    /// The last address of the range (the parser takes no range that ends past 2^64).
    pub fn end(&self) -> u64 {
        self.base.saturating_add(self.size_bytes.max(1) - 1)
    }
}

/// The registers that differ between two `/proc/mtrr` dumps (present in one only, or
/// with another base, size or type), in register order.
pub(crate) fn changed_proc_registers(old: &[ProcMtrrEntry], new: &[ProcMtrrEntry]) -> Vec<u32> {
    // The first line of each register, by register: one pass over each dump.
    let by_reg = |dump: &[ProcMtrrEntry]| {
        let mut map = std::collections::HashMap::new();
        for e in dump {
            map.entry(e.reg)
                .or_insert((e.base, e.size_bytes, e.mem_type));
        }
        map
    };
    let (a, b) = (by_reg(old), by_reg(new));
    let mut regs: Vec<u32> = a.keys().chain(b.keys()).copied().collect();
    regs.sort_unstable();
    regs.dedup();
    regs.retain(|reg| a.get(reg) != b.get(reg));
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
    let (base, size_bytes) = (base?, size?);
    // A range that would end past 2^64 is no register's: the line is not taken.
    base.checked_add(size_bytes.max(1) - 1)?;
    Some(ProcMtrrEntry {
        reg,
        base,
        size_bytes,
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
