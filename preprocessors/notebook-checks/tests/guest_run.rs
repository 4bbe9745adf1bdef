//! What the notebook says of the committed run of the checklist in the Debian guest
//! (`data/debian-guest/`) against what that run recorded: the verdict the checklist names,
//! and the kernlog commit, the date and the line counts that `data/MANIFEST.yaml` gives.

use regex::Regex;

fn read(rel: &str) -> String {
    let path = notebook_checks::repo().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn transcript() -> String {
    read("data/debian-guest/transcript.txt")
}

/// The first group of `pattern`'s first match in `text`; `what` names it when there is none.
fn first_group(pattern: &str, text: &str, what: &str) -> String {
    let found = Regex::new(pattern).unwrap().captures(text);
    found.unwrap_or_else(|| panic!("no {what}"))[1].to_string()
}

/// The verdict line `kernlog check` printed in the transcript: its first `WORD: ` line
/// after the command.
fn check_verdict(transcript: &str) -> String {
    let after = transcript
        .split_once("\n$ kernlog check ")
        .expect("the transcript runs kernlog check")
        .1;
    first_group(
        r"(?m)^(PASS|FAIL|UNKNOWN): ",
        after,
        "verdict of kernlog check",
    )
}

#[test]
fn the_checklist_names_the_verdict_of_the_run_it_shows() {
    let page = read("src/checklist.md");
    let named = first_group(
        r"The verdict in the run shown is (PASS|FAIL|UNKNOWN)\b",
        &page,
        "verdict of the executed run in src/checklist.md",
    );
    assert_eq!(named, check_verdict(&transcript()));
}

#[test]
fn the_manifest_names_the_kernlog_and_the_date_of_the_guest_run() {
    let commit = first_group(
        r"(?m)^kernlog \S+ \(commit ([0-9a-f]{40})",
        &transcript(),
        "kernlog --version in the transcript",
    );
    let capture = read("data/debian-guest/distro-boot1/capture.yaml");
    let made = first_group(
        r"(?m)^started: (\d{4}-\d{2}-\d{2})T",
        &capture,
        "start in capture.yaml",
    );
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
        let lines = first_group(r"(?m)^  lines: (\d+)$", entry, "line count");
        let file = read(&format!("data/{name}"));
        assert_eq!(lines, file.lines().count().to_string(), "{name}: its lines");
    }
}

#[test]
fn a_verdict_is_read_from_the_check_command_not_from_the_report() {
    let text = "$ kernlog report x\ntested: PASS: fine\n$ kernlog check x\n[FAIL] a: b\nFAIL: a\n";
    assert_eq!(check_verdict(text), "FAIL");
}
