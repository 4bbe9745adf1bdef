//! trace-cmd report lines: parsing and aggregation never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let stats = kernlog::analysis::trace::stats_of(&text);
    for (_, d) in &stats.functions {
        assert!(d.min_us <= d.max_us);
    }
});
