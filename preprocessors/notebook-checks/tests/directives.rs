//! Every directive rendered from the notebook's real data, as snapshots (review changes
//! with `cargo insta review`), and every kind of mistake reported with file, line and hint.

use std::path::{Path, PathBuf};

use mdbook_kernlab::Engine;
use mdbook_kernlab::config::Config;
use mdbook_kernlab::resolve::book_index::BookIndex;
use notebook_checks::repo;

fn engine() -> Engine {
    Engine::load(&repo(), Config::default()).expect("the repository is a book")
}

/// Render a chapter made of `markdown` and return its HTML, or the problems joined.
fn render(markdown: &str) -> Result<String, String> {
    let engine = engine();
    let mut figures = BookIndex::default();
    figures.collect("test.html", Some("1."), markdown);
    engine
        .process(markdown, Path::new("src/test.md"), "test.html", &figures)
        .map_err(|problems| {
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })
}

fn block(body: &str) -> String {
    render(&format!("```kernlab\n{body}```\n")).unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! snapshot {
    ($name:ident, $body:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(block($body));
        }
    };
}

snapshot!(
    log_excerpt_with_gaps,
    "log: dmesg/resume-6.16.3-ubuntu-kernel.log\nfrom: Enabling non-boot CPUs\nto: /CPU7 is up/\nhighlight: /CPU\\d+ is up/\ncaption: Secondary CPUs coming up.\nid: lst-bringup\n"
);
snapshot!(
    log_folded_and_filtered,
    "log: dmesg/resume-6.16.3-ubuntu-kernel.log\nlines: 20-43\nfold: 3\ngap_ms: 1000\n"
);
snapshot!(
    log_journal_wall_clock,
    "log: journal/suspend-6.16.3-ubuntu-kernel.log\nmatch: /PM:|systemd-sleep/\ndeltas: false\n"
);
snapshot!(source_trace, "source: ftrace/cpu-up-durations-6.16.7.log\n");
snapshot!(
    bringup_chart_and_table,
    "bringup: dmesg/resume-6.16.3-ubuntu-kernel.log\ncaption: CPU bring-up on the stock kernel.\nid: fig-bringup\n"
);
snapshot!(
    timeline_of_a_resume,
    "timeline: dmesg/resume-6.16.3-ubuntu-kernel.log\n"
);
snapshot!(
    compare_runs_before_and_after,
    "compare:\n  before: dmesg/lkml-2017-chen-yu-xeon-88cpu-before-patch-run*.log\n  after: dmesg/lkml-2017-chen-yu-xeon-88cpu-after-patch-run*.log\nvalue: /cycles/0/enable_phase_ms\nunit: s\n"
);
snapshot!(
    trace_functions,
    "trace: ftrace/online-callbacks-slow-calls-6.16.7.log\ntop: 4\n"
);
snapshot!(
    trace_histogram,
    "trace: ftrace/cpuhp-invoke-callback-range-last-cpu-6.16.7.log\nshow: histogram\nfunction: cpuhp_invoke_callback\n"
);
snapshot!(
    probes_table,
    "probes: dmesg/cpu-speed-cache-disable-enable-part1-6.16.7.log\n"
);
snapshot!(mtrr_changes, "mtrr: mtrr/resume-6.16.7-debug-slow.log\n");
snapshot!(
    mtrr_diff_boot_cpu,
    "mtrr: mtrr/resume-6.16.7-debug-slow.log\nshow: diff\ncpu: 0\n"
);
snapshot!(
    mtrr_boot_table,
    "mtrr: mtrr/boot-mtrr-debug-6.16.7.log\nshow: boot\n"
);
snapshot!(mtrr_proc, "mtrr: mtrr/proc-mtrr-6.16.7.txt\nshow: proc\n");
snapshot!(deftype_values, "deftype: ['0xc00', '0xc06']\n");
snapshot!(
    deftype_from_capture,
    "deftype: mtrr/resume-6.16.7-debug-slow.log\n"
);
snapshot!(
    histogram_capture,
    "histogram: bench/unbound-wq-update-pwq-histogram-cpu5-6.16.7.txt\nunit: µs\n"
);
snapshot!(
    counts_top,
    "counts: bench/call-counts-cpu6-6.16.7.txt\ntop: 6\n"
);
snapshot!(
    counts_diff_sides,
    "counts-diff: bench/call-counts-diff-cpu4-vs-cpu5-6.16.7.txt\nsides: [CPU 4, CPU 5]\n"
);
snapshot!(
    bisect_verdicts,
    "bisect: bisect/bisect-log-6.8-to-6.8.12.txt\n"
);
snapshot!(
    version_table,
    "table: bisect/version-summary-kernel-version.yaml\ncolumns:\n  - {field: version, title: Kernel}\n  - {field: resume_time_s, title: Resume time (s)}\n"
);
snapshot!(
    version_ranges,
    "ranges: bisect/version-summary-kernel-version.yaml\nlabel: version\nfield: ranges_s\nunit: seconds from lid open to the unlock prompt (reported)\n"
);

#[test]
fn inline_forms() {
    let md = "Bring-up took {{kl:value dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms unit=s digits=1}}, \
the write-up says {{kl:compare dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=16.5 unit=s}}, \
the mainline kernel {{kl:claim dmesg/resume-cpu-bringup-6.16.7.log#/cycles/0/enable_phase_ms stated=13.5 unit=s}}, \
the owner felt {{kl:reported 20 s}}; see {{kl:sym cache_bp_restore}}, {{kl:sym cache_bp_restore@v7.3.4}}, \
{{kl:thread chen-yu-2017 text=\"Chen Yu's patch\"}} and {{kl:ref fig-x}}. \
Mean before: {{kl:value mean(dmesg/lkml-2017-chen-yu-xeon-88cpu-before-patch-run*.log#/cycles/0/enable_phase_ms) unit=s digits=3}}.\n\n\
```kernlab\nbringup: dmesg/resume-6.16.7-debug-slow.log\ncaption: x\nid: fig-x\n```\n";
    let md = md.replace("resume-6.16.7-debug-slow", "resume-cpu-bringup-6.16.7");
    insta::assert_snapshot!(render(&md).unwrap());
}

#[test]
fn code_fences_are_highlighted_at_build_time() {
    let html = render("```c\nint x = 1; /* <b> */\n\nreturn;\n```\n").unwrap();
    assert!(
        html.starts_with("<pre class=\"kl-src\"><code class=\"nohighlight kl-lang-c\">"),
        "{html}"
    );
    assert!(html.contains("&lt;b&gt;"), "{html}");
    assert!(
        html.contains("<span class=\"kl-blank\"></span>"),
        "blank line kept: {html}"
    );
    assert!(
        !html.trim_end().lines().any(|l| l.trim().is_empty()),
        "no blank line: {html}"
    );
    // Languages we do not highlight stay for mdBook.
    assert_eq!(
        render("```rust\nfn main() {}\n```\n").unwrap(),
        "```rust\nfn main() {}\n```\n"
    );
}

#[test]
fn log_text_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("evil.log"),
        "[    1.000000] <script>alert(1)</script> & \"quotes\"\n[    2.000000] </div><div>\n",
    )
    .unwrap();
    let engine = Engine::load(dir.path(), Config::default()).unwrap();
    let html = engine
        .process(
            "```kernlab\nlog: evil.log\nhighlight: script\n```\n",
            Path::new("src/x.md"),
            "x.html",
            &BookIndex::default(),
        )
        .unwrap();
    assert!(!html.contains("<script>"), "{html}");
    assert!(
        html.contains("&lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt;"),
        "{html}"
    );
    assert!(html.contains("&lt;/div&gt;&lt;div&gt;"), "{html}");
}

#[test]
fn register_values_up_to_64_bits_decode() {
    let html = block("deftype: [0xffffffffffffffff, '0xc06']\n");
    assert!(
        html.contains("0xffffffffffffffff") && html.contains("0xc06"),
        "{html}"
    );
}

/// The expected cells are worked out by hand from the logs' stamps: in part 3, CPU 3 starts
/// at 146.169410 and is done at 146.172572 (3.162 ms), CPU 7 starts at 146.169811 (2.761 ms).
#[test]
fn probe_map_puts_each_log_in_its_rows_and_each_cpu_in_its_column() {
    let html = block(
        "probe-map:\n  \"end of pm_suspend()\": dmesg/cpu-speed-pm-suspend-done-6.16.7.log\n  \"part 3\": dmesg/cpu-speed-cache-disable-enable-part3-6.16.7.log\ncaption: Probes.\nid: fig-probes\n",
    );
    let texts: Vec<&str> = html
        .split("</text>")
        .filter_map(|t| t.rsplit('>').next())
        .collect();
    let columns: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| t.starts_with("CPU"))
        .collect();
    assert_eq!(
        columns,
        [
            "CPU0", "CPU1", "CPU2", "CPU3", "CPU4", "CPU5", "CPU6", "CPU7"
        ]
    );
    let part3 = texts
        .iter()
        .position(|t| *t == "part 3")
        .expect("group heading");
    assert!(texts.iter().position(|t| *t == "end of pm_suspend()") < Some(part3));
    // Rows in reading order, each label followed by its cells: CPUs 3 and 7 only.
    assert_eq!(
        &texts[part3 + 1..part3 + 7],
        [
            "cache_cpu_init - after MTRR",
            "3.16",
            "2.76",
            "cache_cpu_init - after PAT",
            "2.75",
            "2.75"
        ]
    );
    // 8 cells for pm_suspend, 4 for part 3, one legend decade (1-10 ms).
    assert_eq!(html.matches("<rect").count(), 13, "{html}");
    assert!(
        html.contains("1–10 ms") && html.contains("kl-heat-5"),
        "{html}"
    );
    assert!(html.contains("id=\"fig-probes-title\""), "{html}");
}

/// Each mistake: the chapter, line, message and hint.
#[test]
fn mistakes_fail_with_file_line_and_hint() {
    let cases: &[(&str, &str)] = &[
        (
            "Intro.\n\n```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\ngap-ms: 5\n```\n",
            "src/test.md:5: invalid block: unknown field `gap-ms`, expected one of",
        ),
        (
            "```kernlab\nlog: dmesg/nope.log\n```\n",
            "src/test.md:2: cannot open `dmesg/nope.log`",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nfrom: Never printed\n```\n",
            "src/test.md:2: `from: Never printed` is not in dmesg/resume-6.16.3-ubuntu-kernel.log",
        ),
        (
            "```kernlab\nlog: ../Cargo.toml\n```\n",
            "src/test.md:2: `../Cargo.toml` is not a path inside the data directory",
        ),
        (
            "```kernlab\nprobe-map: {}\n```\n",
            "src/test.md:2: `probe-map` names no logs",
        ),
        (
            "```kernlab\nprobe-map:\n  run: dmesg/resume-6.16.3-ubuntu-kernel.log\n```\n",
            "src/test.md:2: `dmesg/resume-6.16.3-ubuntu-kernel.log` has no delay-loop probes",
        ),
        (
            "```kernlab\nprobe-map:\n  run: [a, b]\n```\n",
            "src/test.md:2: every entry of `probe-map` is `label: file`",
        ),
        (
            "```kernlab\nchart: a.log\n```\n",
            "src/test.md:2: the block names no directive",
        ),
        (
            "```kernlab\nlog: a.log\n  from: [\n```\n",
            "src/test.md:3: invalid block:",
        ),
        (
            "One\ntwo {{kl:claim dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=16.5 unit=s}}\n",
            "src/test.md:2: the prose says 16.5\u{a0}s, the data says 16.567",
        ),
        (
            "{{kl:sym pat_bt_init}}\n",
            "src/test.md:1: unknown kernel symbol `pat_bt_init`",
        ),
        (
            "{{kl:thread lkml-9999}}\n",
            "src/test.md:1: unknown thread `lkml-9999`",
        ),
        (
            "{{kl:ref nowhere}}\n",
            "src/test.md:1: no captioned block has the id `nowhere`",
        ),
        ("{{kl:value x.log#/a unit=h}}\n", "src/test.md:1:"),
        (
            "{{kl:valeu 1}}\n",
            "src/test.md:1: unknown inline directive `valeu`",
        ),
        (
            "{{kl:value dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/suspend_span_ms}}\n",
            "src/test.md:1: `dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/suspend_span_ms` is null",
        ),
        (
            "```kernlab\nbringup: dmesg/resume-6.16.3-ubuntu-kernel.log\ncycle: 3\n```\n",
            "src/test.md:2: `dmesg/resume-6.16.3-ubuntu-kernel.log` has 1 suspend/resume cycle(s); there is no cycle 3",
        ),
        // What only looks like a directive is an error, never text left in the page.
        (
            "Took {{kl:value dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms unit=s\n",
            "src/test.md:1: `{{kl:value dmesg/resume-6.16.3-ubuntu-ke...`: the inline directive is not closed",
        ),
        (
            "A\nTook {{ kl:value 1 }}.\n",
            "src/test.md:2: `{{ kl:value 1 }}.`: no space may stand",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\ncaption: Took {{kl:value x}}.\n```\n",
            "src/test.md:2: the caption `Took {{kl:value x}}.` holds a `{{`",
        ),
        (
            "{{kl:text patches/patchset.yaml#/patches/0}}\n",
            "src/test.md:1: `patches/patchset.yaml#/patches/0` is a structure, not text",
        ),
        (
            "```kernlab\ndeftype: [0xc06, -1]\n```\n",
            "src/test.md:2: `-1` is not a 64-bit register value",
        ),
        // Ids that would clash on the page.
        (
            "# Intro {#lst-x}\n\n```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nid: lst-x\ncaption: A.\n```\n",
            "src/test.md:4: the id `lst-x` is also a heading's id on this page",
        ),
        (
            "```kernlab\nbringup: dmesg/resume-6.16.3-ubuntu-kernel.log\n```\n\n```kernlab\nbringup: dmesg/resume-6.16.3-ubuntu-kernel.log\n```\n",
            "src/test.md:6: `bringup: \"dmesg/resume-6.16.3-ubuntu-kernel.log\"` is shown twice on this page without an `id:`",
        ),
        // Options that parse but make no sense.
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\ngap_ms: -1\n```\n",
            "src/test.md:2: `gap_ms: -1` is not a positive number",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\ngap_ms: .nan\n```\n",
            "src/test.md:2: `gap_ms: NaN` is not a positive number",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nfold: 0\n```\n",
            "src/test.md:2: `fold: 0` would fold every line",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nmatch: ''\n```\n",
            "src/test.md:2: an empty `match` or `highlight` pattern",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nhighlight: []\n```\n",
            "src/test.md:2: an empty `match` or `highlight` pattern",
        ),
        (
            "```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nmax_lines: 10\n```\n",
            "src/test.md:2: this block would show 43 lines of `dmesg/resume-6.16.3-ubuntu-kernel.log` (43 in the file), more than the limit of 10",
        ),
        // Numbers that once panicked or let a false claim pass.
        (
            "{{kl:value dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms unit=s digits=65536}}\n",
            "src/test.md:1: `digits=65536` is not a number of decimals",
        ),
        (
            "{{kl:value dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms unit=s digits=-1}}\n",
            "src/test.md:1: `digits=-1` is not a number of decimals",
        ),
        (
            "{{kl:compare dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=16.5 unit=s digits=70000}}\n",
            "src/test.md:1: `digits=70000` is not a number of decimals",
        ),
        (
            &format!(
                "{{{{kl:claim dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=16.{} unit=s}}}}\n",
                "5".repeat(70_000)
            ),
            "src/test.md:1: `stated=16.55555",
        ),
        (
            "{{kl:claim dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=NaN unit=s}}\n",
            "src/test.md:1: `stated=NaN` is not a finite number",
        ),
        (
            "{{kl:claim dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=1 unit=s tol=NaN}}\n",
            "src/test.md:1: `tol=NaN` is not a finite number",
        ),
        (
            "{{kl:claim dmesg/resume-6.16.3-ubuntu-kernel.log#/cycles/0/enable_phase_ms stated=16.6 unit=s tol=-1}}\n",
            "src/test.md:1: `tol=-1` is negative",
        ),
        (
            "```kernlab\ncompare: {a: dmesg/resume-6.16.3-ubuntu-kernel.log}\nvalue: /cycles/0/enable_phase_ms\ndigits: 70000\n```\n",
            "src/test.md:2: `digits=70000` is not a number of decimals",
        ),
    ];
    let mut wrong = Vec::new();
    for (markdown, expected) in cases {
        match render(markdown) {
            Ok(html) => wrong.push(format!("for\n{markdown}\nno error, rendered\n{html}")),
            Err(err) if !err.starts_with(expected) || !err.contains("\n    hint: ") => {
                wrong.push(format!("for\n{markdown}\ngot\n{err}\nexpected\n{expected}"))
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn rendering_twice_gives_the_same_bytes() {
    let md = "```kernlab\nbringup: dmesg/resume-6.16.3-ubuntu-kernel.log\n```\n\n```kernlab\nmtrr: mtrr/resume-6.16.7-debug-slow.log\n```\n";
    assert_eq!(render(md).unwrap(), render(md).unwrap());
}

/// The whole book's directives render in parallel; each chapter still gets its own
/// rendering, figure numbers and problems, in the order of its text.
#[test]
fn a_book_renders_in_parallel_with_results_and_problems_in_order() {
    let engine = engine();
    let good = "# A\n\n```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nlines: 1-2\ncaption: First.\n```\n\n```kernlab\nlog: dmesg/resume-6.16.3-ubuntu-kernel.log\nlines: 3-4\ncaption: Second.\n```\n";
    let bad = "# B\n\n{{kl:sym no_such_symbol}}\n\n```kernlab\nlog: dmesg/nope.log\n```\n\n{{kl:thread no-such-thread}}\n";
    let chapters: Vec<(&str, PathBuf, &str)> = (0..6)
        .map(|i| {
            let html = ["a.html", "b.html", "c.html", "d.html", "e.html", "f.html"][i];
            let markdown = if i % 2 == 0 { good } else { bad };
            (markdown, PathBuf::from(format!("src/{i}.md")), html)
        })
        .collect();
    let mut figures = BookIndex::default();
    for (i, (markdown, _, html)) in chapters.iter().enumerate() {
        figures.collect(html, Some(&format!("{}.", i + 1)), markdown);
    }
    let inputs: Vec<mdbook_kernlab::Chapter> = chapters
        .iter()
        .map(|(markdown, source, html)| mdbook_kernlab::Chapter {
            markdown,
            source,
            html,
        })
        .collect();
    let results = engine.process_book(&inputs, &figures);
    assert_eq!(results.len(), 6);
    for (i, result) in results.iter().enumerate() {
        if i % 2 == 0 {
            let html = result.as_ref().unwrap();
            let first = html.find(&format!("Listing {}.1", i + 1)).unwrap();
            let second = html.find(&format!("Listing {}.2", i + 1)).unwrap();
            assert!(first < second, "{html}");
        } else {
            let problems: Vec<String> = result
                .as_ref()
                .unwrap_err()
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(problems.len(), 3, "{problems:#?}");
            assert!(
                problems[0].starts_with(&format!("src/{i}.md:3: ")),
                "{problems:#?}"
            );
            assert!(
                problems[1].starts_with(&format!("src/{i}.md:6: cannot open")),
                "{problems:#?}"
            );
            assert!(
                problems[2].starts_with(&format!("src/{i}.md:9: ")),
                "{problems:#?}"
            );
        }
    }
}
