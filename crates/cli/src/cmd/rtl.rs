//! `skeinhw rtl` writes the generated Verilog of a schedule, Skein or Shabal (design, test
//! bench, signal map); `skeinhw sim` builds and runs it in Icarus Verilog or Verilator, prints
//! the digest as `hash` does, and compares the simulation's VCD with the golden trace cycle for
//! cycle (exit 1 and a report on divergence).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_diff::DiffReport;
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
    /// Output directory (created; refused if it exists and is not empty, unless --force).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Replace an existing non-empty output directory.
    #[arg(long)]
    pub force: bool,
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
    /// Keep the simulation's VCD at this path.
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
}

/// Writes the design files into `dir` atomically: a sibling temporary directory renamed into
/// place, so that `dir` is never half written.
fn write_design(design: &AnyDesign, dir: &Path, force: bool) -> Result<()> {
    let non_empty = dir
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if dir.exists() && !dir.is_dir() {
        bail!("{}: exists and is not a directory", dir.display());
    }
    if non_empty && !force {
        bail!(
            "{}: directory exists and is not empty; give --force to replace it",
            dir.display()
        );
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".skeinhw-rtl-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    design.write_into(tmp.path())?;
    if dir.exists() {
        let old = tempfile::Builder::new()
            .prefix(".skeinhw-rtl-old-")
            .tempdir_in(&parent)?;
        let old_path = old.path().join("old");
        std::fs::rename(dir, &old_path)
            .with_context(|| format!("cannot replace {}", dir.display()))?;
        std::fs::rename(tmp.keep(), dir)
            .with_context(|| format!("cannot write {}", dir.display()))?;
        drop(old); // removes the previous contents
    } else {
        std::fs::rename(tmp.keep(), dir)
            .with_context(|| format!("cannot write {}", dir.display()))?;
    }
    Ok(())
}

/// `skeinhw rtl`.
pub fn run_rtl(args: RtlArgs) -> Result<Status> {
    let schedule = args.schedule.build_any(args.size)?;
    let design = skeinhw_rtl::generate_any(&schedule)?;
    write_design(&design, &args.output, args.force)?;
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
    let vcd = args
        .vcd
        .clone()
        .unwrap_or_else(|| work.path().join("dump.vcd"));
    let output = skeinhw_rtl::run(&built, &input, &vcd)?;
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
    let design = AnyDesign::Skein(skeinhw_rtl::generate(schedule)?);
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
    let report = skeinhw_rtl::compare_vcd(
        header,
        &sink.records,
        &sim.vcd,
        skeinhw_rtl::SCOPE,
        sim.simulator.vcd_prefix(),
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
