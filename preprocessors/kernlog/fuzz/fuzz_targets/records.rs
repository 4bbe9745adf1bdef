//! Any bytes through the streaming reader and every analysis: no panic, and durations
//! that are never negative.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for line in text.lines() {
            let _ = kernlog::parse::record::parse_line(line);
        }
    }
    let analysis = kernlog::analyze(data).expect("reading from memory cannot fail");
    for cycle in &analysis.cycles {
        for ms in [
            cycle.enable_phase_ms(),
            cycle.suspend_span_ms(),
            cycle.resume_ms(),
            cycle.suspend_ms(),
            cycle.time_to_abort_ms(),
            cycle.asleep.map(|a| a.seconds),
        ]
        .into_iter()
        .flatten()
        {
            assert!(ms >= 0.0, "negative duration {ms}");
        }
        assert!(cycle.gaps.iter().all(|g| g.us >= 0));
    }
    let report = kernlog::render::document::Document::new(&analysis);
    let _ = kernlog::render::summary::render_summary(&analysis, &|k| Some(k.id().to_string()));
    drop(report);
});
