//! The captured MSRs against the log's own debug lines. After a CPU's last run of a resume,
//! the values its debug lines show are the ones it holds, and nothing rewrites them before
//! capture reads the MSRs once the resume is over: the dump after that resume must show
//! the same values. A dump that contradicts the lines is evidence of nothing.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::analysis::mtrr::{MtrrRun, decode_variable};
use crate::evidence::BundleContents;
use crate::evidence::bundle::MtrrRegisters;

use super::Window;
use super::completeness::capture_numbers;
use super::mtrr_items::{Register, Value, values_after};

/// The value a dump holds for a register the debug lines name; `None` where the dump has no
/// such register.
fn dumped(regs: &MtrrRegisters, register: Register) -> Option<Value> {
    match register {
        Register::DefType => Some(Value::Raw(regs.def_type)),
        Register::Fixed(i) => regs.fixed.and_then(|f| f.get(i).copied()).map(Value::Raw),
        Register::Variable(n) => {
            let (base, mask) = *regs.variable.get(usize::try_from(n).ok()?)?;
            Some(Value::Variable(decode_variable(n, base, mask)))
        }
    }
}

/// Where the dumps after each resume contradict the values the debug lines of that resume
/// left in a CPU: one text each, with the line of the CPU's last run. Resumes that cannot
/// be tied to a capture cycle, and CPUs without a run or a readable dump, are not compared.
pub(super) fn contradictions(
    analysis: &Analysis,
    windows: &[Window],
    captured: &BundleContents,
) -> (Vec<String>, Vec<u64>) {
    let (mut told, mut lines) = (Vec::new(), Vec::new());
    if analysis.mtrr.runs.is_empty() || captured.after.is_empty() {
        return (told, lines);
    }
    let Some(numbers) = capture_numbers(analysis, captured) else {
        return (told, lines);
    };
    let by_cpu = analysis.mtrr.runs_by_cpu();
    for w in windows {
        let Some(n) = numbers.get(w.index).copied().flatten() else {
            continue;
        };
        let Some((_, dump)) = captured.after.iter().find(|(k, _)| *k == n) else {
            continue;
        };
        let dump: HashMap<u32, &MtrrRegisters> = dump
            .iter()
            .filter_map(|c| Some((c.cpu, c.registers.as_ref().ok()?)))
            .collect();
        for (cpu, runs) in &by_cpu {
            let runs: Vec<&MtrrRun> = runs
                .iter()
                .copied()
                .filter(|r| w.contains(r.line))
                .collect();
            let (Some(last), Some(regs)) = (runs.last(), dump.get(cpu)) else {
                continue;
            };
            for (register, value) in values_after(runs.iter().copied()) {
                let Some(held) = dumped(regs, register) else {
                    continue;
                };
                if held != value {
                    told.push(format!(
                        "CPU {cpu} after resume {n}: {} {held} in the dump, {value} after its \
                         last debug line (line {})",
                        register.name(),
                        last.line
                    ));
                    lines.push(last.line);
                }
            }
        }
    }
    (told, lines)
}
