//! What the CLI tests share: running the built `kernlog`.

use std::process::{Command, Output};

/// `kernlog ARGS...` as a user runs it (without the site override of the environment).
pub fn kernlog(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernlog"))
        .args(args)
        .env_remove("KERNLOG_SITE")
        .output()
        .expect("kernlog runs")
}
