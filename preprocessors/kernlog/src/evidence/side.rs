//! What one side of a test shows: a plain log, or a capture bundle (its log, its
//! `capture.yaml` and its MTRR dumps), with the kernel and command line it was taken on.
//! `kernlog check`, `compare` and `report` read their inputs through [`Evidence`].

use std::path::Path;

use crate::analysis::mtrr::FIXED_MSRS;
use crate::analysis::{Analysis, analyze};
use crate::evidence::bundle::{
    Bundle, BundleError, Capture, CpuMtrrs, KERNEL_LOG, MTRR_BOOT, MtrrRegisters,
};
use crate::parse::reader::{Clock, RecordReader};

/// The kernel a log was taken on, as far as the input names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelId {
    /// `uname -r`: from `capture.yaml`, or the `Linux version` banner of a log.
    pub release: Option<String>,
    /// From `capture.yaml`, or the log's `Command line:` line.
    pub cmdline: Option<String>,
    /// The whole `Linux version` banner (compiler, build number and date): the same for
    /// every boot of one kernel build, so it tells builds of one release apart.
    pub build: Option<String>,
}

/// What a capture bundle adds to its log.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleContents {
    pub capture: Capture,
    /// Every CPU's MTRRs before the first suspend, when captured.
    pub boot: Option<Vec<CpuMtrrs>>,
    /// Every CPU's MTRRs after resume `n`, for the cycles that have a dump.
    pub after: Vec<(u32, Vec<CpuMtrrs>)>,
}

/// One input of `check`, `compare` or `report`.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// The path as the user named it.
    pub name: String,
    pub analysis: Analysis,
    pub kernel: KernelId,
    /// `None` for a plain log.
    pub captured: Option<BundleContents>,
    /// The log as read, for quoting its lines.
    pub log: Vec<u8>,
}

impl Evidence {
    /// A plain log held in memory (any format kernlog reads).
    pub fn from_log(name: &str, bytes: &[u8]) -> std::io::Result<Evidence> {
        Ok(Evidence {
            name: name.to_string(),
            analysis: analyze(bytes)?,
            kernel: banner(bytes),
            captured: None,
            log: bytes.to_vec(),
        })
    }

    /// A bundle folder: checked by [`Bundle::open`], then its log and dumps read.
    pub fn open_bundle(dir: &Path) -> Result<Evidence, BundleError> {
        let bundle = Bundle::open(dir)?;
        let log_path = bundle.kernel_log();
        let read_error = |e: std::io::Error| BundleError {
            path: log_path.clone(),
            line: None,
            message: format!("cannot read the kernel's log: {e}"),
            hint: Some(format!("a bundle holds its log as {KERNEL_LOG}")),
        };
        let bytes = std::fs::read(&log_path).map_err(read_error)?;
        let analysis = analyze(&bytes[..]).map_err(read_error)?;
        let names = |path: &str| bundle.manifest.iter().any(|e| e.path == path);
        let boot = if names(MTRR_BOOT) || dir.join(MTRR_BOOT).is_file() {
            Some(bundle.mtrr_dump(MTRR_BOOT)?)
        } else {
            None
        };
        let mut after = Vec::new();
        for cycle in &bundle.capture.cycles {
            if let Some(path) = &cycle.mtrr {
                after.push((cycle.n, bundle.mtrr_dump(path)?));
            }
        }
        let capture = bundle.capture;
        Ok(Evidence {
            name: dir.display().to_string(),
            analysis,
            kernel: KernelId {
                release: Some(capture.kernel.release.clone()),
                cmdline: Some(capture.kernel.cmdline.clone()),
                build: banner(&bytes).build,
            },
            captured: Some(BundleContents {
                capture,
                boot,
                after,
            }),
            log: bytes,
        })
    }

    /// The tester's label of a bundle (`--label`), e.g. "7.3.4 with v2 of the fix".
    pub fn label(&self) -> Option<&str> {
        self.captured
            .as_ref()
            .map(|c| c.capture.label.as_str())
            .filter(|l| !l.trim().is_empty())
    }

    /// "Apple Inc. MacBookPro11,4 (firmware 432.0.0.0.0, 2019-10-30)" from a bundle's DMI.
    pub fn machine(&self) -> Option<String> {
        let m = &self.captured.as_ref()?.capture.machine;
        let name: Vec<&str> = [&m.sys_vendor, &m.product_name]
            .into_iter()
            .flatten()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect();
        if name.is_empty() {
            return None;
        }
        let firmware: Vec<&str> = [&m.bios_version, &m.bios_date]
            .into_iter()
            .flatten()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect();
        Some(if firmware.is_empty() {
            name.join(" ")
        } else {
            format!("{} (firmware {})", name.join(" "), firmware.join(", "))
        })
    }
}

impl Evidence {
    /// The log's lines of the numbers given (ascending), each as `[SECONDS] MESSAGE` on the
    /// kernel's clock or as its message, control characters replaced: fit to be quoted.
    pub fn quote(&self, lines: &[u64]) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        let mut records = RecordReader::new(&self.log[..]);
        let mut wanted = lines.iter().copied().peekable();
        while let (Some(_), Some(Ok(record))) = (wanted.peek(), records.next_record()) {
            while wanted.next_if(|l| *l < record.line).is_some() {}
            if wanted.next_if_eq(&record.line).is_none() {
                continue;
            }
            let message: String = record
                .message
                .trim_end()
                .chars()
                .map(|c| if c.is_control() { '\u{fffd}' } else { c })
                .collect();
            let text = match record.time {
                Some(t) if t.clock == Clock::Monotonic => {
                    format!(
                        "[{:5}.{:06}] {message}",
                        t.micros / 1_000_000,
                        t.micros % 1_000_000
                    )
                }
                _ => message,
            };
            out.push((record.line, text));
        }
        out
    }
}

/// The registers in which two CPUs' dumps `a` and `b` differ, by name, in words.
pub fn register_differences(a: &MtrrRegisters, b: &MtrrRegisters) -> Vec<String> {
    let mut out = Vec::new();
    if a.def_type != b.def_type {
        out.push(format!(
            "MTRRdefType {:#x} against {:#x}",
            a.def_type, b.def_type
        ));
    }
    match (&a.fixed, &b.fixed) {
        (Some(fa), Some(fb)) => {
            for (i, (x, y)) in fa.iter().zip(fb).enumerate() {
                if x != y {
                    let name = FIXED_MSRS.get(i).map_or("fixed", |m| m.name);
                    out.push(format!("{name} {x:#018x} against {y:#018x}"));
                }
            }
        }
        (None, None) => {}
        _ => out.push("fixed ranges present on one only".to_string()),
    }
    if a.variable.len() != b.variable.len() {
        out.push(format!(
            "{} variable ranges against {}",
            a.variable.len(),
            b.variable.len()
        ));
    }
    for (i, (x, y)) in a.variable.iter().zip(&b.variable).enumerate() {
        if x != y {
            out.push(format!(
                "variable {i} {:#x}/{:#x} against {:#x}/{:#x}",
                x.0, x.1, y.0, y.1
            ));
        }
    }
    out
}

/// The kernel release of the first `Linux version` banner and the first `Command line:`
/// of a log.
pub fn banner(bytes: &[u8]) -> KernelId {
    let mut id = KernelId::default();
    let mut records = RecordReader::new(bytes);
    while let Some(Ok(record)) = records.next_record() {
        let m = record.message.trim();
        let release = m
            .strip_prefix("Linux version ")
            .filter(|_| id.release.is_none());
        let cmdline = m
            .strip_prefix("Command line: ")
            .filter(|_| id.cmdline.is_none());
        if let Some(rest) = release {
            id.release = rest.split_whitespace().next().map(str::to_string);
            id.build = Some(rest.to_string());
        } else if let Some(rest) = cmdline {
            id.cmdline = Some(rest.trim().to_string());
        }
        if id.build.is_some() && id.cmdline.is_some() {
            break;
        }
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_lines_carry_the_kernels_stamp_and_no_control_characters() {
        let log = "6,1,60352899,-;Enabling non-boot CPUs ...\n6,2,60443996,-;CPU7 \x1b[1mis up\n";
        let e = Evidence::from_log("k", log.as_bytes()).unwrap();
        assert_eq!(
            e.quote(&[1, 2, 9]),
            vec![
                (1, "[   60.352899] Enabling non-boot CPUs ...".to_string()),
                (2, "[   60.443996] CPU7 \u{fffd}[1mis up".to_string()),
            ]
        );
    }

    #[test]
    fn register_differences_name_each_register() {
        let a = MtrrRegisters {
            def_type: 0xc06,
            fixed: Some([0x0606_0606_0606_0606; 11]),
            variable: vec![(0x8000_0000, 0x7f_8000_0800)],
        };
        assert!(register_differences(&a, &a).is_empty());
        let mut b = a.clone();
        b.def_type = 0x406;
        b.fixed.as_mut().unwrap()[2] = 0;
        b.variable[0].0 = 0;
        assert_eq!(
            register_differences(&b, &a),
            [
                "MTRRdefType 0x406 against 0xc06",
                "MTRRfix16K_A0000 0x0000000000000000 against 0x0606060606060606",
                "variable 0 0x0/0x7f80000800 against 0x80000000/0x7f80000800",
            ]
        );
        b.fixed = None;
        b.variable.clear();
        let d = register_differences(&b, &a);
        assert!(
            d.contains(&"fixed ranges present on one only".to_string()),
            "{d:?}"
        );
        assert!(
            d.contains(&"0 variable ranges against 1".to_string()),
            "{d:?}"
        );
    }

    #[test]
    fn the_banner_names_the_release_and_the_command_line() {
        let log = "\
[    0.000000] Linux version 6.16.7-mtrrfix (root@host) (gcc 14) #1 SMP PREEMPT_DYNAMIC
[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-6.16.7-mtrrfix root=UUID=1 ro mtrr=debug
[    0.000001] Linux version 9.9.9-other
";
        let id = banner(log.as_bytes());
        assert_eq!(id.release.as_deref(), Some("6.16.7-mtrrfix"));
        assert_eq!(
            id.build.as_deref(),
            Some("6.16.7-mtrrfix (root@host) (gcc 14) #1 SMP PREEMPT_DYNAMIC")
        );
        assert_eq!(
            id.cmdline.as_deref(),
            Some("BOOT_IMAGE=/vmlinuz-6.16.7-mtrrfix root=UUID=1 ro mtrr=debug")
        );
        assert_eq!(banner(b"[ 1.0] hello\n"), KernelId::default());
    }
}
