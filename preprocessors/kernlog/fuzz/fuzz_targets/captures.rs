//! The small capture parsers return an error, never panic.
#![no_main]

use kernlog::parse::tool_output;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = tool_output::parse_counts(&text);
    let _ = tool_output::parse_count_diff(&text);
    let _ = tool_output::parse_bucket_histogram(&text);
    let _ = tool_output::parse_timed_runs(&text);
    let _ = tool_output::parse_sysfs(&text);
    let _ = tool_output::parse_bisect_log(&text);
});
