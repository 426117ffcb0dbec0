//! `skeinhw trace`: run the cycle-accurate golden simulator on a schedule (a preset or a JSON
//! file, with field overrides) and write its per-cycle trace as JSONL or VCD. The file appears
//! only when the trace is complete: it is written beside the destination and renamed.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{self as shabal_sim, ShabalJob};
use skeinhw_sched::sim::{Job, SimReport, TraceSink, simulate};
use skeinhw_sched::{AnySchedule, Schedule};
use skeinhw_trace::shabal::{ShabalJsonlWriter, ShabalVcdWriter};
use skeinhw_trace::{AtomicFile, JsonlWriter, TraceFormat, VcdWriter};

use crate::Status;
use crate::message::{MessageArgs, decode_hex};
use crate::schedule_args::ScheduleArgs;

/// What `trace --help` says after the options: the fields of a record.
const TRACE_AFTER_HELP: &str = "\
Every record holds the registers after one rising edge: phase, out_valid/out_stream/out_index/
out_data_<w>, the busy adder counts, every pipeline register's slot<i>_* (valid, stream, phase,
block, round, subkey, state, key, tweak), and in_ready_<k>: 1 when stream k's input register is
free (bit k of the core's in_ready port, one bit per stream of the design). in_ready follows the
generated test bench's feed rule: after each falling edge the host offers one block to the stream
whose register has been free longest (streams not yet started first, lowest on a tie), loaded at
the next rising edge; a register empties when the core issues a Key, optional-argument or message
block of its stream (Config and Output blocks are the core's); a tree node waits for the child
result it carries. JSONL: \"in_ready\":[true,false,...] per record; VCD: one 1-bit signal each.";

/// Arguments of `trace`.
#[derive(Args)]
#[command(after_help = TRACE_AFTER_HELP)]
pub struct TraceArgs {
    #[command(flatten)]
    pub schedule: ScheduleArgs,
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
    /// Trace format (default: from the extension of -o, .jsonl or .vcd).
    #[arg(long, value_name = "jsonl|vcd")]
    pub format: Option<String>,
    /// Output file (`-`: standard output, with --format). An existing file is replaced only
    /// with --force; a symlink is written through, a FIFO or device written in place.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Replace an existing output file (atomically, keeping its mode).
    #[arg(long)]
    pub force: bool,
    /// Print cycles, cycles per block, blocks in flight and adder utilisation.
    #[arg(long)]
    pub summary: bool,
}

fn format(args: &TraceArgs) -> Result<TraceFormat> {
    if args.summary && args.output.as_os_str() == "-" {
        bail!("--summary with -o -: standard output carries the trace; give -o FILE");
    }
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

/// How `-o` is written: `-` is standard output (both formats are text).
fn output_options(args: &TraceArgs) -> skeinhw_outfile::Options {
    skeinhw_outfile::Options::new()
        .force(args.force)
        .stdout(true)
}

/// Writes a trace.
pub fn run(args: TraceArgs) -> Result<Status> {
    let schedule = match args.schedule.build_any(args.message.size)? {
        AnySchedule::Skein(s) => s,
        AnySchedule::Shabal(s) => return run_shabal(&args, &s),
    };
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

    let mut file = AtomicFile::create_with(&args.output, output_options(&args))?;
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

/// The messages of the arguments for a Shabal core: the message options and `--more`.
fn run_shabal(args: &TraceArgs, schedule: &ShabalSchedule) -> Result<Status> {
    let format = format(args)?;
    let (message, msg_bits) = args.message.shabal_message(schedule.output_bits())?;
    let more: Vec<Vec<u8>> = args
        .more
        .iter()
        .map(|h| decode_hex("--more", h))
        .collect::<Result<_>>()?;
    let mut jobs = vec![ShabalJob {
        message: &message,
        msg_bits,
    }];
    jobs.extend(more.iter().map(|m| ShabalJob::bytes(m)));
    let mut file = AtomicFile::create_with(&args.output, output_options(args))?;
    let report = {
        let result = match format {
            TraceFormat::Jsonl => {
                shabal_sim::simulate(schedule, &jobs, &mut ShabalJsonlWriter::new(&mut file))
            }
            TraceFormat::Vcd => {
                shabal_sim::simulate(schedule, &jobs, &mut ShabalVcdWriter::new(&mut file))
            }
        };
        result.with_context(|| format!("trace {}", args.output.display()))?
    };
    file.commit()?;
    if args.summary {
        println!("schedule            {}", schedule.name());
        println!("cycles              {}", report.cycles);
        println!("passes of P         {}", report.passes);
        if let Some(c) = report.cycles_per_block() {
            println!(
                "cycles per block    {c} (schedule: {})",
                schedule.cycles_per_block()
            );
        }
        for (i, d) in report.digests.iter().enumerate() {
            println!("digest {i:<12} {}", hex::encode(d));
        }
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
