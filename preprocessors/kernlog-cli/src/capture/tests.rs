//! Capture against a fake machine: a temporary folder standing in for `/`, MSRs in a map,
//! and a script of what each suspend request does.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Parser;
use kernlog::evidence::bundle::{
    Bundle, Capture, Method, Outcome, Sleep, Verdict, parse_dump, read_bundle,
};

use super::{CaptureArgs, Host, command_line, run};

/// What one suspend request does on the fake machine.
#[derive(Clone)]
pub enum Act {
    /// Suspends and resumes; CPU 1's default type reads this value afterwards.
    Resume(u64),
    /// The write to /sys/power/state fails after the kernel aborted.
    Refused,
    /// Suspends and never comes back.
    NeverWakes,
}

pub struct FakeHost {
    dir: tempfile::TempDir,
    pub superuser: bool,
    /// What `modprobe msr` does: create the devices, or fail with this text.
    pub modprobe: Result<(), String>,
    pub modprobe_calls: Cell<u32>,
    msrs: RefCell<HashMap<(u32, u32), u64>>,
    pub script: VecDeque<Act>,
    pub requests: Vec<(Method, Sleep)>,
    /// `capture.yaml` of this bundle as it was when each suspend was requested.
    pub watch: Option<PathBuf>,
    pub snapshots: Vec<String>,
    clock: Cell<SystemTime>,
    seq: Cell<u64>,
    /// What uname(2) says; `None` as if it failed.
    pub uname: Option<String>,
    /// The environment (`SUDO_UID`, `SUDO_GID`).
    pub vars: HashMap<&'static str, OsString>,
    /// What another user does while the machine sleeps in the next suspend.
    pub meanwhile: Option<Box<dyn FnOnce()>>,
    /// After this many pauses, SIGINT asks the capture to stop.
    pub interrupt_after: Option<u32>,
    pauses: Cell<u32>,
    pub signals_caught: bool,
    /// The wakeup source (`sys/class/wakeup/wakeupN`) that counts an event at each resume.
    pub wakes: VecDeque<&'static str>,
}

impl FakeHost {
    /// A two-CPU machine that can suspend, with an RTC, systemd and the msr devices.
    pub fn new() -> FakeHost {
        let host = FakeHost {
            dir: tempfile::tempdir().unwrap(),
            superuser: true,
            modprobe: Err("modprobe: FATAL: Module msr not found".to_string()),
            modprobe_calls: Cell::new(0),
            msrs: RefCell::new(HashMap::new()),
            script: VecDeque::new(),
            requests: Vec::new(),
            watch: None,
            snapshots: Vec::new(),
            clock: Cell::new(UNIX_EPOCH + Duration::from_secs(1_796_119_200)),
            seq: Cell::new(0),
            uname: None,
            vars: HashMap::new(),
            meanwhile: None,
            interrupt_after: None,
            pauses: Cell::new(0),
            signals_caught: false,
            wakes: VecDeque::new(),
        };
        for (rel, text) in [
            ("sys/power/state", "freeze mem disk\n"),
            ("sys/power/mem_sleep", "s2idle [deep]\n"),
            ("sys/class/rtc/rtc0/wakealarm", "\n"),
            ("sys/devices/system/cpu/online", "0-1\n"),
            ("sys/class/dmi/id/sys_vendor", "Apple Inc.\n"),
            ("sys/class/dmi/id/product_name", "MacBookPro11,4\n"),
            ("proc/sys/kernel/osrelease", "7.3.4-test\n"),
            ("proc/cmdline", "root=/dev/sda1 mtrr=debug\n"),
            (
                "proc/mtrr",
                "reg00: base=0x0c0000000 ( 3072MB), size= 1024MB, count=1: uncachable\n",
            ),
            ("dev/kmsg", ""),
            ("dev/cpu/0/msr", ""),
            ("dev/cpu/1/msr", ""),
        ] {
            host.write(rel, text);
        }
        std::fs::create_dir_all(host.path("run/systemd/system")).unwrap();
        host.kmsg("Linux version 7.3.4-test");
        host.kmsg("smp: Brought up 1 node, 2 CPUs");
        for cpu in 0..2 {
            let mut msrs = host.msrs.borrow_mut();
            msrs.insert((cpu, 0xfe), 0x102); // fixed ranges, two variable ranges
            msrs.insert((cpu, 0x2ff), 0xc06);
            for msr in [
                0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b, 0x26c, 0x26d, 0x26e, 0x26f,
            ] {
                msrs.insert((cpu, msr), 0x0606_0606_0606_0606);
            }
            for msr in 0x200..0x204 {
                msrs.insert((cpu, msr), u64::from(msr));
            }
        }
        host
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Appends one record to the fake /dev/kmsg, as the kernel would log it.
    fn kmsg(&self, message: &str) {
        use std::io::Write;
        let seq = self.seq.replace(self.seq.get() + 1);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(self.path("dev/kmsg"))
            .unwrap();
        writeln!(file, "6,{seq},{},-;{message}", 1000 * seq).unwrap();
    }

    /// As if run by `sudo` for user `uid`, group `gid`.
    /// As if run by `sudo` from user `uid`, whose folder the host's root then is (capture
    /// creates a bundle it hands back only where that user could create one).
    pub fn sudo(&mut self, uid: &str, gid: &str) {
        self.vars.insert("SUDO_UID", uid.into());
        self.vars.insert("SUDO_GID", gid.into());
        let (u, g) = (uid.parse().ok(), gid.parse().ok());
        if u.is_some() && g.is_some() {
            std::os::unix::fs::chown(self.dir.path(), u, g).unwrap();
        }
    }

    fn advance(&self, time: Duration) {
        self.clock.set(self.clock.get() + time);
    }
}

impl Host for FakeHost {
    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn is_superuser(&self) -> bool {
        self.superuser
    }

    fn load_msr_module(&mut self) -> Result<(), String> {
        self.modprobe_calls.set(self.modprobe_calls.get() + 1);
        self.modprobe.clone()?;
        self.write("dev/cpu/0/msr", "");
        self.write("dev/cpu/1/msr", "");
        Ok(())
    }

    fn read_msr(&self, cpu: u32, msr: u32) -> Result<u64, String> {
        self.msrs
            .borrow()
            .get(&(cpu, msr))
            .copied()
            .ok_or_else(|| format!("MSR {msr:#x}: Input/output error"))
    }

    fn request_suspend(&mut self, method: Method, sleep: Sleep) -> Result<(), String> {
        self.requests.push((method, sleep));
        if let Some(watch) = &self.watch {
            self.snapshots.push(std::fs::read_to_string(watch).unwrap());
        }
        if let Some(act) = self.meanwhile.take() {
            act();
        }
        let (entry, exit) = match sleep {
            Sleep::Suspend => ("PM: suspend entry (deep)", "PM: suspend exit"),
            Sleep::Hibernate => (
                "PM: hibernation: hibernation entry",
                "PM: hibernation: hibernation exit",
            ),
        };
        self.kmsg(entry);
        match self
            .script
            .pop_front()
            .expect("a scripted act for every request")
        {
            Act::Resume(def_type) => {
                self.advance(Duration::from_secs(3));
                if let Some(source) = self.wakes.pop_front() {
                    let count = self.path(&format!("sys/class/wakeup/{source}/event_count"));
                    let n: u64 = std::fs::read_to_string(&count)
                        .unwrap()
                        .trim()
                        .parse()
                        .unwrap();
                    std::fs::write(count, format!("{}\n", n + 1)).unwrap();
                }
                self.msrs.borrow_mut().insert((1, 0x2ff), def_type);
                self.kmsg(match sleep {
                    Sleep::Suspend => "ACPI: PM: Low-level resume complete",
                    Sleep::Hibernate => "PM: hibernation: Creating image:",
                });
                self.kmsg(exit);
                Ok(())
            }
            Act::Refused => {
                self.kmsg("PM: Some devices failed to suspend, or early wake event detected");
                self.kmsg(exit);
                Err("writing mem to /sys/power/state: Device or resource busy".to_string())
            }
            Act::NeverWakes => Ok(()),
        }
    }

    fn now(&self) -> SystemTime {
        self.clock.get()
    }

    fn pause(&mut self, time: Duration) {
        self.pauses.set(self.pauses.get() + 1);
        self.advance(time);
    }

    fn uname_release(&self) -> Option<String> {
        self.uname.clone()
    }

    fn var(&self, name: &str) -> Option<OsString> {
        self.vars.get(name).cloned()
    }

    fn catch_signals(&mut self) -> Result<(), String> {
        self.signals_caught = true;
        Ok(())
    }

    fn stop_signal(&self) -> Option<&'static str> {
        let asked = self.interrupt_after.is_some_and(|n| self.pauses.get() >= n);
        (self.signals_caught && asked).then_some("SIGINT")
    }
}

#[derive(Parser)]
struct Line {
    #[command(flatten)]
    args: CaptureArgs,
}

fn args(extra: &[&str]) -> CaptureArgs {
    let line = ["capture"].iter().chain(extra).copied();
    Line::try_parse_from(line).unwrap().args
}

/// A capture into `out` with these options; the verdict, or the error's text.
pub fn capture(host: &mut FakeHost, out: &Path, extra: &[&str]) -> Result<Verdict, String> {
    capture_with_progress(host, out, extra).0
}

/// [`capture`], and what it printed as it went.
pub fn capture_with_progress(
    host: &mut FakeHost,
    out: &Path,
    extra: &[&str],
) -> (Result<Verdict, String>, String) {
    let mut line = vec!["--out", out.to_str().unwrap()];
    line.extend_from_slice(extra);
    let mut progress = Vec::new();
    let verdict = run(
        &args(&line),
        host,
        "kernlog capture (test)".to_string(),
        &mut progress,
    )
    .map(|(_, verdict)| verdict)
    .map_err(|e| format!("{e:#}"));
    (verdict, String::from_utf8(progress).unwrap())
}

#[test]
fn three_cycles_that_resume_make_a_complete_bundle() {
    let mut host = FakeHost::new();
    host.script = [Act::Resume(0xc06), Act::Resume(0x806), Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    host.watch = Some(out.join("capture.yaml"));
    let verdict = capture(
        &mut host,
        &out,
        &["--method", "sysfs", "--label", "7.3.4 without the fix"],
    );
    assert_eq!(verdict, Ok(Verdict::Complete));
    assert_eq!(host.requests, [(Method::Sysfs, Sleep::Suspend); 3]);

    let bundle = open_bundle(&out);
    let c = &bundle.capture;
    assert_eq!(c.label, "7.3.4 without the fix");
    assert_eq!(c.kernel.release, "7.3.4-test");
    assert_eq!(c.kernel.cmdline, "root=/dev/sda1 mtrr=debug");
    assert_eq!(c.machine.product_name.as_deref(), Some("MacBookPro11,4"));
    assert_eq!(c.machine.bios_version, None);
    assert_eq!(c.mem_sleep.as_deref(), Some("s2idle [deep]"));
    assert_eq!(c.cpus_online, [0, 1]);
    assert_eq!(c.started, "2026-12-01T10:00:00Z");
    // The clock moved 3 s per resume.
    assert_eq!(c.cycles[1].requested, "2026-12-01T10:00:03Z");
    let outcomes: Vec<_> = c.cycles.iter().map(|c| c.outcome).collect();
    assert_eq!(outcomes, [Outcome::Resumed; 3]);

    // Files: capture.yaml, kernel.log, proc-mtrr.txt, mtrr/boot.txt, three after-cycle dumps.
    let paths: Vec<_> = bundle.manifest.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "capture.yaml",
            "kernel.log",
            "proc-mtrr.txt",
            "mtrr/boot.txt",
            "mtrr/after-cycle-1.txt",
            "mtrr/after-cycle-2.txt",
            "mtrr/after-cycle-3.txt"
        ]
    );
    // Two boot records and three per cycle.
    let log = &bundle.manifest[1];
    assert_eq!(
        (log.kind.as_str(), log.records, log.lines),
        ("kmsg", 11, 11)
    );
    assert_eq!(log.follows, "7.3.4 without the fix");
    let text = String::from_utf8(bundle.log.clone()).unwrap();
    assert!(
        text.starts_with("6,0,0,-;Linux version 7.3.4-test\n"),
        "{text}"
    );
    assert_eq!(text.matches("PM: suspend exit").count(), 3);

    // The dumps were read after each resume: CPU 1's default type as the script left it.
    let after2 = &bundle.after[1].1;
    let r = after2[1].registers.as_ref().unwrap();
    assert_eq!(r.def_type, 0x806);
    assert_eq!(r.variable, [(0x200, 0x201), (0x202, 0x203)]);
    let boot = bundle.boot.as_ref().unwrap();
    assert_eq!(boot[1].registers.as_ref().unwrap().def_type, 0xc06);

    // Before each suspend the file on disk already said `suspending`.
    assert_eq!(host.snapshots.len(), 3);
    let before2 = Capture::from_yaml(&host.snapshots[1]).unwrap();
    assert_eq!(before2.cycles.len(), 2);
    assert_eq!(before2.cycles[1].outcome, Outcome::Suspending);
    // The file left as it was says what a reader would conclude.
    assert_eq!(
        before2.verdict,
        Verdict::Incomplete("cycle 2: did-not-resume".to_string())
    );
    assert_eq!(
        before2.settled_verdict(),
        Verdict::Incomplete("cycle 2: did-not-resume".to_string())
    );
    // The alarm is cleared after the last resume.
    assert_eq!(
        std::fs::read_to_string(host.path("sys/class/rtc/rtc0/wakealarm")).unwrap(),
        "0"
    );
}

#[test]
fn a_machine_that_does_not_wake_ends_the_capture_as_did_not_resume() {
    let mut host = FakeHost::new();
    host.script = [Act::Resume(0xc06), Act::NeverWakes].into();
    let out = host.path("bundle");
    let verdict = capture(
        &mut host,
        &out,
        &["--cycles", "3", "--wake-after", "2", "--timeout", "5"],
    );
    let why = "cycle 2: did-not-resume: no `PM: suspend exit` in the kernel's log within 5 s";
    assert_eq!(verdict, Ok(Verdict::Incomplete(why.to_string())));
    assert_eq!(
        host.requests.len(),
        2,
        "no third attempt after a cycle that did not resume"
    );
    let bundle = open_bundle(&out);
    assert_eq!(bundle.capture.cycles[1].outcome, Outcome::DidNotResume);
    assert_eq!(bundle.capture.cycles[1].mtrr, None);
    assert_eq!(bundle.capture.verdict, Verdict::Incomplete(why.to_string()));
    assert!(!out.join("mtrr/after-cycle-2.txt").exists());
}

#[test]
fn a_resume_that_finishes_after_the_timeout_did_not_resume_in_time() {
    let mut host = FakeHost::new();
    // The fake machine sleeps 3 s a cycle.
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    let verdict = capture(&mut host, &out, &["--wake-after", "1", "--timeout", "2"]);
    let why = "cycle 1: did-not-resume: the resume finished 3 s after the request, later than --timeout 2 s";
    assert_eq!(verdict, Ok(Verdict::Incomplete(why.to_string())));
    assert_eq!(host.requests.len(), 1);
}

#[test]
fn a_refused_suspend_is_aborted_with_its_reasons_and_the_next_cycle_runs() {
    let mut host = FakeHost::new();
    host.script = [Act::Refused, Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    let verdict = capture(&mut host, &out, &["--cycles", "2", "--method", "sysfs"]).unwrap();
    let Verdict::Incomplete(why) = verdict else {
        panic!("complete after an abort")
    };
    assert!(why.starts_with("cycle 1: aborted: writing mem to /sys/power/state: Device or resource busy; the kernel: PM: Some devices failed"), "{why}");
    let bundle = open_bundle(&out);
    assert_eq!(bundle.capture.cycles[1].outcome, Outcome::Resumed);
}

/// The error of a capture that must not start, and that it wrote nothing.
pub fn refused(host: &mut FakeHost, extra: &[&str]) -> String {
    let out = host.path("bundle");
    let e = capture(host, &out, extra).unwrap_err();
    assert!(!out.exists(), "a refused capture created {}", out.display());
    assert!(host.requests.is_empty());
    e
}

#[test]
fn without_root_nothing_is_written() {
    let mut host = FakeHost::new();
    host.superuser = false;
    assert!(refused(&mut host, &[]).contains("must run as root"));
}

#[test]
fn without_an_rtc_alarm_nothing_is_written() {
    let mut host = FakeHost::new();
    std::fs::remove_file(host.path("sys/class/rtc/rtc0/wakealarm")).unwrap();
    assert!(refused(&mut host, &[]).contains("no RTC wake alarm"));
}

#[test]
fn without_suspend_to_ram_nothing_is_written() {
    let mut host = FakeHost::new();
    host.write("sys/power/state", "freeze disk\n");
    let e = refused(&mut host, &[]);
    assert!(
        e.contains("no suspend to RAM: /sys/power/state is `freeze disk`"),
        "{e}"
    );
}

#[test]
fn a_hibernation_needs_the_kernels_disk_state_and_swap() {
    let mut host = FakeHost::new();
    host.write("sys/power/state", "freeze mem\n");
    let e = refused(&mut host, &["--hibernate"]);
    assert!(
        e.contains("no hibernation: /sys/power/state is `freeze mem`"),
        "{e}"
    );
    host.write("sys/power/state", "freeze mem disk\n");
    // The heading alone: no swap is on.
    host.write(
        "proc/swaps",
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
    );
    let e = refused(&mut host, &["--hibernate"]);
    assert!(e.contains("no active swap in /proc/swaps"), "{e}");
    // mem_sleep chooses the kind of suspend: no meaning for a hibernation.
    let line = ["capture", "--hibernate", "--mem-sleep", "deep"];
    let e = Line::try_parse_from(line).err().unwrap().to_string();
    assert!(e.contains("cannot be used with"), "{e}");
}

#[test]
fn hibernation_cycles_write_disk_and_wait_for_the_kernels_exit_line() {
    let mut host = FakeHost::new();
    host.write(
        "sys/power/disk",
        "platform [shutdown] reboot suspend test_resume\n",
    );
    host.write(
        "proc/swaps",
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
         /dev/vda                                partition\t262140\t\t0\t\t-2\n",
    );
    host.script = [Act::Resume(0xc06), Act::NeverWakes].into();
    let out = host.path("bundle");
    let verdict = capture(
        &mut host,
        &out,
        &[
            "--method",
            "sysfs",
            "--hibernate",
            "--cycles",
            "2",
            "--timeout",
            "30",
        ],
    )
    .unwrap();
    assert_eq!(host.requests, [(Method::Sysfs, Sleep::Hibernate); 2]);
    let c = &open_bundle(&out).capture;
    assert_eq!(c.sleep, Sleep::Hibernate);
    assert_eq!(
        c.hibernation_mode.as_deref(),
        Some("platform [shutdown] reboot suspend test_resume")
    );
    let outcomes: Vec<_> = c.cycles.iter().map(|c| c.outcome).collect();
    assert_eq!(outcomes, [Outcome::Resumed, Outcome::DidNotResume]);
    // The second attempt began and never ended: the message names hibernation's own line.
    assert_eq!(
        c.cycles[1].detail.as_deref(),
        Some("no `PM: hibernation: hibernation exit` in the kernel's log within 30 s")
    );
    assert!(matches!(verdict, Verdict::Incomplete(_)), "{verdict:?}");
}

#[test]
fn systemd_is_needed_for_the_default_method() {
    let mut host = FakeHost::new();
    std::fs::remove_dir(host.path("run/systemd/system")).unwrap();
    assert!(refused(&mut host, &[]).contains("use --method sysfs"));
}

#[test]
fn without_the_msr_devices_the_module_is_loaded_or_the_capture_refused() {
    let mut host = FakeHost::new();
    std::fs::remove_dir_all(host.path("dev/cpu")).unwrap();
    let e = refused(&mut host, &["--method", "sysfs"]);
    assert!(
        e.contains("/dev/cpu/0/msr is missing and loading the msr module failed: modprobe: FATAL"),
        "{e}"
    );
    assert_eq!(host.modprobe_calls.get(), 1);

    host.modprobe = Ok(());
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    assert_eq!(
        capture(&mut host, &out, &["--method", "sysfs", "--cycles", "1"]),
        Ok(Verdict::Complete)
    );
    assert_eq!(host.modprobe_calls.get(), 2);
}

#[test]
fn an_unreadable_cpu_is_named_in_the_dump() {
    let mut host = FakeHost::new();
    host.msrs.borrow_mut().remove(&(1, 0x2ff));
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    let text = std::fs::read_to_string(out.join("mtrr/boot.txt")).unwrap();
    assert!(
        text.ends_with("\ncpu1 unreadable: MSR 0x2ff: Input/output error\n"),
        "{text}"
    );
    assert_eq!(parse_dump(&text).unwrap().len(), 2);
}

#[test]
fn a_used_folder_and_a_timeout_shorter_than_the_wake_are_refused() {
    let mut host = FakeHost::new();
    host.write("bundle/old.log", "x");
    let out = host.path("bundle");
    let e = capture(&mut host, &out, &[]).unwrap_err();
    assert!(e.contains("already exists"), "{e}");
    let new = host.path("new");
    let e = capture(&mut host, &new, &["--wake-after", "30", "--timeout", "30"]).unwrap_err();
    assert!(e.contains("must be longer than --wake-after"), "{e}");
    assert!(!host.path("new").exists());
}

#[test]
fn the_mem_sleep_option_is_written_before_the_first_suspend() {
    let mut host = FakeHost::new();
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    capture(&mut host, &out, &["--cycles", "1", "--mem-sleep", "deep"]).unwrap();
    assert_eq!(
        std::fs::read_to_string(host.path("sys/power/mem_sleep")).unwrap(),
        "deep"
    );
}

#[test]
fn the_recorded_command_line_keeps_its_words() {
    let words = [
        "kernlog",
        "capture",
        "--label",
        "7.3.4 with v2",
        "--out",
        "it's",
        "",
    ];
    assert_eq!(
        command_line(words.map(String::from)),
        r#"kernlog capture --label '7.3.4 with v2' --out 'it'\''s' ''"#
    );
}

#[test]
fn without_proc_sys_the_release_comes_from_uname() {
    let mut host = FakeHost::new();
    std::fs::remove_dir_all(host.path("proc/sys")).unwrap();
    let e = refused(&mut host, &[]);
    assert!(e.contains("cannot read the kernel release"), "{e}");
    host.uname = Some("6.12.48-qemulab".to_string());
    host.script = [Act::Resume(0xc06)].into();
    let out = host.path("bundle");
    capture(&mut host, &out, &["--cycles", "1"]).unwrap();
    let bundle = open_bundle(&out);
    assert_eq!(bundle.capture.kernel.release, "6.12.48-qemulab");
}

pub(super) fn open_bundle(dir: &std::path::Path) -> Bundle {
    read_bundle(&mut crate::input::Folder::new(dir)).unwrap()
}
