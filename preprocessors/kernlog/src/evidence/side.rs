//! What one side of a test shows: a plain log, or a capture bundle (its log, its
//! `capture.yaml` and its MTRR dumps), with the kernel and command line it was taken on.
//! `kernlog check`, `compare` and `report` read their inputs through [`Evidence`].

pub use crate::analysis::banner::KernelId;
use crate::analysis::mtrr::FIXED_MSRS;
use crate::analysis::{Analysis, analyze};
use crate::evidence::bundle::{
    BundleError, BundleFiles, CAPTURE_FILE, Capture, CpuMtrrs, KERNEL_LOG, MtrrRegisters,
    read_bundle,
};
use crate::parse::reader::{Clock, RecordReader};

/// `text` with the `\xNN` escapes of `/dev/kmsg` (a backslash, a byte that is not
/// printable) turned back into their bytes, where they make valid UTF-8.
fn unescape_kmsg(text: &str) -> String {
    if !text.contains("\\x") {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 2..i + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], bytes.get(i + 1), hex) {
            (b'\\', Some(b'x'), Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// What a capture bundle adds to its log.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleContents {
    /// `capture.yaml`.
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
    /// The analysis of its log.
    pub analysis: Analysis,
    /// The kernel's release and command line: from `capture.yaml` for a bundle, from the log's
    /// banner otherwise.
    pub kernel: KernelId,
    /// `None` for a plain log.
    pub captured: Option<BundleContents>,
    /// The log as read, for quoting its lines.
    pub log: Vec<u8>,
}

impl Evidence {
    /// A plain log held in memory (any format kernlog reads); a `Vec<u8>` given is kept as
    /// it is, not copied.
    pub fn from_log(name: &str, bytes: impl Into<Vec<u8>>) -> std::io::Result<Evidence> {
        let log = bytes.into();
        let analysis = analyze(&log[..])?;
        Ok(Evidence {
            name: name.to_string(),
            kernel: analysis.kernel.clone(),
            analysis,
            captured: None,
            log,
        })
    }

    /// A capture bundle, read through `files` by [`read_bundle`] and its log analysed once;
    /// `name` is how the user named it. Refused where the bundle contradicts itself: a log of
    /// another kernel than `capture.yaml` names, or a CPU the log brings up that
    /// `capture.yaml` does not list online.
    pub fn from_bundle(name: &str, files: &mut dyn BundleFiles) -> Result<Evidence, BundleError> {
        let bundle = read_bundle(files)?;
        // Reading from memory cannot fail.
        let analysis = analyze(&bundle.log[..]).unwrap_or_default();
        let capture = bundle.capture;
        let release = &capture.kernel.release;
        if let Some(logged) = analysis.kernel.release.as_ref().filter(|l| *l != release) {
            return Err(BundleError {
                member: KERNEL_LOG.to_string(),
                line: None,
                message: format!(
                    "the log's banner names kernel `{}`, capture.yaml names `{}`",
                    visible_clip(logged),
                    visible_clip(&capture.kernel.release)
                ),
                hint: Some("a bundle is one capture's folder: do not mix files of two".into()),
            });
        }
        if let Some((cycle, cpu)) = unlisted_cpu(&analysis, &capture.cpus_online) {
            return Err(BundleError {
                member: CAPTURE_FILE.to_string(),
                line: None,
                message: format!(
                    "cpus_online does not list CPU {cpu}, which the log brings up in cycle \
                     {cycle}"
                ),
                hint: Some("a bundle is one capture's folder: do not mix files of two".into()),
            });
        }
        Ok(Evidence {
            name: name.to_string(),
            kernel: KernelId {
                release: Some(capture.kernel.release.clone()),
                // The kernel's own record of its command line, where the log kept it, is
                // what the bundle says: capture.yaml holds only a copy, and a forged one
                // would hide a difference between two kernels' command lines.
                cmdline: Some(
                    analysis
                        .kernel
                        .cmdline
                        .as_deref()
                        .map(unescape_kmsg)
                        .unwrap_or_else(|| capture.kernel.cmdline.clone()),
                ),
                build: analysis.kernel.build.clone(),
            },
            analysis,
            captured: Some(BundleContents {
                capture,
                boot: bundle.boot,
                after: bundle.after,
            }),
            log: bundle.log,
        })
    }

    /// Whether `self` and `other` record cycles of the same boot: one test given twice is
    /// not two boots, whatever was changed around the kernel's own lines (a blank line
    /// added, a bundle's `started:` moved, a bundle beside the `dmesg` of its boot, a second
    /// capture whose log still holds the first one's cycles). A cycle is told by the kernel's
    /// stamps of the lines that mark it (entry, exit, the thaw, each CPU's Booting and `is
    /// up`), the same to the microsecond in every copy of the boot's log; two inputs with
    /// the same build banner that share a cycle share a boot. Logs without a kernel's
    /// stamps are compared line by line, blank lines left out.
    pub fn same_as(&self, other: &Evidence) -> bool {
        if self.analysis.kernel.build != other.analysis.kernel.build {
            return false;
        }
        let (mine, theirs) = (self.cycle_marks(), other.cycle_marks());
        if !mine.is_empty() || !theirs.is_empty() {
            return mine.iter().any(|m| theirs.contains(m));
        }
        let lines = |log: &[u8]| -> Vec<Vec<u8>> {
            log.split(|&b| b == b'\n')
                .map(|l| l.trim_ascii().to_vec())
                .filter(|l| !l.is_empty())
                .collect()
        };
        lines(&self.log) == lines(&other.log)
    }

    /// For each cycle with a kernel's stamp, the stamps of the lines that mark it.
    fn cycle_marks(&self) -> Vec<Vec<Option<i64>>> {
        let stamp = |e: &Option<crate::analysis::resume::Event>| {
            e.and_then(|e| e.time)
                .filter(|t| t.clock != Clock::Received)
                .map(|t| t.micros)
        };
        self.analysis
            .cycles
            .iter()
            .map(|c| {
                let mut marks = vec![stamp(&c.entry), stamp(&c.exit), stamp(&c.enable_start)];
                for cpu in &c.cpus {
                    marks.push(stamp(&cpu.booting));
                    marks.push(stamp(&cpu.up));
                }
                marks
            })
            .filter(|marks| marks.iter().any(Option::is_some))
            .collect()
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

/// The first CPU the log brings up in a cycle that `online` does not list, with the cycle
/// (from 1).
fn unlisted_cpu(analysis: &Analysis, online: &[u32]) -> Option<(usize, u32)> {
    analysis.cycles.iter().enumerate().find_map(|(i, c)| {
        c.cpus
            .iter()
            .find(|cpu| cpu.up.is_some() && !online.contains(&cpu.cpu))
            .map(|cpu| (i + 1, cpu.cpu))
    })
}

/// Untrusted text for an error message: one line, at most 40 characters (the caller
/// prints it through the safe-text rule).
fn visible_clip(text: &str) -> String {
    crate::evidence::bundle::clip(&text.replace(['\n', '\r'], " "))
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
}
