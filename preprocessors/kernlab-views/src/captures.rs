//! Views of the small captures (kernlog's `tool_output` models): bucket histograms, call
//! counts and their comparison, and a bisect log as a sequence of verdicts.

use kernlog::parse::tool_output::{BisectLog, BucketHistogram, CountDiffRow};

use crate::charts::{Bar, HBar};
use crate::error::{Result, fail};
use crate::table::{Cell, Row, TableModel, chart_id};
use crate::templates::Templates;

/// The histogram of `file` as a bar chart, bucket bounds counted in `unit`; an error when it
/// has no bucket or its counts disagree with its total line.
pub fn histogram(
    templates: &Templates,
    h: &BucketHistogram,
    file: &str,
    unit: &str,
    id: Option<&str>,
) -> Result<String> {
    if h.buckets.is_empty() {
        return Err(fail(
            format!("`{file}` has no bucket"),
            "expected `< BOUND : COUNT` lines",
        ));
    }
    let Some(sum) = h.sum() else {
        return Err(fail(
            format!("`{file}`: the bucket counts add up to more than 2^64"),
            "the capture is garbled: check each `< BOUND : COUNT` line",
        ));
    };
    match h.total {
        Some(total) if total != sum => {
            return Err(fail(
                format!("`{file}`: the buckets add up to {sum}, the total line says {total}"),
                "the capture is incomplete or garbled",
            ));
        }
        _ => {}
    }
    let bars = h
        .buckets
        .iter()
        .map(|(bound, count)| Bar {
            label: format!("< {bound} {unit}").trim_end().to_string(),
            start: 0.0,
            end: *count as f64,
            note: count.to_string(),
            class: "g0",
        })
        .collect();
    let chart = HBar {
        id: chart_id(id, file),
        title: format!("Histogram, {file}"),
        desc: format!(
            "Number of calls per duration bucket; {sum} calls in all. Each bar is labelled with its count."
        ),
        axis_label: "calls".into(),
        bars,
    };
    templates.render("hbar", &chart.layout())
}

/// Call counts of `file`, most calls first (the `top` first at most).
pub fn counts(
    templates: &Templates,
    mut rows: Vec<(u64, String)>,
    file: &str,
    top: Option<usize>,
) -> Result<String> {
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut table =
        TableModel::new(format!("Call counts in {file}"), &["function", "calls"]).numeric(&[1]);
    for (count, name) in rows.into_iter().take(top.unwrap_or(usize::MAX)) {
        table.rows.push(Row::new(vec![
            Cell::text(name).class("kl-mono"),
            Cell::num(count.to_string()),
        ]));
    }
    table.render(templates)
}

/// Two sides' call counts of `file` side by side, with their difference.
pub fn counts_diff(
    templates: &Templates,
    rows: &[CountDiffRow],
    file: &str,
    [left, right]: [&str; 2],
) -> Result<String> {
    let mut table = TableModel::new(
        format!("Call counts compared in {file}"),
        &["function", left, right, "difference"],
    )
    .numeric(&[1, 2, 3]);
    let show = |side: &Option<(u64, String)>| {
        side.as_ref()
            .map_or("-".to_string(), |(c, _)| c.to_string())
    };
    for r in rows {
        let name = r
            .left
            .as_ref()
            .or(r.right.as_ref())
            .map(|(_, n)| n.clone())
            .unwrap_or_default();
        let difference = match (&r.left, &r.right) {
            (Some((a, ln)), Some((b, rn))) if ln == rn => format!("{:+}", *b as i64 - *a as i64),
            (Some(_), Some(_)) => "different functions".to_string(),
            (Some(_), None) => format!("only in {left}"),
            (None, Some(_)) => format!("only in {right}"),
            (None, None) => String::new(),
        };
        table.rows.push(Row::new(vec![
            Cell::text(name).class("kl-mono"),
            Cell::num(show(&r.left)),
            Cell::num(show(&r.right)),
            Cell::num(difference),
        ]));
    }
    table.render(templates)
}

/// The verdicts of the bisect log of `file`, and the first commit of the new term.
pub fn bisect(templates: &Templates, log: &BisectLog, file: &str) -> Result<String> {
    if log.steps.is_empty() {
        return Err(fail(
            format!("`{file}` has no verdict"),
            "expected `git bisect TERM COMMIT` lines",
        ));
    }
    let (old, new) = log.terms.clone().unwrap_or(("good".into(), "bad".into()));
    let mut table = TableModel::new(
        format!("Verdicts of the bisection in {file}"),
        &["step", "commit", "subject", "verdict"],
    )
    .numeric(&[0]);
    for (i, s) in log.steps.iter().enumerate() {
        let mut row = Row::new(vec![
            Cell::num((i + 1).to_string()),
            Cell::text(s.commit.chars().take(12).collect::<String>()).class("kl-mono"),
            Cell::text(s.subject.clone().unwrap_or_default()),
            Cell::text(s.term.clone()),
        ]);
        row.class = if s.term == old {
            "kl-verdict-old".into()
        } else if s.term == new {
            "kl-verdict-new".into()
        } else {
            String::new()
        };
        table.rows.push(row);
    }
    if let Some((sha, subject)) = &log.first {
        table.rows.push(Row {
            class: "kl-total".into(),
            cells: vec![
                Cell::text("result"),
                Cell::text(sha.chars().take(12).collect::<String>()).class("kl-mono"),
                Cell::text(subject.clone()),
                Cell::text(format!("first {new} commit")),
            ],
        });
    }
    table.render(templates)
}
