//! The command line of `hash`.

use super::*;

/// Arguments of `hash`.
#[derive(Args, Debug)]
pub struct HashArgs {
    /// Files to hash (with --check: the lists to verify); none or `-` reads standard input.
    /// Any name the system allows.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Hash function: skein (sizes by --size/--out-bits) or shabal-192, shabal-224, shabal-256,
    /// shabal-384, shabal-512.
    #[arg(long, default_value = "skein", value_parser = parse_alg)]
    pub alg: Alg,
    /// Read digests from the FILEs (none or `-`: standard input), GNU or --tag lines, and
    /// verify them, as `b2sum -c` does. Exit 1 if any digest differs or any listed file
    /// cannot be read.
    #[arg(short = 'c', long, conflicts_with = "hex", overrides_with = "check")]
    pub check: bool,
    /// --check: print nothing for files that verify.
    #[arg(long, overrides_with_all = ["quiet", "status", "warn"])]
    pub quiet: bool,
    /// --check: print nothing; the exit status tells.
    #[arg(long, overrides_with_all = ["quiet", "status", "warn"])]
    pub status: bool,
    /// --check: exit 1 if any line of the list is improperly formatted.
    #[arg(long, overrides_with = "strict")]
    pub strict: bool,
    /// --check: warn about each improperly formatted line.
    #[arg(short = 'w', long, overrides_with_all = ["quiet", "status", "warn"])]
    pub warn: bool,
    /// --check: a listed file that does not exist is neither reported nor a failure.
    #[arg(long, overrides_with = "ignore_missing")]
    pub ignore_missing: bool,
    /// BSD-style lines: `SKEIN-512-512 (FILE) = <hex>` (SKEIN-<size>-<out bits>,
    /// SHABAL-<out bits>); --check reads them back.
    #[arg(long, conflicts_with_all = ["check", "json", "raw"])]
    pub tag: bool,
    /// End each output line with NUL instead of newline, and never escape names (as b2sum -z).
    #[arg(short = 'z', long, conflicts_with_all = ["check", "json", "raw"])]
    pub zero: bool,
    /// Write the digest of one input as raw bytes (no hex, no name): with --out-bits, a Skein
    /// output stream of any length (`skeinhw hash --out-bits 8000000000000 --raw > FILE`).
    #[arg(long, conflicts_with_all = ["check", "json"])]
    pub raw: bool,
    /// Print one JSON object per input (with --check: per listed file) instead of text lines.
    #[arg(long)]
    pub json: bool,
    /// Threads for batches of files and for --tree (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Read files with read(2) instead of mapping them into memory. --tree maps regular
    /// files: faster (no copy out of the page cache), but a file that another program
    /// shrinks meanwhile ends the run with an error (exit 1), where reading would hash it as
    /// far as it got.
    #[arg(long)]
    pub no_mmap: bool,
}

/// The hash function of `--alg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// Skein with the state size of `--size`.
    Skein,
    /// Shabal with this many output bits.
    Shabal(u64),
}

fn parse_alg(s: &str) -> Result<Alg, String> {
    match s {
        "skein" => Ok(Alg::Skein),
        "shabal-192" => Ok(Alg::Shabal(192)),
        "shabal-224" => Ok(Alg::Shabal(224)),
        "shabal-256" => Ok(Alg::Shabal(256)),
        "shabal-384" => Ok(Alg::Shabal(384)),
        "shabal-512" => Ok(Alg::Shabal(512)),
        _ => Err(format!(
            "'{s}' is not a hash function; allowed: skein, shabal-192, shabal-224, shabal-256, \
             shabal-384, shabal-512"
        )),
    }
}
