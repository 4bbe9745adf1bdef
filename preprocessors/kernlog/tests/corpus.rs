//! Real suspend/resume logs, as people posted them in public bug reports and threads (and a
//! few a real kernel printed in this project's QEMU lab, for the input classes no public post
//! showed), each with figures written down by reading the log (not by running kernlog): see
//! `tests/corpus/MANIFEST.yaml` for where each comes from and what it should give.
//!
//! The test prints how many files match. A file whose analysis differs from its expectations
//! fails the test unless the manifest explains the difference (`explained:`).

use std::path::Path;

use kernlog::render::document::Document;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    file: String,
    source: String,
    posted: String,
    licence: String,
    kernel: String,
    machine: String,
    #[serde(default)]
    notes: Option<String>,
    expect: Expect,
    /// Why kernlog's analysis differs from the expectations, when it does.
    #[serde(default)]
    explained: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    format: String,
    cycles: Vec<CycleExpect>,
}

/// What reading one cycle gives; fields left out are not checked.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CycleExpect {
    /// deep, s2idle, shallow, or null when the log does not say.
    mode: Option<String>,
    aborted: bool,
    /// CPUs with a `CPUn is up` line in this cycle.
    #[serde(default)]
    cpus_up: Option<usize>,
    /// Last `CPUn is up` minus `Enabling non-boot CPUs ...`, in ms.
    #[serde(default)]
    enable_phase_ms: Option<Option<f64>>,
    /// `PM: suspend exit` minus `PM: suspend entry`, in ms; null when either is missing.
    #[serde(default)]
    suspend_span_ms: Option<Option<f64>>,
    /// Which boot of the log the cycle belongs to, counting from 0.
    #[serde(default)]
    boot: Option<u64>,
    /// resumed, aborted, did_not_resume or suspending.
    #[serde(default)]
    outcome: Option<String>,
    /// Entry to the last line before the resume; null for an aborted attempt.
    #[serde(default)]
    suspend_ms: Option<Option<f64>>,
    /// Entry to the line that abandoned the attempt.
    #[serde(default)]
    time_to_abort_ms: Option<Option<f64>>,
    /// The first resume-side line to the exit.
    #[serde(default)]
    resume_ms: Option<Option<f64>>,
    /// The `device_suspend` phase.
    #[serde(default)]
    device_suspend_ms: Option<Option<f64>>,
    /// Older kernels: `PM: Syncing filesystems` to the end of the thaw.
    #[serde(default)]
    sync_to_restart_ms: Option<Option<f64>>,
    /// The time asleep where the log says it, in seconds, and where it says it.
    #[serde(default)]
    asleep_s: Option<f64>,
    #[serde(default)]
    asleep_source: Option<String>,
    /// Devices named by a failed suspend, resume or thaw line.
    #[serde(default)]
    failed_devices: Option<usize>,
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 0.0015 + b.abs() * 1e-9,
        (None, None) => true,
        _ => false,
    }
}

/// The differences between what the entry expects and what kernlog reports.
fn differences(entry: &Entry, doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let format = doc["input"]["format"].as_str().unwrap_or("?");
    if format != entry.expect.format {
        out.push(format!("format {format}, expected {}", entry.expect.format));
    }
    let cycles = doc["cycles"].as_array().cloned().unwrap_or_default();
    if cycles.len() != entry.expect.cycles.len() {
        out.push(format!(
            "{} cycles, expected {}",
            cycles.len(),
            entry.expect.cycles.len()
        ));
        return out;
    }
    for (i, (got, want)) in cycles.iter().zip(&entry.expect.cycles).enumerate() {
        let mode = got["mode"].as_str().map(str::to_string);
        if mode != want.mode {
            out.push(format!(
                "cycle {i}: mode {mode:?}, expected {:?}",
                want.mode
            ));
        }
        let aborted = !got["aborted"].is_null();
        if aborted != want.aborted {
            out.push(format!(
                "cycle {i}: aborted {aborted}, expected {}",
                want.aborted
            ));
        }
        if let Some(boot) = want.boot
            && got["boot"].as_u64() != Some(boot)
        {
            out.push(format!("cycle {i}: boot {}, expected {boot}", got["boot"]));
        }
        if let Some(n) = want.cpus_up {
            let up = got["cpus"].as_array().map_or(0, |c| {
                c.iter().filter(|cpu| !cpu["up_line"].is_null()).count()
            });
            if up != n {
                out.push(format!("cycle {i}: {up} CPUs up, expected {n}"));
            }
        }
        let device_suspend = got["phases"].as_array().and_then(|phases| {
            phases
                .iter()
                .find(|p| p["name"] == "device_suspend")
                .and_then(|p| p["ms"].as_f64())
        });
        for (field, got_ms, want) in [
            (
                "enable_phase_ms",
                got["enable_phase_ms"].as_f64(),
                want.enable_phase_ms,
            ),
            (
                "suspend_span_ms",
                got["suspend_span_ms"].as_f64(),
                want.suspend_span_ms,
            ),
            ("suspend_ms", got["suspend_ms"].as_f64(), want.suspend_ms),
            (
                "time_to_abort_ms",
                got["time_to_abort_ms"].as_f64(),
                want.time_to_abort_ms,
            ),
            ("resume_ms", got["resume_ms"].as_f64(), want.resume_ms),
            ("device_suspend_ms", device_suspend, want.device_suspend_ms),
            (
                "sync_to_restart_ms",
                got["sync_to_restart_ms"].as_f64(),
                want.sync_to_restart_ms,
            ),
        ] {
            if let Some(want) = want
                && !close(got_ms, want)
            {
                out.push(format!("cycle {i}: {field} {got_ms:?}, expected {want:?}"));
            }
        }
        out.extend(new_facts(i, got, want));
    }
    out
}

/// The outcome, the time asleep and the failed devices of one cycle against the reading.
fn new_facts(i: usize, got: &Value, want: &CycleExpect) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(outcome) = &want.outcome
        && got["outcome"]["state"].as_str() != Some(outcome)
    {
        out.push(format!(
            "cycle {i}: outcome {}, expected {outcome}",
            got["outcome"]["state"]
        ));
    }
    if let Some(asleep) = want.asleep_s {
        let seconds = got["asleep"]["seconds"].as_f64();
        if seconds.is_none_or(|s| (s - asleep).abs() > 0.0005) {
            out.push(format!(
                "cycle {i}: asleep {seconds:?} s, expected {asleep}"
            ));
        }
    }
    if let Some(source) = &want.asleep_source
        && got["asleep"]["source"].as_str() != Some(source)
    {
        out.push(format!(
            "cycle {i}: asleep source {}, expected {source}",
            got["asleep"]["source"]
        ));
    }
    if let Some(n) = want.failed_devices {
        let failed = got["failed_devices"].as_array().map_or(0, Vec::len);
        if failed != n {
            out.push(format!("cycle {i}: {failed} failed devices, expected {n}"));
        }
    }
    out
}

#[test]
fn real_world_logs_match_their_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.yaml")).unwrap();
    let entries: Vec<Entry> = yaml_serde::from_str(&manifest).unwrap();
    let mut listed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "MANIFEST.yaml")
        .collect();
    listed.sort();
    let mut named: Vec<String> = entries.iter().map(|e| e.file.clone()).collect();
    named.sort();
    assert_eq!(listed, named, "every corpus file has one manifest entry");

    let (mut matching, mut explained, mut failures) = (0, 0, Vec::new());
    for entry in &entries {
        let provenance = [&entry.posted, &entry.licence, &entry.kernel, &entry.machine];
        assert!(
            ["http", "mid:", "archive:", "lab:"]
                .iter()
                .any(|scheme| entry.source.starts_with(scheme))
                && provenance.iter().all(|f| !f.is_empty()),
            "{}: address, date, licence, kernel and machine are all given",
            entry.file
        );
        assert!(
            entry.notes.as_deref() != Some(""),
            "{}: empty notes",
            entry.file
        );
        let bytes = std::fs::read(dir.join(&entry.file)).unwrap();
        let analysis = kernlog::analyze(bytes.as_slice()).unwrap();
        let doc = serde_json::to_value(Document::new(&analysis)).unwrap();
        let diff = differences(entry, &doc);
        match (diff.is_empty(), &entry.explained) {
            (true, None) => matching += 1,
            (true, Some(_)) => failures.push(format!(
                "{}: matches now; drop its `explained:`",
                entry.file
            )),
            (false, Some(_)) => explained += 1,
            (false, None) => failures.push(format!("{}: {}", entry.file, diff.join("; "))),
        }
    }
    println!(
        "corpus: {matching} of {} real logs match their expectations, {explained} differ as explained in MANIFEST.yaml",
        entries.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
