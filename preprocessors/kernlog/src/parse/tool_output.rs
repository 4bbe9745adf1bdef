//! Small captures that sit beside kernel logs in an investigation: `uniq -c` call counts
//! and their `diff -y` comparisons, duration histograms, `time` output, `grep .` dumps of
//! sysfs, and `git bisect log`.
//!
//! Every parser takes the whole text and returns its records, or a [`CaptureError`] with
//! the 1-based line that could not be read.

use std::fmt;

use serde::Serialize;

/// A line that does not have the expected shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    /// The line, from 1.
    pub line: usize,
    /// The shape it should have had.
    pub expected: &'static str,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: expected {}", self.line, self.expected)
    }
}

impl std::error::Error for CaptureError {}

fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

/// `uniq -c` output: `count name` per line.
pub fn parse_counts(text: &str) -> Result<Vec<(u64, String)>, CaptureError> {
    lines(text)
        .map(|(n, l)| {
            count_pair(l).ok_or(CaptureError {
                line: n,
                expected: "`COUNT NAME`",
            })
        })
        .collect()
}

fn count_pair(text: &str) -> Option<(u64, String)> {
    let (count, name) = text.trim().split_once(' ')?;
    let name = name.trim();
    (!name.is_empty() && !name.contains(' ')).then_some(())?;
    Some((count.parse().ok()?, name.to_string()))
}

/// One row of a `diff -y` of two count files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CountDiffRow {
    /// The left file's `count name`, unless the row is right only.
    pub left: Option<(u64, String)>,
    /// The right file's, unless the row is left only.
    pub right: Option<(u64, String)>,
}

/// `diff -y` output: `a x | b y` (changed), `a x <` (left only), `> b y` (right only).
pub fn parse_count_diff(text: &str) -> Result<Vec<CountDiffRow>, CaptureError> {
    lines(text)
        .map(|(n, l)| {
            let err = CaptureError {
                line: n,
                expected: "`N name | N name`, `N name <` or `> N name`",
            };
            let row = if let Some(right) = l.strip_prefix('>') {
                CountDiffRow {
                    left: None,
                    right: Some(count_pair(right).ok_or(err)?),
                }
            } else if let Some(left) = l.strip_suffix('<') {
                CountDiffRow {
                    left: Some(count_pair(left).ok_or(err)?),
                    right: None,
                }
            } else {
                let (left, right) = l.split_once('|').ok_or(err.clone())?;
                CountDiffRow {
                    left: Some(count_pair(left).ok_or(err.clone())?),
                    right: Some(count_pair(right).ok_or(err)?),
                }
            };
            Ok(row)
        })
        .collect()
}

/// A histogram printed as `< BOUND : COUNT` rows and a `total : N` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BucketHistogram {
    /// (exclusive upper bound, count), in file order.
    pub buckets: Vec<(u64, u64)>,
    /// The `total : N` line's figure, when there is one.
    pub total: Option<u64>,
}

impl BucketHistogram {
    /// The buckets' counts added up; `None` if they overflow 64 bits (a garbled capture).
    pub fn sum(&self) -> Option<u64> {
        self.buckets
            .iter()
            .try_fold(0u64, |sum, (_, c)| sum.checked_add(*c))
    }
}

/// Reads a histogram of `< BOUND : COUNT` rows and an optional `total : N` line.
pub fn parse_bucket_histogram(text: &str) -> Result<BucketHistogram, CaptureError> {
    let mut hist = BucketHistogram {
        buckets: Vec::new(),
        total: None,
    };
    for (n, l) in lines(text) {
        let err = CaptureError {
            line: n,
            expected: "`< BOUND : COUNT` or `total : N`",
        };
        let (key, value) = l.split_once(':').ok_or(err.clone())?;
        let value: u64 = value.trim().parse().map_err(|_| err.clone())?;
        let key = key.trim();
        if key == "total" {
            hist.total = Some(value);
        } else {
            let bound = key.strip_prefix('<').ok_or(err.clone())?;
            hist.buckets
                .push((bound.trim().parse().map_err(|_| err)?, value));
        }
    }
    Ok(hist)
}

/// One run of a command under the shell's `time`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedRun {
    /// Output lines of the command itself, before the timing.
    pub output: Vec<String>,
    /// `real`, in seconds.
    pub real_s: f64,
    /// `user`, in seconds.
    pub user_s: f64,
    /// `sys`, in seconds.
    pub sys_s: f64,
}

/// Repeated `real 0m2.190s` / `user ...` / `sys ...` blocks, each after its command's output.
pub fn parse_timed_runs(text: &str) -> Result<Vec<TimedRun>, CaptureError> {
    let mut runs = Vec::new();
    let mut output = Vec::new();
    let mut times: [Option<f64>; 3] = [None; 3];
    for (n, l) in lines(text) {
        let slot = ["real", "user", "sys"]
            .iter()
            .position(|k| l.starts_with(k) && l[k.len()..].starts_with([' ', '\t']));
        match slot {
            Some(i) => {
                let value = shell_duration(l[l.find([' ', '\t']).unwrap_or(0)..].trim()).ok_or(
                    CaptureError {
                        line: n,
                        expected: "a duration such as `0m2.190s`",
                    },
                )?;
                times[i] = Some(value);
                if let [Some(real_s), Some(user_s), Some(sys_s)] = times {
                    runs.push(TimedRun {
                        output: std::mem::take(&mut output),
                        real_s,
                        user_s,
                        sys_s,
                    });
                    times = [None; 3];
                }
            }
            None => output.push(l.to_string()),
        }
    }
    Ok(runs)
}

/// `0m2.190s` -> 2.19.
fn shell_duration(text: &str) -> Option<f64> {
    let (minutes, rest) = text.split_once('m')?;
    let seconds = rest.strip_suffix('s')?;
    let value = minutes.parse::<f64>().ok()? * 60.0 + seconds.parse::<f64>().ok()?;
    value.is_finite().then_some(value)
}

/// `grep . /sys/...` output: `path:value` per line (the value may be empty).
pub fn parse_sysfs(text: &str) -> Result<Vec<(String, String)>, CaptureError> {
    lines(text)
        .map(|(n, l)| {
            let (path, value) = l
                .split_once(':')
                .filter(|(p, _)| p.starts_with('/'))
                .ok_or(CaptureError {
                    line: n,
                    expected: "`/sys/path:value`",
                })?;
            Ok((path.to_string(), value.to_string()))
        })
        .collect()
}

/// One verdict of a `git bisect log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BisectStep {
    /// The line, from 1.
    pub line: usize,
    /// The term used (`good`, `bad`, or custom terms such as `slow` / `fast`).
    pub term: String,
    /// The commit as written (full or abbreviated).
    pub commit: String,
    /// The commit's subject from the `# term: [sha] subject` comment, if present.
    pub subject: Option<String>,
}

/// A parsed bisect log.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct BisectLog {
    /// `--term-old` / `--term-new` from `git bisect start`, if given.
    pub terms: Option<(String, String)>,
    /// The verdicts, in order.
    pub steps: Vec<BisectStep>,
    /// `# first <term> commit: [sha] subject`.
    pub first: Option<(String, String)>,
}

/// Reads a `git bisect log`: its terms, each verdict, and the commit its `# first ... commit`
/// comment names.
pub fn parse_bisect_log(text: &str) -> Result<BisectLog, CaptureError> {
    let mut log = BisectLog::default();
    let mut subject: Option<(String, String)> = None;
    for (n, l) in lines(text) {
        if let Some(comment) = l.strip_prefix("# ") {
            if let Some(rest) = comment.strip_prefix("first ") {
                let first = rest
                    .split_once(" commit: [")
                    .and_then(|(_, r)| r.split_once("] "));
                if let Some((sha, subj)) = first {
                    log.first = Some((sha.to_string(), subj.to_string()));
                }
            } else if let Some((sha, subj)) = comment
                .split_once(": [")
                .and_then(|(_, r)| r.split_once("] "))
            {
                subject = Some((sha.to_string(), subj.to_string()));
            }
            continue;
        }
        let Some(rest) = l.strip_prefix("git bisect ") else {
            return Err(CaptureError {
                line: n,
                expected: "`git bisect ...` or a `# ` comment",
            });
        };
        let mut words = rest.split_whitespace();
        let term = words.next().unwrap_or_default();
        if term == "start" {
            let arg = |name: &str| {
                rest.split_whitespace()
                    .map(|w| w.trim_matches('\''))
                    .find_map(|w| w.strip_prefix(name).map(str::to_string))
            };
            if let (Some(old), Some(new)) = (arg("--term-old="), arg("--term-new=")) {
                log.terms = Some((old, new));
            }
            continue;
        }
        let commit = words.next().ok_or(CaptureError {
            line: n,
            expected: "`git bisect TERM COMMIT`",
        })?;
        let subject = subject
            .take()
            .filter(|(sha, _)| sha == commit)
            .map(|(_, s)| s);
        log.steps.push(BisectStep {
            line: n,
            term: term.to_string(),
            commit: commit.to_string(),
            subject,
        });
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_diffs() {
        assert_eq!(
            parse_counts("  7 setup_pcp_cacheinfo\n448 unbound_wq_update_pwq\n").unwrap(),
            [
                (7, "setup_pcp_cacheinfo".to_string()),
                (448, "unbound_wq_update_pwq".to_string())
            ]
        );
        assert_eq!(parse_counts("x y\n").unwrap_err().line, 1);
        let rows = parse_count_diff("1 a <\n5 b | 6 b\n> 25 c\n").unwrap();
        assert_eq!(rows[0].right, None);
        assert_eq!(rows[1].right, Some((6, "b".to_string())));
        assert_eq!(rows[2].left, None);
        assert!(parse_count_diff("5 b || 6 b").is_err());
    }

    #[test]
    fn histogram_timing_sysfs() {
        let h = parse_bucket_histogram("< 1 : 207\n< 51 : 1\n total : 208\n").unwrap();
        assert_eq!(h.buckets, [(1, 207), (51, 1)]);
        assert_eq!((h.sum(), h.total), (Some(208), Some(208)));
        assert!(parse_bucket_histogram("< x : 1").is_err());

        let runs = parse_timed_runs("80200\nreal 1m2.190s\nuser 0m0.204s\nsys 0m1.980s\n").unwrap();
        assert_eq!(runs[0].output, ["80200"]);
        assert!((runs[0].real_s - 62.19).abs() < 1e-9);
        assert!(parse_timed_runs("real 2s\n").is_err());

        let s = parse_sysfs("/sys/a/scaling_setspeed:\n/sys/a/max:3400000\n").unwrap();
        assert_eq!(s[0].1, "");
        assert_eq!(s[1].1, "3400000");
        assert!(parse_sysfs("no path here").is_err());
    }

    #[test]
    fn bisect() {
        let log = parse_bisect_log(
            "git bisect start '--term-old=slow' '--term-new=fast'\n\
             # slow: [aaa] Linux 6.8\n\
             git bisect slow aaa\n\
             git bisect fast bbb\n\
             # first fast commit: [bbb] Linux 6.8.12\n",
        )
        .unwrap();
        assert_eq!(log.terms, Some(("slow".into(), "fast".into())));
        assert_eq!(log.steps.len(), 2);
        assert_eq!(log.steps[0].subject.as_deref(), Some("Linux 6.8"));
        assert_eq!(log.steps[1].subject, None);
        assert_eq!(log.first.unwrap().1, "Linux 6.8.12");
        assert_eq!(parse_bisect_log("rm -rf /\n").unwrap_err().line, 1);
    }

    #[test]
    fn a_histogram_whose_counts_overflow_has_no_sum() {
        let h = BucketHistogram {
            buckets: vec![(1, 5), (10, u64::MAX)],
            total: None,
        };
        assert_eq!(h.sum(), None);
    }
}
