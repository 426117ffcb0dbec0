//! `skeinhw diff`: a golden trace (a JSON-lines file, or computed on the fly from a schedule and
//! the message options) against an RTL simulation's VCD or FST.
//!
//! Exit status: 0 identical, 1 divergence (or a length mismatch), 2 usage or parse error.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use skeinhw_diff::wave::WaveOptions;
use skeinhw_diff::{
    AnyGolden, CycleOptions, Golden, OwnedJob, OwnedShabalJob, ShabalGolden, SignalMap,
    compare_cycles,
};
use skeinhw_sched::AnySchedule;
use skeinhw_trace::names::{self, Signal};

use crate::Status;
use crate::message::MessageArgs;
use crate::schedule_args::ScheduleArgs;

/// How golden cycles and RTL edges are lined up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Align {
    /// Every cycle of the same schedule.
    Cycle,
    /// The state at architectural events, for RTL of another schedule or latency.
    Event,
}

/// Arguments of `diff`.
#[derive(Args)]
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
    /// The RTL clock; sampled at its rising edges.
    #[arg(long, default_value = names::CLK, value_name = "NAME")]
    pub clock: String,
    /// Signal map file (trace field -> RTL signal[hi:lo]); default: the RTL's registers carry
    /// the trace's names (the generated Verilog).
    #[arg(long, value_name = "FILE.json")]
    pub map: Option<PathBuf>,
    /// Remove this prefix from every RTL signal name (Verilator adds `TOP.`; a test bench
    /// adds its instance path, e.g. `tb.dut.`).
    #[arg(long, value_name = "PREFIX")]
    pub strip_prefix: Option<String>,
    /// RTL rising edges before the golden trace's first cycle.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub reset_cycles: u64,
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
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
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
        ..ScheduleArgs::default()
    }
    .build_any(args.message.size)?;
    golden_of(&schedule, &args.message)
}

/// The golden trace of one message (the message options) on `schedule`, simulated on the fly.
pub fn golden_of(schedule: &AnySchedule, message: &MessageArgs) -> Result<AnyGolden> {
    Ok(match schedule {
        AnySchedule::Skein(s) => {
            AnyGolden::Skein(Golden::simulate(s.clone(), vec![job(message, s)?])?)
        }
        AnySchedule::Shabal(s) => {
            let (message, msg_bits) = message.shabal_message(s.output_bits())?;
            AnyGolden::Shabal(ShabalGolden::simulate(
                s.clone(),
                vec![OwnedShabalJob { message, msg_bits }],
            )?)
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

/// Runs `skeinhw diff`.
pub fn run(args: DiffArgs) -> Result<Status> {
    let golden = golden(&args)?;
    let identity =
        |signals: &[Signal]| SignalMap::identity(signals.iter().map(|s| s.name.as_str()), None);
    let options = CycleOptions {
        wave: WaveOptions {
            clock: args.clock.clone(),
            strip_prefix: args.strip_prefix.clone(),
        },
        reset_cycles: args.reset_cycles,
        offset: args.offset,
        context: args.context,
        allow_trailing: args.allow_trailing,
    };
    let map_file = args.map.as_deref().map(SignalMap::from_file).transpose()?;
    let report = match (args.align, golden) {
        (Align::Cycle, golden) => {
            let golden = golden.into_frames();
            let map = map_file.unwrap_or_else(|| identity(&golden.signals));
            compare_cycles(&golden.signals, golden.frames, &args.wave, &map, &options)?
        }
        (Align::Event, AnyGolden::Skein(golden)) => {
            let map = map_file.unwrap_or_else(|| {
                identity(&names::signals(golden.header.words, golden.header.slots))
            });
            skeinhw_diff::compare_events(
                &golden.header,
                golden.records,
                &args.wave,
                &map,
                &options,
            )?
        }
        (Align::Event, AnyGolden::Shabal(_)) => bail!(
            "--align event compares Threefish events (subkey injections, feed-forward); a Shabal \
             trace is compared cycle by cycle (--align cycle)"
        ),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(out, "{report}")?;
    }
    Ok(report.exit_status())
}
