//! Throughput and peak memory of `kernlog analyze` on a large, realistic log, beside
//! `grep -cE` over the same file. Run with `cargo bench -p kernlog-cli`.
//!
//! The log is generated: plausible boot-time noise, with the real 6.16.3 suspend/resume
//! captures and an MTRR debug capture in the middle. Size: `KERNLOG_BENCH_MB` (default 50).
//! Targets: within 3x of grep, peak RSS <= 16 MiB.
//!
//! Then scale: a million lines that each name another CPU (bring-up, offline, MTRR run,
//! probe) beside a million ordinary lines. Target: within 3x, memory bounded.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/measure.rs"]
mod measure;
use measure::{Cost, measure_all};

const NOISE: [&str; 12] = [
    "pci 0000:00:1c.{n}: [8086:9c10] type 01 class 0x060400 PCIe Root Port",
    "usb 1-{n}: new full-speed USB device number {n} using xhci_hcd",
    "ACPI: \\_SB_.PCI0.LPCB.EC__: event {n} queued",
    "audit: type=1400 audit({n}.123:42): apparmor=\"STATUS\" operation=\"profile_load\"",
    "EXT4-fs (sda2): mounted filesystem with ordered data mode. Quota mode: none.",
    "input: Apple Inc. Apple Internal Keyboard / Trackpad as /devices/pci0000:00/input/input{n}",
    "brcmfmac: brcmf_c_preinit_dcmds: Firmware: BCM4360/3 wl0: Nov 30 2016 {n}",
    "i915 0000:00:02.0: [drm] GuC firmware load skipped for iteration {n}",
    "thunderbolt 0-{n}: device disconnected",
    "hid-generic 0003:05AC:0274.{n}: input,hidraw{n}: USB HID v1.11 Device",
    "wlp3s0: associated (aid {n})",
    "perf: interrupt took too long ({n} > 2500), lowering kernel.perf_event_max_sample_rate",
];

fn data(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(rel);
    std::fs::read_to_string(path).expect("journey data present")
}

/// Boot-time noise with increasing stamps.
struct Noise {
    us: u64,
    i: u64,
}

impl Noise {
    fn write_until(&mut self, out: &mut impl Write, limit: u64, written: &mut u64) {
        while *written < limit {
            let template = NOISE[(self.i % NOISE.len() as u64) as usize];
            let msg = template.replace("{n}", &(self.i % 97).to_string());
            let line = format!(
                "[{:>5}.{:06}] {msg}\n",
                self.us / 1_000_000,
                self.us % 1_000_000
            );
            out.write_all(line.as_bytes()).unwrap();
            *written += line.len() as u64;
            self.us += 37 + self.i % 1500;
            self.i += 1;
        }
    }
}

/// Write `mb` MiB of log with the real resume in the middle; returns the path.
fn generate(mb: u64) -> PathBuf {
    let path = std::env::temp_dir().join(format!("kernlog-bench-{mb}mb.log"));
    let target = mb * 1024 * 1024;
    let mut out = BufWriter::new(File::create(&path).expect("temp file"));
    let mut written = 0u64;
    let mut noise = Noise { us: 1_000, i: 0 };
    noise.write_until(&mut out, target / 2, &mut written);
    for capture in [
        "dmesg/suspend-6.16.3-ubuntu-kernel.log",
        "mtrr/resume-6.16.7-debug-slow.log",
        "dmesg/resume-6.16.3-ubuntu-kernel.log",
    ] {
        // Shift the capture's stamps to follow the noise.
        let mut first = None;
        for line in data(capture).lines() {
            let (stamp, msg) = line[1..].split_once("] ").unwrap();
            let (s, frac) = stamp.trim().split_once('.').unwrap();
            let t: u64 = s.parse::<u64>().unwrap() * 1_000_000 + frac.parse::<u64>().unwrap();
            let t = noise.us + t - *first.get_or_insert(t);
            let l = format!("[{:>5}.{:06}] {msg}\n", t / 1_000_000, t % 1_000_000);
            out.write_all(l.as_bytes()).unwrap();
            written += l.len() as u64;
        }
        noise.us += 60_000_000;
    }
    noise.write_until(&mut out, target, &mut written);
    out.flush().unwrap();
    path
}

/// A million lines of one kind: ordinary noise, or lines that each name a new CPU.
fn generate_lines(name: &str, distinct_cpus: bool) -> PathBuf {
    let path = std::env::temp_dir().join(format!("kernlog-bench-{name}.log"));
    let mut out = BufWriter::new(File::create(&path).expect("temp file"));
    writeln!(out, "[    1.000000] Enabling non-boot CPUs ...").unwrap();
    for i in 0..1_000_000u64 {
        let (s, us) = (2 + i / 1_000_000, i % 1_000_000);
        let msg = if distinct_cpus {
            match i % 5 {
                0 => format!("smpboot: Booting Node 0 Processor {i} APIC 0x{i:x}"),
                1 => format!("CPU{i} is up"),
                2 => format!("MTRR cpu {i} changes:V__"),
                3 => format!("CPU {i} when thaw, looping..."),
                _ => format!("smpboot: CPU {i} is now offline"),
            }
        } else {
            NOISE[(i % NOISE.len() as u64) as usize].replace("{n}", &(i % 97).to_string())
        };
        writeln!(out, "[{s:>5}.{us:06}] {msg}").unwrap();
    }
    out.flush().unwrap();
    path
}

fn main() {
    let mb: u64 = std::env::var("KERNLOG_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let path = generate(mb);
    let size = std::fs::metadata(&path).unwrap().len() as f64 / (1024.0 * 1024.0);
    let kernlog = env!("CARGO_BIN_EXE_kernlog");
    let pattern = r"PM: suspend (entry|exit)|CPU[0-9]+ is up|Booting Node|MTRR cpu";
    // Warm the page cache once so both tools read from memory.
    let _ = measure_all(Command::new("cat").arg(&path));
    let runs = 5;
    let best = |make: &dyn Fn() -> Command| {
        (0..runs)
            .map(|_| {
                let m = measure_all(&mut make());
                (m.wall_s, m.rss_kib)
            })
            .fold((f64::INFINITY, 0), |(t, r), (t2, r2)| {
                (t.min(t2), r.max(r2))
            })
    };
    let kernlog_cmd = || {
        let mut c = Command::new(kernlog);
        c.args(["analyze", "--json"]).arg(&path);
        c
    };
    let grep_cmd = || {
        let mut c = Command::new("grep");
        c.arg("-cE").arg(pattern).arg(&path);
        c
    };
    // The two in turns, the least of each kept: a busy machine slows both alike.
    let mut k = Cost {
        wall_s: f64::INFINITY,
        cpu_s: f64::INFINITY,
        rss_kib: 0,
    };
    let mut g = k;
    for _ in 0..runs {
        for (cmd, cost) in [(kernlog_cmd(), &mut k), (grep_cmd(), &mut g)] {
            let mut cmd = cmd;
            let m = measure_all(&mut cmd);
            cost.wall_s = cost.wall_s.min(m.wall_s);
            cost.cpu_s = cost.cpu_s.min(m.cpu_s);
            cost.rss_kib = cost.rss_kib.max(m.rss_kib);
        }
    }
    let (k_time, k_rss, g_time, g_rss) = (k.wall_s, k.rss_kib, g.wall_s, g.rss_kib);
    let out = Command::new(kernlog)
        .args(["analyze", "--json"])
        .arg(&path)
        .output()
        .expect("kernlog runs");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let enable: Vec<String> = doc["cycles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} ms", c["enable_phase_ms"]))
        .collect();
    println!(
        "input: {} ({size:.1} MiB, {} records)",
        path.display(),
        doc["input"]["records"]
    );
    println!(
        "found: {} cycle(s), CPU bring-up {}",
        enable.len(),
        enable.join(", ")
    );
    println!(
        "kernlog analyze --json: {:>7.3} s {:>8.1} MiB/s  peak RSS {:>6.1} MiB",
        k_time,
        size / k_time,
        k_rss as f64 / 1024.0
    );
    println!(
        "grep -cE:               {:>7.3} s {:>8.1} MiB/s  peak RSS {:>6.1} MiB",
        g_time,
        size / g_time,
        g_rss as f64 / 1024.0
    );
    println!(
        "ratio kernlog/grep: {:.2}x wall, {:.2}x CPU time ({:.3} s against {:.3} s; target <= \
         3x); RSS target <= 16 MiB",
        k_time / g_time,
        k.cpu_s / g.cpu_s,
        k.cpu_s,
        g.cpu_s
    );
    let scale: Vec<(f64, i64)> = [("ordinary", false), ("distinct-cpus", true)]
        .into_iter()
        .map(|(name, distinct)| {
            let lines = generate_lines(name, distinct);
            let figures = best(&|| {
                let mut c = Command::new(kernlog);
                c.args(["analyze", "--json"]).arg(&lines);
                c
            });
            let _ = std::fs::remove_file(&lines);
            figures
        })
        .collect();
    for ((time, rss), what) in scale.iter().zip(["ordinary", "distinct CPUs"]) {
        println!(
            "1,000,000 {what:<14} lines: {time:>7.3} s  peak RSS {:>6.1} MiB",
            *rss as f64 / 1024.0
        );
    }
    println!(
        "ratio distinct CPUs/ordinary: {:.2}x (target <= 3x)",
        scale[1].0 / scale[0].0
    );
    if std::env::var_os("KERNLOG_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_file(&path);
    }
}
