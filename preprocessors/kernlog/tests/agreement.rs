//! `kernlog analyze` and `kernlog check` judge a log's MTRRs by one rule (cycle by cycle,
//! `kernlog::analysis::cycle_mtrr`): on every log of the real-world corpus, a check that
//! says the resumes were not affected comes with no MTRR finding, and an MTRR finding with
//! no such check.

use std::path::Path;

use kernlog::analysis::findings::FindingKind;
use kernlog::judge::checklist::{Limits, check};

#[test]
fn analyze_and_check_agree_on_every_corpus_log() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut logs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log" || e == "eml"))
        .collect();
    logs.sort();
    assert!(logs.len() > 40, "the corpus is there");
    let mut judged = 0;
    for path in &logs {
        let bytes = std::fs::read(path).unwrap();
        let analysis = kernlog::analyze(&bytes[..]).unwrap();
        let changed = analysis.findings.iter().any(|f| {
            matches!(
                f.kind,
                FindingKind::MtrrBootCpuRestored | FindingKind::MtrrApsInconsistent
            )
        });
        let list = check(&analysis, Limits::default());
        let not_affected = list.verdict.starts_with("PASS: not affected");
        assert!(
            !(changed && not_affected),
            "{}: analyze finds MTRR changes, check says {}",
            path.display(),
            list.verdict
        );
        judged += usize::from(changed || not_affected);
    }
    println!(
        "agreement: {} logs, {judged} with an MTRR judgement",
        logs.len()
    );
}
