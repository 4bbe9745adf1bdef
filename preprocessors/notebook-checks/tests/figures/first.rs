//! The figures F01 to F23 of data/facts.yaml, recomputed.

use super::*;
use serde_json::{Value, json};

/// The figure `id`, when it is one of this half.
pub fn compute(id: &str) -> Option<Value> {
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
            let rows = tool_output::parse_count_diff(&read(
                "bench/call-counts-diff-cpu5-vs-cpu6-6.16.7.txt",
            ))
            .unwrap();
            let max = rows
                .iter()
                .filter_map(|r| Some(r.left.as_ref()?.0.abs_diff(r.right.as_ref()?.0)))
                .max();
            json!(max)
        }
        "F22" => {
            let rows = tool_output::parse_count_diff(&read(
                "bench/call-counts-diff-cpu4-vs-cpu5-6.16.7.txt",
            ))
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
                tool_output::parse_sysfs(&read("sysfs/cpu0-cpufreq-schedutil-6.16.7.txt")).unwrap();
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
        _ => return None,
    };
    Some(v)
}
