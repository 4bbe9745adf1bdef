//! MTRR lines and register values: parsing and decoding never panic.
#![no_main]

use kernlog::analysis::mtrr::{self, MtrrCollector};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut collector = MtrrCollector::new();
    for (i, line) in text.lines().enumerate() {
        let _ = mtrr::parse_proc_mtrr_line(line);
        collector.push(i as u64 + 1, None, line);
    }
    let report = collector.finish();
    for run in &report.runs {
        let _ = run.describe();
    }
    if data.len() >= 16 {
        let a = u64::from_le_bytes(data[..8].try_into().unwrap());
        let b = u64::from_le_bytes(data[8..16].try_into().unwrap());
        let _ = mtrr::decode_deftype(a);
        if let Some(r) = mtrr::decode_variable(0, a, b) {
            assert!(r.end >= r.base || !r.contiguous);
        }
        let _ = mtrr::fixed_differences([(a as usize % 12, a, b)]);
    }
});
