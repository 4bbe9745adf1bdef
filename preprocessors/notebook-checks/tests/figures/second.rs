//! The figures from F24 on of data/facts.yaml, recomputed.

use super::*;
use serde_json::{Value, json};

/// The figure `id`, when it is one of this half.
pub fn compute(id: &str) -> Option<Value> {
    let v = match id {
        "F24" => {
            let gov = tool_output::parse_sysfs(&read(
                "sysfs/cpufreq-scaling-governor-after-resume-6.16.7.txt",
            ))
            .unwrap();
            let avg = tool_output::parse_sysfs(&read(
                "sysfs/cpufreq-avg-freq-performance-after-resume-6.16.7.txt",
            ))
            .unwrap();
            let max = tool_output::parse_sysfs(&read("sysfs/cpu0-cpufreq-schedutil-6.16.7.txt"))
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
                tool_output::parse_timed_runs(&read("bench/fib-400-per-cpu-time-6.16.7.txt"))
                    .unwrap();
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
            let log = tool_output::parse_bisect_log(&read("bisect/bisect-log-6.8-to-6.8.12.txt"))
                .unwrap();
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
            let before = |r: &kernlog::analysis::mtrr::MtrrRun| r.deftype_before.map(|d| d.raw);
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
            use kernlog::analysis::mtrr::RegisterChange::*;
            let target = |c: &kernlog::analysis::mtrr::RegisterChange| match c {
                Variable { reg, after, .. } => format!("v{reg}{after:?}"),
                Fixed { msr, after, .. } => format!("f{msr}{after}"),
            };
            let prior = |c: &kernlog::analysis::mtrr::RegisterChange| match c {
                Variable { reg, before, .. } => format!("v{reg}{before:?}"),
                Fixed { msr, before, .. } => format!("f{msr}{before}"),
            };
            let same_target = bp.iter().map(target).collect::<Vec<_>>()
                == ap.iter().map(target).collect::<Vec<_>>();
            let same_prior = bp.iter().map(prior).collect::<Vec<_>>()
                == ap.iter().map(prior).collect::<Vec<_>>();
            let differences: Vec<String> = bp.iter().zip(&ap).filter(|(b, a)| prior(b) != prior(a)).filter_map(|(b, a)| match (b, a) {
                (Fixed { msr, before: bb, after: ba, .. }, Fixed { before: ab, after: aa, .. }) => {
                    let (block, reg) = kernlog::analysis::mtrr::fixed_msr_position(*msr)?;
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
