//! `capture.yaml`: what `kernlog capture` captured and how, rewritten before each suspend
//! and after each resume.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The value of `format:` this version writes and reads.
pub const FORMAT: &str = "kernlog-capture/1";

/// The whole of `capture.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// [`FORMAT`]: the layout of the file.
    pub format: String,
    /// `kernlog VERSION`.
    pub tool: String,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started: String,
    /// The tester's `--label`, free text.
    pub label: String,
    /// How the suspend was requested.
    pub method: Method,
    /// A suspend to RAM or a hibernation; bundles that name neither were suspends.
    #[serde(default)]
    pub sleep: Sleep,
    /// What wakes the machine.
    pub wake: Wake,
    /// Seconds from the request to the wake alarm.
    pub wake_after_s: u64,
    /// Seconds an attempt may take before it counts as not resumed.
    pub timeout_s: u64,
    /// The running kernel.
    pub kernel: Kernel,
    /// The machine.
    pub machine: Machine,
    /// `/sys/power/mem_sleep` as read, e.g. `s2idle [deep]`; `None` if absent.
    pub mem_sleep: Option<String>,
    /// `/sys/power/disk` as read when hibernating, e.g. `platform [shutdown] reboot`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernation_mode: Option<String>,
    /// The CPUs online before the first suspend.
    pub cpus_online: Vec<u32>,
    /// Attempts asked for.
    pub cycles_requested: u32,
    /// The attempts made, in order.
    pub cycles: Vec<CapturedCycle>,
    /// Whether every attempt resumed.
    pub verdict: Verdict,
}

/// How the suspend was requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// `systemctl suspend`: the path of daily use (logind, sleep hooks).
    Systemd,
    /// Writing `mem` to `/sys/power/state` (minimal systems).
    Sysfs,
}

/// What each cycle asks the kernel for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sleep {
    /// A suspend (`mem`), to RAM or to idle as `/sys/power/mem_sleep` says.
    #[default]
    Suspend,
    /// A hibernation (`disk`): the image written to swap, the machine powered off, the
    /// image restored by the next boot.
    Hibernate,
}

impl Sleep {
    /// The word written to `/sys/power/state` for it: `mem` or `disk`.
    pub fn state(self) -> &'static str {
        match self {
            Sleep::Suspend => "mem",
            Sleep::Hibernate => "disk",
        }
    }

    /// systemctl's verb for it: `suspend` or `hibernate`.
    pub fn verb(self) -> &'static str {
        match self {
            Sleep::Suspend => "suspend",
            Sleep::Hibernate => "hibernate",
        }
    }
}

/// What wakes the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wake {
    /// The RTC alarm (`/sys/class/rtc/rtc0/wakealarm`), `wake_after_s` after the request.
    Rtc,
}

/// The running kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kernel {
    /// `uname -r`.
    pub release: String,
    /// `/proc/cmdline`.
    pub cmdline: String,
}

/// The machine from `/sys/class/dmi/id`; `None` where not readable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// `sys_vendor`.
    pub sys_vendor: Option<String>,
    /// `product_name`.
    pub product_name: Option<String>,
    /// `bios_version`.
    pub bios_version: Option<String>,
    /// `bios_date`.
    pub bios_date: Option<String>,
}

/// One suspend/resume attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapturedCycle {
    /// From 1.
    pub n: u32,
    /// When the suspend was requested (UTC).
    pub requested: String,
    /// How the attempt ended.
    pub outcome: Outcome,
    /// What went wrong or what was seen, e.g. the error of an aborted attempt.
    pub detail: Option<String>,
    /// The bundle path of the MTRR dump after this resume; `None` if not read.
    pub mtrr: Option<String>,
    /// The kernel's sequence number of the first record of `kernel.log` after the request:
    /// where the cycle starts in the log (absent in bundles of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_from_seq: Option<u64>,
    /// The kernel's wakeup sources (`/sys/class/wakeup`) that counted events from the
    /// request to the end of the cycle: what woke the machine, as far as the kernel says.
    /// `None` where they were not read (no `/sys/class/wakeup`, bundles of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeup_events: Option<Vec<WakeupEvents>>,
}

/// A wakeup source that counted events during a cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WakeupEvents {
    /// Its name in `/sys/class/wakeup/*/name`, e.g. `00:06` or `LNXPWRBN:00`.
    pub source: String,
    /// What it is, as far as sysfs tells.
    pub kind: WakeupKind,
    /// The events it counted in the cycle.
    pub events: u64,
}

/// What a wakeup source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WakeupKind {
    /// The real-time clock whose alarm capture sets (its device holds `rtc/`).
    Rtc,
    /// The ACPI power button (`LNXPWRBN`, `PNP0C0C`); QEMU's `system_wakeup` reports
    /// itself as this button too.
    PowerButton,
    /// Anything else: a lid, a keyboard, a USB device, a network card.
    Other,
}

impl WakeupKind {
    /// Words for a person.
    pub fn words(self) -> &'static str {
        match self {
            WakeupKind::Rtc => "RTC alarm",
            WakeupKind::PowerButton => "power button",
            WakeupKind::Other => "other",
        }
    }
}

impl CapturedCycle {
    /// What woke the machine in this cycle, in words: `RTC alarm (00:06)`, `power button
    /// (LNXPWRBN:00)`, several joined by `, `; `None` when the sources were not read.
    pub fn woken_by(&self) -> Option<String> {
        let events = self.wakeup_events.as_ref()?;
        if events.is_empty() {
            return Some("no wakeup source counted an event".to_string());
        }
        let named: Vec<String> = events
            .iter()
            .map(|e| format!("{} ({})", e.kind.words(), e.source))
            .collect();
        Some(named.join(", "))
    }
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Outcome {
    /// The machine suspended and came back; the resume finished.
    Resumed,
    /// The attempt failed before or while suspending; `detail` says why.
    Aborted,
    /// The machine did not come back within the timeout.
    DidNotResume,
    /// Written before the suspend: a bundle left with it means the machine never came
    /// back to rewrite the file.
    Suspending,
}

impl Outcome {
    /// The outcome a reader takes: a cycle left `suspending` did not resume.
    pub(crate) fn settled(self) -> Outcome {
        match self {
            Outcome::Suspending => Outcome::DidNotResume,
            other => other,
        }
    }

    /// The name as written in `capture.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Resumed => "resumed",
            Outcome::Aborted => "aborted",
            Outcome::DidNotResume => "did-not-resume",
            Outcome::Suspending => "suspending",
        }
    }
}

/// The capture as a whole: every requested cycle resumed, or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every requested attempt resumed.
    Complete,
    /// `incomplete (why)`.
    Incomplete(String),
}

impl Verdict {
    fn text(&self) -> String {
        match self {
            Verdict::Complete => "complete".to_string(),
            Verdict::Incomplete(why) => format!("incomplete ({why})"),
        }
    }

    fn from_text(text: &str) -> Option<Verdict> {
        if text == "complete" {
            return Some(Verdict::Complete);
        }
        let why = text.strip_prefix("incomplete (")?.strip_suffix(')')?;
        Some(Verdict::Incomplete(why.to_string()))
    }
}

impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for Verdict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Verdict::from_text(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "verdict `{text}` is neither `complete` nor `incomplete (why)`"
            ))
        })
    }
}

impl Capture {
    /// The verdict the cycles support: complete when all requested cycles resumed,
    /// otherwise the first cycle that did not (a `suspending` one counts as did-not-resume).
    pub fn settled_verdict(&self) -> Verdict {
        if let Some(cycle) = self
            .cycles
            .iter()
            .find(|c| c.outcome.settled() != Outcome::Resumed)
        {
            let outcome = cycle.outcome.settled().name();
            return Verdict::Incomplete(match &cycle.detail {
                Some(detail) => format!("cycle {}: {outcome}: {detail}", cycle.n),
                None => format!("cycle {}: {outcome}", cycle.n),
            });
        }
        let done = self.cycles.len() as u32;
        if done < self.cycles_requested {
            Verdict::Incomplete(format!(
                "{done} of {} cycles recorded",
                self.cycles_requested
            ))
        } else {
            Verdict::Complete
        }
    }

    /// The file's text.
    pub fn to_yaml(&self) -> String {
        // Every field is a plain string, number, list or map: serialising cannot fail.
        yaml_serde::to_string(self).unwrap_or_default()
    }

    /// Reads `capture.yaml`'s text; the error says what is wrong (with the YAML position).
    pub fn from_yaml(text: &str) -> Result<Capture, String> {
        #[derive(Deserialize)]
        struct Head {
            format: Option<String>,
        }
        // The format first, so that another tool's file is named as such, not as a field
        // this version happens to miss.
        let head: Head = crate::parse::yaml::from_str(text).map_err(|e| e.to_string())?;
        match head.format.as_deref() {
            Some(FORMAT) => {}
            Some(other) => {
                return Err(format!(
                    "format `{other}` is not {FORMAT}: written by another tool or version"
                ));
            }
            None => return Err(format!("no `format:` field (expected {FORMAT})")),
        }
        crate::parse::yaml::from_str(text).map_err(|e| e.to_string())
    }
}

/// A UTC time as `YYYY-MM-DDTHH:MM:SSZ`, from seconds since the Unix epoch.
pub fn utc_stamp(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
