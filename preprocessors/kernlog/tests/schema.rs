//! The library's own JSON schema, held against a document written by hand.
//!
//! `schema/two-attempts.log` was written for this test in the wording of Linux 6.x: a deep
//! suspend that resumes (CPU 1 back in 12.5 ms, CPU 2 never: `Error taking CPU2 up: -5`
//! after the kernel's 10 s wait; device `00:0a` fails to resume), then one that a USB
//! controller aborts (`failed to suspend async: error -16`). `schema/two-attempts.json` is
//! the document `kernlog analyze --json` should give for it, every figure worked out from
//! the log's stamps and not taken from the program's output, for instance:
//!
//! * cycle 0: suspend span = exit - entry = 110.720000 - 100.000000 = 10 720 ms; suspend =
//!   the last record before the first resume line (line 11, 100.268000) - entry = 268 ms;
//!   resume = exit - low-level resume (100.270000) = 10 450 ms; CPU 1's bring-up =
//!   100.297700 - 100.285200 = 12.5 ms and 12.7 ms after `Enabling non-boot CPUs`;
//! * cycle 0's largest silence is CPU 2's 10.0001 s (lines 17 to 18), then 218 ms between
//!   the freeze and the platform's sleep entry (7 to 8);
//! * cycle 1: aborted at line 31, 140.140100 - 140.000000 = 140.1 ms after its entry; no
//!   suspend or resume figures, but the span from entry to exit (300 ms) is still there.
//!
//! The test compares the two as JSON values and names every path at which they differ.

use kernlog::Document;
use kernlog::render::document::SCHEMA_VERSION;
use serde_json::Value;

const LOG: &str = include_str!("schema/two-attempts.log");
const EXPECTED: &str = include_str!("schema/two-attempts.json");

/// The JSON paths at which `got` and `want` differ, with both values.
fn differences(path: &str, got: &Value, want: &Value, out: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (key, value) in w {
                match g.get(key) {
                    Some(got) => differences(&format!("{path}/{key}"), got, value, out),
                    None => out.push(format!("{path}/{key}: missing, want {value}")),
                }
            }
            for key in g.keys().filter(|k| !w.contains_key(*k)) {
                out.push(format!("{path}/{key}: not in the expected document"));
            }
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => {
            for (i, (got, want)) in g.iter().zip(w).enumerate() {
                differences(&format!("{path}/{i}"), got, want, out);
            }
        }
        _ if got != want => out.push(format!("{path}: got {got}, want {want}")),
        _ => {}
    }
}

#[test]
fn the_document_of_a_resumed_and_an_aborted_attempt_is_as_worked_out_by_hand() {
    let got = serde_json::to_value(Document::new(&kernlog::analyze_str(LOG))).unwrap();
    let want: Value = serde_json::from_str(EXPECTED).expect("the expected document is JSON");
    assert_eq!(want["schema"], SCHEMA_VERSION);
    let mut out = Vec::new();
    differences("", &got, &want, &mut out);
    assert!(out.is_empty(), "the document differs:\n{}", out.join("\n"));
}
