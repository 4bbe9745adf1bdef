//! `trace-cmd report` output of the function_graph tracer.
//!
//! [`parse_trace_line`] reads one line (pure, borrowed); [`TraceStats`] aggregates
//! durations per function and per task, and call counts, in memory bounded by the number
//! of distinct functions and tasks.

use std::collections::BTreeMap;

/// What a function_graph line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphEvent<'a> {
    /// `func() {`: a call whose duration comes with its closing brace.
    Enter {
        /// The function called.
        function: &'a str,
    },
    /// `func();`: a leaf call with its duration on the same line.
    Leaf {
        /// The function called.
        function: &'a str,
    },
    /// `}`, with the function name when `-O fgraph:tailprint` printed it (`} /* func */`).
    Exit {
        /// The function, when the line names it.
        function: Option<&'a str>,
    },
}

/// One function_graph line of a `trace-cmd report`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceLine<'a> {
    /// Task name (`<idle>` where the report lost the angle brackets and shows `-0`).
    pub task: &'a str,
    /// Task id.
    pub pid: u32,
    /// The CPU the line was traced on.
    pub cpu: u32,
    /// Trace clock time in microseconds.
    pub time_us: i64,
    /// The duration marker (`+ ! # * @ $`), if any.
    pub marker: Option<char>,
    /// Duration in microseconds (nanosecond precision kept as a fraction).
    pub duration_us: Option<f64>,
    /// What the line records.
    pub event: GraphEvent<'a>,
}

/// Parse one line; `None` for anything that is not a function_graph entry or exit.
pub fn parse_trace_line(line: &str) -> Option<TraceLine<'_>> {
    let line = line.trim();
    // `task-pid [cpu] [flags] timestamp: funcgraph_entry: ...`
    let open = find_cpu_field(line)?;
    let (task_pid, rest) = (line[..open].trim_end(), &line[open + 1..]);
    let (cpu, rest) = rest.split_once(']')?;
    let cpu: u32 = cpu.trim().parse().ok()?;
    let (task, pid) = task_pid.rsplit_once('-')?;
    let pid: u32 = pid.parse().ok()?;
    let task = if task.is_empty() && pid == 0 {
        "<idle>"
    } else {
        task
    };
    let (stamp, rest) = rest.split_once(": ")?;
    let stamp = stamp.split_whitespace().last()?;
    let time_us = parse_trace_time(stamp)?;
    let rest = rest.trim_start();
    let (kind, body) = if let Some(b) = rest.strip_prefix("funcgraph_entry:") {
        (true, b)
    } else if let Some(b) = rest.strip_prefix("funcgraph_exit:") {
        (false, b)
    } else {
        return None;
    };
    let (duration_part, call) = body.split_once('|')?;
    let (marker, duration_us) = parse_duration(duration_part)?;
    let call = call.trim();
    let event = if kind {
        if let Some(f) = call.strip_suffix("();") {
            GraphEvent::Leaf { function: f.trim() }
        } else if let Some(f) = call.strip_suffix("() {") {
            GraphEvent::Enter { function: f.trim() }
        } else {
            return None;
        }
    } else {
        let rest = call.strip_prefix('}')?.trim();
        let function = rest
            .strip_prefix("/*")
            .and_then(|r| r.strip_suffix("*/"))
            .map(str::trim);
        GraphEvent::Exit { function }
    };
    Some(TraceLine {
        task,
        pid,
        cpu,
        time_us,
        marker,
        duration_us,
        event,
    })
}

/// Position of the `[` of the `[cpu]` field: the first `[` followed by digits and `]`.
fn find_cpu_field(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'[', &bytes[from..]) {
        let at = from + i;
        let rest = &bytes[at + 1..];
        let close = memchr::memchr(b']', rest)?;
        if close > 0
            && rest[..close]
                .iter()
                .all(|b| b.is_ascii_digit() || *b == b' ')
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn parse_trace_time(stamp: &str) -> Option<i64> {
    let (secs, frac) = stamp.split_once('.')?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = secs.parse().ok()?;
    let digits = frac.len().min(6);
    let micros: i64 = frac[..digits].parse().ok()?;
    secs.checked_mul(1_000_000)?
        .checked_add(micros * 10i64.pow((6 - digits) as u32))
}

/// `$ 4714843 us ` / `0.691 us ` / ` ` -> marker and duration.
fn parse_duration(text: &str) -> Option<(Option<char>, Option<f64>)> {
    let mut words = text.split_whitespace().peekable();
    let marker = match words.peek() {
        Some(w) if w.len() == 1 && "+!#*@$".contains(*w) => {
            let c = w.chars().next();
            words.next();
            c
        }
        _ => None,
    };
    match (words.next(), words.next()) {
        (None, _) => Some((marker, None)),
        (Some(value), Some("us")) => {
            let v: f64 = value.parse().ok()?;
            (v.is_finite() && v >= 0.0).then_some((marker, Some(v)))
        }
        _ => None,
    }
}

/// Count, total, extremes and every duration of one function.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Durations {
    /// Durations added.
    pub calls: u64,
    /// Their sum.
    pub total_us: f64,
    /// The longest.
    pub max_us: f64,
    /// The shortest.
    pub min_us: f64,
}

impl Durations {
    fn add(&mut self, us: f64) {
        if self.calls == 0 || us < self.min_us {
            self.min_us = us;
        }
        if us > self.max_us {
            self.max_us = us;
        }
        self.calls += 1;
        self.total_us += us;
    }
}

/// A histogram over log10-spaced buckets: bucket `k` counts durations in
/// `[10^(k-1), 10^k)` us, bucket 0 those under 1 us.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    /// Durations per bucket; buckets with none are absent.
    pub buckets: BTreeMap<u32, u64>,
}

impl Histogram {
    fn add(&mut self, us: f64) {
        let bucket = if us < 1.0 {
            0
        } else {
            us.log10().floor() as u32 + 1
        };
        *self.buckets.entry(bucket).or_default() += 1;
    }

    /// Upper bound of a bucket in microseconds.
    pub fn upper_us(bucket: u32) -> f64 {
        10f64.powi(bucket as i32)
    }
}

/// Aggregated function_graph statistics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceStats {
    /// function_graph lines read.
    pub lines: u64,
    /// Per function: durations (from leaf lines and from exits that name the function or
    /// match an entry on the same CPU).
    pub functions: BTreeMap<String, Durations>,
    /// Per function: every entry seen (calls counted even without a duration).
    pub calls: BTreeMap<String, u64>,
    /// Per task (`name-pid`): summed durations of the outermost calls seen.
    pub tasks: BTreeMap<String, Durations>,
    /// Per function: how its durations spread over the buckets.
    pub histograms: BTreeMap<String, Histogram>,
    /// Open `func() {` entries per CPU, to name exits that carry no comment.
    stacks: BTreeMap<u32, Vec<String>>,
    /// Lines whose function, task or CPU was beyond the names kept (see [`crate::analysis::limits`]).
    pub not_kept: u64,
}

/// The entry of `key` in `map`, added if new while the map holds fewer than `cap` keys;
/// `None` (and one more line not kept) once it is full.
fn entry<'m, K, Q, V>(
    map: &'m mut BTreeMap<K, V>,
    key: &Q,
    cap: usize,
    not_kept: &mut u64,
) -> Option<&'m mut V>
where
    K: Ord + std::borrow::Borrow<Q>,
    Q: ?Sized + Ord + ToOwned<Owned = K>,
    V: Default,
{
    if !map.contains_key(key) {
        if map.len() >= cap {
            *not_kept += 1;
            return None;
        }
        map.insert(key.to_owned(), V::default());
    }
    map.get_mut(key)
}

use crate::analysis::limits::{CPUS_KEPT, TRACE_NAMES_KEPT as NAMES};

/// Deepest call nesting kept per CPU; deeper entries are not matched to their exits.
const MAX_DEPTH: usize = 64;

impl TraceStats {
    /// Statistics of no line yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one parsed line.
    pub fn push(&mut self, line: &TraceLine) {
        self.lines += 1;
        let n = &mut self.not_kept;
        let Some(stack) = entry(&mut self.stacks, &line.cpu, CPUS_KEPT, n) else {
            return;
        };
        let (function, duration): (Option<String>, Option<f64>) = match line.event {
            GraphEvent::Enter { function } => {
                if let Some(calls) = entry(&mut self.calls, function, NAMES, n) {
                    *calls += 1;
                }
                if stack.len() < MAX_DEPTH {
                    stack.push(function.to_string());
                }
                (None, None)
            }
            GraphEvent::Leaf { function } => {
                if let Some(calls) = entry(&mut self.calls, function, NAMES, n) {
                    *calls += 1;
                }
                (Some(function.to_string()), line.duration_us)
            }
            GraphEvent::Exit { function } => {
                let popped = match function {
                    Some(f) => {
                        if let Some(pos) = stack.iter().rposition(|s| s == f) {
                            stack.truncate(pos);
                        }
                        Some(f.to_string())
                    }
                    None => stack.pop(),
                };
                (popped, line.duration_us)
            }
        };
        let (Some(function), Some(us)) = (function, duration) else {
            return;
        };
        let n = &mut self.not_kept;
        if stack_depth_is_outermost(&self.stacks, line.cpu) {
            if let Some(task) = entry(
                &mut self.tasks,
                format!("{}-{}", line.task, line.pid).as_str(),
                NAMES,
                n,
            ) {
                task.add(us);
            }
        }
        if let Some(h) = entry(&mut self.histograms, function.as_str(), NAMES, n) {
            h.add(us);
        }
        if let Some(d) = entry(&mut self.functions, function.as_str(), NAMES, n) {
            d.add(us);
        }
    }

    /// Functions by total duration, longest first.
    pub fn by_total(&self) -> Vec<(&str, &Durations)> {
        let mut v: Vec<_> = self
            .functions
            .iter()
            .map(|(k, d)| (k.as_str(), d))
            .collect();
        v.sort_by(|a, b| b.1.total_us.total_cmp(&a.1.total_us).then(a.0.cmp(b.0)));
        v
    }
}

fn stack_depth_is_outermost(stacks: &BTreeMap<u32, Vec<String>>, cpu: u32) -> bool {
    stacks.get(&cpu).is_none_or(Vec::is_empty)
}

/// Read a whole report: every function_graph line, in order.
pub fn stats_of(text: &str) -> TraceStats {
    let mut stats = TraceStats::new();
    for line in text.lines().filter_map(parse_trace_line) {
        stats.push(&line);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_with_tailprint() {
        let l = parse_trace_line(
            "systemd-sleep-10168 [000] 7653.527608: funcgraph_exit: $ 4714843 us | } /* _cpu_up */",
        )
        .unwrap();
        assert_eq!((l.task, l.pid, l.cpu), ("systemd-sleep", 10168, 0));
        assert_eq!(l.time_us, 7_653_527_608);
        assert_eq!(l.marker, Some('$'));
        assert_eq!(l.duration_us, Some(4_714_843.0));
        assert_eq!(
            l.event,
            GraphEvent::Exit {
                function: Some("_cpu_up")
            }
        );
    }

    #[test]
    fn endless_distinct_names_are_bounded_and_counted() {
        let extra = 3;
        let text: String = (0..NAMES + extra)
            .map(|i| format!("t-1 [000] 1.000000: funcgraph_entry: 0.5 us | f{i}();\n"))
            .collect();
        let stats = stats_of(&text);
        assert_eq!((stats.functions.len(), stats.calls.len()), (NAMES, NAMES));
        // Each extra line misses the calls, histograms and functions maps.
        assert_eq!(stats.not_kept, 3 * extra as u64);
        assert_eq!(stats.lines, (NAMES + extra) as u64);
    }

    #[test]
    fn entries_leaves_idle_and_flags() {
        let l = parse_trace_line(
            "systemd-sleep-10168 [000] 7668.747875: funcgraph_entry: 0.691 us | cpuhp_next_state();",
        )
        .unwrap();
        assert_eq!(
            l.event,
            GraphEvent::Leaf {
                function: "cpuhp_next_state"
            }
        );
        assert_eq!(l.marker, None);
        let l = parse_trace_line("-0 [006] 11673.783585: funcgraph_entry: | complete() {").unwrap();
        assert_eq!((l.task, l.pid), ("<idle>", 0));
        assert_eq!(l.duration_us, None);
        let l = parse_trace_line(
            "kworker/u16:3-events_unbound-123 [002] d..1. 100.000001: funcgraph_entry: + 11.746 us | f();",
        )
        .unwrap();
        assert_eq!(
            (l.task, l.pid, l.cpu, l.marker),
            ("kworker/u16:3-events_unbound", 123, 2, Some('+'))
        );
        assert!(parse_trace_line("cpuhp/6-51 [006] 1.0: sched_switch: prev=x").is_none());
        assert!(parse_trace_line("garbage [x] 1.0: funcgraph_entry: | f() {").is_none());
        assert!(parse_trace_line("t-1 [0] 1.5: funcgraph_entry: NaN us | f();").is_none());
        // A time stamp too large for microseconds in an i64 (found by the fuzzer).
        assert!(
            parse_trace_line("-0 [006] 55555555551167.7830809: funcgraph_entry: | f() {").is_none()
        );
    }

    #[test]
    fn aggregation_matches_exits_to_entries() {
        let text = "\
t-1 [001] 1.000000: funcgraph_entry: | outer() {
t-1 [001] 1.000001: funcgraph_entry: 5.000 us | leaf();
t-1 [001] 1.000002: funcgraph_entry: 15.000 us | leaf();
t-1 [001] 1.000100: funcgraph_exit: ! 100.000 us | }
";
        let s = stats_of(text);
        assert_eq!(s.functions["leaf"].calls, 2);
        assert_eq!(s.functions["leaf"].total_us, 20.0);
        assert_eq!(s.functions["leaf"].min_us, 5.0);
        assert_eq!(s.functions["outer"].max_us, 100.0);
        assert_eq!(s.calls["outer"], 1);
        assert_eq!(s.tasks["t-1"].total_us, 100.0);
        assert_eq!(s.histograms["leaf"].buckets[&1], 1);
        assert_eq!(s.histograms["leaf"].buckets[&2], 1);
        assert_eq!(s.by_total()[0].0, "outer");
    }
}
