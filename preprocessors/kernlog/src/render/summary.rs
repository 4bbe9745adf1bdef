//! The human-readable summary printed by `kernlog analyze`.

use std::fmt::Write;

use crate::analysis::findings::{Links, seconds};
use crate::analysis::probes::by_point;
use crate::analysis::resume::{AsleepSource, Cycle};
use crate::analysis::{Analysis, KERNEL_STAMPED_CAPTURE};
use crate::render::safe_text::defuse_trailer_lines;

/// Render a plain-text summary: input, cycles with phases and CPUs, MTRR, findings, each
/// finding with the address `links` gives for its kind (if any). Text from the log (device
/// names, APIC ids, probe points, function names) is shown with its control, bidi and
/// zero-width characters made visible ([`crate::render::safe_text::visible`]), so that printing the
/// summary on a terminal is safe.
pub fn render_summary(analysis: &Analysis, links: Links) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_summary(&mut out, analysis, links);
    crate::render::safe_text::visible(&out).into_owned()
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
    write_answers(out, a)?;
    writeln!(out)?;
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
    let n = input.not_kept;
    if n.any() {
        writeln!(
            out,
            "limits: read but not kept: {} cycles, {} lines about CPUs, {} probes, {} MTRR \
             items, {} trace lines (kernlog keeps a bounded part of endless input; see its \
             README)",
            n.cycles, n.cpu_lines, n.probes, n.mtrr, n.trace
        )?;
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
                "  aborted at line {}: the system never slept, so there are no resume figures\n{}",
                aborted.line,
                defuse_trailer_lines(&format!("    {}", aborted.message))
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
            let row = format!(
                "  {name:<32}{:>6} calls{:>14} total",
                d.calls,
                seconds(d.total_us / 1000.0)
            );
            writeln!(out, "{}", defuse_trailer_lines(&row))?;
        }
    }
    writeln!(out, "\nfindings:")?;
    if a.findings.is_empty() {
        writeln!(out, "  none")?;
    }
    for f in &a.findings {
        let mut lines: Vec<String> = f.lines.iter().take(20).map(u64::to_string).collect();
        if f.lines.len() > 20 {
            lines.push(format!("and {} more", f.lines.len() - 20));
        }
        writeln!(out, "  [{}] {}", f.kind.id(), f.summary)?;
        match links(f.kind) {
            Some(see) => writeln!(out, "      lines {}; see {see}", lines.join(", "))?,
            None => writeln!(out, "      lines {}", lines.join(", "))?,
        }
    }
    Ok(())
}

/// The first lines: for every attempt, whether it slept and resumed (with its figures), was
/// aborted (why, with the lines that say so) or did not resume.
fn write_answers(out: &mut String, a: &Analysis) -> std::fmt::Result {
    let res = a.input.resolution_us;
    if a.cycles.is_empty() {
        return writeln!(out, "no suspend/resume cycle found");
    }
    let n = a.cycles.len();
    writeln!(
        out,
        "{n} suspend/resume {}:",
        if n == 1 { "cycle" } else { "cycles" }
    )?;
    for (i, c) in a.cycles.iter().enumerate() {
        write!(out, "  {}. lines {}-{}: ", i + 1, c.first_line, c.last_line)?;
        if let Some(aborted) = &c.aborted {
            let after = c
                .time_to_abort_ms()
                .map(|ms| format!(" {} after the entry", duration(ms, res)))
                .unwrap_or_default();
            writeln!(
                out,
                "aborted{after}, the system never slept: {}",
                aborted.cause.describe()
            )?;
            writeln!(out, "       line {}: {}", aborted.line, aborted.message)?;
            for d in &aborted.details {
                writeln!(out, "       line {}: {}", d.line, d.text)?;
            }
            write_failed_devices(out, c)?;
            continue;
        }
        if !c.resumed() {
            let next_boot = a.cycles.get(i + 1).filter(|next| next.boot > c.boot);
            did_not_resume(out, next_boot.map(|next| next.first_line))?;
            write_failed_devices(out, c)?;
            continue;
        }
        let mut figures: Vec<String> = [
            ("suspend entry to exit", c.suspend_span_ms()),
            ("syncing to tasks restarted", c.sync_to_restart_ms()),
            ("resume (kernel)", c.resume_ms()),
            ("enabling non-boot CPUs", c.enable_phase_ms()),
        ]
        .into_iter()
        .filter_map(|(label, ms)| Some(format!("{label} {}", duration(ms?, res))))
        .collect();
        if let Some(asleep) = c.asleep {
            figures.push(format!(
                "asleep {:.3} s ({})",
                asleep.seconds,
                asleep_source(asleep.source)
            ));
        }
        let not_up = c.cpus_not_up();
        let cpus = match not_up.len() {
            0 => String::new(),
            _ => {
                let list: Vec<String> = not_up.iter().map(u32::to_string).collect();
                format!("; CPU {} did not come back up", list.join(", "))
            }
        };
        match figures.is_empty() {
            false => writeln!(out, "slept and resumed: {}{cpus}", figures.join(", "))?,
            true if a.input.logger_stamped_records > 0 => writeln!(
                out,
                "slept and resumed (no durations: the times are the logger's){cpus}"
            )?,
            true => writeln!(
                out,
                "slept and resumed (the log shows no span to time){cpus}"
            )?,
        }
        write_failed_devices(out, c)?;
    }
    Ok(())
}

/// Where the time asleep was read, in words.
pub fn asleep_source(source: AsleepSource) -> &'static str {
    match source {
        AsleepSource::Timekeeping => "the timekeeping line",
        AsleepSource::WallClock => "the wall times of the PM lines",
    }
}

/// One line per device that failed a step of the cycle, and how many more were not kept.
fn write_failed_devices(out: &mut String, c: &Cycle) -> std::fmt::Result {
    let abort_line = c.aborted.as_ref().map(|a| a.line);
    for d in c
        .failed_devices
        .iter()
        .filter(|d| Some(d.line) != abort_line)
    {
        writeln!(
            out,
            "       line {}: device {} failed to {}: error {}",
            d.line, d.device, d.step, d.error
        )?;
    }
    if c.failed_devices_not_kept > 0 {
        writeln!(
            out,
            "       and {} more failed devices",
            c.failed_devices_not_kept
        )?;
    }
    Ok(())
}

/// An attempt with no resume after it: a new boot follows, or the log ends first.
fn did_not_resume(out: &mut String, next_boot_line: Option<u64>) -> std::fmt::Result {
    match next_boot_line {
        Some(line) => writeln!(
            out,
            "did not resume: the log shows no resume, and a new boot follows (line {line})"
        ),
        None => writeln!(
            out,
            "the log ends during it, with no resume line: cut off there, or the machine never \
             came back"
        ),
    }
}

fn write_probes(out: &mut String, a: &Analysis, res: Option<u64>) -> std::fmt::Result {
    if a.probes.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nspeed probes (delay loop per CPU):")?;
    for (point, results) in by_point(&a.probes) {
        // A probe's name comes from the log: behind a word of the summary's own, no line
        // starts with it, and so with no trailer it could spell.
        writeln!(out, "{}", defuse_trailer_lines(&format!("  at {point}")))?;
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
            let changed = crate::analysis::mtrr::changed_proc_registers(previous, dump);
            if changed.is_empty() {
                write!(out, ", the same as the dump before")?;
            } else {
                let list: Vec<String> = changed.iter().map(|r| format!("reg{r:02}")).collect();
                write!(out, ", changed from the dump before: {}", list.join(", "))?;
            }
        }
        writeln!(out)?;
    }
    for (cpu, runs) in m.runs_by_cpu() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_named_like_a_trailer_starts_no_line() {
        let log = "[ 10.000000] CPU 1 when Fixes: 0123456789ab, looping...\n\
                   [ 10.100000] CPU 1 ...done\n";
        let summary = render_summary(&crate::analyze_str(log), &|_| None);
        assert!(summary.contains("  at Fixes: 0123456789ab"), "{summary}");
        // An abort's message and a traced function's name start lines of their own.
        let log = "[ 10.000000] PM: suspend entry (deep)\n\
                   [ 10.010000] Link: https://evil.example/x: PM: failed to suspend: error -16\n\
                   [ 10.020000] PM: suspend exit\n\
                   x-1 [000] 11.000000: funcgraph_entry: 1.000 us | Link: https://evil.example/y();\n";
        let summary = render_summary(&crate::analyze_str(log), &|_| None);
        for line in summary.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            assert_ne!(first, "Link:", "{summary}");
        }
        for line in summary.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            assert_ne!(first, "Fixes:", "{summary}");
        }
    }
    use crate::analysis::analyze_str;

    fn answers(log: &str) -> Vec<String> {
        let summary = render_summary(&analyze_str(log), &|_| None);
        summary
            .lines()
            .take_while(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn every_attempt_is_answered_first() {
        // `journalctl --no-hostname -o short-monotonic`: two aborted attempts and a resume.
        let log = "\
[  100.000000] kernel: PM: suspend entry (deep)
[  100.010000] kernel: Freezing user space processes
[  120.020000] kernel: Freezing user space processes failed after 20.010 seconds (1 tasks refusing to freeze, wq_busy=0):
[  120.020100] kernel: task:fuse            state:D stack:0     pid:1234  ppid:1
[  120.100000] kernel: PM: suspend exit
[  200.000000] kernel: PM: suspend entry (deep)
[  200.100000] kernel: usb 1-1: PM: failed to suspend async: error -16
[  200.100100] kernel: PM: Some devices failed to suspend, or early wake event detected
[  200.200000] kernel: PM: suspend exit
[  300.000000] kernel: PM: suspend entry (deep)
[  300.200000] kernel: ACPI: PM: Low-level resume complete
[  300.210000] kernel: Enabling non-boot CPUs ...
[  300.250000] kernel: CPU1 is up
[  300.500000] kernel: PM: suspend exit
[  400.000000] kernel: PM: suspend entry (s2idle)
[  400.100000] kernel: PM: Wakeup pending, aborting suspend
[  400.100100] kernel: PM: last active wakeup source: rtc0
[  400.100200] kernel: PM: Some devices failed to suspend, or early wake event detected
[  400.200000] kernel: PM: suspend exit
[  500.000000] kernel: PM: suspend entry (deep)
[  500.100000] kernel: Disabling non-boot CPUs ...
";
        let lines = answers(log);
        assert_eq!(lines[0], "5 suspend/resume cycles:");
        assert!(lines[1].starts_with("  1. lines 1-5: aborted") && lines[1].contains("freezer"));
        assert!(lines[2].contains("line 3: Freezing user space processes failed"));
        assert!(lines[3].contains("line 4: task:fuse"));
        assert!(lines[4].starts_with("  2. lines 6-9: aborted"));
        assert!(
            lines[4].ends_with("suspend callback failed"),
            "{}",
            lines[4]
        );
        assert_eq!(
            lines[5],
            "       line 7: usb 1-1: PM: failed to suspend async: error -16"
        );
        assert_eq!(
            lines[6],
            "  3. lines 10-14: slept and resumed: suspend entry to exit 500.000 ms, \
             resume (kernel) 300.000 ms, enabling non-boot CPUs 40.000 ms"
        );
        assert!(
            lines[7].ends_with("a wakeup event was pending"),
            "{}",
            lines[7]
        );
        // `PM: Wakeup pending, aborting suspend` is the kernel's own abort line.
        assert!(lines[8].contains("line 16: PM: Wakeup pending"));
        assert!(lines[9].contains("line 17: PM: last active wakeup source: rtc0"));
        assert!(lines[10].starts_with("  5. lines 20-21: "), "{}", lines[10]);
        assert_eq!(lines.len(), 11);
    }

    #[test]
    fn a_logger_without_durations_and_no_cycle() {
        let log = "\
Dec 01 10:00:00.100000 kernel: PM: suspend entry (deep)
Dec 01 10:00:00.200000 kernel: ACPI: PM: Low-level resume complete
Dec 01 10:00:00.300000 kernel: PM: suspend exit
";
        assert_eq!(
            answers(log)[1],
            "  1. lines 1-3: slept and resumed (no durations: the times are the logger's)"
        );
        assert_eq!(
            answers("[    1.000000] hello\n"),
            ["no suspend/resume cycle found"]
        );
    }

    #[test]
    fn what_a_limit_left_out_is_said() {
        let mut log = String::from("[    1.000000] Enabling non-boot CPUs ...\n");
        for cpu in 1..=crate::analysis::limits::CPUS_KEPT + 5 {
            log.push_str(&format!("[    2.000000] CPU{cpu} is up\n"));
        }
        let summary = render_summary(&analyze_str(&log), &|_| None);
        assert!(
            summary.contains("limits: read but not kept: 0 cycles, 5 lines about CPUs, 0 probes"),
            "{summary}"
        );
    }

    #[test]
    fn log_text_reaches_the_terminal_inert() {
        let log = "\
[    1.000000] PM: suspend entry (deep)
[    1.050000] Freezing user space processes failed after 20.010 seconds (1 tasks refusing to freeze, wq_busy=0):
[    1.100000] task:usb\u{1b}]52;c;aGk=\u{7} state:D stack:0 pid:12 ppid:1
[    1.200000] smpboot: Booting Node 0 Processor 1 APIC 0x2\u{202e}
";
        let summary = render_summary(&analyze_str(log), &|_| None);
        assert!(
            !summary.contains(['\u{1b}', '\u{7}', '\u{202e}']),
            "{summary}"
        );
        assert!(summary.contains("line 3: task:usb\\x1b]52;c;aGk=\\x07 state:D"));
    }
}
