//! `skeinhw diff`: a golden trace (a JSON-lines file, or computed on the fly from a schedule and
//! the message options) against an RTL simulation's VCD or FST.
//!
//! Exit status: 0 identical, 1 divergence (or a length mismatch), 2 usage or parse error.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use skeinhw_diff::options::ReadProgress;
use skeinhw_diff::viewer::ViewerRequest;
use skeinhw_diff::wave::WaveOptions;
use skeinhw_diff::{
    AnyGolden, CycleOptions, Golden, OwnedJob, OwnedShabalJob, ShabalGolden, SignalMap,
    compare_cycles,
};
use skeinhw_sched::AnySchedule;
use skeinhw_trace::names::{self, Signal};

use crate::Status;
use crate::message::{MessageArgs, decode_hex};
use crate::progress::wave_meter;
use crate::schedule_args::ScheduleArgs;

/// How golden cycles and RTL edges are lined up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Align {
    /// Every cycle of the same schedule.
    Cycle,
    /// The state at architectural events, for RTL of another schedule or latency.
    Event,
}

/// What `diff --help` says after the options.
const AFTER_HELP: &str = "\
Alignment:
  --align cycle  every mapped field on every cycle (RTL of the same schedule, e.g. the generated
                 Verilog; --reset-cycles and --offset line the first cycles up).
  --align event  the state at architectural events, for RTL of another schedule or latency.
                 Fields and the events they are compared with:
                   slot<i>_state_<w>         after subkey s is added (s = 0..Nr/4), and the
                                             chaining value after the feed-forward
                   slot<i>_state_before_<w>  before subkey s is added (the block input for s = 0,
                                             the state after round 4s-1 otherwise)
                   slot<i>_key_<w>           the extended key k_0..k_Nw (with \"key_ring\":
                                             \"rotating\": as the ring holds it at each subkey)
                   slot<i>_tweak_<t>         t0, t1, t2 (\"tweak_ring\": \"rotating\" likewise)
                   out_valid + out_data_<w>  each digest block; or \"digest_serial\": {\"data\":
                                             \"dout\", \"valid\": \"dout_valid\"}, one word per edge
                 The kinds a design is seen to register (e.g. every other subkey) are expected of
                 every block; every message block must show one, and every digest word must
                 leave the design. Config blocks are expected only if the design computes one:
                 a core with a hard-coded IV never does; give the golden schedule
                 --config-precomputed true (or --set config_precomputed=true) to leave
                 them out of its trace as well.
                 Shabal schedules (shabal-*): the state after each round, seen in
                   a_<i>, b_<i>, c_<i>       A (12 words), B, C (16 words each) after message
                                             block 0..n-1 and final round 0..2 (each part whole
                                             unless --partial; every event of a mapped part is
                                             expected)
                   out_valid + out_data_<w>  the digest (32-bit words)

Map file (--map): {\"clock\": \"clk\", \"scope\": \"tb.dut\", \"reset_cycles\": 2,
  \"fields\": {FIELD: \"SIGNAL[hi:lo]\" or {\"signal\": \"SIGNAL[hi:lo]\", \"when\": \"SIGNAL\"}},
  \"digest_serial\": {...}, \"key_ring\": \"fixed\"|\"rotating\", \"tweak_ring\": ...}
  A field with \"when\" is compared only on edges where that signal is 1. A register mapped in
  part is refused unless --partial. See crates/diff/README.md for a worked example.

Exit status: 0 identical, 1 divergence or length mismatch, 2 usage or input error (a bad or
vacuous map, nothing compared).";

/// Arguments of `diff`.
#[derive(Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct DiffArgs {
    /// The RTL simulation's waveform (VCD or FST; told apart by content).
    #[arg(value_name = "RTL.vcd|RTL.fst")]
    pub wave: PathBuf,
    /// The golden trace as written by `skeinhw trace --format jsonl`.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "schedule")]
    pub golden: Option<PathBuf>,
    /// Compute the golden trace on the fly from a schedule and the message options.
    #[command(flatten)]
    pub schedule: OptionalSchedule,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Further messages (hex), each its own stream with the same options, as `trace --more`.
    #[arg(long = "more", value_name = "HEX")]
    pub more: Vec<String>,
    /// The RTL clock, sampled at its rising edges [default: the map's clock, else clk].
    #[arg(long, value_name = "NAME")]
    pub clock: Option<String>,
    /// Signal map file (trace field -> RTL signal[hi:lo]); default: the RTL's registers carry
    /// the trace's names (the generated Verilog), in_ready_<k> not compared (map it, e.g.
    /// "in_ready_1": "in_ready[1]" as the signal_map.json of `rtl` does).
    #[arg(long, value_name = "FILE.json")]
    pub map: Option<PathBuf>,
    /// Remove this prefix from every RTL signal name (Verilator adds `TOP.`; a test bench
    /// adds its instance path, e.g. `tb.dut.`).
    #[arg(long, value_name = "PREFIX")]
    pub strip_prefix: Option<String>,
    /// RTL rising edges before the golden trace's first cycle [default: the map's
    /// reset_cycles, else 0].
    #[arg(long, value_name = "N")]
    pub reset_cycles: Option<u64>,
    /// Further cycles to shift the RTL by (negative: skip golden cycles).
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        allow_hyphen_values = true
    )]
    pub offset: i64,
    /// cycle: compare every cycle; event: compare the state at architectural events.
    #[arg(long, value_enum, default_value_t = Align::Cycle)]
    pub align: Align,
    /// Cycles of context before and after the first divergence.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub context: usize,
    /// Accept RTL cycles after the golden trace's last one.
    #[arg(long)]
    pub allow_trailing: bool,
    /// Accept a map that covers only some words of a state, key or tweak register; the
    /// verdict names the words left out.
    #[arg(long)]
    pub partial: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// On a divergence, write into DIR (created; an existing one only with --force, and only
    /// if it holds nothing but an earlier run's files) view.fst (the golden and RTL signals
    /// merged), view.gtkw (`gtkwave -a DIR/view.gtkw`) and view.sucl (`surfer
    /// --command-file DIR/view.sucl`): the diverging fields first, golden beside RTL, the
    /// cursor on the first divergent edge.
    #[arg(long, value_name = "DIR")]
    pub viewer: Option<PathBuf>,
    /// Replace the files an earlier --viewer run wrote in DIR.
    #[arg(long, requires = "viewer")]
    pub force: bool,
}

/// `--schedule` and its overrides, optional here because `--golden` may replace them.
#[derive(Args, Default)]
pub struct OptionalSchedule {
    /// The schedule of the golden trace computed on the fly (a preset or a JSON file).
    #[arg(long = "schedule", value_name = "NAME|FILE.json")]
    pub schedule: Option<String>,
    /// Override any schedule field, e.g. `--set rounds_per_cycle=4` (repeatable).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Override config_precomputed (as `map` and `trace`): true for a core with a hard-coded
    /// IV, whose trace then has no Config block.
    #[arg(long, value_name = "BOOL")]
    pub config_precomputed: Option<bool>,
}

/// The golden trace the arguments name.
pub fn golden(args: &DiffArgs) -> Result<AnyGolden> {
    if let Some(path) = &args.golden {
        return Ok(AnyGolden::from_jsonl(path)?);
    }
    let Some(name) = &args.schedule.schedule else {
        bail!(
            "give the golden trace: --golden FILE.jsonl, or --schedule NAME with the message options"
        );
    };
    let schedule = ScheduleArgs {
        schedule: name.clone(),
        set: args.schedule.set.clone(),
        config_precomputed: args.schedule.config_precomputed,
        ..ScheduleArgs::default()
    }
    .build_any(args.message.size)?;
    golden_of(&schedule, &args.message, &args.more)
}

/// The golden trace of the message options and each `--more` message (one stream each) on
/// `schedule`, simulated on the fly.
pub fn golden_of(
    schedule: &AnySchedule,
    message: &MessageArgs,
    more: &[String],
) -> Result<AnyGolden> {
    let more: Vec<Vec<u8>> = more
        .iter()
        .map(|h| decode_hex("--more", h))
        .collect::<Result<_>>()?;
    Ok(match schedule {
        AnySchedule::Skein(s) => {
            let first = job(message, s)?;
            let mut jobs = vec![first.clone()];
            jobs.extend(more.into_iter().map(|m| OwnedJob {
                msg_bits: m.len() as u64 * 8,
                message: m,
                ..first.clone()
            }));
            AnyGolden::Skein(Golden::simulate(s.clone(), jobs)?)
        }
        AnySchedule::Shabal(s) => {
            let (message, msg_bits) = message.shabal_message(s.output_bits())?;
            let mut jobs = vec![OwnedShabalJob { message, msg_bits }];
            jobs.extend(more.into_iter().map(|m| OwnedShabalJob {
                msg_bits: m.len() as u64 * 8,
                message: m,
            }));
            AnyGolden::Shabal(ShabalGolden::simulate(s.clone(), jobs)?)
        }
    })
}

/// The one message of the message options, for the golden simulation.
pub fn job(m: &MessageArgs, schedule: &skeinhw_sched::Schedule) -> Result<OwnedJob> {
    let (message, msg_bits) = m.hex_message()?.unwrap_or((Vec::new(), 0));
    let params = m.params()?;
    let out_bits = match m.out_bits {
        Some(0) => bail!("--out-bits 0: the output length must be at least 1 bit"),
        Some(b) => b,
        None => u64::from(schedule.size().bits()),
    };
    Ok(OwnedJob {
        message,
        msg_bits,
        out_bits,
        key: params.key,
        personalization: params.personalization,
        public_key: params.public_key,
        key_id: params.key_id,
        nonce: params.nonce,
        tree: params.tree,
    })
}

/// RTL edges searched for the golden run's first cycle when cycle alignment diverges, and
/// the most of the edges found there that are tried in full.
const RESET_CYCLES_SEARCHED: (u64, usize) = (1 << 16, 32);

/// The `reset_cycles` with which cycle alignment would be IDENTICAL, when the one given is
/// not (issue 33): the edges that show the golden run's first cycle (read once,
/// [`skeinhw_diff::first_cycle_edges`]) are tried, each a short run (a wrong one diverges
/// within a few cycles).
fn matching_reset_cycles(
    args: &DiffArgs,
    map: &SignalMap,
    options: &CycleOptions,
) -> Result<Option<u64>> {
    let golden_run = golden(args)?.into_frames();
    let found = skeinhw_diff::first_cycle_edges(
        &golden_run.signals,
        golden_run.frames,
        &args.wave,
        map,
        options,
        RESET_CYCLES_SEARCHED,
    )?;
    for r in found.into_iter().filter(|&r| r != options.reset_cycles) {
        let golden = golden(args)?.into_frames();
        let tried = CycleOptions {
            reset_cycles: r,
            ..options.clone()
        };
        // A try that cannot compare (every edge skipped) is no match, not an error.
        let report = compare_cycles(&golden.signals, golden.frames, &args.wave, map, &tried);
        if report.is_ok_and(|r| r.verdict == skeinhw_diff::Verdict::Identical) {
            return Ok(Some(r));
        }
    }
    Ok(None)
}

/// Writes the `--viewer` files of the report's divergence (the golden trace computed or read
/// again: the diff streamed it), and says where on standard error.
fn write_viewer(
    args: &DiffArgs,
    report: &skeinhw_diff::DiffReport,
    map: &SignalMap,
    options: &CycleOptions,
) -> Result<()> {
    let Some(dir) = &args.viewer else {
        return Ok(());
    };
    let request = ViewerRequest {
        dir,
        force: args.force,
        rtl: &args.wave,
        rtl_prefix: options.wave.strip_prefix.as_deref(),
        rtl_clock: &options.wave.clock,
        map,
    };
    match skeinhw_diff::viewer::write_viewer(&request, golden(args)?, report)? {
        Some(files) => eprintln!(
            "skeinhw: viewer files in {}: gtkwave -a {}, or surfer --command-file {} (cursor at \
             {} in {}'s time units)",
            dir.display(),
            files.gtkw.display(),
            files.surfer.display(),
            files.cursor,
            files.merged.display(),
        ),
        None => eprintln!("skeinhw: no divergent edge: no viewer files written"),
    }
    Ok(())
}

/// Runs `skeinhw diff`.
pub fn run(args: DiffArgs) -> Result<Status> {
    if let Some(dir) = &args.viewer {
        skeinhw_diff::viewer::check_viewer(dir, args.force)?;
    }
    let golden = golden(&args)?;
    // Without a map, in_ready is not compared: a trace VCD has `in_ready_<k>`, the generated
    // Verilog one `in_ready` port (its signal_map.json maps the bits).
    let identity = |signals: &[Signal]| {
        SignalMap::identity(
            signals
                .iter()
                .map(|s| s.name.as_str())
                .filter(|n| !n.starts_with("in_ready_")),
            None,
        )
    };
    let map_file = args.map.as_deref().map(SignalMap::from_file).transpose()?;
    let progress = ReadProgress::new();
    let meter = wave_meter("diff", &args.wave, &progress);
    let with = |m: &SignalMap| -> Result<CycleOptions> {
        Ok(CycleOptions {
            wave: WaveOptions {
                clock: m.clock_for(args.clock.as_deref(), names::CLK)?,
                strip_prefix: args.strip_prefix.clone(),
                progress: progress.clone(),
            },
            reset_cycles: m.reset_cycles_for(args.reset_cycles)?,
            offset: args.offset,
            context: args.context,
            allow_trailing: args.allow_trailing,
            partial: args.partial,
        })
    };
    let (report, map, options) = match (args.align, golden) {
        (Align::Cycle, golden) => {
            let golden = golden.into_frames();
            let map = map_file.unwrap_or_else(|| identity(&golden.signals));
            let options = with(&map)?;
            let mut report =
                compare_cycles(&golden.signals, golden.frames, &args.wave, &map, &options)?;
            if report.verdict == skeinhw_diff::Verdict::Divergent
                && options.offset == 0
                && let Some(r) = matching_reset_cycles(&args, &map, &options)?
            {
                report.summary.push_str(&format!(
                    "; with --reset-cycles {r} (the RTL's first cycle of the golden run at \
                     edge {r}, not {}) the run is IDENTICAL",
                    options.reset_cycles
                ));
            }
            (report, map, options)
        }
        (Align::Event, AnyGolden::Skein(golden)) => {
            // Without a map: the generated Verilog's registers that event alignment compares.
            let map = map_file.unwrap_or_else(|| {
                let signals = names::signals(golden.header.words, golden.header.slots);
                let usable: Vec<&str> = signals
                    .iter()
                    .map(|s| s.name.as_str())
                    .filter(|n| {
                        n.starts_with("out_data_")
                            || *n == names::OUT_VALID
                            || skeinhw_diff::map::slot_field(n)
                                .is_some_and(|(_, r, _)| ["state", "key", "tweak"].contains(&r))
                    })
                    .collect();
                SignalMap::identity(usable, None)
            });
            let options = with(&map)?;
            let report = skeinhw_diff::compare_events(
                &golden.header,
                golden.records,
                &args.wave,
                &map,
                &options,
            )?;
            (report, map, options)
        }
        (Align::Event, AnyGolden::Shabal(golden)) => {
            // Without a map: the generated Verilog's A, B, C and digest registers.
            let map = map_file.unwrap_or_else(|| {
                let signals = skeinhw_trace::shabal::signals(golden.header.output_words());
                let usable: Vec<&str> = signals
                    .iter()
                    .map(|s| s.name.as_str())
                    .filter(|n| {
                        n.starts_with("out_data_")
                            || *n == names::OUT_VALID
                            || skeinhw_diff::shabal_event::Part::field(n).is_some()
                    })
                    .collect();
                SignalMap::identity(usable, None)
            });
            let options = with(&map)?;
            let report = skeinhw_diff::compare_shabal_events(
                &golden.header,
                golden.records,
                &args.wave,
                &map,
                &options,
            )?;
            (report, map, options)
        }
    };
    drop(meter);
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(out, "{report}")?;
    }
    drop(out);
    write_viewer(&args, &report, &map, &options)?;
    Ok(report.exit_status())
}
