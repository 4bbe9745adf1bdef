//! What the benchmarks share: one child process timed and its peak memory read.

use std::process::{Command, Stdio};
use std::time::Instant;

/// What one run of a child cost.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Wall time, seconds.
    pub wall_s: f64,
    /// CPU time (user and system), seconds: what the child itself used, which other work on
    /// the machine changes much less than the wall time.
    pub cpu_s: f64,
    /// Peak RSS, KiB.
    pub rss_kib: i64,
}

/// Wall time, CPU time and peak RSS of a child process.
// The child is reaped by wait4, which also reports its peak RSS.
#[allow(clippy::zombie_processes)]
pub fn measure_all(cmd: &mut Command) -> Cost {
    let start = Instant::now();
    let child = cmd.stdout(Stdio::null()).spawn().expect("command starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child, with valid out-pointers.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid, "wait4 failed");
    assert!(libc::WIFEXITED(status), "child did not exit normally");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Cost {
        wall_s: start.elapsed().as_secs_f64(),
        cpu_s: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        rss_kib: usage.ru_maxrss,
    }
}
