//! The per-CPU MTRR dump of a bundle (`mtrr/*.txt`): one line a CPU, registers as 16
//! lower-case hex digits, in MSR order.
//!
//! ```text
//! cpu0 def=0000000000000c06 fix=<11 values> var=<base/mask pairs>
//! cpu3 unreadable: Input/output error
//! ```

use std::fmt::Write as _;

/// IA32_MTRRCAP: bits 0-7 the count of variable ranges, bit 8 fixed ranges supported.
pub const MSR_MTRRCAP: u32 = 0xfe;
/// IA32_MTRR_DEF_TYPE.
pub(crate) const MSR_DEF_TYPE: u32 = 0x2ff;
/// The first variable-range base register (IA32_MTRR_PHYSBASE0); masks follow each base.
pub(crate) const MSR_PHYSBASE0: u32 = 0x200;
/// The eleven fixed-range MSRs, in the order of the dump.
pub(crate) const FIXED_RANGE_MSRS: [u32; 11] = [
    0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b, 0x26c, 0x26d, 0x26e, 0x26f,
];

/// The MTRRs of one CPU as read from its MSRs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MtrrRegisters {
    /// IA32_MTRR_DEF_TYPE.
    pub def_type: u64,
    /// The fixed ranges; `None` when MTRRcap says the CPU has none.
    pub fixed: Option<[u64; 11]>,
    /// The variable ranges as (base, mask) pairs.
    pub variable: Vec<(u64, u64)>,
}

/// One line of a dump: a CPU and its registers, or why they could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuMtrrs {
    /// The CPU's number.
    pub cpu: u32,
    /// Its registers, or why they could not be read.
    pub registers: Result<MtrrRegisters, String>,
}

/// Reads one CPU's MTRRs through `read` (an MSR number to its value, or an error text):
/// MTRRcap first, for the number of variable ranges and whether fixed ranges exist.
pub fn read_registers(
    mut read: impl FnMut(u32) -> Result<u64, String>,
) -> Result<MtrrRegisters, String> {
    let cap = read(MSR_MTRRCAP)?;
    let def_type = read(MSR_DEF_TYPE)?;
    let fixed = if cap & 0x100 != 0 {
        let mut values = [0; 11];
        for (value, msr) in values.iter_mut().zip(FIXED_RANGE_MSRS) {
            *value = read(msr)?;
        }
        Some(values)
    } else {
        None
    };
    let count = (cap & 0xff) as u32;
    let variable = (0..count)
        .map(|i| {
            let base = read(MSR_PHYSBASE0 + 2 * i)?;
            Ok((base, read(MSR_PHYSBASE0 + 2 * i + 1)?))
        })
        .collect::<Result<_, String>>()?;
    Ok(MtrrRegisters {
        def_type,
        fixed,
        variable,
    })
}

/// Renders a dump, one line a CPU, each ending in a newline.
pub fn render_dump(cpus: &[CpuMtrrs]) -> String {
    let mut out = String::new();
    for cpu in cpus {
        match &cpu.registers {
            Ok(r) => {
                let fixed = match &r.fixed {
                    Some(values) => join(values.iter().map(|v| format!("{v:016x}"))),
                    None => "none".to_string(),
                };
                let variable = join(r.variable.iter().map(|(b, m)| format!("{b:016x}/{m:016x}")));
                let _ = writeln!(
                    out,
                    "cpu{} def={:016x} fix={fixed} var={variable}",
                    cpu.cpu, r.def_type
                );
            }
            Err(reason) => {
                // A reason is one line: a newline in it would start a line of its own.
                let reason = reason.replace(['\n', '\r'], " ");
                let _ = writeln!(out, "cpu{} unreadable: {reason}", cpu.cpu);
            }
        }
    }
    out
}

fn join(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(",")
}

/// Why a dump line could not be read: its number (from 1) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a dump as [`render_dump`] writes it. Blank lines are skipped; a CPU listed twice,
/// or more than [`MAX_CPUS`](super::MAX_CPUS) CPUs, is an error.
pub fn parse_dump(text: &str) -> Result<Vec<CpuMtrrs>, DumpError> {
    let mut cpus: Vec<CpuMtrrs> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let fail = |message: String| DumpError {
            line: index + 1,
            message,
        };
        if line.trim().is_empty() {
            continue;
        }
        let cpu = parse_line(line).map_err(fail)?;
        if !seen.insert(cpu.cpu) {
            return Err(fail(format!("cpu{} is listed twice", cpu.cpu)));
        }
        if cpus.len() == super::MAX_CPUS {
            return Err(fail(format!(
                "more than {} CPUs in one dump",
                super::MAX_CPUS
            )));
        }
        cpus.push(cpu);
    }
    Ok(cpus)
}

fn parse_line(line: &str) -> Result<CpuMtrrs, String> {
    let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
    let cpu = head
        .strip_prefix("cpu")
        .and_then(|n| n.parse::<u32>().ok())
        .ok_or_else(|| format!("expected `cpuN` at the start, found `{}`", clip(head)))?;
    if let Some(reason) = rest.strip_prefix("unreadable:") {
        // The reason is the system's error text: a few words, kept to 40 characters.
        return Ok(CpuMtrrs {
            cpu,
            registers: Err(clip(reason.trim())),
        });
    }
    let mut fields = rest.split(' ');
    let mut field = |name: &str| {
        fields
            .next()
            .and_then(|f| f.strip_prefix(name))
            .and_then(|f| f.strip_prefix('='))
            .ok_or_else(|| format!("cpu{cpu}: expected the field `{name}=`"))
    };
    let def_type = hex(field("def")?)?;
    let fixed = match field("fix")? {
        "none" => None,
        list => {
            let values = list.split(',').map(hex).collect::<Result<Vec<_>, _>>()?;
            let count = values.len();
            Some(values.try_into().map_err(|_| {
                format!("cpu{cpu}: fix= has {count} values, the dump has 11 (or `none`)")
            })?)
        }
    };
    let variable = match field("var")? {
        "" => Vec::new(),
        list => list
            .split(',')
            .map(|pair| {
                let (base, mask) = pair.split_once('/').ok_or_else(|| {
                    format!("cpu{cpu}: var= pair `{}` is not BASE/MASK", clip(pair))
                })?;
                Ok((hex(base)?, hex(mask)?))
            })
            .collect::<Result<_, String>>()?,
    };
    if let Some(extra) = fields.next() {
        return Err(format!("cpu{cpu}: unexpected `{}` after var=", clip(extra)));
    }
    Ok(CpuMtrrs {
        cpu,
        registers: Ok(MtrrRegisters {
            def_type,
            fixed,
            variable,
        }),
    })
}

fn hex(text: &str) -> Result<u64, String> {
    if text.len() == 16 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        u64::from_str_radix(text, 16).map_err(|e| e.to_string())
    } else {
        Err(format!(
            "`{}` is not a register value (16 lower-case hex digits)",
            clip(text)
        ))
    }
}

/// At most 40 characters of untrusted text for an error message.
pub(crate) fn clip(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(40).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}
