//! What the benchmarks share: one child process timed and its peak memory read.

use std::process::{Command, Stdio};
use std::time::Instant;

/// Wall time in seconds and peak RSS in KiB of a child process.
// The child is reaped by wait4, which also reports its peak RSS.
#[allow(clippy::zombie_processes)]
pub fn measure(cmd: &mut Command) -> (f64, i64) {
    let start = Instant::now();
    let child = cmd.stdout(Stdio::null()).spawn().expect("command starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child, with valid out-pointers.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid, "wait4 failed");
    assert!(libc::WIFEXITED(status), "child did not exit normally");
    (start.elapsed().as_secs_f64(), usage.ru_maxrss)
}
