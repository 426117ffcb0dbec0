//! `skeinhw explore`: design-space studies with real synthesis on Ray. The study runs in
//! Python (the `skeinhw` package's `explore` extra: Ray and the YoWASP tools), so this command
//! hands its arguments to `python3 -m skeinhw.explore`; `SKEINHW_PYTHON` names another
//! interpreter (a virtual environment's).

use std::ffi::OsString;
use std::process::Command;

use anyhow::{Result, bail};
use clap::Args;

use crate::Status;

/// The package to install when the interpreter cannot import it.
const INSTALL_HINT: &str = "pip install './crates/py[explore]'";

/// Arguments of `explore`: all of them go to `python3 -m skeinhw.explore` (`--help` there).
#[derive(Args)]
#[command(disable_help_flag = true)]
pub struct ExploreArgs {
    /// Arguments of `python3 -m skeinhw.explore` (try `--help`).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    args: Vec<OsString>,
}

/// The interpreter: `$SKEINHW_PYTHON` or `python3`.
fn python() -> OsString {
    std::env::var_os("SKEINHW_PYTHON").unwrap_or_else(|| "python3".into())
}

/// Runs the study in Python; its exit status is this command's.
pub fn run(args: ExploreArgs) -> Result<Status> {
    let python = python();
    let importable = Command::new(&python)
        .args(["-c", "import skeinhw.explore.cli"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !importable {
        bail!(
            "explore: `{} -c 'import skeinhw.explore'` failed: install the Python package with \
             its explore extra: {INSTALL_HINT} (or set SKEINHW_PYTHON to an interpreter that has it)",
            python.to_string_lossy()
        );
    }
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "skeinhw.explore"]).args(&args.args);
    exec(cmd)
}

/// Replaces this process with the interpreter (Ctrl-C reaches Python alone, which stops the
/// study cleanly), or waits for it where there is no exec.
#[cfg(unix)]
fn exec(mut cmd: Command) -> Result<Status> {
    use std::os::unix::process::CommandExt;
    let e = cmd.exec();
    bail!(
        "explore: cannot run {}: {e}",
        cmd.get_program().to_string_lossy()
    )
}

#[cfg(not(unix))]
fn exec(mut cmd: Command) -> Result<Status> {
    let status = cmd.status()?;
    Ok(status.code().map_or(2, |c| c.clamp(0, 255) as Status))
}
