//! `kernlog`: analyse a Linux suspend/resume log, or check a patched kernel's log.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use kernlog::checklist::{Limits, Overall, check_evidence, render_checklist};
use kernlog::compare::{compare, render_comparison};
use kernlog::reply::render_reply;
use kernlog::report::Report;
use kernlog::summary::render_summary;

mod capture;
mod html;
mod input;
mod pages;

/// Where the notebook is published; findings link into it.
const DEFAULT_SITE: &str = "https://macbook-pro-resume-delay.pages.dev";

/// `--version`: the crate's version, the commit it was built from and the compiler
/// (both found by `build.rs`).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("KERNLOG_COMMIT"),
    ", ",
    env!("KERNLOG_RUSTC"),
    ")"
);

#[derive(Parser)]
#[command(name = "kernlog", version = VERSION, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise suspend/resume cycles, CPU bring-up, MTRR state and findings.
    Analyze {
        /// The log: dmesg, journalctl -k, kern.log, /dev/kmsg, trace-cmd report; `-` for stdin.
        file: PathBuf,
        /// Print one JSON document instead of the summary (schema: kernlog's README).
        #[arg(long)]
        json: bool,
        /// Base address of the notebook for the findings' links (empty: no links).
        #[arg(long, env = "KERNLOG_SITE", default_value = DEFAULT_SITE)]
        site: String,
    },
    /// Check a log taken with the patched kernel: PASS/FAIL/SKIP per item, and a verdict;
    /// exit status 0 for PASS, 1 for FAIL, 3 for UNKNOWN (the log did not show enough).
    Check {
        /// The log of one or more suspend/resume cycles (`-` for stdin), or a bundle folder
        /// written by `kernlog capture`.
        file: PathBuf,
        /// Longest acceptable bring-up of one secondary CPU, in milliseconds.
        #[arg(long, default_value_t = kernlog::findings::SLOW_BRINGUP_MS)]
        max_bringup_ms: f64,
    },
    /// Compare two sides, before and after a patch: bring-up phase, slowest CPU, suspend
    /// span (median, min, max over the cycles), the MTRR findings, the ratio and a verdict.
    Compare {
        /// The unpatched side: a bundle folder of `kernlog capture`, or a log.
        before: PathBuf,
        /// The patched side: a bundle folder, or a log.
        after: PathBuf,
        /// A change of the median by more than this many per cent counts.
        #[arg(long, default_value_t = 10.0)]
        threshold: f64,
    },
    /// A report for a reply on the kernel list (plain text, 72 columns, a Tested-by: line
    /// to fill in); with two or more inputs the first is the baseline without the patch.
    Report {
        /// Bundle folders of `kernlog capture` (or logs): the baseline first.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// A change of the median by more than this many per cent counts.
        #[arg(long, default_value_t = 10.0)]
        threshold: f64,
        /// Also write one self-contained HTML page (no JavaScript) of the inputs.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// Suspend and resume this machine N times (as root) and write a capture bundle: the
    /// kernel's log, every CPU's MTRRs after boot and after each resume, what was done.
    /// The exit status is 0 when every cycle resumed, 1 when not.
    Capture(capture::CaptureArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kernlog: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Analyse a file, or standard input for `-`.
fn analyze_path(file: &Path) -> Result<kernlog::Analysis> {
    let reader = input::open(file)?;
    kernlog::analyze(reader).with_context(|| format!("cannot read {}", file.display()))
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut stdout = io::stdout().lock();
    let code = match cli.command {
        Command::Analyze { file, json, site } => {
            let analysis = analyze_path(&file)?;
            let links = pages::links(&site);
            if json {
                serde_json::to_writer_pretty(&mut stdout, &Report::with_links(&analysis, &links))?;
                writeln!(stdout)?;
            } else {
                let summary = render_summary(&analysis, &links);
                stdout.write_all(summary.as_bytes())?;
            }
            ExitCode::SUCCESS
        }
        Command::Check {
            file,
            max_bringup_ms,
        } => {
            let list = check_evidence(&input::evidence(&file)?, Limits { max_bringup_ms });
            stdout.write_all(render_checklist(&list).as_bytes())?;
            match list.overall {
                Overall::Pass => ExitCode::SUCCESS,
                Overall::Fail => ExitCode::from(1),
                Overall::Unknown => ExitCode::from(3),
            }
        }
        Command::Compare {
            before,
            after,
            threshold,
        } => {
            check_threshold(threshold)?;
            let (before, after) = (input::evidence(&before)?, input::evidence(&after)?);
            let comparison = compare(&before, &after, threshold);
            stdout.write_all(render_comparison(&comparison).as_bytes())?;
            ExitCode::SUCCESS
        }
        Command::Report {
            inputs,
            threshold,
            html,
        } => {
            check_threshold(threshold)?;
            let evidence = inputs
                .iter()
                .map(|p| input::evidence(p))
                .collect::<Result<Vec<_>>>()?;
            if let Some(path) = html {
                html::write(&path, &evidence, threshold)?;
            }
            stdout.write_all(render_reply(&evidence, threshold).as_bytes())?;
            ExitCode::SUCCESS
        }
        Command::Capture(args) => {
            let line = capture::command_line(std::env::args());
            let mut stderr = io::stderr().lock();
            let (out, verdict) = capture::run(&args, &mut capture::RealHost, line, &mut stderr)?;
            writeln!(stdout, "{}: {}", out.display(), verdict_text(&verdict))?;
            if verdict == kernlog::bundle::Verdict::Complete {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    };
    stdout.flush().or_else(ignore_broken_pipe)?;
    Ok(code)
}

fn check_threshold(threshold: f64) -> Result<()> {
    if threshold.is_finite() && threshold >= 0.0 {
        Ok(())
    } else {
        anyhow::bail!("--threshold {threshold}: give a percentage of 0 or more")
    }
}

fn verdict_text(verdict: &kernlog::bundle::Verdict) -> String {
    match verdict {
        kernlog::bundle::Verdict::Complete => "complete: every cycle resumed".to_string(),
        kernlog::bundle::Verdict::Incomplete(why) => format!("incomplete: {why}"),
    }
}

fn ignore_broken_pipe(e: io::Error) -> io::Result<()> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}
