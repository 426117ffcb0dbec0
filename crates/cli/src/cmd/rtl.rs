//! `skeinhw rtl` writes the generated Verilog of a schedule, Skein or Shabal (design, test
//! bench, signal map); `skeinhw sim` builds and runs it in Icarus Verilog or Verilator, prints
//! the digest as `hash` does, and compares the simulation's VCD with the golden trace cycle for
//! cycle (exit 1 and a report on divergence).

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_diff::DiffReport;
use skeinhw_outfile::OutFile;
use skeinhw_rtl::{AnyDesign, Message, RunOutput, Simulator};
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{ShabalJob, ShabalMemorySink};
use skeinhw_sched::sim::{Job, MemorySink, simulate};
use skeinhw_sched::{AnySchedule, Schedule};

use crate::Status;
use crate::message::MessageArgs;
use crate::schedule_args::ScheduleArgs;

/// Arguments of `rtl`.
#[derive(Args)]
pub struct RtlArgs {
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    /// State size in bits (256, 512, 1024), overriding the schedule's (a Shabal schedule's
    /// output_bits: use `--set output_bits=N`).
    #[arg(long, value_name = "N")]
    pub size: Option<usize>,
    /// Output directory: created (its parent must exist), or an existing one that holds only
    /// the files skeinhw wrote there (listed in its .skeinhw-manifest) with --force.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Replace the files a previous `rtl` wrote in DIR (a directory holding anything else is
    /// refused, and nothing in it is touched).
    #[arg(long)]
    pub force: bool,
    /// A lean core: without the registers and counters only the trace reads (phase, busy_*,
    /// slot<i>_block, slot<i>_round, slot<i>_subkey); its signal_map.json omits them.
    #[arg(long)]
    pub lean: bool,
}

/// Arguments of `sim`.
#[derive(Args)]
pub struct SimArgs {
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    /// The simulator.
    #[arg(long, value_name = "icarus|verilator", default_value = "icarus")]
    pub simulator: String,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Simulate the design in DIR (as written by `skeinhw rtl`, possibly edited) instead of a
    /// freshly generated one.
    #[arg(long, value_name = "DIR")]
    pub rtl_dir: Option<PathBuf>,
    /// Keep the simulation's VCD at this path (an existing file only with --force; a symlink
    /// is written through, a FIFO or device written in place).
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
    /// Replace an existing --vcd file.
    #[arg(long, requires = "vcd")]
    pub force: bool,
    /// Simulate the lean core (`rtl --lean`); the trace fields it lacks are not compared, and
    /// named on standard error.
    #[arg(long)]
    pub lean: bool,
}

/// `skeinhw rtl`.
pub fn run_rtl(args: RtlArgs) -> Result<Status> {
    let schedule = args.schedule.build_any(args.size)?;
    let design = match (&schedule, args.lean) {
        (AnySchedule::Skein(s), true) => AnyDesign::Skein(skeinhw_rtl::generate_with(
            s,
            skeinhw_rtl::Options { lean: true },
        )?),
        (AnySchedule::Shabal(s), true) => bail!(
            "{}: --lean takes Skein schedules only (a Shabal core has no trace-only registers)",
            s.name()
        ),
        (_, false) => skeinhw_rtl::generate_any(&schedule)?,
    };
    skeinhw_rtl::write_dir(&args.output, &design.files(), args.force)?;
    println!(
        "{}: {}, {}, {} in {}",
        schedule.name(),
        skeinhw_rtl::DESIGN_FILE,
        skeinhw_rtl::TESTBENCH_FILE,
        skeinhw_rtl::MAP_FILE,
        args.output.display()
    );
    Ok(0)
}

/// `skeinhw sim`.
pub fn run_sim(args: SimArgs) -> Result<Status> {
    match args.schedule.build_any(args.message.size)? {
        AnySchedule::Skein(s) => sim_skein(&args, &s),
        AnySchedule::Shabal(s) if args.lean => bail!(
            "{}: --lean takes Skein schedules only (a Shabal core has no trace-only registers)",
            s.name()
        ),
        AnySchedule::Shabal(s) => sim_shabal(&args, &s),
    }
}

/// A simulation's files: the work directory (removed when dropped) and the VCD's path.
struct Simulated {
    _work: tempfile::TempDir,
    vcd: PathBuf,
    output: RunOutput,
    simulator: Simulator,
}

/// Builds the design (`--rtl-dir`, or `design` written into a temporary directory), runs the
/// test bench on `stimulus` and reads its output.
fn simulate_design(args: &SimArgs, design: AnyDesign, stimulus: &str) -> Result<Simulated> {
    let simulator: Simulator = args.simulator.parse()?;
    // Checked before the simulation: standard output carries the digest, not the VCD.
    let keep = args
        .vcd
        .as_ref()
        .map(|p| OutFile::create(p, skeinhw_outfile::Options::new().force(args.force)))
        .transpose()?;
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    let src = match &args.rtl_dir {
        Some(dir) => dir.clone(),
        None => {
            let dir = work.path().join("rtl");
            std::fs::create_dir(&dir)?;
            design.write_into(&dir)?;
            dir
        }
    };
    let built = skeinhw_rtl::build(simulator, &src, &work.path().join("build"), None)?;
    let input = work.path().join("input.txt");
    std::fs::write(&input, stimulus)?;
    let vcd = work.path().join("dump.vcd");
    let output = skeinhw_rtl::run(&built, &input, &vcd)?;
    if let Some(mut out) = keep {
        let mut dump = std::fs::File::open(&vcd)
            .with_context(|| format!("the simulation wrote no VCD ({})", vcd.display()))?;
        std::io::copy(&mut dump, &mut out)
            .with_context(|| format!("{}: cannot write", out.path().display()))?;
        out.commit()?;
    }
    Ok(Simulated {
        _work: work,
        vcd,
        output,
        simulator,
    })
}

/// Prints the digest as `hash` does.
fn print_digest(digest: &[u8], data: &[u8], bits: u64) -> Result<()> {
    let name = if bits == data.len() as u64 * 8 {
        format!("hex:{}", hex::encode(data))
    } else {
        format!("hex:{}/{bits}", hex::encode(data))
    };
    writeln!(std::io::stdout().lock(), "{}  {name}", hex::encode(digest))?;
    Ok(())
}

/// The verdict of the cycle comparison: a note on standard error, or the report and its exit
/// status.
fn verdict(
    name: &str,
    sim: &Simulated,
    cycles: usize,
    report: Option<DiffReport>,
) -> Result<Status> {
    match report {
        None => {
            eprintln!(
                "skeinhw: {name} ({}): {cycles} cycles identical to the golden trace",
                sim.simulator.as_str(),
            );
            Ok(0)
        }
        Some(report) => {
            writeln!(std::io::stdout().lock(), "{report}")?;
            Ok(report.exit_status())
        }
    }
}

fn sim_skein(args: &SimArgs, schedule: &Schedule) -> Result<Status> {
    let m = &args.message;
    let state_bits = u64::from(schedule.size().bits());
    if let Some(o) = m.out_bits.filter(|&o| o != state_bits) {
        bail!(
            "--out-bits {o}: output lengths other than the state size ({state_bits}) not supported by the generator yet"
        );
    }
    for (opt, given) in [
        ("--personalization", m.personalization.is_some()),
        ("--public-key", m.public_key.is_some()),
        ("--key-id", m.key_id.is_some()),
        ("--nonce", m.nonce.is_some()),
        ("--tree", m.tree.is_some()),
    ] {
        if given {
            bail!("option {opt} not supported by the generator yet");
        }
    }
    let params = m.params()?;
    let (data, bits) = m.hex_message()?.unwrap_or((Vec::new(), 0));
    let message = Message {
        data: &data,
        bits,
        key: &params.key,
    };
    let stimulus = skeinhw_rtl::stimulus(schedule, &[message])?;
    let options = skeinhw_rtl::Options { lean: args.lean };
    let design = AnyDesign::Skein(skeinhw_rtl::generate_with(schedule, options)?);
    let sim = simulate_design(args, design, &stimulus)?;
    let digest = sim
        .output
        .digest_bytes(0)
        .context("the simulation printed no digest")?;
    print_digest(&digest, &data, bits)?;

    let job = Job {
        message: &data,
        msg_bits: bits,
        out_bits: state_bits,
        params: params.params(),
    };
    let mut sink = MemorySink::new();
    simulate(schedule, &[job], &mut sink)?;
    let header = sink
        .header
        .as_ref()
        .context("the golden run wrote no header")?;
    let omitted = if args.lean {
        skeinhw_rtl::lean_omitted(header.slots)
    } else {
        Vec::new()
    };
    if !omitted.is_empty() {
        eprintln!(
            "skeinhw: {}: lean core: trace fields not compared (the core does not have them): {}",
            schedule.name(),
            omitted.join(", ")
        );
    }
    let report = skeinhw_rtl::compare_vcd_except(
        header,
        &sink.records,
        &sim.vcd,
        skeinhw_rtl::SCOPE,
        sim.simulator.vcd_prefix(),
        &omitted,
    )?;
    verdict(schedule.name(), &sim, sink.records.len(), report)
}

fn sim_shabal(args: &SimArgs, schedule: &ShabalSchedule) -> Result<Status> {
    let (data, bits) = args.message.shabal_message(schedule.output_bits())?;
    let message = Message {
        data: &data,
        bits,
        key: &[],
    };
    let stimulus = skeinhw_rtl::shabal::stimulus(&[message])?;
    let design = AnyDesign::Shabal(skeinhw_rtl::shabal::generate(schedule));
    let sim = simulate_design(args, design, &stimulus)?;
    let digest = skeinhw_rtl::shabal::digest_bytes(&sim.output, 0)
        .context("the simulation printed no digest")?;
    print_digest(&digest, &data, bits)?;

    let job = ShabalJob {
        message: &data,
        msg_bits: bits,
    };
    let mut sink = ShabalMemorySink::default();
    skeinhw_sched::shabal::sim::simulate(schedule, &[job], &mut sink)?;
    let header = sink
        .header
        .as_ref()
        .context("the golden run wrote no header")?;
    let report = skeinhw_rtl::shabal::compare_vcd(
        header,
        &sink.records,
        &sim.vcd,
        skeinhw_rtl::SCOPE,
        sim.simulator.vcd_prefix(),
    )?;
    verdict(schedule.name(), &sim, sink.records.len(), report)
}
