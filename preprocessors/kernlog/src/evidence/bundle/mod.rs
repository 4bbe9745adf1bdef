//! The capture bundle of `kernlog capture`: one folder with the kernel's log of a series of
//! suspend/resume cycles, every CPU's MTRRs after boot and after each resume, and what was
//! captured how (`capture.yaml`), described by a `MANIFEST.yaml` in the notebook's form.
//!
//! ```text
//! BUNDLE/
//!   MANIFEST.yaml  capture.yaml  kernel.log  proc-mtrr.txt
//!   mtrr/boot.txt  mtrr/after-cycle-1.txt ...
//! ```
//!
//! The models ([`Capture`], [`ManifestEntry`], [`CpuMtrrs`]) render to and parse from their
//! files' text without I/O; [`read_bundle`] reads and checks a whole bundle through
//! [`BundleFiles`], which the caller implements for a folder or for files in memory. Writing
//! a bundle is the job of `kernlog capture`, which does it as root with care of its own.

mod capture;
mod manifest;
mod msr;
mod read;

pub use capture::{
    Capture, CapturedCycle, FORMAT, Kernel, Machine, Method, Outcome, Sleep, Verdict, Wake,
    WakeupEvents, WakeupKind, utc_stamp,
};
pub use manifest::{EntryCommon, ManifestEntry, count_kmsg_records, count_lines, render_manifest};
pub(crate) use msr::clip;
pub use msr::{
    CpuMtrrs, DumpError, MSR_MTRRCAP, MtrrRegisters, parse_dump, read_registers, render_dump,
};
pub use read::{
    Bundle, BundleError, BundleFiles, DUMP_CAP, DUMPS_CAP, LOG_CAP, MAX_CPUS, MAX_CYCLES,
    MemberError, MemberPath, MemoryFiles, YAML_CAP, read_bundle,
};

/// `capture.yaml`.
pub const CAPTURE_FILE: &str = "capture.yaml";
/// `MANIFEST.yaml`.
pub const MANIFEST_FILE: &str = "MANIFEST.yaml";
/// The kernel's log, in `/dev/kmsg` record format.
pub const KERNEL_LOG: &str = "kernel.log";
/// `/proc/mtrr` before the first suspend.
pub const PROC_MTRR: &str = "proc-mtrr.txt";
/// The MTRR dump before the first suspend.
pub const MTRR_BOOT: &str = "mtrr/boot.txt";

/// The MTRR dump after resume `n` (from 1).
pub fn mtrr_after_cycle(n: u32) -> String {
    format!("mtrr/after-cycle-{n}.txt")
}

#[cfg(test)]
mod tests;
