//! The MTRR part of the JSON document: boot tables, `/proc/mtrr` dumps, each CPU's register
//! changes, the rendezvous count and the collector's warnings.

use serde::Serialize;

use crate::analysis::Analysis;
use crate::analysis::mtrr::{
    BootTable, DefType, FIXED_MSRS, MemType, MtrrLog, MtrrRun, ProcMtrrEntry, RegisterChange,
    VariableRange,
};

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MtrrDoc {
    pub boots: Vec<BootTableDoc>,
    pub proc_mtrr: Vec<Vec<RangeDoc>>,
    pub changes: Vec<CpuChangesDoc>,
    pub inconsistent_cpus: Vec<u32>,
    /// MTRR checks per step of the first cycle's bring-up (see
    /// [`crate::analysis::rendezvous_per_step`]); empty without runs or bring-up.
    pub rendezvous: Vec<StepDoc>,
    pub warnings: Vec<WarningDoc>,
    pub bits_mismatch_lines: Vec<u64>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct BootTableDoc {
    pub line: u64,
    pub default_type: Option<MemType>,
    pub fixed_enabled: Option<bool>,
    pub variable_enabled: Option<bool>,
    pub fixed: Vec<FixedDoc>,
    pub variable: Vec<RangeDoc>,
    pub disabled: Vec<u32>,
    pub map: Vec<MapDoc>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FixedDoc {
    pub start: String,
    pub end: String,
    #[serde(rename = "type")]
    pub mem_type: MemType,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MapDoc {
    pub start: String,
    pub end: String,
    #[serde(rename = "type")]
    pub mem_type: MemType,
}

/// A variable range or a `/proc/mtrr` register.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct RangeDoc {
    pub reg: u32,
    pub base: String,
    pub end: String,
    pub size_bytes: u64,
    #[serde(rename = "type")]
    pub mem_type: MemType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phys_bits: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct CpuChangesDoc {
    pub cpu: u32,
    pub checks: usize,
    pub changed: usize,
    pub runs: Vec<RunDoc>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct RunDoc {
    pub line: u64,
    pub time_s: Option<f64>,
    pub flags: Option<String>,
    pub deftype_before: Option<DefTypeDoc>,
    pub deftype_after: Option<DefTypeDoc>,
    pub summary: Vec<String>,
    pub variable: Vec<VariableChangeDoc>,
    pub fixed: Vec<FixedChangeDoc>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct DefTypeDoc {
    pub raw: String,
    pub enabled: bool,
    pub fixed_enabled: bool,
    pub default_type: MemType,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct VariableChangeDoc {
    pub reg: u32,
    pub line: u64,
    pub before: Option<RangeDoc>,
    pub after: Option<RangeDoc>,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct FixedChangeDoc {
    pub msr: &'static str,
    pub line: u64,
    pub before: String,
    pub after: String,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct StepDoc {
    pub step: String,
    pub checks: usize,
}

#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct WarningDoc {
    pub line: u64,
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
