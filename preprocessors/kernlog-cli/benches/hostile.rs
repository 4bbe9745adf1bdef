//! What the hostile inputs cost the reader: wall time and peak memory of
//! `kernlog check` on each (the target: under 5 s and 200 MB each, every one refused or
//! read correctly, which `tests/hostile.rs` checks). Run with
//! `cargo bench -p kernlog-cli --bench hostile`.

#[path = "../tests/common/hostile.rs"]
mod hostile;
#[path = "common/measure.rs"]
mod measure;

use std::process::{Command, Stdio};

fn main() {
    let kernlog = env!("CARGO_BIN_EXE_kernlog");
    let fifo = hostile::fifo_log();
    let sparse = hostile::sparse_log();
    let cycles = hostile::many_cycles();
    let deep = hostile::deep_yaml();
    let cpus_over = hostile::many_cpus(60_000);
    let cpus_max = hostile::many_cpus(8192);
    let good = hostile::good_copy();
    let dumps = hostile::many_cycle_dumps();
    let cases = [
        ("kernel.log a FIFO", hostile::s(fifo.path()).to_string()),
        (
            "kernel.log 6 GB sparse",
            hostile::s(sparse.path()).to_string(),
        ),
        ("100,000 cycles", hostile::s(cycles.path()).to_string()),
        (
            "YAML nested 100,000 deep",
            hostile::s(deep.path()).to_string(),
        ),
        (
            "a dump of 60,000 CPUs",
            hostile::s(cpus_over.path()).to_string(),
        ),
        (
            "a dump of 8,192 CPUs",
            hostile::s(cpus_max.path()).to_string(),
        ),
        (
            "99 dumps of 4,096 CPUs",
            hostile::s(dumps.path()).to_string(),
        ),
        ("/dev/zero as a plain log", "/dev/zero".to_string()),
        ("the good bundle", hostile::s(good.path()).to_string()),
    ];
    println!(
        "{:<28} {:>9} {:>9} {:>11}",
        "kernlog check on", "seconds", "CPU s", "peak MiB"
    );
    for (name, path) in cases {
        let mut cmd = Command::new(kernlog);
        cmd.args(["check", &path]).stderr(Stdio::null());
        let m = measure::measure_all(&mut cmd);
        println!(
            "{name:<28} {:>9.3} {:>9.3} {:>11.1}",
            m.wall_s,
            m.cpu_s,
            m.rss_kib as f64 / 1024.0
        );
    }
    // The report on the largest bundle: every CPU of every dump is in its tables.
    let page = tempfile::tempdir().unwrap();
    let page = page.path().join("report.html");
    for format in [None, Some("--html")] {
        let mut cmd = Command::new(kernlog);
        cmd.arg("report");
        if let Some(flag) = format {
            cmd.args([flag, hostile::s(&page)]);
        }
        cmd.arg(hostile::s(dumps.path()));
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let m = measure::measure_all(&mut cmd);
        println!(
            "{:<28} {:>9.3} {:>9.3} {:>11.1}",
            format!("report {} (99 x 4,096)", format.unwrap_or("text")),
            m.wall_s,
            m.cpu_s,
            m.rss_kib as f64 / 1024.0
        );
    }
}
