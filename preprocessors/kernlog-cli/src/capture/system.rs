//! What capture needs to know before it starts: whether it can run at all (root, a suspend
//! to RAM or a hibernation with swap, an RTC alarm, the MSR devices), and the facts of the
//! machine it records.

use std::collections::BTreeMap;
use std::fs;

use anyhow::{Result, bail};
use kernlog::evidence::bundle::{Kernel, Machine, Method, Sleep, WakeupEvents, WakeupKind};

use super::host::Host;

/// The RTC alarm capture wakes the machine with.
pub const WAKEALARM: &str = "sys/class/rtc/rtc0/wakealarm";

/// Refuses, with what to do, a machine capture cannot run on; loads `msr` if needed.
/// Nothing is written before this has passed.
pub fn check_ready(host: &mut dyn Host, method: Method, sleep: Sleep) -> Result<()> {
    if !host.is_superuser() {
        bail!(
            "kernlog capture must run as root: it suspends the machine and reads every CPU's \
             MSRs (run it with sudo)"
        );
    }
    let state = read_trimmed(host, "sys/power/state");
    let offers = |word: &str| state.as_deref().unwrap_or("").split(' ').any(|s| s == word);
    match sleep {
        Sleep::Suspend if !offers("mem") => bail!(
            "this kernel offers no suspend to RAM: /sys/power/state is {} (expected `mem` among \
             its words; is CONFIG_SUSPEND set, or is suspend disabled on the command line?)",
            describe(state.as_deref())
        ),
        Sleep::Hibernate if !offers("disk") => bail!(
            "this kernel offers no hibernation: /sys/power/state is {} (expected `disk` among \
             its words; is CONFIG_HIBERNATION set, or is it off under Secure Boot's lockdown?)",
            describe(state.as_deref())
        ),
        Sleep::Hibernate if !has_swap(host) => bail!(
            "no active swap in /proc/swaps: a hibernation writes its image to swap (swapon a \
             swap partition or file at least as large as the memory in use, and boot with \
             resume= naming it)"
        ),
        _ => {}
    }
    if !host.path(WAKEALARM).exists() {
        bail!(
            "no RTC wake alarm: /{WAKEALARM} is missing, and kernlog capture wakes the machine \
             with it (a kernel without CONFIG_RTC_CLASS/rtc_cmos, or a machine without an RTC \
             that can wake it)"
        );
    }
    if method == Method::Systemd && !host.path("run/systemd/system").is_dir() {
        bail!(
            "systemd is not running this system (no /run/systemd/system), so `systemctl \
             suspend` cannot work; use --method sysfs"
        );
    }
    if !host.path("dev/cpu/0/msr").exists() {
        host.load_msr_module().map_err(|e| {
            anyhow::anyhow!(
                "cannot read the MTRRs: /dev/cpu/0/msr is missing and loading the msr module \
                 failed: {e} (the kernel needs CONFIG_X86_MSR=y or =m)"
            )
        })?;
        if !host.path("dev/cpu/0/msr").exists() {
            bail!(
                "cannot read the MTRRs: `modprobe msr` succeeded but /dev/cpu/0/msr is still \
                 missing (is /dev a devtmpfs?)"
            );
        }
    }
    if let Err(e) = host.read_msr(0, kernlog::evidence::bundle::MSR_MTRRCAP) {
        bail!("cannot read the MTRRs of CPU 0 from /dev/cpu/0/msr: {e}");
    }
    Ok(())
}

/// True when `/proc/swaps` lists a swap area below its heading.
fn has_swap(host: &dyn Host) -> bool {
    fs::read_to_string(host.path("proc/swaps"))
        .map(|text| text.lines().skip(1).any(|line| !line.trim().is_empty()))
        .unwrap_or(false)
}

fn describe(value: Option<&str>) -> String {
    match value {
        Some(v) => format!("`{v}`"),
        None => "missing".to_string(),
    }
}

/// The first line of a file under the host's root, without its line end; `None` if it
/// cannot be read or is empty.
pub fn read_trimmed(host: &dyn Host, rel: &str) -> Option<String> {
    let text = fs::read_to_string(host.path(rel)).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The running kernel: release and command line.
pub fn kernel(host: &dyn Host) -> Result<Kernel> {
    let release = read_trimmed(host, "proc/sys/kernel/osrelease").or_else(|| host.uname_release());
    let Some(release) = release else {
        bail!("cannot read the kernel release from /proc/sys/kernel/osrelease or uname(2)");
    };
    Ok(Kernel {
        release,
        cmdline: read_trimmed(host, "proc/cmdline").unwrap_or_default(),
    })
}

/// The machine from DMI.
pub fn machine(host: &dyn Host) -> Machine {
    let dmi = |name: &str| read_trimmed(host, &format!("sys/class/dmi/id/{name}"));
    Machine {
        sys_vendor: dmi("sys_vendor"),
        product_name: dmi("product_name"),
        bios_version: dmi("bios_version"),
        bios_date: dmi("bios_date"),
    }
}

/// The online CPUs from `/sys/devices/system/cpu/online` (`0-3,6`); CPU 0 alone if absent.
pub fn cpus_online(host: &dyn Host) -> Vec<u32> {
    let Some(list) = read_trimmed(host, "sys/devices/system/cpu/online") else {
        return vec![0];
    };
    let mut cpus = Vec::new();
    for part in list.split(',') {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(from), Ok(to)) = (from.trim().parse::<u32>(), to.trim().parse::<u32>()) {
            // A bound keeps a corrupt list from asking for billions of CPUs.
            cpus.extend(from..=to.min(from.saturating_add(8191)));
        }
    }
    if cpus.is_empty() { vec![0] } else { cpus }
}

/// The kernel's wakeup sources.
const WAKEUP: &str = "sys/class/wakeup";

/// Each wakeup source's event count, by its folder (`wakeup6`); `None` where the kernel
/// has no `/sys/class/wakeup` (before 5.4, or without CONFIG_PM_SLEEP).
pub fn wakeup_counts(host: &dyn Host) -> Option<BTreeMap<String, u64>> {
    let entries = fs::read_dir(host.path(WAKEUP)).ok()?;
    let mut counts = BTreeMap::new();
    for entry in entries.flatten() {
        let folder = entry.file_name().to_string_lossy().into_owned();
        let count = read_trimmed(host, &format!("{WAKEUP}/{folder}/event_count"))
            .and_then(|c| c.parse().ok());
        if let Some(count) = count {
            counts.insert(folder, count);
        }
    }
    Some(counts)
}

/// The sources whose count rose since `before` (a source new since then counts whole).
pub fn wakeup_events(host: &dyn Host, before: &BTreeMap<String, u64>) -> Vec<WakeupEvents> {
    let Some(after) = wakeup_counts(host) else {
        return Vec::new();
    };
    after
        .iter()
        .filter_map(|(folder, &count)| {
            let events = count.checked_sub(before.get(folder).copied().unwrap_or(0))?;
            (events > 0).then(|| {
                let source = read_trimmed(host, &format!("{WAKEUP}/{folder}/name"))
                    .unwrap_or_else(|| folder.clone());
                let kind = wakeup_kind(host, folder, &source);
                WakeupEvents {
                    source,
                    kind,
                    events,
                }
            })
        })
        .collect()
}

/// What a source is: the RTC's device holds an `rtc` folder (the RTC class device), or
/// is the alarm timer under it; the ACPI power button has a name of its own.
fn wakeup_kind(host: &dyn Host, folder: &str, name: &str) -> WakeupKind {
    let device = host.path(&format!("{WAKEUP}/{folder}/device"));
    if device.join("rtc").is_dir() || name.starts_with("alarmtimer") {
        WakeupKind::Rtc
    } else if name.starts_with("LNXPWRBN") || name.starts_with("PNP0C0C") {
        WakeupKind::PowerButton
    } else {
        WakeupKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::FakeHost;
    use super::*;

    #[test]
    fn cpu_lists_as_the_kernel_writes_them() {
        let host = FakeHost::new();
        host.write("sys/devices/system/cpu/online", "0-3,6\n");
        assert_eq!(cpus_online(&host), [0, 1, 2, 3, 6]);
        host.write("sys/devices/system/cpu/online", "0\n");
        assert_eq!(cpus_online(&host), [0]);
    }
}
