//! What capture asks of the operating system, behind one small trait so that the tests can
//! run a capture against a fake machine in a temporary folder.

use std::ffi::OsString;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use kernlog::evidence::bundle::{Method, Sleep};

/// Where capture, running as root, looks for `modprobe` and `systemctl`: the system's own
/// folders, never a `PATH` the invoking user set (`su -c` keeps it), where a program of
/// theirs would run as root.
const SYSTEM_PATH: &str = "/usr/sbin:/usr/bin:/sbin:/bin";

/// The machine a capture runs on. Plain files (`/sys`, `/proc`, `/dev/kmsg`) are read
/// under [`Host::root`]; what is not a plain file is a method.
pub trait Host {
    /// The folder holding `sys/`, `proc/`, `dev/` and `run/` (`/` on the real machine).
    fn root(&self) -> &Path;
    /// True when running as root (effective user id 0).
    fn is_superuser(&self) -> bool;
    /// `modprobe msr`; the error is what went wrong, in words.
    fn load_msr_module(&mut self) -> Result<(), String>;
    /// One MSR of one CPU.
    fn read_msr(&self, cpu: u32, msr: u32) -> Result<u64, String>;
    /// Asks for one suspend or hibernation. `sysfs` returns once the machine has resumed
    /// (a hibernation: once the next boot has restored the image); `systemd` returns once
    /// systemd has taken the request.
    fn request_suspend(&mut self, method: Method, sleep: Sleep) -> Result<(), String>;
    /// The wall clock (it runs on while the machine sleeps).
    fn now(&self) -> SystemTime;
    /// Waits a little between looks at the kernel's log.
    fn pause(&mut self, time: Duration);
    /// The kernel release from uname(2), for kernels without /proc/sys (tinyconfig).
    fn uname_release(&self) -> Option<String>;
    /// An environment variable (`SUDO_UID`, `SUDO_GID`).
    fn var(&self, name: &str) -> Option<OsString>;
    /// From now on SIGINT, SIGTERM and SIGHUP ask the capture to stop (see
    /// [`Host::stop_signal`]) instead of ending the process; a second one ends it at once.
    fn catch_signals(&mut self) -> Result<(), String>;
    /// The signal that asked the capture to stop, once one has.
    fn stop_signal(&self) -> Option<&'static str>;

    /// `root/rel`.
    fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }
}

/// A system program as capture runs it as root: found in the system's folders, with an
/// environment of `PATH` alone. Nothing of the invoking user's environment reaches it (`su
/// -c` keeps it all: `MODPROBE_OPTIONS` would point modprobe at the user's configuration
/// and its `install` commands).
fn system_command(program: &str) -> Command {
    let mut command = Command::new(program);
    command.env_clear().env("PATH", SYSTEM_PATH);
    command
}

/// The machine kernlog runs on.
pub struct RealHost;

/// The last stop signal that arrived (0: none), and whether one has.
static STOP: AtomicUsize = AtomicUsize::new(0);
static STOPPING: AtomicBool = AtomicBool::new(false);

impl Host for RealHost {
    fn root(&self) -> &Path {
        Path::new("/")
    }

    fn is_superuser(&self) -> bool {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    fn load_msr_module(&mut self) -> Result<(), String> {
        let out = system_command("modprobe")
            .arg("msr")
            .output()
            .map_err(|e| format!("cannot run modprobe: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(command_failure("modprobe msr", &out))
        }
    }

    fn read_msr(&self, cpu: u32, msr: u32) -> Result<u64, String> {
        let path = self.path(&format!("dev/cpu/{cpu}/msr"));
        let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut bytes = [0u8; 8];
        // The msr device reads the register whose number is the file offset.
        file.read_exact_at(&mut bytes, u64::from(msr))
            .map_err(|e| format!("MSR {msr:#x}: {e}"))?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn request_suspend(&mut self, method: Method, sleep: Sleep) -> Result<(), String> {
        let (state, verb) = (sleep.state(), sleep.verb());
        match method {
            Method::Sysfs => {
                let path = self.path("sys/power/state");
                std::fs::write(&path, state)
                    .map_err(|e| format!("writing {state} to {}: {e}", path.display()))
            }
            Method::Systemd => {
                let out = system_command("systemctl")
                    .arg(verb)
                    .output()
                    .map_err(|e| format!("cannot run systemctl: {e}"))?;
                if out.status.success() {
                    Ok(())
                } else {
                    Err(command_failure(&format!("systemctl {verb}"), &out))
                }
            }
        }
    }

    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn pause(&mut self, time: Duration) {
        std::thread::sleep(time);
    }

    fn uname_release(&self) -> Option<String> {
        // SAFETY: uname fills the zeroed struct it is given; its fields are NUL-terminated.
        let mut name: libc::utsname = unsafe { std::mem::zeroed() };
        if unsafe { libc::uname(&mut name) } != 0 {
            return None;
        }
        let release = unsafe { std::ffi::CStr::from_ptr(name.release.as_ptr()) };
        Some(release.to_string_lossy().into_owned())
    }

    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn catch_signals(&mut self) -> Result<(), String> {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            // Registered first, the shutdown sees the flag as the signals before this one
            // left it: a second signal ends the process with the shell's status for it.
            signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, &STOPPING)
                .and_then(|_| signal_hook::flag::register(signal, &STOPPING))
                .and_then(|_| signal_hook::flag::register_usize(signal, &STOP, signal as usize))
                .map_err(|e| format!("cannot catch signal {signal}: {e}"))?;
        }
        Ok(())
    }

    fn stop_signal(&self) -> Option<&'static str> {
        match i32::try_from(STOP.load(Ordering::SeqCst)).ok()? {
            SIGINT => Some("SIGINT"),
            SIGTERM => Some("SIGTERM"),
            SIGHUP => Some("SIGHUP"),
            _ => None,
        }
    }
}

fn command_failure(command: &str, out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = stderr.trim();
    if stderr.is_empty() {
        format!("{command} failed ({})", out.status)
    } else {
        format!("{command} failed ({}): {stderr}", out.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_programs_get_no_environment_of_the_caller() {
        // The test runner's environment is full (HOME, CARGO_*, whatever the caller set); the
        // program run as root must see PATH alone.
        assert!(std::env::vars_os().count() > 1);
        let out = system_command("env").output().expect("env runs");
        let seen = String::from_utf8_lossy(&out.stdout);
        assert_eq!(seen.trim(), format!("PATH={SYSTEM_PATH}"));
    }
}
