//! Expressions against the notebook's data and on their own.

use super::*;

fn store() -> (tempfile::TempDir, DataStore) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("run1.log"),
        "[   10.000000] Enabling non-boot CPUs ...\n[   11.500000] End enabling non-boot CPUs\n",
    )
    .unwrap();
    std::fs::write(
        d.join("run2.log"),
        "[   10.000000] Enabling non-boot CPUs ...\n[   12.500000] End enabling non-boot CPUs\n",
    )
    .unwrap();
    std::fs::write(d.join("t.yaml"), "rows:\n  - {n: 3}\n  - {n: 5}\n").unwrap();
    let store = DataStore::new(d).unwrap();
    (dir, store)
}

#[test]
fn values_aggregates_and_arithmetic() {
    let (_d, s) = store();
    let q = evaluate("run1.log#/cycles/0/enable_phase_ms", &s).unwrap();
    assert_eq!(
        q,
        Quantity {
            value: 1.5,
            time: 1
        }
    );
    let q = evaluate("mean(run*.log#/cycles/0/enable_phase_ms)", &s).unwrap();
    assert_eq!(q.value, 2.0);
    let q = evaluate(
        "run2.log#/cycles/0/enable_phase_ms / run1.log#/cycles/0/enable_phase_ms",
        &s,
    )
    .unwrap();
    assert_eq!(q.time, 0);
    assert!((q.value - 5.0 / 3.0).abs() < 1e-12);
    let q = evaluate("(max(t.yaml#/rows/*/n) - 1) * 2", &s).unwrap();
    assert_eq!(evaluate("t.yaml#/rows/[n=5]/n", &s).unwrap().value, 5.0);
    assert!(evaluate("t.yaml#/rows/[n=4]/n", &s).is_err());
    std::fs::write(
        s.dir().join("u.yaml"),
        "rows:\n  - {a: x y, n: 1, m: 7}\n  - {a: x y, n: 2, m: 9}\n",
    )
    .unwrap();
    assert_eq!(
        evaluate("u.yaml#/rows/[a=x%20y&n=2]/m", &s).unwrap().value,
        9.0
    );
    assert_eq!(evaluate("max(u.yaml#/*/*/m)", &s).unwrap().value, 9.0);
    assert_eq!(q, Quantity::plain(8.0));
    assert_eq!(
        evaluate("count(run*.log#/cycles/*/enable_phase_ms)", &s)
            .unwrap()
            .value,
        2.0
    );
}

#[test]
fn errors_say_what_to_do() {
    let (_d, s) = store();
    for (expr, needle) in [
        ("run*.log#/cycles/0/enable_phase_ms", "has 2 values"),
        ("run1.log#/cycles/0/nothing_ms", "has nothing at"),
        ("run1.log#/cycles/0/ec_wake_to_unblock_ms", "is null"),
        ("run1.log#/cycles/0/enable_phase_ms + 1", "cannot add"),
        ("median(run1.log#/x)", "unknown function"),
        ("run1.log", "neither a number"),
        ("(1 + 2", "not closed"),
        ("1 / 0", "no finite value"),
        ("../x.log#/a", "not a path inside"),
    ] {
        let err = evaluate(expr, &s).unwrap_err();
        assert!(err.message.contains(needle), "{expr}: {err:?}");
        assert!(err.hint.is_some(), "{expr}: no hint");
    }
}

#[test]
fn formatting_and_units() {
    assert_eq!(format_value(16.567281, 1, Unit::Seconds), "16.6\u{a0}s");
    assert_eq!(format_value(-0.01, 1, Unit::Plain), "0.0");
    let d = Quantity {
        value: 0.091097,
        time: 1,
    };
    assert_eq!(Unit::Millis.convert(d).unwrap(), 91.097);
    assert!(Unit::Plain.convert(d).is_err());
    assert!(Unit::Seconds.convert(Quantity::plain(3.0)).is_err());
    assert!(Unit::parse("h").is_err());
    // A duration in minutes: 1001 s is 16.68 min; a plain number is refused.
    assert_eq!(Unit::parse("min").unwrap(), Unit::Minutes);
    assert_eq!(
        Unit::Minutes
            .convert(Quantity {
                value: 1001.0,
                time: 1
            })
            .unwrap(),
        1001.0 / 60.0
    );
    assert_eq!(format_value(1001.0 / 60.0, 0, Unit::Minutes), "17\u{a0}min");
    assert!(Unit::Minutes.convert(Quantity::plain(3.0)).is_err());
}
