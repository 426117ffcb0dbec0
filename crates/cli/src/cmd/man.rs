//! `skeinhw man DIR`: man pages for the command and every subcommand (`skeinhw.1`,
//! `skeinhw-hash.1`, ...), generated from the clap definitions that parse the command line
//! (`clap_mangen`), written through `skeinhw-outfile` as `rtl -o` writes its directory: created
//! if missing, a previous generation replaced only with `--force`, a directory holding anything
//! else refused.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, CommandFactory};
use skeinhw_outfile::OutDir;

use crate::Status;

/// Arguments of `man`.
#[derive(Args)]
pub struct ManArgs {
    /// Directory to write the pages into (e.g. target/man; install them from there).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Replace the pages of an earlier `skeinhw man DIR`.
    #[arg(long)]
    force: bool,
}

/// Writes every page into the directory and names them on standard output.
pub fn run(args: ManArgs) -> Result<Status> {
    let mut dir = OutDir::open(&args.dir, args.force)?;
    let pages = pages()?;
    let files: Vec<(&str, &[u8])> = pages
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_slice()))
        .collect();
    dir.write_files(&files)?;
    for (name, _) in &pages {
        println!("wrote {}", args.dir.join(name).display());
    }
    Ok(0)
}

/// Every page as (file name, roff text): `skeinhw.1`, then one per subcommand, nested ones
/// included (`skeinhw-<sub>.1`, `skeinhw-<sub>-<subsub>.1`), the help subcommand left out.
pub fn pages() -> Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = crate::Cli::command().disable_help_subcommand(true);
    // Built, the subcommands carry their display names (`skeinhw-hash`) and the version.
    cmd.build();
    let mut pages = Vec::new();
    add_pages(&cmd, &mut pages)?;
    Ok(pages)
}

fn add_pages(cmd: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    let mut text = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut text)?;
    pages.push((format!("{name}.1"), text));
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        add_pages(sub, pages)?;
    }
    Ok(())
}
