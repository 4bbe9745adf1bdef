//! Decoding MTRR register values: the default-type register, variable base/mask pairs and
//! the eleven fixed-range MSRs. Pure arithmetic, no log.

use std::fmt;

use serde::{Serialize, Serializer};

/// A memory type, named as the kernel names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemType {
    /// UC, encoding 0.
    Uncachable,
    /// WC, encoding 1.
    WriteCombining,
    /// WT, encoding 4.
    WriteThrough,
    /// WP, encoding 5.
    WriteProtect,
    /// WB, encoding 6.
    WriteBack,
    /// Encodings 2, 3 and 7..=255 are reserved.
    Reserved(u8),
}

impl MemType {
    /// From the 8-bit type field of an MTRR.
    pub(crate) fn from_code(code: u8) -> Self {
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
    pub(crate) fn from_name(name: &str) -> Option<Self> {
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
    /// The register's value.
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
    /// The register's number.
    pub reg: u32,
    /// The range's first physical address.
    pub base: u64,
    /// Last address of the range (inclusive).
    pub end: u64,
    /// Its size (the lowest set bit of the mask).
    pub size_bytes: u64,
    /// Its memory type.
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
pub(crate) fn range_from_addresses(
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
    /// The MSR's name (`MTRRfix4K_C0000`).
    pub name: &'static str,
    /// The first address it covers.
    pub start: u32,
    /// The size of each of its eight sub-ranges.
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
    /// The first address of the sub-range.
    pub start: u32,
    /// Its last address.
    pub end: u32,
    /// Its memory type.
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
