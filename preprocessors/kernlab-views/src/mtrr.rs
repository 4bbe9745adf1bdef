//! MTRR views: per-CPU changes across resume, one CPU's before/after diff, the boot-time
//! table, `/proc/mtrr`, the runs per step of the bring-up, and IA32_MTRR_DEF_TYPE decoded.

use kernlog::Analysis;
use kernlog::analysis::mtrr::{
    DefType, MemType, MtrrLog, MtrrRun, RegisterChange, VariableRange, decode_deftype,
    fixed_differences,
};
use serde::Deserialize;

use crate::analysis::CycleOf;
use crate::charts::{Bar, HBar};
use crate::error::{Error, Result, fail};
use crate::table::{Cell, Row, TableModel, chart_id};
use crate::templates::Templates;

/// Which MTRR view to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum MtrrView {
    /// [`changes`]
    Changes,
    /// [`diff`]
    Diff,
    /// [`boot`]
    Boot,
    /// [`proc`]
    Proc,
    /// [`rendezvous`]
    Rendezvous,
}

fn hex(v: u64) -> String {
    format!("{v:#X}")
}

fn deftype_text(d: &DefType) -> String {
    format!("{:#x} ({})", d.raw, d.default_type)
}

/// The MTRR log of `file` with only the runs of cycle `index`.
pub fn cycle_runs(analysis: &Analysis, file: &str, index: usize) -> Result<MtrrLog> {
    let window = analysis.cycle_lines(index).ok_or_else(|| {
        fail(
            format!(
                "`{file}` has {} suspend/resume cycle(s); there is no cycle {index}",
                analysis.cycles.len()
            ),
            "cycles are numbered from 0; run `kernlog analyze` on the file to see them",
        )
    })?;
    Ok(MtrrLog {
        runs: analysis
            .mtrr
            .runs
            .iter()
            .filter(|r| window.contains(&r.line))
            .cloned()
            .collect(),
        ..analysis.mtrr.clone()
    })
}

fn no_runs(file: &str) -> Error {
    fail(
        format!("`{file}` has no `MTRR cpu N ...` change lines"),
        "these come from the mtrr=debug change-printing patch; see the method chapter",
    )
}

/// What each CPU's MTRR check found: one row per CPU's first run that changed something
/// (else its first run), CPUs that found the same listed together; with `all_runs`, one
/// row per run.
pub fn changes(templates: &Templates, m: &MtrrLog, file: &str, all_runs: bool) -> Result<String> {
    if m.runs.is_empty() {
        return Err(no_runs(file));
    }
    let mut table = TableModel::new(
        format!("MTRR checks per CPU in {file}"),
        &["CPU", "line", "flags", "default type", "what was rewritten"],
    );
    let describe = |r: &MtrrRun| -> Vec<String> {
        let lines = r.describe();
        if lines.is_empty() {
            vec!["nothing: the registers already matched".to_string()]
        } else {
            lines
        }
    };
    let deftype = |r: &MtrrRun| match (r.deftype_before, r.deftype_after) {
        (Some(b), Some(a)) if b.raw != a.raw => format!("{} -> {}", b.default_type, a.default_type),
        (Some(b), _) => b.default_type.to_string(),
        _ => "-".to_string(),
    };
    // One row for runs that found the same thing: the CPUs and lines listed together.
    let row = |group: &[&MtrrRun]| {
        let r = group[0];
        let list = |f: &dyn Fn(&MtrrRun) -> String| {
            group.iter().map(|r| f(r)).collect::<Vec<_>>().join(", ")
        };
        let mut row = Row::new(vec![
            Cell::num(list(&|r| r.cpu.to_string())),
            Cell::num(list(&|r| r.line.to_string())),
            Cell::text(r.flags.clone().unwrap_or_default()).class("kl-mono"),
            Cell::text(deftype(r)),
            Cell::lines(describe(r)),
        ]);
        if r.changed() {
            row.class = "kl-changed".into();
        }
        row
    };
    if all_runs {
        table.rows.extend(m.runs.iter().map(|r| row(&[r])));
    } else {
        let mut groups: Vec<Vec<&MtrrRun>> = Vec::new();
        for cpu in m.cpus() {
            let runs: Vec<&MtrrRun> = m.runs.iter().filter(|r| r.cpu == cpu).collect();
            // The CPU's first run that changed something, else its first run.
            let Some(shown) = runs.iter().find(|r| r.changed()).or(runs.first()).copied() else {
                continue;
            };
            let same = |g: &&mut Vec<&MtrrRun>| {
                let first = g[0];
                first.flags == shown.flags
                    && deftype(first) == deftype(shown)
                    && describe(first) == describe(shown)
            };
            match groups.iter_mut().find(|g| same(g)) {
                Some(group) => group.push(shown),
                None => groups.push(vec![shown]),
            }
        }
        table.rows.extend(groups.iter().map(|g| row(g)));
    }
    table.render(templates)
}

/// MTRR runs per step of a cycle's bring-up, as a chart and a table.
pub fn rendezvous(templates: &Templates, of: CycleOf<'_>) -> Result<String> {
    let (analysis, file) = (of.analysis, of.file);
    if analysis.mtrr.runs.is_empty() {
        return Err(no_runs(file));
    }
    let steps = kernlog::analysis::rendezvous_per_step(analysis, of.index).ok_or_else(|| {
        fail(
            format!("`{file}` has no complete CPU bring-up to split the runs by"),
            "the capture needs `Enabling non-boot CPUs` and every `CPUn is up` line",
        )
    })?;
    let total: usize = steps.iter().map(|(_, n)| n).sum();
    let mut table = TableModel::new(
        format!("MTRR checks per step of the resume in {file}"),
        &["step", "MTRR checks"],
    )
    .numeric(&[1]);
    let mut bars = Vec::new();
    for (label, n) in &steps {
        table.rows.push(Row::new(vec![
            Cell::text(label.clone()),
            Cell::num(n.to_string()),
        ]));
        bars.push(Bar {
            label: label.clone(),
            start: 0.0,
            end: *n as f64,
            note: n.to_string(),
            class: "g0",
        });
    }
    table.rows.push(Row {
        class: "kl-total".into(),
        cells: vec![Cell::text("all"), Cell::num(total.to_string())],
    });
    let chart = HBar {
        id: chart_id(of.id, &format!("{file}-rendezvous")),
        title: format!("MTRR checks per step, {file}"),
        desc: format!(
            "Number of MTRR set-state runs in each step: before the secondary CPUs start, while each is brought up, and after all are up; {total} in all. The table below lists the same counts."
        ),
        axis_label: "MTRR checks".into(),
        bars,
    };
    crate::analysis::chart_and_table(templates, &chart, &table, true)
}

/// The registers of `cpu`'s first run that changed something, before and after.
pub fn diff(templates: &Templates, m: &MtrrLog, file: &str, cpu: u32) -> Result<String> {
    let run = m
        .runs
        .iter()
        .find(|r| r.cpu == cpu && r.changed())
        .ok_or_else(|| {
            if m.runs.is_empty() {
                no_runs(file)
            } else {
                fail(
                    format!("CPU {cpu} has no run with changes in `{file}`"),
                    format!("CPUs with changes: {:?}", m.changed_cpus()),
                )
            }
        })?;
    let mut table = TableModel::new(
        format!(
            "MTRRs of CPU {cpu} before and after the rewrite at line {}",
            run.line
        ),
        &["register", "before", "after"],
    );
    if let (Some(b), Some(a)) = (run.deftype_before, run.deftype_after) {
        table.rows.push(Row::new(vec![
            Cell::text("MTRRdefType"),
            Cell::text(deftype_text(&b)),
            Cell::text(deftype_text(&a)),
        ]));
    }
    let show = |r: &Option<VariableRange>| r.map_or("disabled".to_string(), |r| r.to_string());
    for change in &run.changes {
        if let RegisterChange::Variable {
            reg, before, after, ..
        } = change
        {
            table.rows.push(Row::new(vec![
                Cell::text(format!("variable {reg}")),
                Cell::text(show(before)).class("kl-mono"),
                Cell::text(show(after)).class("kl-mono"),
            ]));
        }
    }
    let fixed = run.changes.iter().filter_map(|c| match c {
        RegisterChange::Fixed {
            msr, before, after, ..
        } => Some((*msr, *before, *after)),
        RegisterChange::Variable { .. } => None,
    });
    for (b, a) in fixed_differences(fixed) {
        table.rows.push(Row::new(vec![
            Cell::text(format!("fixed {:05X}-{:05X}", b.start, b.end)),
            Cell::text(b.mem_type.to_string()),
            Cell::text(a.mem_type.to_string()),
        ]));
    }
    table.render(templates)
}

/// A table of address ranges: register, range, size, memory type.
fn range_table(title: String) -> TableModel {
    TableModel::new(title, &["register", "range", "size", "type"])
}

/// The first boot-time MTRR table of `file` (`mtrr=debug`'s `MTRR default type` lines).
pub fn boot(templates: &Templates, m: &MtrrLog, file: &str) -> Result<String> {
    let t = m.boot_tables.first().ok_or_else(|| {
        fail(
            format!("`{file}` has no boot-time MTRR table"),
            "boot with mtrr=debug and capture the `MTRR default type` lines",
        )
    })?;
    let mut table = range_table(format!("Boot-time MTRRs in {file}"));
    table.rows.push(Row::new(vec![
        Cell::text("default"),
        Cell::text("everything not covered below"),
        Cell::text(""),
        Cell::text(t.default_type.map_or("?".into(), |d| d.to_string())),
    ]));
    for f in &t.fixed {
        table.rows.push(range_row(
            "fixed".into(),
            format!("{:05X}-{:05X}", f.start, f.end),
            u64::from(f.end - f.start) + 1,
            f.mem_type,
        ));
    }
    for v in &t.variable {
        table.rows.push(range_row(
            format!("variable {} ({}-bit mask)", v.reg, v.phys_bits),
            format!("{}-{}", hex(v.base), hex(v.end)),
            v.size_bytes,
            v.mem_type,
        ));
    }
    if !t.disabled.is_empty() {
        let regs: Vec<String> = t.disabled.iter().map(u32::to_string).collect();
        table.rows.push(Row::new(vec![
            Cell::text(format!("variable {}", regs.join(", "))),
            Cell::text("disabled"),
            Cell::text(""),
            Cell::text(""),
        ]));
    }
    table.render(templates)
}

/// The first `/proc/mtrr` listing of `file`.
pub fn proc(templates: &Templates, m: &MtrrLog, file: &str) -> Result<String> {
    let dump = m.proc_dumps.first().ok_or_else(|| {
        fail(
            format!("`{file}` has no /proc/mtrr lines"),
            "capture `cat /proc/mtrr`",
        )
    })?;
    let mut table = range_table(format!("/proc/mtrr in {file}"));
    for e in dump {
        table.rows.push(range_row(
            format!("reg{:02}", e.reg),
            format!("{}-{}", hex(e.base), hex(e.end())),
            e.size_bytes,
            e.mem_type,
        ));
    }
    table.render(templates)
}

/// One row of a register table: name, address range, size, memory type.
fn range_row(register: String, range: String, size: u64, mem_type: MemType) -> Row {
    Row::new(vec![
        Cell::text(register),
        Cell::text(range).class("kl-mono"),
        Cell::num(size_text(size)),
        Cell::text(mem_type.to_string()),
    ])
}

/// `64 KiB`, `2 GiB`.
fn size_text(bytes: u64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (scale, name) in units {
        // `scale` is a power of two: a multiple of it has no lower bits set.
        if bytes >= scale && bytes & (scale - 1) == 0 {
            return format!("{} {name}", bytes / scale);
        }
    }
    format!("{bytes} B")
}

/// IA32_MTRR_DEF_TYPE decoded, one row per labelled value; an error when there is none.
fn deftype_table(templates: &Templates, values: Vec<(String, DefType)>) -> Result<String> {
    if values.is_empty() {
        return Err(fail(
            "no value to decode",
            "list values like [0xc00, 0xc06]",
        ));
    }
    let mut table = TableModel::new(
        "IA32_MTRR_DEF_TYPE decoded",
        &[
            "register",
            "value",
            "MTRRs (bit 11)",
            "fixed ranges (bit 10)",
            "default type (bits 0-7)",
        ],
    );
    let state = |on: bool| if on { "enabled" } else { "disabled" };
    for (label, d) in values {
        table.rows.push(Row::new(vec![
            Cell::text(label),
            Cell::text(format!("{:#x}", d.raw)).class("kl-mono"),
            Cell::text(state(d.enabled)),
            Cell::text(state(d.fixed_enabled)),
            Cell::text(d.default_type.to_string()),
        ]));
    }
    table.render(templates)
}

/// IA32_MTRR_DEF_TYPE values decoded.
pub fn deftype_values(templates: &Templates, values: &[u64]) -> Result<String> {
    let rows = values
        .iter()
        .map(|&raw| (String::new(), decode_deftype(raw)))
        .collect();
    deftype_table(templates, rows)
}

/// Each CPU's IA32_MTRR_DEF_TYPE in `file` as its first MTRR check found it, and as that
/// check wrote it when it wrote another value.
pub fn deftype_of_log(templates: &Templates, m: &MtrrLog, file: &str) -> Result<String> {
    if m.runs.is_empty() {
        return Err(no_runs(file));
    }
    let mut rows = Vec::new();
    for cpu in m.cpus() {
        let Some(r) = m.runs.iter().find(|r| r.cpu == cpu) else {
            continue;
        };
        if let Some(b) = r.deftype_before {
            rows.push((format!("CPU {cpu} as found"), b));
        }
        match r.deftype_after {
            Some(a) if r.deftype_before.is_none_or(|b| b.raw != a.raw) => {
                rows.push((format!("CPU {cpu} written"), a));
            }
            _ => {}
        }
    }
    deftype_table(templates, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_text(64 << 10), "64 KiB");
        assert_eq!(size_text(2 << 30), "2 GiB");
        assert_eq!(size_text(640 << 10), "640 KiB");
        assert_eq!(size_text(1000), "1000 B");
        assert_eq!(size_text(3 << 20), "3 MiB");
    }
}
