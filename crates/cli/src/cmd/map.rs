//! `skeinhw map`: finds the signal map of an RTL waveform by itself, by searching it for the
//! golden model's state, key, tweak and digest words (see `skeinhw_diff::discover`; for a
//! Shabal schedule A, B, C and the digest, `skeinhw_diff::discover_shabal`), and writes it as
//! a map file for `skeinhw diff --map`.
//!
//! Exit status: 0 a map was written, 2 usage or input errors (nothing found, an existing
//! output without `--force`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_diff::discover::{DiscoverOptions, Discovery, discover};
use skeinhw_diff::discover_shabal::discover_shabal;
use skeinhw_diff::options::ReadProgress;
use skeinhw_diff::{AnyGolden, Golden};
use skeinhw_sched::AnySchedule;
use skeinhw_trace::AtomicFile;

use crate::Status;
use crate::cmd::diff::{golden_of, job};
use crate::message::{MessageArgs, decode_hex};
use crate::progress::wave_meter;
use crate::schedule_args::ScheduleArgs;

/// Arguments of `map`.
#[derive(Args)]
pub struct MapArgs {
    /// The RTL simulation's waveform (VCD or FST) of the message options' messages.
    #[arg(value_name = "RTL.vcd|RTL.fst")]
    pub wave: PathBuf,
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Further messages (hex) the simulation hashed after the first, each its own stream.
    #[arg(long = "more", value_name = "HEX")]
    pub more: Vec<String>,
    /// Run one copy of the message per pipeline register, as `trace --fill` and `sim --fill`.
    #[arg(long)]
    pub fill: bool,
    /// The clock (full name); default: the 1-bit signal with the most regular rising edges.
    #[arg(long, value_name = "NAME")]
    pub clock: Option<String>,
    /// Remove this prefix from every RTL signal name first (Verilator adds `TOP.`).
    #[arg(long, value_name = "PREFIX")]
    pub strip_prefix: Option<String>,
    /// The map file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE.json")]
    pub output: PathBuf,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
}

/// Refuses to replace anything but a regular file, and that only with `--force`.
fn check_output(path: &Path, force: bool) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(m) if !m.file_type().is_file() => bail!(
            "{}: exists and is not a regular file; not replaced",
            path.display()
        ),
        Ok(_) if !force => bail!("{}: exists; give --force to replace it", path.display()),
        Ok(_) => Ok(()),
    }
}

/// Runs `skeinhw map`.
pub fn run(args: MapArgs) -> Result<Status> {
    check_output(&args.output, args.force)?;
    let progress = ReadProgress::new();
    let options = DiscoverOptions {
        clock: args.clock.clone(),
        strip_prefix: args.strip_prefix.clone(),
        progress: progress.clone(),
    };
    // The bar goes before the report prints (the search reads the file more than once).
    let meter = || wave_meter("map", &args.wave, &progress);
    let schedule = match args.schedule.build_any(args.message.size)? {
        AnySchedule::Skein(s) => s,
        shabal @ AnySchedule::Shabal(_) => {
            if args.fill {
                bail!(
                    "--fill: a Shabal schedule has one block in flight (give the messages with --more)"
                );
            }
            let golden = match golden_of(&shabal, &args.message, &args.more)? {
                AnyGolden::Shabal(g) => g,
                AnyGolden::Skein(_) => bail!("a Shabal schedule gave a Skein golden trace"),
            };
            let found = {
                let _meter = meter();
                discover_shabal(&golden.header, golden.records, &args.wave, &options)?
            };
            return write_map(&found, &args.output);
        }
    };
    let first = job(&args.message, &schedule)?;
    let mut jobs = vec![first.clone()];
    for hex in &args.more {
        let message = decode_hex("--more", hex)?;
        jobs.push(skeinhw_diff::OwnedJob {
            msg_bits: message.len() as u64 * 8,
            message,
            ..first.clone()
        });
    }
    if args.fill {
        while jobs.len() < schedule.blocks_in_flight() as usize {
            jobs.push(first.clone());
        }
    }
    let golden = Golden::simulate(schedule, jobs)?;
    let found = {
        let _meter = meter();
        discover(&golden.header, golden.records, &args.wave, &options)?
    };
    write_map(&found, &args.output)
}

/// Writes the map file and prints what was found.
fn write_map(found: &Discovery, output: &Path) -> Result<Status> {
    let mut file = AtomicFile::create(output)?;
    file.write_all(found.to_json().as_bytes())
        .with_context(|| format!("cannot write {}", output.display()))?;
    file.commit()?;
    print_report(found, output)?;
    Ok(0)
}

fn print_report(d: &Discovery, output: &Path) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "map of {} golden cycles over {} rising edges of {} (scope '{}'): {}",
        d.golden_cycles,
        d.edges,
        d.clock,
        d.scope,
        output.display()
    )?;
    for f in &d.found {
        writeln!(
            out,
            "  {:<20} {}  ({} of {} golden values)",
            f.field, f.probe, f.matched, f.expected
        )?;
    }
    if let Some((data, valid)) = &d.digest_serial {
        writeln!(out, "  digest_serial        data {data}, valid {valid}")?;
    }
    writeln!(
        out,
        "events seen: {}",
        if d.kinds.is_empty() {
            "none".to_string()
        } else {
            d.kinds.join(", ")
        }
    )?;
    match d.reset_cycles {
        Some(r) => writeln!(
            out,
            "cycle alignment fits: the state appears at golden cycle + {r} (reset_cycles {r})"
        )?,
        None => writeln!(
            out,
            "cycle alignment does not fit ({}): use --align event",
            d.misfit.as_deref().unwrap_or("another schedule or latency")
        )?,
    }
    if !d.missing.is_empty() {
        writeln!(out, "not found: {}", d.missing.join(", "))?;
    }
    for n in &d.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}
