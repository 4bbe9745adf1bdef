//! A bundle edited to turn a FAIL into a PASS, as the attacker reviews did it:
//! each test takes a real bundle of the QEMU lab (`data/qemu-lab/`, 7.3.4 with and without
//! v2 of the fix, 8 vCPUs, 3 resumes), edits it the way one class of attack does, and
//! checks that `kernlog check` gives no PASS. Where an attack cuts lines out, it is tried
//! twice: as cut (the kernel's record numbers then skip) and with the records renumbered,
//! so that the rules on what a resume must show are tested on their own.

mod common;
#[path = "common/hostile.rs"]
mod hostile;
use common::kernlog;
use hostile::s;
use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

fn lab(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/qemu-lab")
        .join(name)
}

/// A copy of lab bundle `name`, to edit.
fn lab_copy(name: &str) -> TempDir {
    hostile::copy_bundle(&lab(name))
}

/// `kernlog check` as the lab runs it: (exit status, last line, whole output).
fn check(bundle: &Path) -> (Option<i32>, String, String) {
    let out = kernlog(&["check", "--max-bringup-ms", "5000", s(bundle)]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let last = stdout.lines().last().unwrap_or_default().to_string();
    (out.status.code(), last, format!("{stdout}{stderr}"))
}

fn log_lines(bundle: &Path) -> Vec<String> {
    let text = fs::read_to_string(bundle.join("kernel.log")).unwrap();
    text.lines().map(str::to_string).collect()
}

fn write_log(bundle: &Path, lines: &[String]) {
    fs::write(bundle.join("kernel.log"), lines.join("\n") + "\n").unwrap();
}

/// The records numbered one after the other again, as an attacker who knows the format
/// would leave them.
fn renumber(lines: &[String]) -> Vec<String> {
    let mut next = 0u64;
    lines
        .iter()
        .map(|l| {
            let mut fields = l.splitn(3, ',');
            let (Some(prio), Some(seq), Some(rest)) = (fields.next(), fields.next(), fields.next())
            else {
                return l.clone();
            };
            if seq.parse::<u64>().is_err() {
                return l.clone();
            }
            next += 1;
            format!("{prio},{},{rest}", next - 1)
        })
        .collect()
}

fn no_pass(bundle: &Path, what: &str) -> String {
    let (_, last, all) = check(bundle);
    assert!(!last.starts_with("PASS"), "{what}: {all}");
    all
}

/// [`no_pass`], with `said` in the output.
fn no_pass_saying(bundle: &Path, what: &str, said: &str) {
    let all = no_pass(bundle, what);
    assert!(all.contains(said), "{what}: {all}");
}

#[test]
fn the_unedited_bundles_give_the_labs_verdicts() {
    // The attacks below start from these two verdicts.
    let (code, last, all) = check(&lab("without-fix-seabios"));
    assert_eq!(code, Some(1), "{all}");
    assert!(last.starts_with("FAIL: diagnostic if and only if"), "{all}");
    let (code, last, all) = check(&lab("with-fix-seabios"));
    assert_eq!(code, Some(0), "{all}");
    assert!(
        last.starts_with("PASS: the fix restored the MTRRs"),
        "{all}"
    );
}

#[test]
fn cutting_the_thaw_line_out_gives_no_pass() {
    // A8: without `Enabling non-boot CPUs ...` the APs' changed MTRRs were not counted.
    for renumbered in [false, true] {
        let b = lab_copy("without-fix-seabios");
        let mut lines: Vec<String> = log_lines(b.path())
            .into_iter()
            .filter(|l| !l.ends_with(";Enabling non-boot CPUs ..."))
            .collect();
        if renumbered {
            lines = renumber(&lines);
        }
        write_log(b.path(), &lines);
        let all = no_pass(b.path(), "thaw cut");
        let expected = if renumbered {
            "without its `Enabling non-boot CPUs` line"
        } else {
            "record numbers skip"
        };
        assert!(all.contains(expected), "{all}");
    }
}

#[test]
fn hiding_a_cpu_that_did_not_come_back_gives_no_pass() {
    // A7: the thaw line and CPU 3's bring-up cut out of the good run.
    let b = lab_copy("with-fix-seabios");
    let lines: Vec<String> = log_lines(b.path())
        .into_iter()
        .filter(|l| {
            !l.ends_with(";Enabling non-boot CPUs ...")
                && !l.ends_with(";CPU3 is up")
                && !l.contains(";smpboot: Booting Node 0 Processor 3 ")
        })
        .collect();
    write_log(b.path(), &renumber(&lines));
    no_pass(b.path(), "CPU 3 hidden");
}

#[test]
fn an_inserted_diagnostic_does_not_make_the_unpatched_kernel_pass() {
    // A6: the v1 diagnostic added after each resume's bring-up of the kernel without the
    // fix; its APs were restored only after every CPU was up.
    let b = lab_copy("without-fix-seabios");
    let mut lines = Vec::new();
    for l in log_lines(b.path()) {
        let thaw_done = l.ends_with(";CPU7 is up");
        lines.push(l);
        if thaw_done {
            lines.push("4,0,0,-;mtrr: your CPUs had unexpected MTRR settings on resume".into());
        }
    }
    write_log(b.path(), &renumber(&lines));
    let (code, last, all) = check(b.path());
    assert_eq!(code, Some(1), "{all}");
    assert!(last.starts_with("FAIL: diagnostic if and only if"), "{all}");
    assert!(all.contains("restored only once they were up"), "{all}");
}

#[test]
fn repeated_records_give_no_pass() {
    // Two reads of /dev/kmsg joined: the good run's last cycle appended again.
    let b = lab_copy("with-fix-seabios");
    let mut lines = log_lines(b.path());
    let last_entry = lines
        .iter()
        .rposition(|l| l.ends_with(";PM: suspend entry (deep)"))
        .unwrap();
    let again: Vec<String> = lines[last_entry..].to_vec();
    lines.extend(again);
    write_log(b.path(), &lines);
    no_pass_saying(
        b.path(),
        "repeated records",
        "record numbers skip, repeat or step back",
    );
}

#[test]
fn deleting_the_debug_lines_of_one_resume_gives_no_pass() {
    // The `MTRR cpu N` lines of the second resume cut out, records renumbered.
    let b = lab_copy("without-fix-seabios");
    let lines = log_lines(b.path());
    let entries: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.ends_with(";PM: suspend entry (deep)"))
        .map(|(i, _)| i)
        .collect();
    let (from, to) = (entries[1], entries[2]);
    let kept: Vec<String> = lines
        .into_iter()
        .enumerate()
        .filter(|(i, l)| !(*i > from && *i < to && l.contains(";MTRR cpu ")))
        .map(|(_, l)| l)
        .collect();
    write_log(b.path(), &renumber(&kept));
    no_pass_saying(
        b.path(),
        "debug lines of resume 2 cut",
        "cycle 2 has no MTRR debug line",
    );
}

#[test]
fn dumps_that_contradict_the_debug_lines_fail() {
    // A3b/A4: every dump, the boot dump too, rewritten alike (variable 0 disabled on every
    // CPU): consistent with each other, contradicting the values the debug lines show.
    let b = lab_copy("with-fix-seabios");
    for entry in fs::read_dir(b.path().join("mtrr")).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        let edited: Vec<String> = text
            .lines()
            .map(|l| match l.split_once(" var=") {
                Some((head, vars)) if !l.starts_with('#') => {
                    let mut pairs: Vec<String> = vars.split(',').map(str::to_string).collect();
                    if let Some((base, _)) = pairs[0].clone().split_once('/') {
                        pairs[0] = format!("{base}/0000000000000000");
                    }
                    format!("{head} var={}", pairs.join(","))
                }
                _ => l.to_string(),
            })
            .collect();
        fs::write(&path, edited.join("\n") + "\n").unwrap();
    }
    let (code, last, all) = check(b.path());
    assert_eq!(code, Some(1), "{all}");
    assert!(last.starts_with("FAIL"), "{all}");
    assert!(
        all.contains("the captured MSRs contradict the log's MTRR debug lines"),
        "{all}"
    );
}

#[test]
fn a_capture_yaml_cut_to_fewer_cycles_gives_no_pass() {
    // A2: capture.yaml's third cycle removed, with its dump: the log still shows three.
    let b = lab_copy("with-fix-seabios");
    let yaml = fs::read_to_string(b.path().join("capture.yaml")).unwrap();
    let cut = yaml.split("- n: 3").next().unwrap().to_string();
    let tail = yaml.split("- n: 3").nth(1).unwrap();
    let rest = tail.find("\nverdict").map_or("", |i| &tail[i..]);
    fs::write(
        b.path().join("capture.yaml"),
        format!("{cut}{}", rest.trim_start_matches('\n')),
    )
    .unwrap();
    fs::remove_file(b.path().join("mtrr/after-cycle-3.txt")).unwrap();
    let manifest = fs::read_to_string(b.path().join("MANIFEST.yaml")).unwrap();
    let kept = manifest
        .split("- path: mtrr/after-cycle-3.txt")
        .next()
        .unwrap();
    fs::write(b.path().join("MANIFEST.yaml"), kept).unwrap();
    let all = no_pass(b.path(), "capture.yaml cut");
    // The lab's captures tie each cycle to the log's records: the third resume falls to
    // cycle 2, which then has two.
    assert!(
        all.contains("capture cycle 2 has 2 suspend attempts in the log"),
        "{all}"
    );
}

#[test]
fn debug_lines_edited_so_that_they_no_longer_read_give_no_pass() {
    // The secondary CPUs' register lines of every resume made unreadable (` -> ` to ` => `)
    // and their flags set to "nothing changed", record numbers untouched.
    let b = lab_copy("without-fix-seabios");
    let mut after_entry = false;
    let lines: Vec<String> = log_lines(b.path())
        .into_iter()
        .map(|l| {
            after_entry |= l.ends_with(";PM: suspend entry (deep)");
            let ap = l.contains(";MTRR cpu ") && !l.contains(";MTRR cpu 0 ");
            if !(after_entry && ap) {
                return l;
            }
            if l.contains(" variable ") || l.contains(" fixed ") {
                l.replace(" -> ", " => ")
            } else if let Some(at) = l.find(" changes:") {
                format!("{} changes:___", &l[..at])
            } else {
                l
            }
        })
        .collect();
    write_log(b.path(), &lines);
    no_pass_saying(
        b.path(),
        "debug lines made unreadable",
        "do not read as the debug patch prints them",
    );
}

#[test]
fn lines_inserted_without_record_numbers_give_no_pass() {
    // After each thaw line, runs that show every secondary CPU unchanged, as bare text.
    let b = lab_copy("without-fix-seabios");
    let mut lines = Vec::new();
    for l in log_lines(b.path()) {
        let thaw = l.ends_with(";Enabling non-boot CPUs ...");
        lines.push(l);
        if thaw {
            for cpu in 1..8 {
                lines.push(format!("MTRR cpu {cpu} disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]"));
                lines.push(format!("MTRR cpu {cpu} changes:___"));
                lines.push(format!("MTRR cpu {cpu} enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]"));
            }
        }
    }
    write_log(b.path(), &lines);
    no_pass_saying(
        b.path(),
        "unnumbered lines inserted",
        "record numbers skip, repeat or step back",
    );
}

#[test]
fn an_attempt_made_up_between_resumes_hides_nothing() {
    // An honest FAIL first: the fix's diagnostic although no CPU came back changed, and
    // capture.yaml tying each cycle to the log as capture writes it now.
    let b = lab_copy("with-fix-good");
    let mut lines = Vec::new();
    for l in log_lines(b.path()) {
        if l.contains(";ACPI: PM: Waking up") {
            lines.push(
                "6,0,0,-;MTRRs of CPUs 1-7 differed from the saved state, restored each as it came up"
                    .to_string(),
            );
        }
        lines.push(l);
    }
    let lines = renumber(&lines);
    let entries: Vec<String> = lines
        .iter()
        .filter(|l| l.ends_with(";PM: suspend entry (deep)"))
        .map(|l| l.split(',').nth(1).unwrap().to_string())
        .collect();
    write_log(b.path(), &lines);
    let yaml = fs::read_to_string(b.path().join("capture.yaml")).unwrap();
    let mut anchored = String::new();
    let mut n = 0;
    // The lab's captures record the anchors; they are set anew for the renumbered log.
    for l in yaml.lines().filter(|l| !l.starts_with("  log_from_seq: ")) {
        anchored.push_str(l);
        anchored.push('\n');
        if l.starts_with("  mtrr: mtrr/after-cycle-") {
            anchored.push_str(&format!("  log_from_seq: {}\n", entries[n]));
            n += 1;
        }
    }
    fs::write(b.path().join("capture.yaml"), anchored).unwrap();
    let (code, last, all) = check(b.path());
    assert_eq!(code, Some(1), "{all}");
    assert!(last.starts_with("FAIL: diagnostic"), "{all}");
    // The forgery: before each diagnostic, an entry line with a low record number, so that
    // the diagnostic falls in an attempt of its own that has no bring-up.
    let mut forged = Vec::new();
    for l in log_lines(b.path()) {
        if l.contains(";MTRRs of CPUs 1-7 differed") {
            forged.push("6,5,0,-;PM: suspend entry (deep)".to_string());
        }
        forged.push(l);
    }
    write_log(b.path(), &forged);
    no_pass_saying(
        b.path(),
        "attempts made up between resumes",
        "the kernel's record numbers skip, repeat or step back",
    );
}

#[test]
fn a_resumed_cycle_recorded_as_aborted_does_not_hide_its_dump() {
    // Third review: resume 2's dump contradicts the debug lines (check FAILs), and
    // capture.yaml alone is edited to call cycle 2 aborted with no dump, while the log still
    // shows the attempt slept and resumed.
    let b = lab_copy("with-fix-good");
    let dump = b.path().join("mtrr/after-cycle-2.txt");
    let text = fs::read_to_string(&dump).unwrap();
    let edited = text.replacen("cpu3 def=0000000000000c06", "cpu3 def=0000000000000006", 1);
    assert_ne!(edited, text, "the dump has cpu3's default type");
    fs::write(&dump, edited).unwrap();
    let (code, last, all) = check(b.path());
    assert_eq!((code, last.starts_with("FAIL")), (Some(1), true), "{all}");

    let path = b.path().join("capture.yaml");
    let yaml = fs::read_to_string(&path).unwrap();
    let forged = yaml.replacen(
        "outcome: resumed\n  detail: null\n  mtrr: mtrr/after-cycle-2.txt",
        "outcome: aborted\n  detail: 'cannot set the RTC alarm'\n  mtrr: null",
        1,
    );
    assert_ne!(forged, yaml, "capture.yaml names cycle 2's dump");
    fs::write(&path, forged).unwrap();
    no_pass_saying(
        b.path(),
        "cycle 2 recorded as aborted",
        "capture cycle 2 is recorded as aborted, but the log shows its attempt",
    );
}

#[test]
fn cutting_the_first_attempt_out_up_to_its_thaw_tail_gives_no_pass() {
    // Fourth review: the records of the first suspend, up to the thaw's last lines, cut out
    // of kernel.log alone; the tail left reads as an attempt without a bring-up, and the
    // break in the record numbers falls before it.
    let b = lab_copy("with-fix-ovmf");
    let lines = log_lines(b.path());
    let entry = lines
        .iter()
        .position(|l| l.ends_with(";PM: suspend entry (deep)"))
        .unwrap();
    // Kept from the record after the platform's wake line: a record that opens no step of
    // an attempt, so the attempt left starts after the break.
    let tail = entry
        + lines[entry..]
            .iter()
            .position(|l| l.contains(";ACPI: PM: Waking up from system sleep state"))
            .unwrap()
        + 1;
    let cut: Vec<String> = [&lines[..entry], &lines[tail..]].concat();
    write_log(b.path(), &cut);
    no_pass_saying(
        b.path(),
        "first attempt cut",
        "the kernel's record numbers skip, repeat or step back",
    );
}

#[test]
fn a_tasks_report_that_spells_the_diagnostic_is_not_the_fixs() {
    // Fourth review: a task named `mtrr: CPUs 1-7` running a file named like the rest of
    // v3's line, killed by a bad signal frame, gives a record of the kernel's own facility
    // that starts and contains what the diagnostic does. With the kernel's diagnostic taken
    // out (a fix that restores the MTRRs but says nothing), check must not take that record
    // for it.
    let b = lab_copy("with-fix-ovmf");
    let forged: Vec<String> = log_lines(b.path())
        .into_iter()
        .filter(|l| !l.ends_with(";mtrr: CPUs 1-7 resumed with changed MTRRs, restored early"))
        .flat_map(|l| {
            let after = l.ends_with(";PM: suspend exit").then(|| {
                "6,0,0,-;mtrr: CPUs 1-7[2869] bad frame in rt_sigreturn \
                 frame:fffffffffffffff8 ip:401654 sp:0 orax:f in resumed with changed MTRRs, \
                 restored early[1654,401000+78000]"
                    .to_string()
            });
            std::iter::once(l).chain(after)
        })
        .collect();
    write_log(b.path(), &renumber(&forged));
    let (code, last, all) = check(b.path());
    assert_eq!(code, Some(1), "{all}");
    assert!(
        last.starts_with("FAIL: diagnostic if and only if the MTRRs changed"),
        "{all}"
    );
}
