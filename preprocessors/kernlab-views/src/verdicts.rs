//! Views of what the library concludes about a log: its findings, and the checklist of a
//! patched kernel's log with its verdict.

use kernlog::analysis::findings::{Finding, FindingKind};
use kernlog::judge::checklist::{Checklist, Status};

use crate::error::Result;
use crate::escape::escape;
use crate::table::{Cell, Row, TableModel};
use crate::templates::Templates;

/// The log lines a finding or an item rests on, as `12, 40`.
fn lines_text(lines: &[u64]) -> String {
    lines
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One row per finding: its id (a link where `link` gives the section that explains it),
/// what the log showed, and the lines it rests on.
pub fn findings(
    templates: &Templates,
    findings: &[Finding],
    link: &dyn Fn(FindingKind) -> Option<String>,
) -> Result<String> {
    let mut table = TableModel::new("Findings", &["finding", "what the log shows", "lines"]);
    for f in findings {
        let id = match link(f.kind) {
            Some(url) => Cell {
                html: format!("<a href=\"{}\">{}</a>", escape(&url), escape(f.kind.id())),
                ..Cell::default()
            },
            None => Cell::text(f.kind.id()),
        };
        table.rows.push(Row::new(vec![
            id.class("kl-mono"),
            Cell::text(f.summary.clone()),
            Cell::num(lines_text(&f.lines)),
        ]));
    }
    table.render(templates)
}

/// The checklist: one row per item (failed items marked), and the verdict as the last row.
pub fn checklist(templates: &Templates, checklist: &Checklist) -> Result<String> {
    let mut table = TableModel::new("Checklist", &["item", "result", "why", "lines"]);
    for item in &checklist.items {
        let mut row = Row::new(vec![
            Cell::text(item.name),
            Cell::text(item.status.label()),
            Cell::text(item.reason.clone()),
            Cell::num(lines_text(&item.lines)),
        ]);
        if item.status == Status::Fail {
            row.class = "kl-slow".into();
        }
        table.rows.push(row);
    }
    table.rows.push(Row {
        class: "kl-total".into(),
        cells: vec![
            Cell::text("verdict"),
            Cell::text(checklist.overall.label()),
            Cell::text(checklist.verdict.clone()),
            Cell::num(""),
        ],
    });
    table.render(templates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::LOG;
    use kernlog::judge::checklist::{Limits, check};

    // In LOG, CPU1 takes 654 ms from its Booting line to up: over the library's slow
    // bring-up limit (100 ms), so a finding and a failed checklist item.

    #[test]
    fn a_slow_bring_up_is_a_finding_linked_where_a_link_is_given() {
        let analysis = kernlog::analyze_str(LOG);
        let t = Templates::builtin().unwrap();
        let site = |_| Some("https://example.org/a?b=1&c=\"2\"".to_string());
        let html = findings(&t, &analysis.findings, &site).unwrap();
        assert!(
            html.contains(
                "<a href=\"https://example.org/a?b&#x3D;1&amp;c&#x3D;&quot;2&quot;\">slow-cpu-bringup</a>"
            ),
            "{html}"
        );
        let html = findings(&t, &analysis.findings, &|_| None).unwrap();
        assert!(
            html.contains(">slow-cpu-bringup<") && !html.contains("<a "),
            "{html}"
        );
    }

    #[test]
    fn a_failed_item_is_marked_and_the_verdict_is_the_last_row() {
        let analysis = kernlog::analyze_str(LOG);
        let list = check(&analysis, Limits::default());
        let html = checklist(&Templates::builtin().unwrap(), &list).unwrap();
        assert!(html.contains("<tr class=\"kl-slow\">"), "{html}");
        let last = html.lines().rfind(|l| l.starts_with("<tr")).unwrap();
        assert!(
            last.starts_with("<tr class=\"kl-total\"><td>verdict</td><td>FAIL</td>"),
            "{last}"
        );
    }
}
