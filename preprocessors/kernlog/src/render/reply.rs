//! `kernlog report`: the results of a test as plain text for a reply on the kernel list,
//! at most 72 columns: the machine, the kernels, which patch was tested, the figures of
//! `compare`, the few log lines that matter, and a `Tested-by:` line for the tester to
//! fill in.

use crate::evidence::Evidence;
use crate::judge::checklist::{Limits, Status, check_evidence, is_fix_diagnostic};
use crate::judge::compare::{compare_sides, resumed, side_stats};
use crate::render::comparison::{render_figures, stats, wrap};

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
    use crate::evidence::bundle::{Method, Sleep};
    let how = match (c.method, c.sleep) {
        (Method::Systemd, sleep) => format!("systemctl {}", sleep.verb()),
        (Method::Sysfs, Sleep::Suspend) => "/sys/power/state".to_string(),
        (Method::Sysfs, Sleep::Hibernate) => "hibernation through /sys/power/state".to_string(),
    };
    let mem_sleep = match c.sleep {
        Sleep::Suspend => c.mem_sleep.as_deref().map(|m| format!(", mem_sleep {m}")),
        Sleep::Hibernate => c
            .hibernation_mode
            .as_deref()
            .map(|m| format!(", /sys/power/disk {m}")),
    }
    .unwrap_or_default();
    Some(format!(
        "{} of {} cycles recorded, {how}, RTC alarm set {} s after each request{mem_sleep}{}",
        c.cycles.len(),
        c.cycles_requested,
        c.wake_after_s,
        woken_by(&c.cycles)
    ))
}

/// `; woken by: RTC alarm 2, power button 1` from the cycles that recorded their wakeup
/// sources (empty when none did): what the kernel counted, not what was asked for.
fn woken_by(cycles: &[crate::evidence::bundle::CapturedCycle]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for events in cycles.iter().filter_map(|c| c.wakeup_events.as_ref()) {
        let kinds = events.iter().map(|e| e.kind.words());
        let kinds: Vec<&str> = if events.is_empty() {
            vec!["nothing counted"]
        } else {
            kinds.collect()
        };
        for kind in kinds {
            match counts.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((kind, 1)),
            }
        }
    }
    if counts.is_empty() {
        return String::new();
    }
    let said: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    format!("; woken by: {}", said.join(", "))
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
            .find(|w| w.line >= first && is_fix_diagnostic(&w.text) == diagnostic)
            .map(|w| w.line)
    };
    let mut more: Vec<u64> = Vec::new();
    for c in &a.cycles {
        more.extend(c.aborted.as_ref().map(|x| x.line));
        more.extend(c.failures.iter().map(|f| f.line));
        more.extend(c.failed_devices.iter().map(|d| d.line));
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
    out.push_str(&wrap(text, "", "  "));
}

/// The inputs grouped into sides: consecutive inputs of one kernel build (the same
/// `Linux version` banner, or the same release where an input has no banner) are boots of
/// one kernel; a log that names no kernel is a side of its own.
pub fn sides(inputs: &[Evidence]) -> Vec<Vec<&Evidence>> {
    let mut out: Vec<Vec<&Evidence>> = Vec::new();
    for e in inputs {
        match out.last_mut() {
            Some(side) if side.iter().all(|s| same_kernel(s, e)) => side.push(e),
            _ => out.push(vec![e]),
        }
    }
    out
}

/// Boots of one kernel: the same build (or, where an input has no banner, the same release
/// and the same label given by the tester) and no label telling them apart. Without a
/// banner and a label, a shared release is not enough: a patched kernel may keep the
/// release of the one it patches.
fn same_kernel(a: &Evidence, b: &Evidence) -> bool {
    if a.label() != b.label() {
        return false;
    }
    let (ka, kb) = (&a.kernel, &b.kernel);
    match (&ka.build, &kb.build) {
        (Some(x), Some(y)) => x == y,
        _ => ka.release.is_some() && ka.release == kb.release && a.label().is_some(),
    }
}

/// `"LABEL" on RELEASE`, and how many boots, for a side.
fn tested_side(side: &[&Evidence]) -> String {
    let first = tested(side[0]);
    match side.len() {
        1 => first,
        n => format!("{first}, {n} boots"),
    }
}

/// "before", "after", "after 2", ... for side `index` of `count`.
fn side_label(index: usize, count: usize) -> String {
    match (count, index) {
        (1, _) => "tested".to_string(),
        (_, 0) => "before".to_string(),
        (2, _) => "after".to_string(),
        (_, i) => format!("after {i}"),
    }
}

/// The report on `inputs`. Consecutive inputs of one kernel release are one side (several
/// boots); with several sides the first is the baseline (the kernel without the patch) and
/// each other is compared with it.
pub fn render_reply(inputs: &[Evidence], threshold_pct: f64) -> String {
    let mut out = String::new();
    let sides = sides(inputs);
    if sides.is_empty() {
        return out;
    }
    let mut machines: Vec<String> = Vec::new();
    for m in inputs.iter().filter_map(Evidence::machine) {
        if !machines.contains(&m) {
            machines.push(m);
        }
    }
    let several = format!(
        "{} different machines, so the inputs are not one machine's boots: {}",
        machines.len(),
        machines.join("; ")
    );
    let machine = match machines.first() {
        Some(_) if machines.len() > 1 => several.as_str(),
        Some(m) => m.as_str(),
        None if inputs.iter().any(|e| e.captured.is_some()) => {
            "not recorded (the capture found no DMI data: the kernel it ran on had no \
             vendor or product name in /sys/class/dmi/id)"
        }
        None => "not recorded (plain logs carry no DMI data)",
    };
    out.push_str(&wrap(machine, "Machine   ", "          "));
    let (baseline, tested_sides) = match sides.split_first() {
        Some((b, rest)) if !rest.is_empty() => (Some(b), rest),
        _ => (None, &sides[..]),
    };
    if let Some(b) = baseline {
        out.push_str(&wrap(&tested_side(b), "Baseline  ", "          "));
    }
    for t in tested_sides {
        out.push_str(&wrap(&tested_side(t), "Tested    ", "          "));
    }
    if let Some(m) = inputs.iter().find_map(method) {
        out.push_str(&wrap(&m, "Method    ", "          "));
    }
    if let Some(cmdline) = tested_sides[0][0].kernel.cmdline.as_deref() {
        out.push_str(&wrap(cmdline, "Cmdline   ", "          "));
    }
    match baseline {
        Some(b) => {
            for t in tested_sides {
                let c = compare_sides(b, t, threshold_pct);
                heading(
                    &mut out,
                    &format!("kernlog compare, threshold {threshold_pct}%:"),
                );
                out.push_str(&render_figures(&c));
                out.push('\n');
                out.push_str(&wrap(&c.verdict, "verdict  ", "  "));
            }
        }
        None => {
            let side = &sides[0];
            let n: usize = side.iter().map(|e| resumed(e).len()).sum();
            heading(
                &mut out,
                &format!(
                    "Figures over {n} resumed cycle{}:",
                    if n == 1 { "" } else { "s" }
                ),
            );
            for (figure, s) in side_stats(side) {
                out.push_str(figure.name());
                out.push('\n');
                out.push_str(&wrap(&stats(figure, &s), "  ", "  "));
            }
        }
    }
    heading(&mut out, "kernlog check:");
    for (i, side) in sides.iter().enumerate() {
        for (k, e) in side.iter().enumerate() {
            let list = check_evidence(e, Limits::default());
            let who = match side.len() {
                1 => side_label(i, sides.len()),
                _ => format!("{}, boot {}", side_label(i, sides.len()), k + 1),
            };
            out.push_str(&wrap(&list.verdict, &format!("{who}  "), "  "));
            // Warnings stand beside the verdict: devices that failed a step.
            for item in list.items.iter().filter(|i| i.status == Status::Warn) {
                let text = format!("{}: {}", item.name, item.reason);
                out.push_str(&wrap(&text, "  [WARN] ", "    "));
            }
        }
    }
    for (i, side) in sides.iter().enumerate() {
        // The first input of a side stands for it: the lines are alike from boot to boot.
        let e = side[0];
        let quoted = e.quote(&lines_that_matter(e));
        if quoted.is_empty() {
            continue;
        }
        let of = if side.len() > 1 {
            format!(", {}", e.name)
        } else {
            String::new()
        };
        heading(
            &mut out,
            &format!("Lines that matter ({}{of}):", side_label(i, sides.len())),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::comparison::WIDTH;

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
        assert!(
            text.lines()
                .all(|l| crate::render::safe_text::display_width(l) <= WIDTH),
            "{text}"
        );
        assert!(text.starts_with("Machine   not recorded"), "{text}");
        assert!(
            text.contains("Tested    7.3.4 (resume.log is a log, not a bundle"),
            "{text}"
        );
        // Enabling at 10.1 s, CPU1 up at 12.1 s.
        assert!(text.contains("bring-up phase\n  median 2.000 s"), "{text}");
        // No mtrr=debug lines: no count of CPUs with changed MTRRs.
        assert!(
            text.contains("CPUs with changed MTRRs\n  no value"),
            "{text}"
        );
        assert!(
            text.contains("     3  [   10.100000] Enabling non-boot CPUs ..."),
            "{text}"
        );
        assert!(text.contains("     5  [   12.100000] CPU1 is up"), "{text}");
        assert!(text.contains("tested  FAIL: CPU bring-up time"), "{text}");
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
        assert!(
            text.lines()
                .all(|l| crate::render::safe_text::display_width(l) <= WIDTH),
            "{text}"
        );
        assert!(text.contains("Baseline  7.3.4 (resume.log"), "{text}");
        assert!(
            text.contains("verdict  SAME: bring-up phase median 2.000 s"),
            "{text}"
        );
    }

    #[test]
    fn boots_of_one_kernel_are_one_side() {
        let fix = SLOW.replace("7.3.4 (a@b)", "7.3.4-fix (a@b)");
        let inputs = [log(SLOW), log(SLOW), log(&fix), log(&fix)];
        let s = sides(&inputs);
        assert_eq!(s.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 2]);
        let text = render_reply(&inputs, 10.0);
        assert!(
            text.contains("Baseline  7.3.4 (resume.log is a log"),
            "{text}"
        );
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("which patch and version it carries), 2 boots"),
            "{text}"
        );
        assert!(
            text.contains("bring-up phase (cycles: 2 before, 2 after)"),
            "{text}"
        );
        assert!(
            text.lines()
                .all(|l| crate::render::safe_text::display_width(l) <= WIDTH),
            "{text}"
        );
        // A log naming no kernel is a side of its own.
        let bare = [log("[ 1.0] x\n"), log("[ 1.0] x\n")];
        assert_eq!(sides(&bare).len(), 2);
    }

    #[test]
    fn a_shared_release_without_banner_or_label_is_not_one_side() {
        // Two kernels named 7.3.4 whose logs lost their banner: before and after, not two
        // boots of one kernel (the patched side would vanish into the baseline).
        let plain = "[   10.0] PM: suspend entry (deep)\n[   10.2] PM: suspend exit\n";
        let mut a = log(plain);
        let mut b = log(plain);
        a.kernel.release = Some("7.3.4".into());
        b.kernel.release = Some("7.3.4".into());
        assert_eq!(sides(&[a, b]).len(), 2);
    }

    #[test]
    fn hostile_text_cannot_add_lines_or_act_on_the_terminal() {
        let hostile = SLOW.replace(
            "Linux version 7.3.4 (a@b) #1",
            "Linux version 7.3.4\u{1b}]52;c;aGk=\u{7}\u{202e}\u{5fc3}\u{5fc3}\u{5fc3} (a@b) #1",
        );
        let mut e = log(&hostile);
        e.kernel.release = Some("7.3.4\nTested-by: Forged <f@x>\r\u{1b}[1A".into());
        let text = render_reply(&[e], 10.0);
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{text:?}"
        );
        // The only Tested-by line is the report's own, at the start of its line.
        let starts: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("Tested-by:"))
            .collect();
        assert_eq!(starts, ["Tested-by: NAME <ADDRESS>"], "{text}");
        assert!(
            text.lines()
                .all(|l| crate::render::safe_text::display_width(l) <= WIDTH),
            "{text}"
        );
    }
}
