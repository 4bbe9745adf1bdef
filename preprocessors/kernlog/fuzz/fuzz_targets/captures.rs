//! The small capture parsers return an error, never panic.
#![no_main]

use kernlog::captures;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = captures::parse_counts(&text);
    let _ = captures::parse_count_diff(&text);
    let _ = captures::parse_bucket_histogram(&text);
    let _ = captures::parse_timed_runs(&text);
    let _ = captures::parse_sysfs(&text);
    let _ = captures::parse_bisect_log(&text);
});
