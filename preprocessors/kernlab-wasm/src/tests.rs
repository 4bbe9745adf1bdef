use serde_json::Value;

use super::*;

/// A resume of the patched 6.19-rc8 kernel (Jürgen Groß's series), committed as data.
const JGROSS: &[u8] =
    include_bytes!("../../../data/dmesg/resume-cpu-bringup-fix-jgross-series-6.19-rc8.log");

fn input(name: &str, bytes: &[u8]) -> Input {
    Input {
        name: name.to_string(),
        bytes: bytes.to_vec(),
    }
}

fn run(inputs: &[Input]) -> Result<Value, String> {
    let json = analyze_inputs(inputs, Limits::default(), &mut |_, _| {})?;
    Ok(serde_json::from_str(&json).expect("the output is JSON"))
}

#[test]
fn a_real_resume_gives_its_cycle_bringups_and_verdict() {
    let out = run(&[input("jgross.log", JGROSS)]).unwrap();
    let report = &out["reports"][0];
    assert_eq!(report["name"], "jgross.log");
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
fn the_document_is_the_one_of_kernlog_analyze_json() {
    let out = run(&[input("jgross.log", JGROSS)]).unwrap();
    let analysis = kernlog::analyze(JGROSS).unwrap();
    let cli = serde_json::to_value(Document::new(&analysis)).unwrap();
    assert_eq!(out["reports"][0]["document"], cli);
}

#[test]
fn several_logs_give_one_report_each_in_order() {
    let empty = input("empty.txt", b"");
    let out = run(&[input("a.log", JGROSS), empty]).unwrap();
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
fn no_input_and_a_bundles_yaml_are_refused_with_a_hint() {
    let none = run(&[]).unwrap_err();
    assert!(
        none.starts_with("no log given: paste a log or drop a file"),
        "{none}"
    );
    let yaml = run(&[
        input("a.log", JGROSS),
        input("bundle/capture.yaml", b"x: 1\n"),
    ]);
    let yaml = yaml.unwrap_err();
    assert_eq!(
        yaml,
        "bundle/capture.yaml is the capture.yaml of a bundle, not a log; this page reads a \
         bundle's log only: drop its kernel.log"
    );
    assert!(run(&[input("MANIFEST.yaml", b"")]).is_err());
}

#[test]
fn a_name_s_control_and_bidi_characters_are_made_visible() {
    let out = run(&[input("evil\u{1b}[2J\u{202e}gol.txt", JGROSS)]).unwrap();
    assert_eq!(out["reports"][0]["name"], "evil\\x1b[2J<U+202E>gol.txt");
}

#[test]
fn progress_counts_up_to_the_bytes_of_all_inputs() {
    let mut big = Vec::new();
    while big.len() < 3 * PROGRESS_STEP {
        big.extend_from_slice(JGROSS);
    }
    let inputs = [input("big.log", &big), input("small.log", JGROSS)];
    let total = (big.len() + JGROSS.len()) as u64;
    let mut seen = Vec::new();
    analyze_inputs(&inputs, Limits::default(), &mut |done, all| {
        seen.push((done, all));
    })
    .unwrap();
    assert!(seen.len() >= 4, "{seen:?}");
    assert!(seen.iter().all(|&(_, all)| all == total));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert_eq!(seen.last(), Some(&(total, total)));
}
