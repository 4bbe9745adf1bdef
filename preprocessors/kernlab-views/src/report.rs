//! The views of `kernlog report --html` and of the notebook's page "Analyse your own log":
//! for each input (a log or a capture bundle) what it was taken on, each resumed cycle's
//! phase timeline, bring-up chart and MTRR diff, the captured MTRRs, the findings and the
//! checklist of `kernlog check`; above them, the text of `kernlog report`.

use std::fmt::Write as _;

use kernlog::analysis::findings::Links;
use kernlog::evidence::bundle::KERNEL_LOG;
use kernlog::judge::compare::resumed;
use kernlog::{Evidence, Limits};

use crate::analysis::CycleOf;
use crate::error::Result;
use crate::escape::escape;
use crate::templates::Templates;

/// At most this many cycles of one input get their charts.
pub const CYCLES_SHOWN: usize = 10;

/// The log's name in the views' titles: a bundle's log file, or the last part of the name
/// the input was given (`standard input` for `-`).
fn log_name(e: &Evidence) -> String {
    if e.captured.is_some() {
        return KERNEL_LOG.to_string();
    }
    match e.name.rsplit(['/', '\\']).next() {
        Some(name) if e.name != "-" && !name.is_empty() => name.to_string(),
        _ => "standard input".to_string(),
    }
}

/// The views of input `index` (numbered from 0, for the charts' ids) as one `<section>`,
/// its heading an `<h2>`; each finding links where `links` says.
pub fn section(t: &Templates, e: &Evidence, index: usize, links: Links) -> Result<String> {
    let mut out = String::new();
    let _ = writeln!(out, "<section>\n<h2>{}</h2>", escape(&e.name));
    let mut facts = Vec::new();
    if let Some(label) = e.label() {
        facts.push(("tested", label.to_string()));
    }
    if let Some(release) = &e.kernel.release {
        facts.push(("kernel", release.clone()));
    }
    if let Some(cmdline) = &e.kernel.cmdline {
        facts.push(("command line", cmdline.clone()));
    }
    if let Some(machine) = e.machine() {
        facts.push(("machine", machine));
    }
    let n = e.analysis.cycles.len();
    let shown = resumed(e);
    let resumed: Vec<usize> = (0..n)
        .filter(|&i| {
            shown
                .iter()
                .any(|c| std::ptr::eq(*c, &e.analysis.cycles[i]))
        })
        .collect();
    facts.push((
        "cycles",
        format!(
            "{n} suspend/resume cycle{}, {} of them resumed with a CPU bring-up",
            if n == 1 { "" } else { "s" },
            resumed.len()
        ),
    ));
    out.push_str("<dl>\n");
    for (k, v) in facts {
        let _ = writeln!(out, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
    }
    out.push_str("</dl>\n");
    for &i in resumed.iter().take(CYCLES_SHOWN) {
        cycle(&mut out, t, e, index, i)?;
    }
    if resumed.len() > CYCLES_SHOWN {
        let more = resumed.len() - CYCLES_SHOWN;
        let _ = writeln!(out, "<p>{more} more cycles not shown.</p>");
    }
    if let Some(table) = match &e.captured {
        Some(c) => crate::bundle::dumps(t, c)?,
        None => None,
    } {
        out.push_str("<h3>Captured MTRRs</h3>\n");
        out.push_str(&table);
        out.push('\n');
    }
    out.push_str("<h3>Findings</h3>\n");
    if e.analysis.findings.is_empty() {
        out.push_str("<p>None.</p>\n");
    } else {
        out.push_str(&crate::verdicts::findings(t, &e.analysis.findings, links)?);
    }
    out.push_str("<h3>Checklist of kernlog check</h3>\n");
    let list = kernlog::check(e, Limits::default());
    out.push_str(&crate::verdicts::checklist(t, &list)?);
    out.push_str("</section>\n");
    Ok(out)
}

/// Cycle `i` of input `index`: its timeline (when it has a complete phase), its bring-up
/// chart and table, and the MTRR diff of the first CPU whose registers were rewritten in
/// it (the boot CPU's restore, or an AP's when the firmware changed only the APs).
fn cycle(out: &mut String, t: &Templates, e: &Evidence, index: usize, i: usize) -> Result<()> {
    let _ = writeln!(out, "<h3>Cycle {}</h3>", i + 1);
    let file = log_name(e);
    let analysis = &e.analysis;
    let (timeline, bringup) = (
        format!("in{index}-c{i}-timeline"),
        format!("in{index}-c{i}-bringup"),
    );
    let of = |id| CycleOf {
        analysis,
        file: &file,
        index: i,
        id: Some(id),
    };
    if analysis.cycles[i].phases.is_empty() {
        out.push_str("<p>No complete phase in this cycle: no timeline.</p>\n");
    } else {
        out.push_str(&crate::analysis::timeline(t, of(&timeline))?);
    }
    out.push_str(&crate::analysis::bringup(t, of(&bringup), true)?);
    let window = analysis.cycle_lines(i);
    let changed = analysis
        .mtrr
        .runs
        .iter()
        .find(|r| r.changed() && window.as_ref().is_some_and(|w| w.contains(&r.line)));
    if let Some(run) = changed {
        let runs = crate::mtrr::cycle_runs(analysis, &file, i)?;
        out.push_str(&crate::mtrr::diff(t, &runs, &file, run.cpu)?);
    }
    Ok(())
}

/// The text of `kernlog report` on `inputs` (the first the baseline when they are of
/// several kernels) in a `<pre>`, then a [`section`] per input.
pub fn report(
    t: &Templates,
    inputs: &[Evidence],
    threshold_pct: f64,
    links: Links,
) -> Result<String> {
    let mut out = format!(
        "<pre class=\"kl-report-text\">{}</pre>\n",
        escape(&kernlog::report(inputs, threshold_pct))
    );
    for (i, e) in inputs.iter().enumerate() {
        out.push_str(&section(t, e, i, links)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::LOG;

    #[test]
    fn a_log_s_section_has_its_charts_findings_linked_and_checklist() {
        let e = Evidence::from_log("logs/<b>.log", LOG.as_bytes()).unwrap();
        let t = Templates::builtin().unwrap();
        let link = |_| Some("/journey#x".to_string());
        let html = report(&t, std::slice::from_ref(&e), 10.0, &link).unwrap();
        assert!(html.starts_with("<pre class=\"kl-report-text\">"), "{html}");
        assert!(html.contains("<h2>logs/&lt;b&gt;.log</h2>"), "{html}");
        // The bring-up chart's title names the file by its last part.
        assert!(html.contains("CPU bring-up, &lt;b&gt;.log"), "{html}");
        assert!(html.contains("<h3>Cycle 1</h3>"), "{html}");
        assert!(
            html.contains("<a href=\"/journey#x\">slow-cpu-bringup</a>"),
            "{html}"
        );
        assert!(
            html.contains("<tr class=\"kl-total\"><td>verdict</td><td>FAIL</td>"),
            "{html}"
        );
        assert!(!html.contains("<script"), "{html}");
    }

    #[test]
    fn an_empty_log_says_it_has_no_cycle_and_no_finding() {
        let e = Evidence::from_log("-", b"").unwrap();
        let t = Templates::builtin().unwrap();
        let html = section(&t, &e, 0, &|_| None).unwrap();
        assert!(
            html.contains("<dd>0 suspend/resume cycles, 0 of them resumed"),
            "{html}"
        );
        assert!(html.contains("<h3>Findings</h3>\n<p>None.</p>"), "{html}");
        assert!(!html.contains("<h3>Cycle"), "{html}");
    }
}
