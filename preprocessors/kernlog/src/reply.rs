//! `kernlog report`: the results of a test as plain text for a reply on the kernel list,
//! at most 72 columns: the machine, the kernels, which patch was tested, the figures of
//! `compare`, the few log lines that matter, and a `Tested-by:` line for the tester to
//! fill in.

use crate::checklist::{FIX_DIAGNOSTIC, Limits, check_evidence};
use crate::compare::{compare, render_figures, resumed, side_stats, stats, wrap};
use crate::evidence::Evidence;

/// At most this many log lines are quoted per input.
const QUOTED_LINES: usize = 6;

/// `"LABEL" on RELEASE`, or what is known of it.
fn tested(e: &Evidence) -> String {
    let release = e.kernel.release.as_deref().unwrap_or("an unnamed kernel");
    match e.label() {
        Some(label) => format!("\"{label}\" on {release}"),
        None => format!(
            "{release} ({} is a log, not a bundle: say which patch and version it carries)",
            e.name
        ),
    }
}

fn method(e: &Evidence) -> Option<String> {
    let c = &e.captured.as_ref()?.capture;
    let how = match c.method {
        crate::bundle::Method::Systemd => "systemctl suspend",
        crate::bundle::Method::Sysfs => "/sys/power/state",
    };
    let mem_sleep = c
        .mem_sleep
        .as_deref()
        .map(|m| format!(", mem_sleep {m}"))
        .unwrap_or_default();
    Some(format!(
        "{} of {} cycles recorded, {how}, RTC wake after {} s{mem_sleep}",
        c.cycles.len(),
        c.cycles_requested,
        c.wake_after_s
    ))
}

/// The lines worth quoting: the bring-up of the slowest CPU's cycle (its Enabling line,
/// the slowest CPU's Booting and up lines), the fix's diagnostic, the first MTRR warning,
/// aborted attempts and CPUs that failed.
fn lines_that_matter(e: &Evidence) -> Vec<u64> {
    let a = &e.analysis;
    let mut lines = Vec::new();
    let slowest = resumed(e)
        .into_iter()
        .flat_map(|c| c.cpus.iter().map(move |cpu| (c, cpu)))
        .filter_map(|(c, cpu)| cpu.bringup_ms().map(|ms| (ms, c, cpu)))
        .max_by(|x, y| x.0.total_cmp(&y.0));
    if let Some((_, c, cpu)) = slowest {
        lines.extend(c.enable_start.map(|e| e.line));
        lines.extend(cpu.booting.map(|e| e.line));
        lines.extend(cpu.up.map(|e| e.line));
        lines.extend(c.enable_finished().map(|e| e.line));
    }
    // Boot-time MTRR messages before the first suspend are not the resume's.
    let first = a.cycles.first().map_or(u64::MAX, |c| c.first_line);
    let warning = |diagnostic: bool| {
        a.mtrr
            .warnings
            .iter()
            .find(|w| w.line >= first && w.text.contains(FIX_DIAGNOSTIC) == diagnostic)
            .map(|w| w.line)
    };
    let mut more: Vec<u64> = Vec::new();
    for c in &a.cycles {
        more.extend(c.aborted.as_ref().map(|x| x.line));
        more.extend(c.failures.iter().map(|f| f.line));
    }
    // Most telling first: what went wrong, the fix's diagnostic, then the bring-up.
    let mut picked: Vec<u64> = more.into_iter().take(2).collect();
    picked.extend(warning(false));
    picked.extend(warning(true));
    picked.extend(lines);
    let mut lines = picked;
    lines.sort_unstable();
    lines.dedup();
    lines.truncate(QUOTED_LINES);
    lines
}

fn heading(out: &mut String, text: &str) {
    out.push('\n');
    out.push_str(text);
    out.push('\n');
}

/// The report on `inputs`: the first is the baseline (the kernel without the patch) when
/// there are several, and each other is compared with it.
pub fn render_reply(inputs: &[Evidence], threshold_pct: f64) -> String {
    let mut out = String::new();
    let Some(first) = inputs.first() else {
        return out;
    };
    let machines: Vec<String> = inputs.iter().filter_map(Evidence::machine).collect();
    out.push_str(&wrap(
        machines
            .first()
            .map_or("not recorded (plain logs carry no DMI data)", |m| m),
        "Machine:  ",
        "          ",
    ));
    let (baseline, tested_ones) = if inputs.len() > 1 {
        (Some(first), &inputs[1..])
    } else {
        (None, inputs)
    };
    if let Some(b) = baseline {
        out.push_str(&wrap(&tested(b), "Baseline: ", "          "));
    }
    for t in tested_ones {
        out.push_str(&wrap(&tested(t), "Tested:   ", "          "));
    }
    for e in inputs {
        if let Some(m) = method(e) {
            out.push_str(&wrap(&m, "Method:   ", "          "));
            break;
        }
    }
    if let Some(cmdline) = tested_ones
        .first()
        .and_then(|t| t.kernel.cmdline.as_deref())
    {
        out.push_str(&wrap(cmdline, "Cmdline:  ", "          "));
    }
    match baseline {
        Some(b) => {
            for t in tested_ones {
                let c = compare(b, t, threshold_pct);
                heading(
                    &mut out,
                    &format!("kernlog compare, threshold {threshold_pct}%:"),
                );
                out.push_str(&render_figures(&c));
                out.push('\n');
                out.push_str(&wrap(&c.verdict, "", "  "));
            }
        }
        None => {
            let n = resumed(first).len();
            heading(
                &mut out,
                &format!(
                    "Figures over {n} resumed cycle{}:",
                    if n == 1 { "" } else { "s" }
                ),
            );
            for (figure, s) in side_stats(first) {
                out.push_str(&wrap(&stats(&s), &format!("{:<16}", figure.name()), "  "));
            }
        }
    }
    heading(&mut out, "kernlog check:");
    for e in inputs {
        let list = check_evidence(e, Limits::default());
        out.push_str(&wrap(
            &list.verdict,
            &format!("{}: ", side(e, inputs)),
            "  ",
        ));
    }
    for e in inputs {
        let quoted = e.quote(&lines_that_matter(e));
        if quoted.is_empty() {
            continue;
        }
        heading(
            &mut out,
            &format!("Lines that matter ({}):", side(e, inputs)),
        );
        for (line, text) in quoted {
            out.push_str(&wrap(&text, &format!("{line:>6}  "), "          "));
        }
    }
    out.push_str(
        "\nFill in your name and address, and keep the line only if the results\n\
         show the patch working for you:\n\n\
         Tested-by: NAME <ADDRESS>\n",
    );
    out
}

/// "before", "after", "after 2", ... by position.
fn side(e: &Evidence, inputs: &[Evidence]) -> String {
    let index = inputs.iter().position(|x| std::ptr::eq(x, e)).unwrap_or(0);
    match (inputs.len(), index) {
        (1, _) => "tested".to_string(),
        (_, 0) => "before".to_string(),
        (2, _) => "after".to_string(),
        (_, i) => format!("after {i}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::WIDTH;

    fn log(text: &str) -> Evidence {
        Evidence::from_log("resume.log", text.as_bytes()).unwrap()
    }

    const SLOW: &str = "\
[    0.000000] Linux version 7.3.4 (a@b) #1
[   10.000000] PM: suspend entry (deep)
[   10.100000] Enabling non-boot CPUs ...
[   10.100100] smpboot: Booting Node 0 Processor 1 APIC 0x2
[   12.100000] CPU1 is up
[   12.200000] PM: suspend exit
";

    #[test]
    fn one_log_gives_its_figures_its_lines_and_an_empty_tested_by() {
        let text = render_reply(&[log(SLOW)], 10.0);
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(text.starts_with("Machine:  not recorded"), "{text}");
        assert!(
            text.contains("Tested:   7.3.4 (resume.log is a log, not a bundle"),
            "{text}"
        );
        // Enabling at 10.1 s, CPU1 up at 12.1 s.
        assert!(text.contains("bring-up phase  median 2.000 s"), "{text}");
        assert!(
            text.contains("     3  [   10.100000] Enabling non-boot CPUs ..."),
            "{text}"
        );
        assert!(text.contains("     5  [   12.100000] CPU1 is up"), "{text}");
        assert!(text.contains("tested: FAIL: CPU bring-up time"), "{text}");
        assert!(text.ends_with("Tested-by: NAME <ADDRESS>\n"), "{text}");
    }

    #[test]
    fn long_lines_wrap_at_72_columns() {
        let long = SLOW.replace(
            "Linux version 7.3.4 (a@b) #1",
            &format!("Linux version 7.3.4-{} (a@b) #1", "x".repeat(150)),
        ) + &format!(
            "[   12.300000] mtrr: your CPUs had {} MTRR settings\n",
            "odd ".repeat(30)
        );
        let text = render_reply(&[log(SLOW), log(&long)], 10.0);
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(text.contains("Baseline: 7.3.4 (resume.log"), "{text}");
        assert!(
            text.contains("SAME: bring-up phase median 2.000 s before"),
            "{text}"
        );
    }
}
