//! `skeinhw rtl` writes the generated Verilog of a schedule, Skein or Shabal (design, test
//! bench, signal map); `skeinhw sim` builds and runs it in Icarus Verilog or Verilator, prints
//! the digest as `hash` does, and compares the simulation's VCD with the golden trace cycle for
//! cycle (exit 1 and a report on divergence).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_diff::viewer::ViewerRequest;
use skeinhw_diff::{AnyGolden, DiffReport, Golden, ShabalGolden, SignalMap};
use skeinhw_outfile::OutFile;
use skeinhw_rtl::{
    AnyDesign, CoreInfo, Features, Message, ResetDiff, RunLimits, RunOutput, Simulator,
};
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{ShabalJob, ShabalMemorySink};
use skeinhw_sched::sim::{Job, MemorySink, simulate_streams};
use skeinhw_sched::{AnySchedule, Schedule};

use crate::Status;
use crate::message::{MessageArgs, decode_hex};
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
    /// Build the Skein core for this output length in bits (default: the state size); more
    /// than the state size runs several Output UBI blocks.
    #[arg(long, value_name = "N")]
    pub out_bits: Option<u64>,
    /// Build a Skein core for tree hashing (Yl,Yf,Ym): the host arranges the tree through the
    /// port (see the design's header).
    #[arg(long, value_name = "LEAF,FANOUT,MAXHEIGHT", value_parser = skeinhw_trace::args::parse_tree)]
    pub tree: Option<skeinhw_skein::TreeParams>,
    /// A lean core: without the registers and counters only the trace reads (phase, busy_*,
    /// slot<i>_block, slot<i>_round, slot<i>_subkey; its signal_map.json omits them), with the
    /// key in a rotating register and the tweak Position summed at the load where it can.
    #[arg(long)]
    pub lean: bool,
}

/// Arguments of `sim`.
#[derive(Args)]
#[command(after_help = SIM_AFTER_HELP)]
#[command(group(clap::ArgGroup::new("kept").multiple(true)))]
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
    #[arg(long, value_name = "FILE", group = "kept")]
    pub vcd: Option<PathBuf>,
    /// On a divergence, write the wave-viewer files into DIR as `diff --viewer` does
    /// (view.fst, view.gtkw, view.sucl: golden beside RTL, the cursor on the first divergent
    /// edge).
    #[arg(long, value_name = "DIR", group = "kept")]
    pub viewer: Option<PathBuf>,
    /// Replace an existing --vcd file, or the files an earlier --viewer run wrote in DIR.
    #[arg(long, requires = "kept")]
    pub force: bool,
    /// Further messages (hex), as `trace --more`: message i goes to stream i mod S (S: the
    /// design's streams, one per block in flight), after the messages of that stream before it.
    #[arg(long = "more", value_name = "HEX")]
    pub more: Vec<String>,
    /// Feed every stream of the design 3 messages back to back: the messages given first, then
    /// made-up ones (message k is k x 23 mod (2 x block bytes + 1) bytes k, k+1, ... mod 256).
    #[arg(long)]
    pub fill: bool,
    /// Simulate the lean core (`rtl --lean`); the trace fields it lacks are not compared, and
    /// named on standard error.
    #[arg(long)]
    pub lean: bool,
}

/// What `sim --help` says after the options: what is compared, the limits, the exit statuses.
const SIM_AFTER_HELP: &str = "\
Compared with the golden model of the same messages (message i on stream i mod S, a stream's
messages back to back): the registers right after reset (phase, out_valid, busy counts, every
slot's valid bit; Shabal: phase, out_valid, valid), then every traced register on every cycle,
then 4 idle cycles after the last digest; for Skein also the in_ready port, bit by bit, as the
trace field in_ready_<k> (stream k's input register is free) of the golden model's feed model:
the test bench's feed rule (see `trace --help`), for keys, optional arguments, any output length
and trees. The test bench stops a design that has not put out
every digest 256 cycles after the golden run and its idle cycles (\"design hung: no digest by
cycle N\").
X or Z on a compared register is a divergence naming the cycle and the register.
A --vcd file runs on for the 4 idle cycles: `skeinhw diff` it with --allow-trailing.
Exit status: 0 identical, 1 divergent or hung, 2 usage, input or tool error.";

/// Messages per stream that `sim --fill` feeds.
pub const FILL_PER_STREAM: usize = 3;
/// Cycles past the golden trace's length after which `sim` stops a design that has not put
/// out every digest ("design hung").
pub const HUNG_MARGIN: u64 = 256;
/// Idle cycles after the last digest that `sim` simulates and compares.
pub const TRAIL_CYCLES: u64 = 4;

/// `skeinhw rtl`.
pub fn run_rtl(args: RtlArgs) -> Result<Status> {
    let schedule = args.schedule.build_any(args.size)?;
    let design = match (&schedule, args.lean) {
        (AnySchedule::Shabal(s), true) => bail!(
            "{}: --lean takes Skein schedules only (a Shabal core has no trace-only registers)",
            s.name()
        ),
        (AnySchedule::Shabal(_), false) if args.out_bits.is_some() || args.tree.is_some() => {
            bail!(
                "--out-bits and --tree build Skein cores; a Shabal schedule takes --set output_bits=N"
            )
        }
        (AnySchedule::Skein(s), lean) => {
            let features = Features {
                out_bits: args.out_bits.unwrap_or_else(|| u64::from(s.size().bits())),
                tree: args.tree,
            };
            let options = skeinhw_rtl::Options { lean };
            AnyDesign::Skein(skeinhw_rtl::generate_core(s, features, options)?)
        }
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
/// test bench on `stimulus` within `limits` and reads its output.
fn simulate_design(
    args: &SimArgs,
    design: AnyDesign,
    stimulus: &str,
    limits: RunLimits,
) -> Result<Simulated> {
    let simulator: Simulator = args.simulator.parse()?;
    if let Some(dir) = &args.viewer {
        skeinhw_diff::viewer::check_viewer(dir, args.force)?;
    }
    // Checked before the simulation: standard output carries the digest, not the VCD.
    let keep = args
        .vcd
        .as_ref()
        .map(|p| OutFile::create(p, skeinhw_outfile::Options::new().force(args.force)))
        .transpose()?;
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    let src = match &args.rtl_dir {
        Some(dir) => {
            check_rtl_dir(dir, &design)?;
            dir.clone()
        }
        None => {
            let dir = work.path().join("rtl");
            std::fs::create_dir(&dir)?;
            design.write_into(&dir)?;
            dir
        }
    };
    let built = skeinhw_rtl::build(
        simulator,
        &src,
        &work.path().join("build"),
        blocks_beyond_default(stimulus),
    )?;
    let input = work.path().join("input.txt");
    std::fs::write(&input, stimulus)?;
    let vcd = work.path().join("dump.vcd");
    let output = skeinhw_rtl::run_limited(&built, &input, &vcd, limits)?;
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

/// Refuses a `--rtl-dir` built for another schedule or core than the command asks for
/// (issue 33, item 14), naming the difference: its `schedule.json` and `core.json` against
/// those of `design`, the design the command would generate. A directory without `core.json`
/// (generated before it existed) is checked on its schedule alone.
fn check_rtl_dir(dir: &Path, design: &AnyDesign) -> Result<()> {
    let files = design.files();
    let wanted = |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| text.clone())
            .expect("a design has every file")
    };
    let schedule_path = dir.join(skeinhw_rtl::SCHEDULE_FILE);
    let text = std::fs::read_to_string(&schedule_path)
        .with_context(|| format!("--rtl-dir {}: cannot read", schedule_path.display()))?;
    let held: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("--rtl-dir {}: not a schedule", schedule_path.display()))?;
    let asked: serde_json::Value =
        serde_json::from_str(&wanted(skeinhw_rtl::SCHEDULE_FILE)).expect("our own JSON");
    if held != asked {
        bail!(
            "--rtl-dir {}: its schedule.json is not the schedule {} that the command simulates \
             (give that schedule's file with --schedule, or regenerate the directory with \
             `skeinhw rtl`)",
            dir.display(),
            design.name()
        );
    }
    let Some(held) = CoreInfo::read_dir(dir)? else {
        return Ok(());
    };
    let asked: CoreInfo =
        serde_json::from_str(&wanted(skeinhw_rtl::CORE_FILE)).expect("our own JSON");
    let differences = held.differences(&asked);
    if !differences.is_empty() {
        bail!(
            "--rtl-dir {}: the directory was generated for another core ({}): give `sim` the \
             options it was generated with, or regenerate it with `skeinhw rtl`",
            dir.display(),
            differences.join("; ")
        );
    }
    Ok(())
}

/// The test bench's limits for a golden run of `golden_cycles`: stop a hung design
/// [`HUNG_MARGIN`] cycles after the golden length, run [`TRAIL_CYCLES`] idle cycles after the
/// last digest.
fn limits(golden_cycles: u64) -> RunLimits {
    RunLimits {
        max_cycles: Some(golden_cycles + TRAIL_CYCLES + HUNG_MARGIN),
        trail: TRAIL_CYCLES,
    }
}

/// The messages of `sim`: the message options, `--more`, and with `--fill` made-up ones until
/// every one of `streams` streams has [`FILL_PER_STREAM`] (`block_bytes`: the block size).
fn sim_messages(
    args: &SimArgs,
    first: (Vec<u8>, u64),
    streams: usize,
    block_bytes: usize,
) -> Result<Vec<(Vec<u8>, u64)>> {
    let mut messages = vec![first];
    for hex in &args.more {
        let m = decode_hex("--more", hex)?;
        let bits = m.len() as u64 * 8;
        messages.push((m, bits));
    }
    if args.fill {
        for k in messages.len()..streams * FILL_PER_STREAM {
            let len = k * 23 % (2 * block_bytes + 1);
            let m: Vec<u8> = (0..len).map(|i| (k + i) as u8).collect();
            let bits = m.len() as u64 * 8;
            messages.push((m, bits));
        }
    }
    Ok(messages)
}

/// Prints each message's digest as `hash` does, in message order: the RTL's Output blocks of
/// stream s in the order they came out, `out_blocks` a message, are its messages s, s + S,
/// s + 2S, ..., cut to `out_bits`. Stops at the first message the simulation gave too few
/// Output blocks for (the verdict says why).
fn print_digests(
    output: &RunOutput,
    messages: &[(Vec<u8>, u64)],
    streams: usize,
    out_bits: u64,
) -> Result<()> {
    let streams = streams.max(1);
    let state_bytes = output.digests.first().map_or(1, |(_, _, w)| w.len() * 8);
    let out_blocks = usize::try_from(out_bits.div_ceil(8))?.div_ceil(state_bytes);
    let mut per_stream: Vec<Vec<&[u64]>> = vec![Vec::new(); streams];
    for (s, _, words) in &output.digests {
        if let Some(v) = per_stream.get_mut(*s as usize) {
            v.push(words);
        }
    }
    for (i, (data, bits)) in messages.iter().enumerate() {
        let first = i / streams * out_blocks;
        let Some(lines) =
            per_stream[skeinhw_rtl::stream_of(i, streams)].get(first..first + out_blocks)
        else {
            break;
        };
        let mut digest: Vec<u8> = lines
            .iter()
            .flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        digest.truncate(usize::try_from(out_bits.div_ceil(8))?);
        if let Some(last) = digest.last_mut().filter(|_| !out_bits.is_multiple_of(8)) {
            *last &= 0xFF << (8 - out_bits % 8);
        }
        print_digest(&digest, data, *bits)?;
    }
    Ok(())
}

/// The test bench's block memory for `stimulus` when its default (4096 blocks) is too small:
/// the header line "STREAMS BLOCKS" says how many blocks follow.
fn blocks_beyond_default(stimulus: &str) -> Option<usize> {
    let blocks: usize = stimulus
        .lines()
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    (blocks > 4096).then_some(blocks)
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
/// status. A design that hung (no digest by the test bench's limit) or printed a digest with
/// X/Z in it is a divergence (exit 1) even if the comparison found none.
fn verdict(
    name: &str,
    sim: &Simulated,
    cycles: usize,
    digests: usize,
    in_ready: usize,
    reset: &[ResetDiff],
    report: Option<DiffReport>,
) -> Result<Status> {
    let mut out = std::io::stdout().lock();
    let mut status = 0;
    if !reset.is_empty() {
        let diffs: Vec<String> = reset.iter().map(ToString::to_string).collect();
        writeln!(
            out,
            "DIVERGENT right after reset (before golden cycle 1): {}",
            diffs.join("; ")
        )?;
        status = 1;
    }
    if let Some(at) = sim.output.timeout {
        writeln!(
            out,
            "design hung: no digest by cycle {at} ({} of {digests} digest(s) out; the golden \
             trace's last is at cycle {}, its {TRAIL_CYCLES} idle cycles end at {cycles}, and \
             the test bench stops {HUNG_MARGIN} cycles later)",
            sim.output.digests.len(),
            cycles as u64 - TRAIL_CYCLES,
        )?;
        status = 1;
    }
    for line in &sim.output.unknown_digests {
        writeln!(out, "X/Z on the digest lines: {line}")?;
        status = 1;
    }
    match report {
        None if status == 0 => {
            let ready = match in_ready {
                0 => String::new(),
                n => format!("; in_ready of {n} stream(s) included"),
            };
            eprintln!(
                "skeinhw: {name} ({}): the state after reset and {cycles} cycles identical \
                 to the golden trace ({} idle after the last digest{ready}), {digests} digest(s)",
                sim.simulator.as_str(),
                TRAIL_CYCLES,
            );
            Ok(0)
        }
        None => Ok(status),
        Some(report) => {
            writeln!(out, "{report}")?;
            Ok(report.exit_status().max(status))
        }
    }
}

/// `--viewer`: the divergence's viewer files, the RTL signals named as the generated test
/// bench names them (the trace's names under [`skeinhw_rtl::SCOPE`], `in_ready` one port).
fn write_viewer<'a>(
    args: &SimArgs,
    sim: &Simulated,
    fields: impl IntoIterator<Item = &'a str>,
    golden: AnyGolden,
    report: &DiffReport,
) -> Result<()> {
    let Some(dir) = &args.viewer else {
        return Ok(());
    };
    let scope = Some(skeinhw_rtl::SCOPE);
    let map = SignalMap::identity(fields, scope).in_ready_on_port(scope);
    let clock = format!("{}.{}", skeinhw_rtl::SCOPE, skeinhw_trace::names::CLK);
    let request = ViewerRequest {
        dir,
        force: args.force,
        rtl: &sim.vcd,
        rtl_prefix: sim.simulator.vcd_prefix(),
        rtl_clock: &clock,
        map: &map,
    };
    if let Some(files) = skeinhw_diff::viewer::write_viewer(&request, golden, report)? {
        eprintln!(
            "skeinhw: viewer files in {}: gtkwave -a {}, or surfer --command-file {} (cursor at \
             {})",
            dir.display(),
            files.gtkw.display(),
            files.surfer.display(),
            files.cursor,
        );
    }
    Ok(())
}

fn sim_skein(args: &SimArgs, schedule: &Schedule) -> Result<Status> {
    let m = &args.message;
    let state_bits = u64::from(schedule.size().bits());
    // The core is built for the output length and the tree (the Config string carries both);
    // the key and the optional arguments go through its port.
    let out_bits = m.out_bits.unwrap_or(state_bits);
    if out_bits == 0 {
        bail!("--out-bits 0: the output length must be at least 1 bit");
    }
    let features = Features {
        out_bits,
        tree: m.tree,
    };
    let params = m.params()?;
    let streams = schedule.blocks_in_flight() as usize;
    let first = m.hex_message()?.unwrap_or((Vec::new(), 0));
    let messages = sim_messages(args, first, streams, schedule.words() as usize * 8)?;
    let jobs: Vec<Job<'_>> = messages
        .iter()
        .map(|(data, bits)| Job {
            message: data,
            msg_bits: *bits,
            out_bits,
            params: params.params(),
        })
        .collect();

    // The golden run first: it refuses what the library refuses, with the library's reason,
    // and its length bounds the simulation.
    let mut queues: Vec<Vec<Job<'_>>> = vec![Vec::new(); streams.min(jobs.len())];
    for (i, job) in jobs.iter().enumerate() {
        queues[skeinhw_rtl::stream_of(i, streams)].push(*job);
    }
    let mut sink = MemorySink::new();
    let golden = simulate_streams(schedule, &queues, &mut sink)?;
    let header = sink
        .header
        .as_ref()
        .context("the golden run wrote no header")?;

    let stimulus = skeinhw_rtl::stimulus_jobs(schedule, features, &jobs)?;
    let options = skeinhw_rtl::Options { lean: args.lean };
    let design = AnyDesign::Skein(skeinhw_rtl::generate_core(schedule, features, options)?);
    let sim = simulate_design(args, design, &stimulus, limits(golden.cycles))?;
    print_digests(&sim.output, &messages, streams, out_bits)?;

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
    let reset_golden: Vec<(String, u64)> = skeinhw_rtl::reset_expected(header.words, header.slots)
        .into_iter()
        .filter(|(name, _)| !omitted.contains(name))
        .collect();
    let reset = skeinhw_rtl::compare_reset(&reset_golden, &sim.output)?;
    let expected = skeinhw_rtl::with_idle_cycles(&sink.records, TRAIL_CYCLES);
    // Every trace field, in_ready included (the golden run's feed model, the test bench's
    // feed rule: skeinhw_sched::sim::feed).
    let report = skeinhw_rtl::compare_vcd_except(
        header,
        &expected,
        &sim.vcd,
        skeinhw_rtl::SCOPE,
        sim.simulator.vcd_prefix(),
        &omitted,
    )?;
    if let Some(report) = &report {
        let signals = skeinhw_trace::names::trace_signals(header);
        let fields = signals
            .iter()
            .map(|s| s.name.as_str())
            .filter(|n| !omitted.iter().any(|o| o == n));
        let golden = AnyGolden::Skein(Golden {
            header: header.clone(),
            records: Box::new(expected.clone().into_iter().map(Ok)),
        });
        write_viewer(args, &sim, fields, golden, report)?;
    }
    let out_blocks = out_bits.div_ceil(8).div_ceil(header.words as u64 * 8) as usize;
    verdict(
        schedule.name(),
        &sim,
        expected.len(),
        messages.len() * out_blocks,
        header.in_ready,
        &reset,
        report,
    )
}

fn sim_shabal(args: &SimArgs, schedule: &ShabalSchedule) -> Result<Status> {
    let first = args.message.shabal_message(schedule.output_bits())?;
    // One datapath: every message on it, one after the other (stream i is message i).
    let messages = sim_messages(args, first, 1, skeinhw_shabal::constants::BLOCK_BYTES)?;
    let jobs: Vec<ShabalJob<'_>> = messages
        .iter()
        .map(|(data, bits)| ShabalJob {
            message: data,
            msg_bits: *bits,
        })
        .collect();
    let mut sink = ShabalMemorySink::default();
    let golden = skeinhw_sched::shabal::sim::simulate(schedule, &jobs, &mut sink)?;
    let header = sink
        .header
        .as_ref()
        .context("the golden run wrote no header")?;

    let rtl_messages: Vec<Message<'_>> = messages
        .iter()
        .map(|(data, bits)| Message {
            data,
            bits: *bits,
            key: &[],
        })
        .collect();
    let stimulus = skeinhw_rtl::shabal::stimulus(&rtl_messages)?;
    let design = AnyDesign::Shabal(skeinhw_rtl::shabal::generate(schedule));
    let sim = simulate_design(args, design, &stimulus, limits(golden.cycles))?;
    // Stream i is message i: each stream has one digest.
    for (i, (data, bits)) in messages.iter().enumerate() {
        let Some(digest) = skeinhw_rtl::shabal::digest_bytes(&sim.output, i as u32) else {
            break;
        };
        print_digest(&digest, data, *bits)?;
    }

    let reset = skeinhw_rtl::compare_reset(
        &skeinhw_rtl::shabal::reset_expected(header.output_words()),
        &sim.output,
    )?;
    let expected = skeinhw_rtl::shabal::with_idle_cycles(&sink.records, TRAIL_CYCLES);
    let report = skeinhw_rtl::shabal::compare_vcd(
        header,
        &expected,
        &sim.vcd,
        skeinhw_rtl::SCOPE,
        sim.simulator.vcd_prefix(),
    )?;
    if let Some(report) = &report {
        let signals = skeinhw_trace::shabal::signals(header.output_words());
        let golden = AnyGolden::Shabal(ShabalGolden {
            header: header.clone(),
            records: Box::new(expected.clone().into_iter().map(Ok)),
        });
        write_viewer(
            args,
            &sim,
            signals.iter().map(|s| s.name.as_str()),
            golden,
            report,
        )?;
    }
    verdict(
        schedule.name(),
        &sim,
        expected.len(),
        messages.len(),
        0,
        &reset,
        report,
    )
}
