//! Recomputing each figure of data/facts.yaml from the raw data: the readers of the data
//! and the two halves of the table of figures.

use kernlog::Analysis;
use kernlog::analysis::trace::{GraphEvent, parse_trace_line};
use kernlog::parse::reader::{Clock, RecordReader};
use kernlog::parse::tool_output;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

mod first;
mod second;

pub fn data_dir() -> PathBuf {
    notebook_checks::repo().join("data")
}

pub use notebook_checks::read_data as read;

pub fn analysis(rel: &str) -> Analysis {
    kernlog::analyze_str(&read(rel))
}

pub fn s(ms: Option<f64>) -> f64 {
    ms.expect("figure present in the data") / 1000.0
}

/// Durations in microseconds of the trace lines naming `function` (leaf or tail-printed exit).
pub fn durations(rel: &str, function: &str, task: Option<&str>) -> Vec<f64> {
    read(rel)
        .lines()
        .filter_map(parse_trace_line)
        .filter(|l| task.is_none_or(|t| l.task == t))
        .filter(|l| match l.event {
            GraphEvent::Leaf { function: f } => f == function,
            GraphEvent::Exit { function: f } => f == Some(function),
            GraphEvent::Enter { .. } => false,
        })
        .filter_map(|l| l.duration_us)
        .collect()
}

/// Wall-clock time (us) of the first record whose message contains `needle`.
pub fn time_of(rel: &str, needle: &str, kernel: bool) -> i64 {
    let text = read(rel);
    let mut reader = RecordReader::new(text.as_bytes());
    while let Some(r) = reader.next_record() {
        let r = r.unwrap();
        if r.message.contains(needle) && r.is_kernel() == kernel {
            return r.time.unwrap().micros;
        }
    }
    panic!("{needle} not in {rel}")
}

/// Probe durations in seconds per point and CPU, as facts.yaml lays them out.
pub fn probe_table(files: &[&str]) -> Value {
    let text: String = files.iter().map(|f| read(f)).collect();
    let a = kernlog::analyze_str(&text);
    let mut out = serde_json::Map::new();
    for (point, results) in kernlog::analysis::probes::by_point(&a.probes) {
        let per_cpu: serde_json::Map<String, Value> = results
            .iter()
            .map(|r| (format!("cpu{}", r.cpu), json!(s(r.ms()))))
            .collect();
        out.insert(point.to_string(), Value::Object(per_cpu));
    }
    Value::Object(out)
}

pub fn bringup_s(rel: &str) -> f64 {
    s(analysis(rel).cycles[0].enable_phase_ms())
}

pub fn cpu_bringup_ms(rel: &str, cpu: u32) -> f64 {
    let a = analysis(rel);
    let c = a.cycles[0].cpus.iter().find(|c| c.cpu == cpu).unwrap();
    c.bringup_ms().unwrap()
}

/// APs with any change in a capture, and APs whose changes rewrote the default type.
pub fn changed_aps(rel: &str, flag: Option<char>) -> Vec<u32> {
    let a = analysis(rel);
    let mut cpus: Vec<u32> = a
        .mtrr
        .runs
        .iter()
        .filter(|r| r.cpu != 0 && r.changed())
        .filter(|r| flag.is_none_or(|f| r.flags.as_deref().unwrap_or("").contains(f)))
        .map(|r| r.cpu)
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

pub const MTRR_RESUMES: [&str; 3] = [
    "mtrr/resume-6.16.7-debug-slow.log",
    "mtrr/resume-6.16.7-debug-undelayed-part2-cpu-bringup.log",
    "mtrr/resume-6.16.7-debug-conditional-fix.log",
];

pub fn xeon(when: &str) -> Vec<f64> {
    (1..=5)
        .map(|run| {
            bringup_s(&format!(
                "dmesg/lkml-2017-chen-yu-xeon-88cpu-{when}-patch-run{run}.log"
            ))
        })
        .collect()
}

pub fn journal_gap_s() -> i64 {
    let done = time_of(
        "journal/resume-complete-6.16.3-ubuntu-kernel.log",
        "Finished systemd-suspend.service",
        false,
    );
    let exit = time_of(
        "journal/resume-6.16.3-ubuntu-kernel.log",
        "PM: suspend exit",
        true,
    );
    (done - exit) / 1_000_000
}

/// The figure `id` computed from data, or `None` for an id no recomputation knows.
pub fn compute(id: &str) -> Option<Value> {
    first::compute(id).or_else(|| second::compute(id))
}
