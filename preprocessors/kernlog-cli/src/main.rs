//! `kernlog`: analyse a Linux suspend/resume log, or check a patched kernel's log.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use kernlog::render::safe_text::{json_visible, one_line, visible};
use kernlog::render::summary::render_summary;
use kernlog::{Document, Limits, Overall};

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
        #[arg(long, default_value_t = kernlog::analysis::findings::SLOW_BRINGUP_MS,
              value_parser = milliseconds)]
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
        /// Base address of the notebook for the findings' links in the HTML page (empty:
        /// no links).
        #[arg(long, env = "KERNLOG_SITE", default_value = DEFAULT_SITE)]
        site: String,
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
            // An error may quote a path or a bundle's text: shown through the same rule.
            // One line: a hostile name or value quoted in the message cannot start another.
            // A standard error that went away must not turn the error into a panic.
            let _ = writeln!(io::stderr(), "kernlog: {}", one_line(&format!("{e:#}")));
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
                let json = serde_json::to_string_pretty(&Document::with_links(&analysis, &links))?;
                emit(&mut stdout, &json_visible(&json))?;
                emit(&mut stdout, "\n")?;
            } else {
                let summary = render_summary(&analysis, &links);
                emit(&mut stdout, &summary)?;
            }
            ExitCode::SUCCESS
        }
        Command::Check {
            file,
            max_bringup_ms,
        } => {
            let list = kernlog::check(&input::evidence(&file)?, Limits { max_bringup_ms });
            emit(&mut stdout, &list.to_string())?;
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
            let sides = input::evidence_list(&[before, after])?;
            let comparison = kernlog::compare(&sides[0], &sides[1], threshold);
            emit(&mut stdout, &comparison.to_string())?;
            ExitCode::SUCCESS
        }
        Command::Report {
            inputs,
            threshold,
            html,
            site,
        } => {
            check_threshold(threshold)?;
            let evidence = input::evidence_list(&inputs)?;
            if let Some(path) = html {
                html::write(&path, &evidence, threshold, &pages::links(&site))?;
            }
            emit(&mut stdout, &kernlog::report(&evidence, threshold))?;
            ExitCode::SUCCESS
        }
        Command::Capture(args) => {
            let line = capture::command_line(std::env::args());
            let mut progress = Progress(io::stderr().lock());
            let (out, verdict) = capture::run(&args, &mut capture::RealHost, line, &mut progress)?;
            let line = format!("{}: {}\n", out.display(), verdict_text(&verdict));
            emit(&mut stdout, &line)?;
            if verdict == kernlog::evidence::bundle::Verdict::Complete {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    };
    stdout.flush().or_else(ignore_broken_pipe)?;
    Ok(code)
}

/// Writes what a command prints through the one safe-text rule (a renderer has made its
/// fields safe already; this is the last guard, so that nothing raw reaches the terminal).
/// A reader that went away (`kernlog analyze LOG | head`) is no error.
fn emit(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(visible(text).as_bytes())
        .or_else(ignore_broken_pipe)
}

/// A time limit in milliseconds: a finite number above 0, at most an hour.
fn milliseconds(text: &str) -> Result<f64, String> {
    const HOUR_MS: f64 = 3_600_000.0;
    match text.trim().parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms > 0.0 && ms <= HOUR_MS => Ok(ms),
        _ => Err(format!(
            "give a number of milliseconds above 0 and at most {HOUR_MS} (an hour), such as 500"
        )),
    }
}

fn check_threshold(threshold: f64) -> Result<()> {
    if threshold.is_finite() && threshold >= 0.0 {
        Ok(())
    } else {
        anyhow::bail!("--threshold {threshold}: give a percentage of 0 or more")
    }
}

fn verdict_text(verdict: &kernlog::evidence::bundle::Verdict) -> String {
    match verdict {
        kernlog::evidence::bundle::Verdict::Complete => "complete: every cycle resumed".to_string(),
        kernlog::evidence::bundle::Verdict::Incomplete(why) => format!("incomplete: {why}"),
    }
}

/// Progress lines for whoever watches: a reader that went away (`kernlog capture 2>&1 |
/// head`) stops nothing, least of all a capture between two suspends.
struct Progress<W: Write>(W);

impl<W: Write> Write for Progress<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

fn ignore_broken_pipe(e: io::Error) -> io::Result<()> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_goes_on_when_its_reader_went_away() {
        let (reader, writer) = io::pipe().unwrap();
        drop(reader);
        let mut progress = Progress(writer);
        assert!(writeln!(progress, "kernlog capture: cycle 1 of 3").is_ok());
        assert!(progress.flush().is_ok());
    }
}
