//! MTRR views: per-CPU changes across resume, one CPU's before/after diff, the boot-time
//! table, `/proc/mtrr`, and IA32_MTRR_DEF_TYPE decoded.

use kernlog::analysis::mtrr::{
    DefType, MtrrLog, MtrrRun, RegisterChange, decode_deftype, fixed_differences,
};
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Resources;
use super::{Cell, Row, TableModel};
use crate::directive::options;
use crate::error::{Outcome, fail};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum MtrrView {
    Changes,
    Diff,
    Boot,
    Proc,
    Rendezvous,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MtrrOptions {
    mtrr: String,
    show: Option<MtrrView>,
    /// For `diff`: the CPU whose first changed run to show (default: the boot CPU).
    cpu: Option<u32>,
    /// For `changes`: list every run, not one row per CPU.
    all_runs: Option<bool>,
    /// For `changes`, `diff` and `rendezvous`: only the runs of this suspend/resume cycle
    /// (numbered from 0), for logs of several cycles.
    cycle: Option<usize>,
    id: Option<String>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

fn hex(v: u64) -> String {
    format!("{v:#X}")
}

fn deftype_text(d: &DefType) -> String {
    format!("{:#x} ({})", d.raw, d.default_type)
}

pub fn render(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: MtrrOptions = options(body)?;
    let analysis = cx.data.analysis(&o.mtrr)?;
    let view = o.show.unwrap_or(MtrrView::Changes);
    let cycle_report;
    let m = match o.cycle {
        None => &analysis.mtrr,
        Some(index) => {
            let window = analysis.cycle_lines(index).ok_or_else(|| {
                fail(
                    format!(
                        "`{}` has {} suspend/resume cycle(s); there is no cycle {index}",
                        o.mtrr,
                        analysis.cycles.len()
                    ),
                    "cycles are numbered from 0; run `kernlog analyze` on the file to see them",
                )
            })?;
            cycle_report = MtrrLog {
                runs: analysis
                    .mtrr
                    .runs
                    .iter()
                    .filter(|r| window.contains(&r.line))
                    .cloned()
                    .collect(),
                ..analysis.mtrr.clone()
            };
            &cycle_report
        }
    };
    match view {
        MtrrView::Changes => changes(cx, &o, m),
        MtrrView::Diff => diff(cx, &o, m),
        MtrrView::Boot => boot(cx, &o, m),
        MtrrView::Proc => proc(cx, &o, m),
        MtrrView::Rendezvous => rendezvous(cx, &o, &analysis),
    }
}

fn no_runs(file: &str) -> crate::error::Failure {
    fail(
        format!("`{file}` has no `MTRR cpu N ...` change lines"),
        "these come from the mtrr=debug change-printing patch; see the method chapter",
    )
}

fn changes(cx: &Resources<'_>, o: &MtrrOptions, m: &MtrrLog) -> Outcome<String> {
    if m.runs.is_empty() {
        return Err(no_runs(&o.mtrr));
    }
    let mut table = TableModel::new(
        format!("MTRR checks per CPU in {}", o.mtrr),
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
    if o.all_runs.unwrap_or(false) {
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
    table.render(cx)
}

/// MTRR runs per step of the bring-up, as a chart and a table.
fn rendezvous(
    cx: &Resources<'_>,
    o: &MtrrOptions,
    analysis: &kernlog::Analysis,
) -> Outcome<String> {
    if analysis.mtrr.runs.is_empty() {
        return Err(no_runs(&o.mtrr));
    }
    let steps = kernlog::analysis::rendezvous_per_step(analysis, o.cycle.unwrap_or(0)).ok_or_else(
        || {
            fail(
                format!(
                    "`{}` has no complete CPU bring-up to split the runs by",
                    o.mtrr
                ),
                "the capture needs `Enabling non-boot CPUs` and every `CPUn is up` line",
            )
        },
    )?;
    let total: usize = steps.iter().map(|(_, n)| n).sum();
    let mut table = TableModel::new(
        format!("MTRR checks per step of the resume in {}", o.mtrr),
        &["step", "MTRR checks"],
    )
    .numeric(&[1]);
    let mut bars = Vec::new();
    for (label, n) in &steps {
        table.rows.push(Row::new(vec![
            Cell::text(label.clone()),
            Cell::num(n.to_string()),
        ]));
        bars.push(crate::charts::Bar {
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
    let chart = crate::charts::HBar {
        id: super::chart_id(&o.id, &format!("{}-rendezvous", o.mtrr)),
        title: format!("MTRR checks per step, {}", o.mtrr),
        desc: format!(
            "Number of MTRR set-state runs in each step: before the secondary CPUs start, while each is brought up, and after all are up; {total} in all. The table below lists the same counts."
        ),
        axis_label: "MTRR checks".into(),
        bars,
    };
    let mut html = cx.templates.render("hbar", &chart.layout())?;
    html.push('\n');
    html.push_str(&table.render(cx)?);
    Ok(html)
}

fn diff(cx: &Resources<'_>, o: &MtrrOptions, m: &MtrrLog) -> Outcome<String> {
    let cpu = o.cpu.unwrap_or(0);
    let run = m
        .runs
        .iter()
        .find(|r| r.cpu == cpu && r.changed())
        .ok_or_else(|| {
            if m.runs.is_empty() {
                no_runs(&o.mtrr)
            } else {
                fail(
                    format!("CPU {cpu} has no run with changes in `{}`", o.mtrr),
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
    for change in &run.changes {
        if let RegisterChange::Variable {
            reg, before, after, ..
        } = change
        {
            let show = |r: &Option<kernlog::analysis::mtrr::VariableRange>| {
                r.map_or("disabled".to_string(), |r| r.to_string())
            };
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
    table.render(cx)
}

/// A table of address ranges: register, range, size, memory type.
fn range_table(title: String) -> TableModel {
    TableModel::new(title, &["register", "range", "size", "type"])
}

fn boot(cx: &Resources<'_>, o: &MtrrOptions, m: &MtrrLog) -> Outcome<String> {
    let t = m.boot_tables.first().ok_or_else(|| {
        fail(
            format!("`{}` has no boot-time MTRR table", o.mtrr),
            "boot with mtrr=debug and capture the `MTRR default type` lines",
        )
    })?;
    let mut table = range_table(format!("Boot-time MTRRs in {}", o.mtrr));
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
    table.render(cx)
}

fn proc(cx: &Resources<'_>, o: &MtrrOptions, m: &MtrrLog) -> Outcome<String> {
    let dump = m.proc_dumps.first().ok_or_else(|| {
        fail(
            format!("`{}` has no /proc/mtrr lines", o.mtrr),
            "capture `cat /proc/mtrr`",
        )
    })?;
    let mut table = range_table(format!("/proc/mtrr in {}", o.mtrr));
    for e in dump {
        table.rows.push(range_row(
            format!("reg{:02}", e.reg),
            format!("{}-{}", hex(e.base), hex(e.end())),
            e.size_bytes,
            e.mem_type,
        ));
    }
    table.render(cx)
}

/// One row of a register table: name, address range, size, memory type.
fn range_row(
    register: String,
    range: String,
    size: u64,
    mem_type: kernlog::analysis::mtrr::MemType,
) -> Row {
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
        if bytes >= scale && bytes.is_multiple_of(scale) {
            return format!("{} {name}", bytes / scale);
        }
    }
    format!("{bytes} B")
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeftypeOptions {
    /// A capture (a file name) or register values (a list of hex strings or numbers).
    deftype: yaml_serde::Value,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "id")]
    _id: Option<IgnoredAny>,
    /// Read by `common`; listed so that unknown options are still refused.
    #[serde(rename = "caption")]
    _caption: Option<IgnoredAny>,
}

/// IA32_MTRR_DEF_TYPE decoded: given values, or each CPU's value before and after its first
/// rewrite in a capture.
pub fn deftype(cx: &Resources<'_>, body: &str) -> Outcome<String> {
    let o: DeftypeOptions = options(body)?;
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
    let row = |label: String, d: DefType| {
        Row::new(vec![
            Cell::text(label),
            Cell::text(format!("{:#x}", d.raw)).class("kl-mono"),
            Cell::text(if d.enabled { "enabled" } else { "disabled" }),
            Cell::text(if d.fixed_enabled {
                "enabled"
            } else {
                "disabled"
            }),
            Cell::text(d.default_type.to_string()),
        ])
    };
    match o.deftype {
        yaml_serde::Value::Sequence(values) => {
            for v in values {
                let raw = match &v {
                    yaml_serde::Value::String(s) => {
                        u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
                    }
                    yaml_serde::Value::Number(n) => n.as_u64(),
                    _ => None,
                };
                let raw = raw.ok_or_else(|| {
                    let shown = yaml_serde::to_string(&v).unwrap_or_default();
                    fail(
                        format!(
                            "`{}` is not a 64-bit register value",
                            crate::expr::cut(shown.trim())
                        ),
                        "write values like 0xc06, at most 0xffffffffffffffff",
                    )
                })?;
                table.rows.push(row(String::new(), decode_deftype(raw)));
            }
        }
        yaml_serde::Value::String(file) => {
            let analysis = cx.data.analysis(&file)?;
            let m = &analysis.mtrr;
            if m.runs.is_empty() {
                return Err(no_runs(&file));
            }
            for cpu in m.cpus() {
                let Some(r) = m.runs.iter().find(|r| r.cpu == cpu) else {
                    continue;
                };
                if let Some(b) = r.deftype_before {
                    table.rows.push(row(format!("CPU {cpu} as found"), b));
                }
                if let Some(a) = r.deftype_after
                    && r.deftype_before.is_none_or(|b| b.raw != a.raw)
                {
                    table.rows.push(row(format!("CPU {cpu} written"), a));
                }
            }
        }
        _ => {
            return Err(fail(
                "`deftype` takes a capture or a list of register values",
                "write `deftype: mtrr/x.log` or `deftype: [0xc00, 0xc06]`",
            ));
        }
    }
    if table.rows.is_empty() {
        return Err(fail(
            "no value to decode",
            "list values like [0xc00, 0xc06]",
        ));
    }
    table.render(cx)
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
    }
}
