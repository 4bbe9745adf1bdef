//! `kernlog`: analyse a Linux suspend/resume log from the command line.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use kernlog::report::Report;
use kernlog::summary::render_summary;

/// Where the notebook is published; findings link into it.
const DEFAULT_SITE: &str = "https://macbook-resume-delay.pages.dev";

#[derive(Parser)]
#[command(version, about, long_about = None)]
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
        /// Base address of the notebook for the findings' links.
        #[arg(long, env = "KERNLOG_SITE", default_value = DEFAULT_SITE)]
        site: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kernlog: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Analyze { file, json, site } => {
            let analysis = if file.as_os_str() == "-" {
                kernlog::analyze(io::stdin().lock()).context("cannot read standard input")?
            } else {
                let f =
                    File::open(&file).with_context(|| format!("cannot open {}", file.display()))?;
                kernlog::analyze(BufReader::with_capacity(256 * 1024, f))
                    .with_context(|| format!("cannot read {}", file.display()))?
            };
            let mut stdout = io::stdout().lock();
            if json {
                serde_json::to_writer_pretty(&mut stdout, &Report::new(&analysis))?;
                writeln!(stdout)?;
            } else {
                stdout
                    .write_all(render_summary(&analysis, site.trim_end_matches('/')).as_bytes())?;
            }
            stdout.flush().or_else(ignore_broken_pipe)?;
            Ok(())
        }
    }
}

fn ignore_broken_pipe(e: io::Error) -> io::Result<()> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}
