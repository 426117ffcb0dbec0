//! `skeinhw completions SHELL`: the shell completion script, generated from the same clap
//! definitions that parse the command line (`clap_complete`), so it never falls behind them.

use std::io::Write;

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::Status;

/// Arguments of `completions`.
#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// Writes the completion script of `shell` to standard output.
pub fn run(args: CompletionsArgs) -> Result<Status> {
    let mut out = std::io::stdout().lock();
    out.write_all(&script(args.shell))?;
    out.flush()?;
    Ok(0)
}

/// The completion script of `shell` for the whole `skeinhw` command.
pub fn script(shell: Shell) -> Vec<u8> {
    let mut cmd = crate::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "skeinhw", &mut buf);
    buf
}
