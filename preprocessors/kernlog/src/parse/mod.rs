//! Stage 1, parsing: text into records, pure and borrowed where it can be.
//!
//! * [`record`]: one line of `dmesg`, `journalctl`, syslog or `/dev/kmsg` text, recognised in
//!   place ([`record::parse_line`], never fails);
//! * [`reader`]: a streaming [`reader::RecordReader`] over any `BufRead` that places each line
//!   on a clock, in constant memory;
//! * [`yaml`]: YAML read with its nesting bounded first (the parser is quadratic in it);
//! * [`tool_output`]: the small non-log captures of an investigation (`uniq -c` counts,
//!   `diff -y`, `time`, `grep .` of sysfs, `git bisect log`).

mod mail;
pub mod reader;
pub mod record;
pub mod tool_output;
pub mod yaml;
