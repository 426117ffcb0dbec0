//! `skeinhw trace`: run the cycle-accurate golden simulator on a schedule (a preset or a JSON
//! file, with field overrides) and write its per-cycle trace as JSONL or VCD. The file appears
//! only when the trace is complete: it is written beside the destination and renamed.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_sched::sim::{Job, SimReport, TraceSink, simulate};
use skeinhw_sched::{Schedule, ScheduleSpec, preset_names, preset_spec};
use skeinhw_trace::{AtomicFile, JsonlWriter, TraceFormat, VcdWriter};

use crate::Status;
use crate::message::{MessageArgs, decode_hex};

/// Arguments of `trace`.
#[derive(Args)]
pub struct TraceArgs {
    /// The schedule: a preset name (see `skeinhw schedules`) or a schedule JSON file. The
    /// preset is a starting point: `--size` and the overrides below change it.
    #[arg(long, value_name = "NAME|FILE.json")]
    pub schedule: String,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Further messages (hex), each its own stream with the same options; pipelined
    /// schedules interleave them.
    #[arg(long = "more", value_name = "HEX")]
    pub more: Vec<String>,
    /// Run one copy of the message per pipeline register (blocks in flight), to fill the
    /// datapath.
    #[arg(long)]
    pub fill: bool,
    /// Override rounds_per_cycle (k).
    #[arg(long, value_name = "K")]
    pub rounds_per_cycle: Option<u32>,
    /// Override functional_stages (p).
    #[arg(long, value_name = "P")]
    pub functional_stages: Option<u32>,
    /// Override structural_stages (s).
    #[arg(long, value_name = "S")]
    pub structural_stages: Option<u32>,
    /// Override round_datapath (baseline, half_subkey_adders, half_mix_adders, split_round,
    /// mix_key_overlap).
    #[arg(long, value_name = "NAME")]
    pub round_datapath: Option<String>,
    /// Override any schedule field, e.g. `--set first_subkey_cycle=false` (repeatable).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Trace format (default: from the extension of -o, .jsonl or .vcd).
    #[arg(long, value_name = "jsonl|vcd")]
    pub format: Option<String>,
    /// Output file.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Print cycles, cycles per block, blocks in flight and adder utilisation.
    #[arg(long)]
    pub summary: bool,
}

/// Whether `--size` was given on the command line (MessageArgs has a default of 512, which
/// must not override a preset's own size).
fn size_given() -> bool {
    std::env::args().any(|a| a == "--size" || a.starts_with("--size="))
}

/// The spec of `arg`: a preset's, or a JSON file's (not yet validated: overrides come first).
fn load_spec(arg: &str) -> Result<ScheduleSpec> {
    if preset_names().any(|n| n == arg) {
        return Ok(preset_spec(arg)?);
    }
    let path = Path::new(arg);
    if arg.ends_with(".json") || path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read schedule file {}", path.display()))?;
        return ScheduleSpec::from_json_str(&text).with_context(|| path.display().to_string());
    }
    Ok(preset_spec(arg)?)
}

/// The schedule with the command line's overrides applied and validated once.
fn schedule(args: &TraceArgs) -> Result<Schedule> {
    let mut spec = load_spec(&args.schedule)?;
    let mut overrides: Vec<(String, String)> = Vec::new();
    if size_given() {
        overrides.push(("size".into(), args.message.size.to_string()));
    }
    let numbers = [
        ("rounds_per_cycle", args.rounds_per_cycle),
        ("functional_stages", args.functional_stages),
        ("structural_stages", args.structural_stages),
    ];
    for (field, value) in numbers {
        if let Some(v) = value {
            overrides.push((field.into(), v.to_string()));
        }
    }
    if let Some(d) = &args.round_datapath {
        overrides.push(("round_datapath".into(), d.clone()));
    }
    for s in &args.set {
        let Some((field, value)) = s.split_once('=') else {
            bail!("--set {s}: expected FIELD=VALUE, e.g. --set first_subkey_cycle=false");
        };
        overrides.push((field.trim().into(), value.trim().into()));
    }
    let mut changed = Vec::new();
    for (field, value) in &overrides {
        spec.set(field, value)?;
        if field != "name" && field != "source" {
            changed.push(format!("{field}={value}"));
        }
    }
    if !changed.is_empty() && !overrides.iter().any(|(f, _)| f == "name") {
        spec.name = format!("{}+{}", spec.name, changed.join(","));
    }
    Ok(spec.build()?)
}

fn format(args: &TraceArgs) -> Result<TraceFormat> {
    if let Some(f) = &args.format {
        return Ok(f.parse()?);
    }
    match args.output.extension().and_then(|e| e.to_str()) {
        Some("jsonl") => Ok(TraceFormat::Jsonl),
        Some("vcd") => Ok(TraceFormat::Vcd),
        _ => bail!(
            "-o {}: cannot tell the trace format from the extension; give --format jsonl or \
             --format vcd (or name the file .jsonl or .vcd)",
            args.output.display()
        ),
    }
}

/// Writes a trace.
pub fn run(args: TraceArgs) -> Result<Status> {
    let schedule = schedule(&args)?;
    let format = format(&args)?;
    let state_bits = u64::from(schedule.size().bits());
    let out_bits = args.message.out_bits.unwrap_or(state_bits);
    if out_bits == 0 {
        bail!("--out-bits 0: the output length must be at least 1 bit");
    }
    let owned = args.message.params()?;
    let params = owned.params();
    let (message, msg_bits) = args.message.hex_message()?.unwrap_or((Vec::new(), 0));
    let more: Vec<Vec<u8>> = args
        .more
        .iter()
        .map(|h| decode_hex("--more", h))
        .collect::<Result<_>>()?;
    let mut jobs = vec![Job {
        message: &message,
        msg_bits,
        out_bits,
        params,
    }];
    jobs.extend(more.iter().map(|m| Job::bytes(m, out_bits, params)));
    if args.fill {
        let copies = schedule.blocks_in_flight() as usize;
        while jobs.len() < copies {
            jobs.push(jobs[0]);
        }
    }

    let mut file = AtomicFile::create(&args.output)?;
    let report = {
        let result = match format {
            TraceFormat::Jsonl => write(&schedule, &jobs, &mut JsonlWriter::new(&mut file)),
            TraceFormat::Vcd => write(&schedule, &jobs, &mut VcdWriter::new(&mut file)),
        };
        result.with_context(|| format!("trace {}", args.output.display()))?
    };
    file.commit()?;
    if args.summary {
        print_summary(&schedule, &report);
    }
    Ok(0)
}

fn write(schedule: &Schedule, jobs: &[Job<'_>], sink: &mut dyn TraceSink) -> Result<SimReport> {
    Ok(simulate(schedule, jobs, sink)?)
}

fn print_summary(schedule: &Schedule, r: &SimReport) {
    let u = r.utilisation();
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    println!("schedule            {}", schedule.name());
    println!("cycles              {}", r.cycles);
    println!("blocks              {}", r.block_count());
    match r.cycles_per_block() {
        Some(c) => println!(
            "cycles per block    {c} (schedule: {})",
            schedule.cycles_per_block()
        ),
        None => println!("cycles per block    varies"),
    }
    println!(
        "blocks in flight    {} at most (schedule: {})",
        r.max_blocks_in_flight(),
        schedule.blocks_in_flight()
    );
    println!(
        "adder utilisation   {} (MIX {}, subkey {}, key schedule {}, first subkey {})",
        pct(u.total),
        pct(u.mix),
        pct(u.subkey),
        pct(u.key_schedule),
        pct(u.first_subkey)
    );
    for (i, d) in r.digests.iter().enumerate() {
        println!("digest {i:<12} {}", hex::encode(d));
    }
}
