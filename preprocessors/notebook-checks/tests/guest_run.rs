//! What the notebook says of the committed run of the checklist in the Debian guest
//! (`data/debian-guest/`) against what that run recorded: the verdict the checklist names,
//! and the kernlog commit and date that `data/MANIFEST.yaml` gives for it.

use regex::Regex;

fn read(rel: &str) -> String {
    let path = notebook_checks::repo().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn transcript() -> String {
    read("data/debian-guest/transcript.txt")
}

/// The verdict line `kernlog check` printed in the transcript: its first `WORD: ` line
/// after the command.
fn check_verdict(transcript: &str) -> String {
    let after = transcript
        .split_once("\n$ kernlog check ")
        .expect("the transcript runs kernlog check")
        .1;
    let verdict = Regex::new(r"(?m)^(PASS|FAIL|UNKNOWN): ").unwrap();
    verdict
        .captures(after)
        .expect("kernlog check printed a verdict")[1]
        .to_string()
}

#[test]
fn the_checklist_names_the_verdict_of_the_run_it_shows() {
    let page = read("src/checklist.md");
    let named = Regex::new(r"The verdict in the run shown is (PASS|FAIL|UNKNOWN)\b")
        .unwrap()
        .captures(&page)
        .expect("src/checklist.md names the verdict of the executed run")[1]
        .to_string();
    assert_eq!(named, check_verdict(&transcript()));
}

#[test]
fn the_manifest_names_the_kernlog_and_the_date_of_the_guest_run() {
    let commit = Regex::new(r"(?m)^kernlog \S+ \(commit ([0-9a-f]{40})")
        .unwrap()
        .captures(&transcript())
        .expect("the transcript has kernlog --version")[1]
        .to_string();
    let capture = read("data/debian-guest/distro-boot1/capture.yaml");
    let made = Regex::new(r"(?m)^started: (\d{4}-\d{2}-\d{2})T")
        .unwrap()
        .captures(&capture)
        .expect("capture.yaml has its start")[1]
        .to_string();
    let manifest = read("data/MANIFEST.yaml");
    let entries: Vec<&str> = manifest
        .split("\n- path: ")
        .filter(|e| e.starts_with("debian-guest/"))
        .collect();
    assert_eq!(
        entries.len(),
        2,
        "the transcript's and the bundle log's entries"
    );
    let commits = Regex::new(r"static build of commit ([0-9a-f]{40})").unwrap();
    let dates = Regex::new(r#""made on (\d{4}-\d{2}-\d{2});"#).unwrap();
    for entry in entries {
        let name = entry.lines().next().unwrap_or_default();
        for found in commits.captures_iter(entry) {
            assert_eq!(found[1], commit, "{name}: the kernlog commit");
        }
        let found = dates
            .captures(entry)
            .unwrap_or_else(|| panic!("{name}: no date"));
        assert_eq!(found[1], made, "{name}: the date of the run");
    }
}

#[test]
fn a_verdict_is_read_from_the_check_command_not_from_the_report() {
    let text = "$ kernlog report x\ntested: PASS: fine\n$ kernlog check x\n[FAIL] a: b\nFAIL: a\n";
    assert_eq!(check_verdict(text), "FAIL");
}
