//! The kernel a log was taken on: its first `Linux version` banner and `Command line:`,
//! picked up in the same pass as every other analysis.

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

impl KernelId {
    /// Takes the banner or the command line from one kernel message, the first of each.
    #[inline]
    pub fn push(&mut self, message: &str) {
        if self.build.is_some() && self.cmdline.is_some() {
            return;
        }
        // One byte rules out nearly every line before any further look.
        if !matches!(message.as_bytes().first(), Some(b'L' | b'C' | b' ' | b'\t')) {
            return;
        }
        let m = message.trim();
        match (
            m.strip_prefix("Linux version "),
            m.strip_prefix("Command line: "),
        ) {
            (Some(rest), _) if self.build.is_none() => {
                self.release = rest.split_whitespace().next().map(str::to_string);
                self.build = Some(rest.to_string());
            }
            (_, Some(rest)) if self.cmdline.is_none() => {
                self.cmdline = Some(rest.trim().to_string());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_banner_and_command_line_count() {
        let mut id = KernelId::default();
        for m in [
            "Linux version 6.16.7-mtrrfix (root@host) (gcc 14) #1 SMP PREEMPT_DYNAMIC",
            "Command line: BOOT_IMAGE=/vmlinuz-6.16.7-mtrrfix ro mtrr=debug ",
            "Linux version 9.9.9-other",
            "Command line: other",
        ] {
            id.push(m);
        }
        assert_eq!(id.release.as_deref(), Some("6.16.7-mtrrfix"));
        assert_eq!(
            id.build.as_deref(),
            Some("6.16.7-mtrrfix (root@host) (gcc 14) #1 SMP PREEMPT_DYNAMIC")
        );
        assert_eq!(
            id.cmdline.as_deref(),
            Some("BOOT_IMAGE=/vmlinuz-6.16.7-mtrrfix ro mtrr=debug")
        );
    }
}
