//! Views of a capture bundle's MTRR dumps.

use std::collections::HashMap;

use kernlog::evidence::bundle::MtrrRegisters;
use kernlog::evidence::{BundleContents, register_differences};

use crate::error::Result;
use crate::table::{Cell, Row, TableModel};
use crate::templates::Templates;

/// Every CPU's captured MTRRs after each resume against the same CPU's before the first
/// suspend, rows that differ marked; `None` when the bundle has no dump before the suspend.
/// CPUs in a row with the same outcome share one row (`CPU 0-8191`), so the table grows with
/// what differs, not with the number of CPUs.
pub fn dumps(templates: &Templates, captured: &BundleContents) -> Result<Option<String>> {
    let Some(boot) = &captured.boot else {
        return Ok(None);
    };
    let boot: HashMap<u32, &std::result::Result<MtrrRegisters, String>> =
        boot.iter().map(|b| (b.cpu, &b.registers)).collect();
    let mut table = TableModel::new(
        "Every CPU's captured MTRRs after each resume, against its own before the first suspend",
        &[
            "after resume",
            "CPU",
            "registers that differ from before the suspend",
        ],
    )
    .numeric(&[0, 1]);
    for (n, dump) in &captured.after {
        // (first CPU, last CPU, outcome) of each run of neighbouring CPUs alike.
        let mut runs: Vec<(u32, u32, String)> = Vec::new();
        for cpu in dump {
            let text = outcome(&cpu.registers, boot.get(&cpu.cpu).copied());
            match runs.last_mut() {
                Some((_, last, t)) if *t == text && last.checked_add(1) == Some(cpu.cpu) => {
                    *last = cpu.cpu;
                }
                _ => runs.push((cpu.cpu, cpu.cpu, text)),
            }
        }
        for (first, last, text) in runs {
            let cpus = if first == last {
                first.to_string()
            } else {
                format!("{first}-{last}")
            };
            let mut row = Row::new(vec![
                Cell::num(n.to_string()),
                Cell::num(cpus),
                Cell::text(&text),
            ]);
            if text != "none" {
                row.class = "kl-slow".into();
            }
            table.rows.push(row);
        }
    }
    table.render(templates).map(Some)
}

/// What differs in one CPU's registers from its own before the suspend, in words.
fn outcome(
    now: &std::result::Result<MtrrRegisters, String>,
    before: Option<&std::result::Result<MtrrRegisters, String>>,
) -> String {
    match (now, before) {
        (Ok(now), Some(Ok(then))) => {
            let d = register_differences(now, then);
            if d.is_empty() {
                "none".to_string()
            } else {
                d.join("; ")
            }
        }
        (Err(why), _) => format!("not read: {why}"),
        (_, Some(Err(why))) => format!("not read before the suspend: {why}"),
        (_, None) => "not in the dump before the suspend".to_string(),
    }
}
