use std::path::Path;

use serde_json::Value;

use super::*;

/// A resume of the patched 6.19-rc8 kernel (Jürgen Groß's series), committed as data.
const JGROSS: &[u8] =
    include_bytes!("../../../data/dmesg/resume-cpu-bringup-fix-jgross-series-6.19-rc8.log");

/// The CLI's fixture bundle of five resumes of the QEMU lab's kernel with the fix.
const BUNDLE: &str = "../kernlog-cli/tests/fixtures/bundles/with-fix-changed";

fn input(name: &str, bytes: &[u8]) -> Input {
    Input {
        name: name.to_string(),
        bytes: bytes.to_vec(),
    }
}

/// Every file of the folder `dir` as the page gives them: `PREFIX/relative/path`.
fn folder(dir: &Path, prefix: &str) -> Vec<Input> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("{prefix}/{}", path.file_name().unwrap().to_str().unwrap());
        if path.is_dir() {
            out.extend(folder(&path, &name));
        } else {
            out.push(input(&name, &std::fs::read(&path).unwrap()));
        }
    }
    out
}

fn bundle() -> Vec<Input> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUNDLE);
    folder(&dir, "with-fix-changed")
}

fn run(inputs: Vec<Input>) -> Result<Value, String> {
    let json = analyze_inputs(inputs, &mut |_, _| {})?;
    Ok(serde_json::from_str(&json).expect("the output is JSON"))
}

#[test]
fn a_real_resume_gives_its_cycle_bringups_and_verdict() {
    let out = run(vec![input("jgross.log", JGROSS)]).unwrap();
    let report = &out["reports"][0];
    assert_eq!(report["name"], "jgross.log");
    assert_eq!(report["bundle"], false);
    let cycles = report["document"]["cycles"].as_array().unwrap();
    assert_eq!(cycles.len(), 1);
    // Read off the log: "Enabling non-boot CPUs" at 33.127617, CPU7 up at 33.202693;
    // CPU1 booting at 33.127760, up at 33.146056; seven CPUs brought up.
    assert_eq!(cycles[0]["enable_phase_ms"], 75.076);
    let cpus = cycles[0]["cpus"].as_array().unwrap();
    assert_eq!(cpus.len(), 7);
    assert_eq!(cpus[0]["cpu"], 1);
    assert_eq!(cpus[0]["bringup_ms"], 18.296);
    // The fix's diagnostic is there, but no mtrr=debug lines: the MTRR outcome is not shown.
    let checklist = &report["checklist"];
    assert_eq!(checklist["overall"], "UNKNOWN");
    assert!(
        checklist["verdict"]
            .as_str()
            .unwrap()
            .contains("no mtrr=debug lines")
    );
    let text = checklist["text"].as_str().unwrap();
    assert!(text.starts_with("[PASS] every attempt resumed: 1 of 1 attempt slept and resumed\n"));
    assert!(text.ends_with(&format!("{}\n", checklist["verdict"].as_str().unwrap())));
    assert_eq!(checklist["items"][1]["status"], "PASS");
    assert_eq!(checklist["items"][1]["lines"][0], 6);
}

#[test]
fn the_views_are_the_ones_of_kernlog_report_html() {
    let out = run(vec![input("jgross.log", JGROSS)]).unwrap();
    let html = out["html"].as_str().unwrap();
    assert!(html.starts_with("<pre class=\"kl-report-text\">"), "{html}");
    assert!(html.contains("<h2>jgross.log</h2>"), "{html}");
    assert!(html.contains("<h3>Cycle 1</h3>"), "{html}");
    // The bring-up chart, drawn for the page and for a phone, with its table: CPU1's row.
    assert_eq!(html.matches("<svg class=\"kl-chart kl-chart-").count(), 4);
    assert!(html.contains("CPU bring-up, jgross.log"), "{html}");
    assert!(html.contains("<td>CPU1</td>"), "{html}");
    assert!(
        html.contains("<tr class=\"kl-total\"><td>verdict</td><td>UNKNOWN</td>"),
        "{html}"
    );
    assert!(!html.contains("<script"), "{html}");
}

#[test]
fn findings_link_into_the_notebook_relative_to_the_page() {
    // A resume with the fix's diagnostic: a finding of kind mtrr-resume-diagnostic.
    let out = run(vec![input("jgross.log", JGROSS)]).unwrap();
    let html = out["html"].as_str().unwrap();
    assert!(
        html.contains("<a href=\"./journey#add-diagnostic\">mtrr-resume-diagnostic</a>"),
        "{html}"
    );
    let findings = out["reports"][0]["document"]["findings"]
        .as_array()
        .unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["see"] == "./journey#add-diagnostic"),
        "{findings:?}"
    );
}

#[test]
fn the_document_is_the_one_of_kernlog_analyze_json() {
    let out = run(vec![input("jgross.log", JGROSS)]).unwrap();
    let analysis = kernlog::analyze(JGROSS).unwrap();
    let links = pages::links(SITE);
    let cli = serde_json::to_value(Document::with_links(&analysis, &links)).unwrap();
    assert_eq!(out["reports"][0]["document"], cli);
}

#[test]
fn a_bundle_folder_gives_the_checklist_of_kernlog_check() {
    let out = run(bundle()).unwrap();
    let reports = out["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 1);
    let report = &reports[0];
    assert_eq!(report["name"], "with-fix-changed");
    assert_eq!(report["bundle"], true);
    // capture.yaml lists 5 resumed cycles and mtrr/ holds 4 CPUs' dumps after each.
    assert_eq!(report["document"]["cycles"].as_array().unwrap().len(), 5);
    let text = report["checklist"]["text"].as_str().unwrap();
    assert!(
        text.contains(
            "[PASS] MTRRs as before the suspend: captured MSRs: 20 CPU dumps after 5 resumes \
             equal to its values before the first suspend, every register"
        ),
        "{text}"
    );
    let html = out["html"].as_str().unwrap();
    assert!(html.contains("<h3>Captured MTRRs</h3>"), "{html}");
    assert!(
        html.contains(
            "<dt>tested</dt><dd>7.3.4 with the fix (lab firmware changes the MTRRs)</dd>"
        ),
        "{html}"
    );
}

#[test]
fn a_bundle_s_member_over_its_cap_and_a_missing_member_are_refused_as_by_the_cli() {
    let mut inputs = bundle();
    let yaml = inputs
        .iter_mut()
        .find(|i| i.name.ends_with("/capture.yaml"))
        .unwrap();
    yaml.bytes.resize(YAML_CAP_PLUS_ONE, b'#');
    let err = run(inputs).unwrap_err();
    assert_eq!(
        err,
        "with-fix-changed/capture.yaml: is larger than the 256 KiB a bundle may hold there; \
         drop a bundle folder written by `kernlog capture`, or a log"
    );
    let inputs: Vec<Input> = bundle()
        .into_iter()
        .filter(|i| !i.name.ends_with("after-cycle-3.txt"))
        .collect();
    let err = run(inputs).unwrap_err();
    assert!(
        err.starts_with("with-fix-changed/MANIFEST.yaml: names `mtrr/after-cycle-3.txt`"),
        "{err}"
    );
}

const YAML_CAP_PLUS_ONE: usize = kernlog::evidence::bundle::YAML_CAP as usize + 1;

#[test]
fn a_bundle_and_a_log_give_a_report_each_in_order() {
    let mut inputs = vec![input("a.log", JGROSS)];
    inputs.extend(bundle());
    let out = run(inputs).unwrap();
    let reports = out["reports"].as_array().unwrap();
    let names: Vec<&str> = reports
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a.log", "with-fix-changed"]);
    let html = out["html"].as_str().unwrap();
    assert_eq!(html.matches("<section>").count(), 2);
}

#[test]
fn several_logs_give_one_report_each_in_order() {
    let empty = input("empty.txt", b"");
    let out = run(vec![input("a.log", JGROSS), empty]).unwrap();
    let reports = out["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[1]["name"], "empty.txt");
    assert_eq!(
        reports[1]["document"]["cycles"].as_array().unwrap().len(),
        0
    );
    assert_eq!(reports[1]["checklist"]["overall"], "UNKNOWN");
}

#[test]
fn the_same_log_twice_is_refused_as_by_kernlog_report() {
    let err = run(vec![input("a.log", JGROSS), input("b.log", JGROSS)]).unwrap_err();
    assert!(
        err.starts_with("a.log and b.log hold the same capture"),
        "{err}"
    );
}

#[test]
fn no_input_a_loose_bundle_file_and_too_many_files_are_refused_with_a_hint() {
    let none = run(vec![]).unwrap_err();
    assert!(
        none.starts_with("no log given: paste a log or drop a file"),
        "{none}"
    );
    let yaml = run(vec![
        input("a.log", JGROSS),
        input("capture.yaml", b"x: 1\n"),
    ]);
    assert_eq!(
        yaml.unwrap_err(),
        "capture.yaml is the capture.yaml of a bundle, not a log; drop the bundle's folder \
         (the one `kernlog capture` wrote), not its files"
    );
    // A folder with a MANIFEST.yaml but no capture.yaml is read as a bundle, and refused
    // as the CLI refuses such a folder.
    let err = run(vec![input("b/MANIFEST.yaml", b"")]).unwrap_err();
    assert!(
        err.starts_with("b/capture.yaml: not found: this folder is not a kernlog capture bundle"),
        "{err}"
    );
    let many = vec![input("x.log", b""); MAX_FILES + 1];
    assert!(run(many).unwrap_err().starts_with("1001 files given"));
}

#[test]
fn a_log_over_the_cap_of_kernlog_check_is_refused_as_by_the_cli() {
    let big = input("big.log", &vec![b'\n'; LOG_CAP as usize + 1]);
    let err = run(vec![big]).unwrap_err();
    assert!(
        err.starts_with("big.log is longer than 64 MiB, which check, compare and report"),
        "{err}"
    );
}

#[test]
fn a_name_s_control_and_bidi_characters_are_made_visible() {
    let out = run(vec![input("evil\u{1b}[2J\u{202e}gol.txt", JGROSS)]).unwrap();
    assert_eq!(out["reports"][0]["name"], "evil\\x1b[2J<U+202E>gol.txt");
}

#[test]
fn progress_counts_up_to_the_bytes_of_all_inputs() {
    let step = progress::PROGRESS_STEP;
    let mut big = Vec::new();
    while big.len() < 3 * step {
        big.extend_from_slice(JGROSS);
    }
    let inputs = vec![input("big.log", &big), input("small.log", b"")];
    let total = big.len() as u64;
    let mut seen = Vec::new();
    analyze_inputs(inputs, &mut |done, all| seen.push((done, all))).unwrap();
    assert!(seen.len() >= 4, "{seen:?}");
    assert!(seen.iter().all(|&(_, all)| all == total));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert_eq!(seen.last(), Some(&(total, total)));
}
