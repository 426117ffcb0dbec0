//! `skeinhw tour`: the whole product on a built-in example, in one command — hash a message,
//! run it through a preset schedule cycle by cycle, check the trace against itself through the
//! diff, generate and simulate the schedule's Verilog where a simulator is installed, and
//! estimate its cost on a Virtex-5.

use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;
use skeinhw_diff::{CycleOptions, Golden, OwnedJob, SignalMap, compare_cycles};
use skeinhw_estimator::{Constants, Options, estimate};
use skeinhw_sched::sim::{Job, simulate};
use skeinhw_skein::{Params, hash};
use skeinhw_trace::{AtomicFile, VcdWriter, names};

use crate::Status;

/// The Shabal design the tour shows: Table I's best throughput.
const SHABAL_SCHEDULE: &str = "shabal-unfold-4";

/// Arguments of `tour`.
#[derive(Args)]
pub struct TourArgs {
    /// The schedule to show (a preset).
    #[arg(long, default_value = "ath-1r", value_name = "NAME")]
    pub schedule: String,
    /// The message (text).
    #[arg(long, default_value = "The quick brown fox jumps over the lazy dog")]
    pub message: String,
    /// Keep the files the tour writes in this directory (default: a temporary one).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<std::path::PathBuf>,
}

/// Runs the tour.
pub fn run(args: TourArgs) -> Result<Status> {
    let mut out = std::io::stdout().lock();
    let schedule = skeinhw_sched::Schedule::from_name_or_file(&args.schedule)?;
    let size = schedule.block_bits();
    let msg = args.message.as_bytes();
    let temp = tempfile::tempdir().context("temporary directory")?;
    let dir = match &args.keep {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("{}", d.display()))?;
            d.clone()
        }
        None => temp.path().to_path_buf(),
    };

    writeln!(out, "1. hash: Skein-{size}-{size} of {:?}", args.message)?;
    let digest = hash(
        size as usize,
        u64::from(size),
        msg,
        msg.len() as u64 * 8,
        &Params::default(),
    )?;
    writeln!(
        out,
        "   {}  (skeinhw hash --size {size} --hex {})",
        hex::encode(&digest),
        hex::encode(msg)
    )?;

    writeln!(
        out,
        "\n2. trace: schedule {} ({})",
        schedule.name(),
        schedule.source()
    )?;
    let vcd = dir.join("golden.vcd");
    let mut file = AtomicFile::create(&vcd)?;
    let report = simulate(
        &schedule,
        &[Job::bytes(msg, u64::from(size), Params::default())],
        &mut VcdWriter::new(&mut file),
    )?;
    file.commit()?;
    let sim_digest: Vec<u8> = report.digests[0].clone();
    writeln!(
        out,
        "   {} cycles, {} cycles per block, {} block(s) in flight; digest out of the datapath {}",
        report.cycles,
        schedule.cycles_per_block(),
        schedule.blocks_in_flight(),
        if sim_digest == digest {
            "equals the library's"
        } else {
            "DIFFERS from the library's"
        }
    )?;
    match &args.keep {
        Some(_) => writeln!(out, "   per-cycle trace: {}", vcd.display())?,
        None => writeln!(
            out,
            "   (per-cycle trace written and deleted again; --keep DIR keeps it)"
        )?,
    }

    writeln!(
        out,
        "\n3. diff: the golden model against the trace's VCD, cycle by cycle"
    )?;
    let golden = Golden::simulate(
        schedule.clone(),
        vec![OwnedJob {
            message: msg.to_vec(),
            msg_bits: msg.len() as u64 * 8,
            out_bits: u64::from(size),
            ..OwnedJob::default()
        }],
    )?;
    let signals = names::signals(golden.header.words, golden.header.slots);
    let map = SignalMap::identity(signals.iter().map(|s| s.name.as_str()), None);
    let mut options = CycleOptions::default();
    options.wave.strip_prefix = Some(format!("{}.", names::SCOPE));
    let golden = golden.into_frames();
    let diff = compare_cycles(&golden.signals, golden.frames, &vcd, &map, &options)?;
    writeln!(out, "   {}", diff.summary)?;

    writeln!(
        out,
        "\n4. rtl: {}",
        crate::cmd::tour_rtl(&schedule, msg, &dir)?
    )?;

    writeln!(
        out,
        "\n5. estimate on a Virtex-5 (model calibrated on the papers; skeinhw calibrate)"
    )?;
    let e = estimate(&schedule, Options::default(), &Constants::built_in(), None);
    writeln!(
        out,
        "   {} LUTs, {} FFs, {} slices, period {:.2} ns ({:.0} MHz), {:.0} Mbit/s, {:.3} Mbit/s per slice",
        e.luts, e.ffs, e.slices, e.period_ns, e.freq_mhz, e.throughput_mbps, e.mbps_per_slice
    )?;
    let shabal = skeinhw_sched::shabal::preset(SHABAL_SCHEDULE)?;
    writeln!(
        out,
        "\n6. shabal: Shabal-{} of the same message through {} ({})",
        shabal.output_bits(),
        shabal.name(),
        shabal.source()
    )?;
    let (lines, shabal_ok) = crate::cmd::tour_shabal(&shabal, msg, &dir)?;
    for line in lines {
        writeln!(out, "   {line}")?;
    }
    let e = skeinhw_estimator::shabal::estimate(
        &shabal,
        Default::default(),
        &Constants::built_in(),
        None,
    );
    let paper = skeinhw_estimator::calibrate::seed_rows()
        .into_iter()
        .find(|r| r.design == shabal.name())
        .map(|r| {
            let field = |v: Option<String>| v.unwrap_or_else(|| "?".into());
            format!(
                " (the paper: {} slices, {} MHz, {} Mbit/s)",
                field(r.slices),
                field(r.freq_mhz),
                field(r.throughput_mbps)
            )
        })
        .unwrap_or_default();
    writeln!(
        out,
        "   estimate: {} slices, period {:.2} ns ({:.0} MHz), {:.0} Mbit/s{paper}",
        e.slices, e.period_ns, e.freq_mhz, e.throughput_mbps
    )?;
    writeln!(
        out,
        "\nnext: skeinhw schedules | skeinhw trace --schedule {} --hex 616263 -o t.vcd | skeinhw sweep --out-dir sweep",
        schedule.name()
    )?;
    Ok(
        if sim_digest == digest && diff.exit_status() == 0 && shabal_ok {
            0
        } else {
            1
        },
    )
}
