//! Recompute the headline figures of `data/facts.yaml` from the raw captures in `data/`,
//! through the library, and compare them with the values recorded there.
//!
//! Each check computes its figure from the data files the fact names; the expected value is
//! read from facts.yaml at run time. Where the write-up rounded or stated a figure, the
//! check also asserts whether the stated value agrees with the data, as facts.yaml says.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kernlog::Analysis;
use kernlog::captures;
use kernlog::reader::{Clock, RecordReader};
use kernlog::trace::{GraphEvent, parse_trace_line};
use serde::Deserialize;
use serde_json::{Value, json};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(data_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn analysis(rel: &str) -> Analysis {
    kernlog::analyze_str(&read(rel))
}

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

fn s(ms: Option<f64>) -> f64 {
    ms.expect("figure present in the data") / 1000.0
}

/// Durations in microseconds of the trace lines naming `function` (leaf or tail-printed exit).
fn durations(rel: &str, function: &str, task: Option<&str>) -> Vec<f64> {
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
fn time_of(rel: &str, needle: &str, kernel: bool) -> i64 {
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
fn probe_table(files: &[&str]) -> Value {
    let text: String = files.iter().map(|f| read(f)).collect();
    let a = kernlog::analyze_str(&text);
    let mut out = serde_json::Map::new();
    for (point, results) in kernlog::probes::by_point(&a.probes) {
        let per_cpu: serde_json::Map<String, Value> = results
            .iter()
            .map(|r| (format!("cpu{}", r.cpu), json!(s(r.ms()))))
            .collect();
        out.insert(point.to_string(), Value::Object(per_cpu));
    }
    Value::Object(out)
}

fn bringup_s(rel: &str) -> f64 {
    s(analysis(rel).cycles[0].enable_phase_ms())
}

fn cpu_bringup_ms(rel: &str, cpu: u32) -> f64 {
    let a = analysis(rel);
    let c = a.cycles[0].cpus.iter().find(|c| c.cpu == cpu).unwrap();
    c.bringup_ms().unwrap()
}

/// APs with any change in a capture, and APs whose changes rewrote the default type.
fn changed_aps(rel: &str, flag: Option<char>) -> Vec<u32> {
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

const MTRR_RESUMES: [&str; 3] = [
    "mtrr/resume-6.16.7-debug-slow.log",
    "mtrr/resume-6.16.7-debug-undelayed-part2-cpu-bringup.log",
    "mtrr/resume-6.16.7-debug-conditional-fix.log",
];

fn xeon(when: &str) -> Vec<f64> {
    (1..=5)
        .map(|run| {
            bringup_s(&format!(
                "dmesg/lkml-2017-chen-yu-xeon-88cpu-{when}-patch-run{run}.log"
            ))
        })
        .collect()
}

/// The figure of one fact, computed from its data files.
fn compute(id: &str) -> Option<Value> {
    let v = match id {
        "F01" => json!(s(analysis("dmesg/suspend-6.16.3-ubuntu-kernel.log").cycles
            [0]
        .suspend_ms())),
        "F02" => json!(s(analysis("dmesg/resume-6.16.3-ubuntu-kernel.log").cycles
            [0]
        .resume_ms())),
        "F03" => json!(bringup_s("dmesg/resume-6.16.3-ubuntu-kernel.log")),
        "F04" => {
            let c = &analysis("dmesg/resume-6.16.3-ubuntu-kernel.log").cycles[0];
            json!(s(c.resume_ms()) - s(c.enable_phase_ms()))
        }
        "F05" => {
            let lid = time_of(
                "journal/suspend-lid-closed-6.16.3-ubuntu-kernel.log",
                "Lid closed.",
                false,
            );
            let kernel = time_of(
                "journal/suspend-6.16.3-ubuntu-kernel.log",
                "PM: suspend entry",
                true,
            );
            json!((kernel - lid) / 1_000_000)
        }
        "F06" => json!(journal_gap_s()),
        "F07" => json!(
            s(analysis("dmesg/resume-6.16.3-ubuntu-kernel.log").cycles[0].resume_ms())
                + journal_gap_s() as f64
        ),
        "F09" => json!(bringup_s("dmesg/resume-cpu-bringup-6.16.7.log")),
        "F10" => json!(
            durations("ftrace/cpu-up-durations-6.16.7.log", "_cpu_up", None)
                .iter()
                .map(|us| us / 1e6)
                .collect::<Vec<_>>()
        ),
        "F11" => {
            let f = "ftrace/cpuhp-invoke-callback-range-last-cpu-6.16.7.log";
            let last = *durations(f, "cpuhp_invoke_callback", None).last().unwrap();
            let range = durations(f, "__cpuhp_invoke_callback_range", None)[0];
            json!(last / range)
        }
        "F12" => {
            let lines: Vec<_> = read("ftrace/cpuhp-invoke-callback-over-1s-6.16.7.log")
                .lines()
                .filter_map(|l| {
                    parse_trace_line(l).map(|t| (t.task.to_string(), t.event, t.duration_us))
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|(t, e, d)| {
                    (
                        t,
                        matches!(
                            e,
                            GraphEvent::Exit {
                                function: Some("cpuhp_bringup_ap")
                            }
                        ),
                        matches!(
                            e,
                            GraphEvent::Exit {
                                function: Some("cpuhp_invoke_callback")
                            }
                        ),
                        d.unwrap_or(0.0),
                    )
                })
                .collect();
            let slow: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].0 == "systemd-sleep" && lines[i].2 && lines[i].3 > 1e6)
                .collect();
            let explained = slow
                .iter()
                .filter(|&&i| i > 0 && lines[i - 1].1 && lines[i].3 - lines[i - 1].3 < 10.0)
                .count();
            json!(format!("{explained} of {} slow callbacks", slow.len()))
        }
        "F13" => {
            let f = "ftrace/cpuhp-bringup-ap-over-1s-6.16.7.log";
            let waits = durations(f, "wait_for_completion", None);
            let outer = durations(f, "cpuhp_bringup_ap", None);
            json!(
                waits
                    .iter()
                    .zip(&outer)
                    .map(|(w, o)| w / o)
                    .collect::<Vec<_>>()
            )
        }
        "F14" => {
            let entries: Vec<(String, u32, i64)> =
                read("ftrace/cpuhp-completion-context-6.16.7.log")
                    .lines()
                    .filter_map(parse_trace_line)
                    .filter(|l| {
                        l.event
                            == GraphEvent::Enter {
                                function: "complete",
                            }
                    })
                    .map(|l| (l.task.to_string(), l.cpu, l.time_us))
                    .collect();
            let at = |task: &str, cpu: u32| {
                entries
                    .iter()
                    .find(|e| e.0 == task && e.1 == cpu)
                    .unwrap()
                    .2 as f64
                    / 1e6
            };
            json!({
                "cpu6_idle_to_cpuhp": at("cpuhp/6", 6) - at("<idle>", 6),
                "cpu7_idle_to_cpuhp": at("cpuhp/7", 7) - at("<idle>", 7),
                "cpuhp6_to_idle7": at("<idle>", 7) - at("cpuhp/6", 6),
            })
        }
        "F15" => {
            let d: Vec<f64> = read("ftrace/cpuhp-thread-fun-online-callbacks-6.16.7.log")
                .lines()
                .filter_map(parse_trace_line)
                .filter_map(|l| l.duration_us)
                .collect();
            let exact: f64 = d.iter().sum();
            json!({
                "integer_parts_us": d.iter().map(|x| x.trunc() as u64).sum::<u64>(),
                "exact_us": exact,
                "seconds": exact / 1e6,
            })
        }
        "F16" | "F17" | "F18" => {
            let function = match id {
                "F16" => "workqueue_online_cpu",
                "F17" => "cacheinfo_cpu_online",
                _ => "sched_cpu_activate",
            };
            let d = durations(
                "ftrace/online-callbacks-slow-calls-6.16.7.log",
                function,
                None,
            );
            json!(d.iter().cloned().fold(0.0, f64::max) / 1e6)
        }
        "F19" => {
            let f = "ftrace/online-callbacks-slow-calls-6.16.7.log";
            let p = durations(f, "partition_sched_domains", None);
            let a = durations(f, "sched_cpu_activate", None);
            json!(p.iter().zip(&a).map(|(p, a)| p / a).collect::<Vec<_>>())
        }
        "F20" => {
            let per_cpu: BTreeMap<u32, f64> =
                read("ftrace/workqueue-online-cpu-durations-6.16.7.log")
                    .lines()
                    .filter_map(parse_trace_line)
                    .filter_map(|l| Some((l.cpu, l.duration_us?)))
                    .collect();
            let cpu4 = per_cpu[&4];
            let (next, next_us) = per_cpu
                .iter()
                .filter(|(c, _)| **c != 4)
                .min_by(|a, b| a.1.total_cmp(b.1))
                .map(|(c, d)| (*c, *d))
                .unwrap();
            json!({"next_fastest_cpu": next, "cpu4_us": cpu4, "ratio": next_us / cpu4,
                   "ratio_integer_division": (next_us / cpu4).trunc()})
        }
        "F21" => {
            let rows =
                captures::parse_count_diff(&read("bench/call-counts-diff-cpu5-vs-cpu6-6.16.7.txt"))
                    .unwrap();
            let max = rows
                .iter()
                .filter_map(|r| Some(r.left.as_ref()?.0.abs_diff(r.right.as_ref()?.0)))
                .max();
            json!(max)
        }
        "F22" => {
            let rows =
                captures::parse_count_diff(&read("bench/call-counts-diff-cpu4-vs-cpu5-6.16.7.txt"))
                    .unwrap();
            let side = |left: bool| {
                rows.iter()
                    .filter_map(|r| {
                        if left {
                            r.left.clone()
                        } else {
                            r.right.clone()
                        }
                    })
                    .find(|(_, n)| n == "irq_enter_rcu")
                    .map(|(c, _)| c)
            };
            json!({"cpu4": side(true), "cpu5": side(false)})
        }
        "F23" => {
            let sysfs =
                captures::parse_sysfs(&read("sysfs/cpu0-cpufreq-schedutil-6.16.7.txt")).unwrap();
            let get = |k: &str| {
                sysfs
                    .iter()
                    .find(|(p, _)| p.ends_with(k))
                    .unwrap()
                    .1
                    .parse::<f64>()
                    .unwrap()
            };
            let wq = durations(
                "ftrace/workqueue-online-cpu-durations-6.16.7.log",
                "workqueue_online_cpu",
                None,
            );
            let cpu4 = wq.iter().cloned().fold(f64::INFINITY, f64::min);
            let next = wq
                .iter()
                .cloned()
                .filter(|d| *d > cpu4)
                .fold(f64::INFINITY, f64::min);
            json!({"max_over_min": get("cpuinfo_max_freq") / get("cpuinfo_min_freq"), "observed_slowdown": next / cpu4})
        }
        "F24" => {
            let gov = captures::parse_sysfs(&read(
                "sysfs/cpufreq-scaling-governor-after-resume-6.16.7.txt",
            ))
            .unwrap();
            let avg = captures::parse_sysfs(&read(
                "sysfs/cpufreq-avg-freq-performance-after-resume-6.16.7.txt",
            ))
            .unwrap();
            let max = captures::parse_sysfs(&read("sysfs/cpu0-cpufreq-schedutil-6.16.7.txt"))
                .unwrap()
                .into_iter()
                .find(|(p, _)| p.ends_with("cpuinfo_max_freq"))
                .unwrap()
                .1
                .parse::<f64>()
                .unwrap();
            let freqs: Vec<u64> = avg.iter().map(|(_, v)| v.parse().unwrap()).collect();
            let (lo, hi) = (*freqs.iter().min().unwrap(), *freqs.iter().max().unwrap());
            json!({"all_performance": gov.iter().all(|(_, v)| v == "performance"), "min_khz": lo, "max_khz": hi,
                   "min_fraction_of_max": lo as f64 / max, "max_fraction_of_max": hi as f64 / max})
        }
        "F25" => {
            let text = read("dmesg/intel-pstate-debug-suspend-resume-6.16.7.log");
            let mut reader = RecordReader::new(text.as_bytes());
            let mut per_cpu: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
            while let Some(r) = reader.next_record() {
                let r = r.unwrap();
                if r.message.contains("intel_pstate_update_perf_limits")
                    && let Some(cpu) = r
                        .message
                        .split("cpu:")
                        .nth(1)
                        .and_then(|x| x.split(' ').next())
                        .and_then(|x| x.parse().ok())
                {
                    per_cpu.entry(cpu).or_default().push(r.time.unwrap().micros);
                }
            }
            let span = |cpu: u32| (per_cpu[&cpu][2] - per_cpu[&cpu][0]) as f64;
            json!({"cpu4_us": span(4), "cpu5_ms": span(5) / 1000.0})
        }
        "F26" => {
            let a = analysis("dmesg/intel-pstate-debug-suspend-resume-6.16.7.log");
            let m: serde_json::Map<String, Value> = a.cycles[0]
                .cpus
                .iter()
                .map(|c| (format!("cpu{}", c.cpu), json!(s(c.bringup_ms()))))
                .collect();
            Value::Object(m)
        }
        "F27" => {
            let runs =
                captures::parse_timed_runs(&read("bench/fib-400-per-cpu-time-6.16.7.txt")).unwrap();
            let real: Vec<f64> = runs.iter().map(|r| r.real_s).collect();
            let (lo, hi) = (
                real.iter().cloned().fold(f64::INFINITY, f64::min),
                real.iter().cloned().fold(0.0, f64::max),
            );
            json!({"min_s": lo, "max_s": hi, "max_over_min": hi / lo})
        }
        "F28" => probe_table(&["dmesg/cpu-speed-thaw-secondary-cpus-all-up-6.16.7.log"]),
        "F29" => probe_table(&["dmesg/cpu-speed-pm-suspend-done-6.16.7.log"]),
        "F30" => probe_table(&["dmesg/cpu-speed-thaw-processes-entry-6.16.7.log"]),
        "F31" => probe_table(&["dmesg/cpu-speed-acpi-pm-finish-entry-6.16.7.log"]),
        "F32" => probe_table(&["dmesg/cpu-speed-pm-sleep-enable-secondary-cpus-entry-6.16.7.log"]),
        "F33" => probe_table(&["dmesg/cpu-speed-thaw-secondary-cpus-all-up-run2-6.16.7.log"]),
        "F34" => {
            probe_table(&["dmesg/cpu-speed-pm-sleep-enable-secondary-cpus-enabled-6.16.7.log"])
        }
        "F35" => probe_table(&["dmesg/cpu-speed-cache-cpu-init-after-mtrr-pat-6.16.7.log"]),
        "F36" => {
            json!({"fast_run_s": bringup_s("dmesg/resume-cpu-bringup-arch-end-fast-6.16.7.log"),
                        "slow_run_s": bringup_s("dmesg/resume-cpu-bringup-arch-end-slow-6.16.7.log")})
        }
        "F37" => probe_table(&["dmesg/resume-cpu-bringup-arch-end-slow-6.16.7.log"]),
        "F39" => {
            let table = probe_table(&[
                "dmesg/cpu-speed-cache-disable-enable-part1-6.16.7.log",
                "dmesg/cpu-speed-cache-disable-enable-part2-6.16.7.log",
                "dmesg/cpu-speed-cache-disable-enable-part3-6.16.7.log",
            ]);
            // facts.yaml names the points without their common `cache_cpu_init - ` prefix.
            let m = table
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| {
                    (
                        k.trim_start_matches("cache_cpu_init - ").to_string(),
                        v.clone(),
                    )
                })
                .collect();
            Value::Object(m)
        }
        "F40" => json!({"v6.1.104": bringup_s("dmesg/resume-cpu-bringup-6.1.104.log"),
                        "v6.8.12": bringup_s("dmesg/resume-cpu-bringup-6.8.12.log"),
                        "v6.16.7": bringup_s("dmesg/resume-cpu-bringup-6.16.7.log")}),
        "F41" => {
            let log =
                captures::parse_bisect_log(&read("bisect/bisect-log-6.8-to-6.8.12.txt")).unwrap();
            let count = |t: &str| log.steps.iter().filter(|s| s.term == t).count();
            json!({"tested_commits": log.steps.len() - 2, "slow": count("slow"), "fast": count("fast"),
                   "first_fast": log.first.map(|f| f.1)})
        }
        "F43" => {
            let t = &analysis("mtrr/boot-mtrr-debug-6.16.7.log").mtrr.boot_tables[0];
            let mut ranges: Vec<(u64, u64)> = t.variable.iter().map(|v| (v.base, v.end)).collect();
            ranges.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::new();
            for (b, e) in ranges {
                match merged.last_mut() {
                    Some(last) if last.1 + 1 >= b => last.1 = last.1.max(e),
                    _ => merged.push((b, e)),
                }
            }
            json!({"fixed": t.fixed.len(), "variable_mtrrs": t.variable.len() + t.disabled.len(),
                   "merged_variable_ranges": merged.iter().map(|(b, e)| format!("{b:#x}-{e:#x}")).collect::<Vec<_>>()})
        }
        "F44" => {
            let t = &analysis("mtrr/boot-mtrr-debug-6.16.7.log").mtrr.boot_tables[0];
            let ranges: serde_json::Map<String, Value> = t
                .variable
                .iter()
                .map(|v| {
                    (
                        v.reg.to_string(),
                        json!(format!("{:#x}-{:#x}", v.base, v.end)),
                    )
                })
                .collect();
            let mut overlaps = Vec::new();
            for a in &t.variable {
                for b in t.variable.iter().filter(|b| b.reg > a.reg) {
                    if a.base <= b.end && b.base <= a.end {
                        overlaps.push(json!([a.reg, b.reg]));
                    }
                }
            }
            json!({"ranges": ranges, "overlapping_pairs": overlaps})
        }
        "F45" => {
            let a = analysis("mtrr/resume-6.16.7-debug-slow.log");
            json!({"changed_cpus": a.mtrr.changed_cpus(), "cpu0_checks": a.mtrr.runs.iter().filter(|r| r.cpu == 0).count()})
        }
        "F46" => {
            let a = analysis("mtrr/resume-6.16.7-debug-slow.log");
            let before = |r: &kernlog::mtrr::MtrrRun| r.deftype_before.map(|d| d.raw);
            let bp = a
                .mtrr
                .runs
                .iter()
                .find(|r| r.cpu == 0)
                .and_then(before)
                .unwrap();
            let mut aps: Vec<u32> = a
                .mtrr
                .runs
                .iter()
                .filter(|r| r.cpu != 0 && before(r) == Some(0xc00))
                .map(|r| r.cpu)
                .collect();
            aps.sort_unstable();
            json!({"cpu0_before_restore": format!("{bp:#x}"), "aps_with_0xc00": aps})
        }
        "F48" => {
            let bringup = analysis("mtrr/resume-6.16.7-debug-undelayed-part2-cpu-bringup.log");
            let last = analysis("mtrr/resume-6.16.7-debug-undelayed-part3-aps-init.log");
            json!({"restored_during_bringup": changed_aps("mtrr/resume-6.16.7-debug-undelayed-part2-cpu-bringup.log", None),
                   "final_check_all_unchanged": last.mtrr.runs.iter().all(|r| !r.changed()),
                   "bringup_s": s(bringup.cycles[0].enable_phase_ms())})
        }
        "F50" => {
            let text = read("mtrr/resume-6.16.7-debug-conditional-fix.log");
            let mut reader = RecordReader::new(text.as_bytes());
            let (mut first, mut last) = (None, None);
            while let Some(r) = reader.next_record() {
                let t = r.unwrap().time.unwrap();
                assert_eq!(t.clock, Clock::Monotonic);
                first.get_or_insert(t.micros);
                last = Some(t.micros);
            }
            json!((last.unwrap() - first.unwrap()) as f64 / 1e6)
        }
        "F51" => {
            let a = analysis("mtrr/resume-6.16.7-debug-conditional-fix.log");
            let steps = kernlog::analysis::rendezvous_per_step(&a, 0).unwrap();
            let mut per_phase = serde_json::Map::new();
            for (step, n) in &steps {
                let key = match step.as_str() {
                    "boot CPU" => "bp".to_string(),
                    "after bring-up" => "aps_init".to_string(),
                    cpu => format!("online{}", cpu.trim_start_matches("CPU ")),
                };
                per_phase.insert(key, json!(n));
            }
            let during: usize = steps[1..steps.len() - 1].iter().map(|(_, n)| n).sum();
            json!({"per_phase": per_phase, "during_bringup": during, "formula_n8": 8 * 9 / 2})
        }
        "F52" => {
            let a = analysis("dmesg/resume-cpu-bringup-fix-6.16.7.log");
            json!(
                a.mtrr
                    .warnings
                    .iter()
                    .filter(|w| w.text.starts_with("mtrr:"))
                    .count()
            )
        }
        "F53" => {
            json!(analysis("dmesg/resume-cpu-bringup-fix-6.16.7.log").cycles[0].enable_phase_ms())
        }
        "F54" => json!(
            analysis("dmesg/resume-cpu-bringup-fix-jgross-series-6.19-rc8.log").cycles[0]
                .enable_phase_ms()
        ),
        "F55" => Value::Object(
            MTRR_RESUMES
                .iter()
                .map(|f| (f.to_string(), json!(changed_aps(f, Some('V')))))
                .collect(),
        ),
        "F56" => {
            let a = analysis("mtrr/resume-6.16.7-debug-slow.log");
            let changes = |cpu: u32| {
                a.mtrr
                    .runs
                    .iter()
                    .find(|r| r.cpu == cpu && r.changed())
                    .unwrap()
                    .changes
                    .clone()
            };
            let (bp, ap) = (changes(0), changes(1));
            use kernlog::mtrr::RegisterChange::*;
            let target = |c: &kernlog::mtrr::RegisterChange| match c {
                Variable { reg, after, .. } => format!("v{reg}{after:?}"),
                Fixed { msr, after, .. } => format!("f{msr}{after}"),
            };
            let prior = |c: &kernlog::mtrr::RegisterChange| match c {
                Variable { reg, before, .. } => format!("v{reg}{before:?}"),
                Fixed { msr, before, .. } => format!("f{msr}{before}"),
            };
            let same_target = bp.iter().map(target).collect::<Vec<_>>()
                == ap.iter().map(target).collect::<Vec<_>>();
            let same_prior = bp.iter().map(prior).collect::<Vec<_>>()
                == ap.iter().map(prior).collect::<Vec<_>>();
            let differences: Vec<String> = bp.iter().zip(&ap).filter(|(b, a)| prior(b) != prior(a)).filter_map(|(b, a)| match (b, a) {
                (Fixed { msr, before: bb, after: ba, .. }, Fixed { before: ab, after: aa, .. }) => {
                    let (block, reg) = kernlog::mtrr::fixed_msr_position(*msr)?;
                    Some(format!("fixed {block},{reg}: BP {bb:016x} -> {ba:016x} / AP {ab:016x} -> {aa:016x}"))
                }
                _ => None,
            }).collect();
            json!({"same_target_values": same_target, "same_prior_values": same_prior, "differences": differences})
        }
        "F57" => Value::Object(
            MTRR_RESUMES
                .iter()
                .map(|f| (f.to_string(), json!(changed_aps(f, Some('T')))))
                .collect(),
        ),
        "F58" => json!(
            analysis("mtrr/boot-mtrr-changes-debug-6.16.7.log")
                .mtrr
                .runs
                .iter()
                .all(|r| r.flags.as_deref() == Some("___"))
        ),
        "F60" => json!(cpu_bringup_ms(
            "dmesg/lkml-2017-chen-yu-insane-mtrr-before-patch.log",
            1
        )),
        "F61" => json!(cpu_bringup_ms(
            "dmesg/lkml-2017-chen-yu-insane-mtrr-before-patch.log",
            3
        )),
        "F62" => json!(cpu_bringup_ms(
            "dmesg/lkml-2017-chen-yu-insane-mtrr-after-patch.log",
            1
        )),
        "F63" => json!(cpu_bringup_ms(
            "dmesg/lkml-2017-chen-yu-insane-mtrr-after-patch.log",
            3
        )),
        "F64" => {
            let sum = |f: &str| cpu_bringup_ms(f, 1) + cpu_bringup_ms(f, 3);
            let before = "dmesg/lkml-2017-chen-yu-insane-mtrr-before-patch.log";
            let a = analysis(before);
            json!({"saving_s": (sum(before) - sum("dmesg/lkml-2017-chen-yu-insane-mtrr-after-patch.log")) / 1000.0,
                   "before_enabling_to_cpu3_s": s(a.cycles[0].enable_phase_ms())})
        }
        "F65" => json!(xeon("before")),
        "F66" => json!(xeon("before").iter().sum::<f64>() / 5.0),
        "F67" => json!(xeon("after")),
        "F68" => json!(xeon("after").iter().sum::<f64>() / 5.0),
        "F69" => json!(
            (xeon("before").iter().sum::<f64>() - xeon("after").iter().sum::<f64>()) / 5.0 * 1000.0
        ),
        "F75" => json!(s(analysis("dmesg/t2-mac-s3-wake-to-ec-unblock.log").cycles
            [0]
        .ec_wake_to_unblock_ms())),
        _ => return None,
    };
    Some(v)
}

fn journal_gap_s() -> i64 {
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
