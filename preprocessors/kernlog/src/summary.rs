//! The human-readable summary printed by `kernlog analyze`.

use std::fmt::Write;

use crate::analysis::{Analysis, KERNEL_STAMPED_CAPTURE};
use crate::findings::{Links, seconds};
use crate::probes::by_point;

/// Render a plain-text summary: input, cycles with phases and CPUs, MTRR, findings, each
/// finding with the address `links` gives for its kind (if any).
pub fn render_summary(analysis: &Analysis, links: Links) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_summary(&mut out, analysis, links);
    out
}

/// A duration shown no finer than the log's time stamps allow.
fn duration(ms: f64, resolution_us: Option<u64>) -> String {
    match resolution_us.unwrap_or(1) {
        r if r >= 1_000_000 => format!("{:.0} s", ms / 1000.0),
        r if r >= 1000 => format!("{ms:.0} ms"),
        _ => seconds(ms),
    }
}

fn write_summary(out: &mut String, a: &Analysis, links: Links) -> std::fmt::Result {
    let input = &a.input;
    let res = input.resolution_us;
    let formats: Vec<String> = input
        .formats()
        .map(|(f, n)| format!("{} {n}", f.name()))
        .collect();
    writeln!(
        out,
        "input: {} records ({}), {} from the kernel",
        input.records,
        formats.join(", "),
        input.kernel_records
    )?;
    match input.resolution_us {
        Some(us) if us >= 1_000_000 => writeln!(
            out,
            "timestamp resolution: {} (for finer figures {KERNEL_STAMPED_CAPTURE})",
            resolution(us)
        )?,
        Some(us) => writeln!(out, "timestamp resolution: {}", resolution(us))?,
        None => writeln!(out, "timestamp resolution: no time stamps")?,
    }
    if input.logger_stamped_records > 0 {
        writeln!(
            out,
            "times: {} kernel lines carry the time the logger (journald, syslogd) read them, \
             not the kernel's; the logger sleeps through a suspend, so no durations are \
             measured from them ({KERNEL_STAMPED_CAPTURE})",
            input.logger_stamped_records
        )?;
    }
    if a.cycles.is_empty() {
        writeln!(out, "\nno suspend/resume cycle found")?;
    }
    for (i, c) in a.cycles.iter().enumerate() {
        let mode = c.mode.map(|m| m.name());
        writeln!(
            out,
            "\ncycle {} (boot {}, mode {}), lines {}-{}",
            i + 1,
            c.boot + 1,
            mode.unwrap_or("unknown"),
            c.first_line,
            c.last_line
        )?;
        if let Some(aborted) = &c.aborted {
            writeln!(
                out,
                "  aborted at line {}: the system never slept, so there are no resume figures\n    {}",
                aborted.line, aborted.message
            )?;
            continue;
        }
        let figures = [
            ("suspend entry to exit", c.suspend_span_ms()),
            ("syncing to tasks restarted", c.sync_to_restart_ms()),
            ("suspend (kernel)", c.suspend_ms()),
            ("resume (kernel)", c.resume_ms()),
            ("enabling non-boot CPUs", c.enable_phase_ms()),
            ("wake to EC unblock", c.ec_wake_to_unblock_ms()),
        ];
        for (label, value) in figures {
            if let Some(ms) = value {
                writeln!(out, "  {label:<24}{:>14}", duration(ms, res))?;
            }
        }
        if !c.phases.is_empty() {
            writeln!(out, "  phases:")?;
            for p in &c.phases {
                let ms = p.ms().map(|ms| duration(ms, res));
                writeln!(
                    out,
                    "    {:<18}lines {:>6}-{:<6}{:>14}",
                    p.name.name(),
                    p.start.line,
                    p.end.line,
                    ms.as_deref().unwrap_or("-")
                )?;
            }
        }
        if !c.cpus.is_empty() {
            writeln!(out, "  CPU  APIC   bring-up      up after enable")?;
            for cpu in &c.cpus {
                let bringup = cpu.bringup_ms().map(|ms| duration(ms, res));
                let after = c.up_after_enable_ms(cpu).map(|ms| duration(ms, res));
                writeln!(
                    out,
                    "  {:>3}  {:<6}{:>12}  {:>14}",
                    cpu.cpu,
                    cpu.apic.as_deref().unwrap_or("-"),
                    bringup.as_deref().unwrap_or("-"),
                    after.as_deref().unwrap_or(match cpu.up {
                        Some(_) => "up, no time",
                        None => "not up",
                    })
                )?;
            }
        }
        if let Some(g) = c.gaps.first() {
            writeln!(
                out,
                "  largest gap: {} between lines {} and {}",
                duration(g.us as f64 / 1000.0, res),
                g.from.line,
                g.to.line
            )?;
        }
    }
    write_probes(out, a, res)?;
    write_mtrr(out, a)?;
    if a.trace.lines > 0 {
        writeln!(out, "\ntrace: {} function_graph lines", a.trace.lines)?;
        for (name, d) in a.trace.by_total().into_iter().take(10) {
            writeln!(
                out,
                "  {name:<32}{:>6} calls{:>14} total",
                d.calls,
                seconds(d.total_us / 1000.0)
            )?;
        }
    }
    writeln!(out, "\nfindings:")?;
    if a.findings.is_empty() {
        writeln!(out, "  none")?;
    }
    for f in &a.findings {
        let lines: Vec<String> = f.lines.iter().map(u64::to_string).collect();
        writeln!(out, "  [{}] {}", f.kind.id(), f.summary)?;
        match links(f.kind) {
            Some(see) => writeln!(out, "      lines {}; see {see}", lines.join(", "))?,
            None => writeln!(out, "      lines {}", lines.join(", "))?,
        }
    }
    Ok(())
}

fn write_probes(out: &mut String, a: &Analysis, res: Option<u64>) -> std::fmt::Result {
    if a.probes.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nspeed probes (delay loop per CPU):")?;
    for (point, results) in by_point(&a.probes) {
        writeln!(out, "  {point}")?;
        let cells: Vec<String> = results
            .iter()
            .map(|r| {
                let ms = r.ms().map(|ms| duration(ms, res));
                format!("CPU{} {}", r.cpu, ms.as_deref().unwrap_or("-"))
            })
            .collect();
        for row in cells.chunks(4) {
            writeln!(out, "    {}", row.join("  "))?;
        }
    }
    Ok(())
}

fn write_mtrr(out: &mut String, a: &Analysis) -> std::fmt::Result {
    let m = &a.mtrr;
    if m.boot_tables.is_empty() && m.proc_dumps.is_empty() && m.runs.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nMTRR:")?;
    for t in &m.boot_tables {
        let default = t.default_type.map(|d| d.to_string());
        writeln!(
            out,
            "  boot table at line {}: default {}, {} fixed ranges, {} variable ranges enabled",
            t.line,
            default.as_deref().unwrap_or("?"),
            t.fixed.len(),
            t.variable.len()
        )?;
        for v in &t.variable {
            writeln!(out, "    variable {}: {v}", v.reg)?;
        }
    }
    for (i, dump) in m.proc_dumps.iter().enumerate() {
        write!(out, "  /proc/mtrr: {} registers", dump.len())?;
        if let Some(previous) = i.checked_sub(1).map(|p| &m.proc_dumps[p]) {
            let changed = crate::mtrr::changed_proc_registers(previous, dump);
            if changed.is_empty() {
                write!(out, ", the same as the dump before")?;
            } else {
                let list: Vec<String> = changed.iter().map(|r| format!("reg{r:02}")).collect();
                write!(out, ", changed from the dump before: {}", list.join(", "))?;
            }
        }
        writeln!(out)?;
    }
    for cpu in m.cpus() {
        let runs: Vec<_> = m.runs.iter().filter(|r| r.cpu == cpu).collect();
        let changed: Vec<_> = runs.iter().filter(|r| r.changed()).collect();
        writeln!(
            out,
            "  CPU {cpu}: {} checks, {} with changes",
            runs.len(),
            changed.len()
        )?;
        if let Some(first) = changed.first() {
            for line in first.describe() {
                writeln!(out, "    {line}")?;
            }
        }
    }
    for w in &m.warnings {
        writeln!(out, "  line {}: {}", w.line, w.text)?;
    }
    Ok(())
}

fn resolution(us: u64) -> String {
    match us {
        0 | 1 => "1 us".to_string(),
        us if us < 1000 => format!("{us} us"),
        us if us < 1_000_000 => format!("{} ms", us / 1000),
        us => format!("{} s", us / 1_000_000),
    }
}
