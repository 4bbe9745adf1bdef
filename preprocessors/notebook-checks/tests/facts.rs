//! Recompute the headline figures of `data/facts.yaml` from the raw captures in `data/`,
//! through the library, and compare them with the values recorded there.
//!
//! Each check computes its figure from the data files the fact names; the expected value is
//! read from facts.yaml at run time. Where the write-up rounded or stated a figure, the
//! check also asserts whether the stated value agrees with the data, as facts.yaml says.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

mod figures;

use figures::{analysis, changed_aps, compute, data_dir, read};

#[derive(Debug, Deserialize)]
struct Facts {
    facts: Vec<Fact>,
}

#[derive(Debug, Deserialize)]
struct Fact {
    id: String,
    value: Value,
    recomputable: bool,
    recomputed: Value,
    agreement: String,
    data_files: Vec<String>,
}

fn facts() -> Vec<Fact> {
    let facts: Facts = yaml_serde::from_str(&read("facts.yaml")).expect("facts.yaml parses");
    facts.facts
}

/// The decimal place a number as written is precise to: digits after the point, or minus
/// the trailing zeros of a whole number ("90" is precise to tens).
fn decimals(v: f64) -> i32 {
    let s = format!("{v}");
    match s.split_once('.') {
        Some((_, f)) => f.len() as i32,
        None => -((s.len() - s.trim_end_matches('0').len()) as i32),
    }
}

/// `ours` equals `recorded` to the precision `recorded` is written with.
fn close_to(ours: f64, recorded: f64) -> bool {
    (ours - recorded).abs() <= 0.5 * 10f64.powi(-decimals(recorded).max(0)) + 1e-9
}

/// Every field of `recorded` has an equal field in `ours` (numbers to recorded precision).
fn matches(ours: &Value, recorded: &Value, path: &str) -> Result<(), String> {
    match (ours, recorded) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            close_to(a, b)
                .then_some(())
                .ok_or(format!("{path}: computed {a}, facts.yaml has {b}"))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "{path}: {} items, facts.yaml has {}",
                    a.len(),
                    b.len()
                ));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .try_for_each(|(i, (x, y))| matches(x, y, &format!("{path}[{i}]")))
        }
        (Value::Object(a), Value::Object(b)) => b.iter().try_for_each(|(k, v)| {
            let x = a.get(k).ok_or(format!("{path}.{k}: not computed"))?;
            matches(x, v, &format!("{path}.{k}"))
        }),
        (a, b) => (a == b)
            .then_some(())
            .ok_or(format!("{path}: computed {a}, facts.yaml has {b}")),
    }
}

/// Does the value the write-up states agree with ours at the precision it was stated?
fn stated_agrees(stated: f64, ours: f64) -> bool {
    let scale = 10f64.powi(decimals(stated));
    ((ours * scale).round() / scale - stated).abs() < 1e-9
}

#[test]
fn every_recomputable_fact_is_recomputed_from_data() {
    let facts = facts();
    let recomputable: Vec<&Fact> = facts.iter().filter(|f| f.recomputable).collect();
    assert!(
        recomputable.len() >= 60,
        "facts.yaml lists {} recomputable facts",
        recomputable.len()
    );
    let mut failures = Vec::new();
    for fact in &recomputable {
        let Some(ours) = compute(&fact.id) else {
            failures.push(format!("{}: no computation", fact.id));
            continue;
        };
        if let Err(e) = matches(&ours, &fact.recomputed, &fact.id) {
            failures.push(e);
        }
        for file in &fact.data_files {
            assert!(
                data_dir().join(file).is_file(),
                "{}: {file} missing",
                fact.id
            );
        }
    }
    assert!(
        failures.is_empty(),
        "facts that do not recompute:\n{}",
        failures.join("\n")
    );
}

/// The write-up's own figures: where facts.yaml says they agree with the data, they
/// round to ours; where it records a disagreement, they do not.
#[test]
fn stated_figures_agree_or_disagree_as_recorded() {
    let mut checked = 0;
    for fact in facts().iter().filter(|f| f.recomputable) {
        let (Some(stated), Some(ours)) = (fact.value.as_f64(), compute(&fact.id)) else {
            continue;
        };
        let Some(ours) = ours.as_f64() else { continue };
        let agrees = stated_agrees(stated, ours);
        match fact.agreement.as_str() {
            "agree" => assert!(agrees, "{}: stated {stated}, data {ours}", fact.id),
            a if a.starts_with("disagree") => {
                assert!(
                    !agrees,
                    "{}: recorded as disagreeing, but {stated} ~ {ours}",
                    fact.id
                )
            }
            _ => {}
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} stated figures checked");
}

#[test]
fn the_recorded_disagreements_show_in_the_data() {
    // 16.5 s of CPU bring-up was truncated: the data says 16.567 s.
    let c = &analysis("dmesg/resume-6.16.3-ubuntu-kernel.log").cycles[0];
    assert_eq!(c.enable_phase_ms(), Some(16_567.281));
    // Variable MTRR 3 touches MTRRs 0-2 only at their edges: no overlap.
    let t = &analysis("mtrr/boot-mtrr-debug-6.16.7.log").mtrr.boot_tables[0];
    let r3 = t.variable.iter().find(|v| v.reg == 3).unwrap();
    assert!(
        t.variable
            .iter()
            .filter(|v| v.reg != 3)
            .all(|v| v.end < r3.base || v.base > r3.end)
    );
    // The fix's diagnostic says "unexpected", not "inconsistent".
    let a = analysis("dmesg/resume-cpu-bringup-fix-6.16.7.log");
    assert!(a.mtrr.warnings[0].text.contains("unexpected MTRR settings"));
    // The modified APs had their default type rewritten too.
    assert_eq!(
        changed_aps("mtrr/resume-6.16.7-debug-slow.log", Some('T')),
        [1, 6, 7]
    );
}

/// Every set of changed APs holds one hardware thread of each core but the boot CPU's, and
/// never CPU 4, the boot CPU's sibling (journey, "One thread of each core"). Cores come from
/// the APIC ids of each capture's own Booting lines: the two threads of a core differ only in
/// the lowest bit.
#[test]
fn the_changed_aps_are_one_thread_of_each_core_but_the_boot_cpus() {
    let expected: [(&str, &[u32]); 3] = [
        ("mtrr/resume-6.16.7-debug-slow.log", &[1, 6, 7]),
        (
            "mtrr/resume-6.16.7-debug-undelayed-part2-cpu-bringup.log",
            &[1, 2, 3],
        ),
        ("mtrr/resume-6.16.7-debug-conditional-fix.log", &[1, 2, 3]),
    ];
    for (rel, aps) in expected {
        assert_eq!(changed_aps(rel, None), aps, "{rel}");
        let core: BTreeMap<u32, u32> = analysis(rel).cycles[0]
            .cpus
            .iter()
            .map(|c| {
                let apic = c.apic.as_deref().expect("an APIC id on every Booting line");
                let id = u32::from_str_radix(apic.trim_start_matches("0x"), 16).unwrap();
                (c.cpu, id >> 1)
            })
            .collect();
        assert_eq!(core.len(), 7, "{rel}: seven APs booted");
        // The boot CPU's core is the one with a single AP: its other thread is the boot CPU.
        let mut threads: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (cpu, c) in &core {
            threads.entry(*c).or_default().push(*cpu);
        }
        let boot_core: Vec<u32> = threads
            .iter()
            .filter(|(_, cpus)| cpus.len() == 1)
            .map(|(c, _)| *c)
            .collect();
        assert_eq!(boot_core, [0], "{rel}");
        assert_eq!(threads[&0], [4], "{rel}: CPU 4 is the boot CPU's sibling");
        let mut changed_cores: Vec<u32> = aps.iter().map(|cpu| core[cpu]).collect();
        changed_cores.sort_unstable();
        assert_eq!(
            changed_cores,
            [1, 2, 3],
            "{rel}: one thread of each other core"
        );
    }
}
