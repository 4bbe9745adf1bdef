//! Views of a capture bundle's MTRR dumps.

use kernlog::evidence::{BundleContents, register_differences};

use crate::error::Result;
use crate::table::{Cell, Row, TableModel};
use crate::templates::Templates;

/// Every CPU's captured MTRRs after each resume against the same CPU's before the first
/// suspend, rows that differ marked; `None` when the bundle has no dump before the suspend.
pub fn dumps(templates: &Templates, captured: &BundleContents) -> Result<Option<String>> {
    let Some(boot) = &captured.boot else {
        return Ok(None);
    };
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
        for cpu in dump {
            let before = boot.iter().find(|b| b.cpu == cpu.cpu);
            let text = match (&cpu.registers, before.map(|b| &b.registers)) {
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
            };
            let mut row = Row::new(vec![
                Cell::num(n.to_string()),
                Cell::num(cpu.cpu.to_string()),
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
