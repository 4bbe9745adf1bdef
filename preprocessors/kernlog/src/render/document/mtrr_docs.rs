//! The MTRR part of the JSON document: boot tables, `/proc/mtrr` dumps, each CPU's register
//! changes, the rendezvous count and the collector's warnings.

use serde::Serialize;

use crate::analysis::Analysis;
use crate::analysis::mtrr::{
    BootTable, DefType, FIXED_MSRS, MemType, MtrrLog, MtrrRun, ProcMtrrEntry, RegisterChange,
    VariableRange,
};

/// The MTRR part of the [`Document`](super::Document).
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MtrrDoc {
    /// One entry a boot-time `mtrr=debug` table.
    pub boots: Vec<BootTableDoc>,
    /// One list a `/proc/mtrr` dump, in the log's order.
    pub proc_mtrr: Vec<Vec<RangeDoc>>,
    /// Per CPU (ascending), the runs of the kernel's MTRR set routine the debug patch shows.
    pub changes: Vec<CpuChangesDoc>,
    /// Secondary CPUs whose registers disagreed with the boot CPU's saved state at least once.
    pub inconsistent_cpus: Vec<u32>,
    /// MTRR checks per step of the first cycle's bring-up (see
    /// [`crate::analysis::rendezvous_per_step`]); empty without runs or bring-up.
    pub rendezvous: Vec<StepDoc>,
    /// The kernel's MTRR warnings.
    pub warnings: Vec<WarningDoc>,
    /// Debug-patch lines whose `[bits ...]` field is not the XOR of old and new (a garbled
    /// capture).
    pub bits_mismatch_lines: Vec<u64>,
}

/// A boot-time `mtrr=debug` table.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct BootTableDoc {
    /// The table's first line.
    pub line: u64,
    /// The default memory type, when the table prints it.
    pub default_type: Option<MemType>,
    /// Whether the fixed ranges are enabled, when the table says.
    pub fixed_enabled: Option<bool>,
    /// Whether the variable ranges are enabled, when the table says.
    pub variable_enabled: Option<bool>,
    /// The fixed ranges of the first MiB.
    pub fixed: Vec<FixedDoc>,
    /// The variable ranges in use.
    pub variable: Vec<RangeDoc>,
    /// The variable registers the table shows as disabled.
    pub disabled: Vec<u32>,
    /// The `MTRR map:` entries, when the kernel prints them.
    pub map: Vec<MapDoc>,
}

/// One fixed range of the first MiB.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FixedDoc {
    /// Its first address (`"0x..."`).
    pub start: String,
    /// Its last address.
    pub end: String,
    /// Its memory type.
    #[serde(rename = "type")]
    pub mem_type: MemType,
}

/// One entry of the kernel's `MTRR map:`.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MapDoc {
    /// Its first address (`"0x..."`).
    pub start: String,
    /// Its last address.
    pub end: String,
    /// Its memory type.
    #[serde(rename = "type")]
    pub mem_type: MemType,
}

/// A variable range or a `/proc/mtrr` register.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct RangeDoc {
    /// The register's number.
    pub reg: u32,
    /// The range's first address (`"0x..."`).
    pub base: String,
    /// Its last address.
    pub end: String,
    /// Its size.
    pub size_bytes: u64,
    /// Its memory type.
    #[serde(rename = "type")]
    pub mem_type: MemType,
    /// Physical address bits the mask implies (variable ranges of a boot table only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phys_bits: Option<u32>,
    /// `/proc/mtrr`'s `count=` (its dumps only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
}

/// One CPU's runs of the MTRR set routine.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CpuChangesDoc {
    /// The CPU's number.
    pub cpu: u32,
    /// Runs (each checks the CPU's registers against the state being written).
    pub checks: usize,
    /// Runs that found the registers different.
    pub changed: usize,
    /// The runs, in log order.
    pub runs: Vec<RunDoc>,
}

/// One run of the kernel's MTRR set routine on one CPU, `disable:` to `enable:`.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct RunDoc {
    /// Its first line.
    pub line: u64,
    /// Its time, in seconds on the log's clock.
    pub time_s: Option<f64>,
    /// The `changes:` flags as printed (`VFT`, `___`); `null` when the line is missing.
    pub flags: Option<String>,
    /// IA32_MTRR_DEF_TYPE as found.
    pub deftype_before: Option<DefTypeDoc>,
    /// IA32_MTRR_DEF_TYPE as written back.
    pub deftype_after: Option<DefTypeDoc>,
    /// The differences in words, one a line.
    pub summary: Vec<String>,
    /// The variable registers rewritten.
    pub variable: Vec<VariableChangeDoc>,
    /// The fixed-range MSRs rewritten.
    pub fixed: Vec<FixedChangeDoc>,
}

/// A decoded IA32_MTRR_DEF_TYPE.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct DefTypeDoc {
    /// The raw value (`"0x..."`).
    pub raw: String,
    /// MTRRs enabled (bit 11).
    pub enabled: bool,
    /// Fixed ranges enabled (bit 10).
    pub fixed_enabled: bool,
    /// The default memory type (bits 0-7).
    pub default_type: MemType,
}

/// A variable register rewritten by a run.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct VariableChangeDoc {
    /// The register's number.
    pub reg: u32,
    /// The line that shows it.
    pub line: u64,
    /// The range before; `null` when it was disabled.
    pub before: Option<RangeDoc>,
    /// The range after; `null` when it is disabled.
    pub after: Option<RangeDoc>,
}

/// A fixed-range MSR rewritten by a run.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FixedChangeDoc {
    /// The MSR's name (`MTRRfix64K_00000`, ...).
    pub msr: &'static str,
    /// The line that shows it.
    pub line: u64,
    /// Its value before (`"0x"` and 16 hex digits).
    pub before: String,
    /// Its value after.
    pub after: String,
}

/// MTRR runs in one step of a resume's bring-up.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct StepDoc {
    /// `boot CPU`, `CPU n` or `after bring-up`.
    pub step: String,
    /// Runs in that step.
    pub checks: usize,
}

/// A line of kernel text about a problem with the MTRRs.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct WarningDoc {
    /// Its number.
    pub line: u64,
    /// Its text.
    pub text: String,
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

fn range_doc(r: &VariableRange) -> RangeDoc {
    RangeDoc {
        reg: r.reg,
        base: hex(r.base),
        end: hex(r.end),
        size_bytes: r.size_bytes,
        mem_type: r.mem_type,
        phys_bits: Some(r.phys_bits),
        count: None,
    }
}

fn proc_doc(e: &ProcMtrrEntry) -> RangeDoc {
    RangeDoc {
        reg: e.reg,
        base: hex(e.base),
        end: hex(e.end()),
        size_bytes: e.size_bytes,
        mem_type: e.mem_type,
        phys_bits: None,
        count: e.count,
    }
}

fn deftype_doc(d: &DefType) -> DefTypeDoc {
    DefTypeDoc {
        raw: hex(d.raw),
        enabled: d.enabled,
        fixed_enabled: d.fixed_enabled,
        default_type: d.default_type,
    }
}

fn boot_doc(t: &BootTable) -> BootTableDoc {
    BootTableDoc {
        line: t.line,
        default_type: t.default_type,
        fixed_enabled: t.fixed_enabled,
        variable_enabled: t.variable_enabled,
        fixed: t
            .fixed
            .iter()
            .map(|f| FixedDoc {
                start: hex(u64::from(f.start)),
                end: hex(u64::from(f.end)),
                mem_type: f.mem_type,
            })
            .collect(),
        variable: t.variable.iter().map(range_doc).collect(),
        disabled: t.disabled.clone(),
        map: t
            .map
            .iter()
            .map(|(s, e, ty)| MapDoc {
                start: hex(*s),
                end: hex(*e),
                mem_type: *ty,
            })
            .collect(),
    }
}

fn run_doc(r: &MtrrRun) -> RunDoc {
    let mut variable = Vec::new();
    let mut fixed = Vec::new();
    for change in &r.changes {
        match change {
            RegisterChange::Variable {
                reg,
                line,
                before,
                after,
            } => variable.push(VariableChangeDoc {
                reg: *reg,
                line: *line,
                before: before.as_ref().map(range_doc),
                after: after.as_ref().map(range_doc),
            }),
            RegisterChange::Fixed {
                msr,
                line,
                before,
                after,
            } => fixed.push(FixedChangeDoc {
                msr: FIXED_MSRS[*msr].name,
                line: *line,
                before: format!("{before:#018x}"),
                after: format!("{after:#018x}"),
            }),
        }
    }
    RunDoc {
        line: r.line,
        time_s: r.time_us.map(|us| us as f64 / 1e6),
        flags: r.flags.clone(),
        deftype_before: r.deftype_before.as_ref().map(deftype_doc),
        deftype_after: r.deftype_after.as_ref().map(deftype_doc),
        summary: r.describe(),
        variable,
        fixed,
    }
}

pub(super) fn mtrr_doc(analysis: &Analysis) -> MtrrDoc {
    let m: &MtrrLog = &analysis.mtrr;
    let rendezvous = if m.runs.is_empty() {
        Vec::new()
    } else {
        crate::analysis::rendezvous_per_step(analysis, 0)
            .unwrap_or_default()
            .into_iter()
            .map(|(step, checks)| StepDoc { step, checks })
            .collect()
    };
    MtrrDoc {
        rendezvous,
        boots: m.boot_tables.iter().map(boot_doc).collect(),
        proc_mtrr: m
            .proc_dumps
            .iter()
            .map(|d| d.iter().map(proc_doc).collect())
            .collect(),
        changes: m
            .runs_by_cpu()
            .into_iter()
            .map(|(cpu, runs)| CpuChangesDoc {
                cpu,
                checks: runs.len(),
                changed: runs.iter().filter(|r| r.changed()).count(),
                runs: runs.into_iter().map(run_doc).collect(),
            })
            .collect(),
        inconsistent_cpus: m.inconsistent_aps(),
        warnings: m
            .warnings
            .iter()
            .map(|w| WarningDoc {
                line: w.line,
                text: w.text.clone(),
            })
            .collect(),
        bits_mismatch_lines: m.bits_mismatches.iter().map(|b| b.line).collect(),
    }
}
