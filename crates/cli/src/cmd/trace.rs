//! `skeinhw trace`: run the cycle-accurate golden simulator on a schedule (a preset or a JSON
//! file, with field overrides) and write its per-cycle trace as JSONL, VCD or FST. The file
//! appears only when the trace is complete: it is written beside the destination and renamed.
//! An FST is written into an unnamed spool file first (its writer seeks back to complete the
//! header) and copied into place.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{self as shabal_sim, ShabalJob, ShabalReport, ShabalSink};
use skeinhw_sched::sim::{Job, SimReport, TraceSink, simulate};
use skeinhw_sched::{AnySchedule, Schedule};
use skeinhw_trace::shabal::{ShabalFstWriter, ShabalJsonlWriter, ShabalVcdWriter};
use skeinhw_trace::{AtomicFile, FstWriter, JsonlWriter, TraceFormat, VcdWriter};

use crate::Status;
use crate::message::{MessageArgs, decode_hex};
use crate::progress::{BlockMeter, CycleMeter};
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
result it carries. JSONL: \"in_ready\":[true,false,...] per record; VCD and FST: one 1-bit signal each. An FST holds
the VCD's scope, signals and values (not its header comment).";

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
    /// Trace format (default: from the extension of -o, .jsonl, .vcd or .fst).
    #[arg(long, value_name = "jsonl|vcd|fst")]
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
    match TraceFormat::from_extension(&args.output) {
        Some(f) => Ok(f),
        None => bail!(
            "-o {}: cannot tell the trace format from the extension; give --format jsonl, vcd \
             or fst (or name the file .jsonl, .vcd or .fst)",
            args.output.display()
        ),
    }
}

/// An unnamed file for an FST on its way to `output`: beside it (the same file system, and
/// room for what will land there anyway), or in the temporary directory for `-`.
fn spool(output: &Path) -> Result<File> {
    let dir = match output.parent() {
        _ if output.as_os_str() == "-" => std::env::temp_dir(),
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    tempfile::tempfile_in(&dir)
        .with_context(|| format!("a spool file for the FST in {}", dir.display()))
}

/// Writes an FST through `run` into a spool file, then copies it into `file`.
fn write_fst<T>(
    output: &Path,
    file: &mut AtomicFile,
    run: impl FnOnce(&mut io::BufWriter<File>) -> Result<T>,
) -> Result<T> {
    let mut spooled = io::BufWriter::with_capacity(1 << 16, spool(output)?);
    let result = run(&mut spooled)?;
    let mut spooled = spooled
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    spooled.seek(SeekFrom::Start(0))?;
    io::copy(&mut spooled, file)?;
    Ok(result)
}

/// How `-o` is written: `-` is standard output (an FST too, copied from its spool file).
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

    let blocks: u64 = jobs.iter().map(|j| j.ubi_blocks(&schedule)).sum();
    let mut file = AtomicFile::create_with(&args.output, output_options(&args))?;
    let report = {
        let write = |sink: &mut dyn TraceSink| -> Result<SimReport> {
            Ok(simulate(
                &schedule,
                &jobs,
                &mut BlockMeter::new(sink, blocks),
            )?)
        };
        let result = match format {
            TraceFormat::Jsonl => write(&mut JsonlWriter::new(&mut file)),
            TraceFormat::Vcd => write(&mut VcdWriter::new(&mut file)),
            TraceFormat::Fst => write_fst(&args.output, &mut file, |out| {
                write(&mut FstWriter::new(out))
            }),
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
    let cycles: u64 = jobs.iter().map(|j| j.cycles(schedule)).sum();
    let mut file = AtomicFile::create_with(&args.output, output_options(args))?;
    let report = {
        let write = |sink: &mut dyn ShabalSink| -> Result<ShabalReport> {
            Ok(shabal_sim::simulate(
                schedule,
                &jobs,
                &mut CycleMeter::new(sink, cycles),
            )?)
        };
        let result = match format {
            TraceFormat::Jsonl => write(&mut ShabalJsonlWriter::new(&mut file)),
            TraceFormat::Vcd => write(&mut ShabalVcdWriter::new(&mut file)),
            TraceFormat::Fst => write_fst(&args.output, &mut file, |out| {
                write(&mut ShabalFstWriter::new(out))
            }),
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
