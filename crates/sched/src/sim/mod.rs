//! The cycle-accurate golden simulator: a controller (Athanasiou's FSM: Idle, Key, Config,
//! Message, Output) driving the datapath a [`Schedule`] describes, on the library's own
//! Threefish pieces, writing every register after every rising edge into a [`TraceSink`].
//!
//! ```
//! use skeinhw_sched::preset;
//! use skeinhw_sched::sim::{Job, MemorySink, simulate};
//!
//! let schedule = preset("ath-1r")?;
//! let job = Job::bytes(b"abc", 512, Default::default());
//! let mut sink = MemorySink::new();
//! let report = simulate(&schedule, &[job], &mut sink)?;
//! // Config, Message, Output: three blocks of 73 cycles each.
//! assert_eq!(report.cycles, 3 * 73);
//! assert_eq!(report.cycles_per_block(), Some(73));
//! assert_eq!(sink.records.len(), 219);
//! let expected = skeinhw_skein::hash(512, 512, b"abc", 24, &Default::default()).unwrap();
//! assert_eq!(report.digests[0], expected);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Modules, one idea each: `program` (the UBI blocks of a Skein run), `datapath` (what
//! one cycle does to a block), `placement` (which round unit of a stage does each op, for the
//! Verilog generator and the estimator), `controller` (the clock loop and the issue rule),
//! `feed` (the input handshake: `in_ready`), `record` (the per-cycle registers), `sink` (where records go), `report` (cycles, digests,
//! utilisation).

mod controller;
pub mod datapath;
pub mod feed;
pub mod placement;
pub mod pool;
mod program;
mod record;
mod report;
mod sink;

use skeinhw_skein::{Params, TreeParams};

use crate::schedule::Schedule;
use crate::size::StateSize;

pub use datapath::{CycleOp, Datapath, MicroOp};
pub use feed::{Feed, FeedBlock};
pub use placement::{Placement, Unit};
pub use pool::{AdderPool, Layer, PoolOp, StagePool};
pub use program::{BlockJob, Program, ubi_blocks};
pub use record::{
    AdderBusy, CycleRecord, MAX_WORDS, OutputRecord, OwnedCycleRecord, Phase, SlotRecord,
    TRACE_SCHEMA_VERSION, TraceHeader,
};
pub use report::{BlockTiming, BusyTotals, SimReport, Utilisation};
pub use sink::{MemorySink, NullSink, TraceSink};

/// The longest output (in bits) the simulator traces: 2^20 bits (128 KiB, 1,024 Output
/// blocks of Skein-1024). Every Output block is a traced Threefish call, and its digest is
/// kept in memory, so a trace of a longer output is refused up front ([`SimError::OutputTooLong`])
/// rather than grown without bound; the `skeinhw hash` command streams outputs of any length.
pub const MAX_OUT_BITS: u64 = 1 << 20;

/// One Skein computation for the simulator: a message of any bit length, the output length
/// and the optional arguments (key, personalization, public key, key id, nonce, tree).
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    /// Message bytes; the first `msg_bits` bits are hashed.
    pub message: &'a [u8],
    /// Message length in bits.
    pub msg_bits: u64,
    /// Output length in bits.
    pub out_bits: u64,
    /// The optional arguments.
    pub params: Params<'a>,
}

impl<'a> Job<'a> {
    /// A whole-byte message.
    pub fn bytes(message: &'a [u8], out_bits: u64, params: Params<'a>) -> Self {
        Job {
            message,
            msg_bits: message.len() as u64 * 8,
            out_bits,
            params,
        }
    }

    /// The UBI blocks this computation feeds a datapath of `schedule`'s size, in all (Key,
    /// Config unless precomputed, the optional arguments, the message or tree, Output): the
    /// length of a run before it starts, for a progress meter.
    pub fn ubi_blocks(&self, schedule: &Schedule) -> u64 {
        ubi_blocks(
            schedule.words() as usize,
            self.msg_bits,
            self.out_bits,
            &self.params,
            schedule.config_precomputed(),
        )
    }

    /// Checks what the library would reject, with the library's error, and the simulator's
    /// own limit on the output length ([`MAX_OUT_BITS`]).
    fn check(&self, stream: usize) -> Result<(), SimError> {
        if self.out_bits > MAX_OUT_BITS {
            return Err(SimError::OutputTooLong {
                stream,
                out_bits: self.out_bits,
            });
        }
        self.check_inputs()
            .map_err(|source| SimError::Input { stream, source })
    }

    fn check_inputs(&self) -> Result<(), skeinhw_skein::Error> {
        if self.out_bits == 0 {
            return Err(skeinhw_skein::Error::ZeroOutputLength);
        }
        let available = self.message.len() as u64 * 8;
        if self.msg_bits > available {
            return Err(skeinhw_skein::Error::NotEnoughBits {
                bits: self.msg_bits,
                available,
            });
        }
        if let Some(t) = self.params.tree {
            TreeParams::new(t.leaf, t.fan_out, t.max_height)?;
        }
        Ok(())
    }
}

/// One raw Threefish block with feed-forward, `E(key, tweak, block) ^ block`, as in the
/// reference code's round-by-round examples. `key` and `block` have Nw words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawBlock {
    /// Key words.
    pub key: Vec<u64>,
    /// Tweak words t0, t1.
    pub tweak: [u64; 2],
    /// Plaintext words.
    pub block: Vec<u64>,
}

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// Nothing to simulate.
    #[error("no input: give at least one message")]
    NoInput,
    /// Input `stream` is not a possible Skein computation.
    #[error("message {stream}: {source}")]
    Input {
        /// Index of the input.
        stream: usize,
        /// The library's reason.
        source: skeinhw_skein::Error,
    },
    /// Input `stream` asks for more output than the simulator traces.
    #[error(
        "message {stream}: {out_bits} output bits is beyond the simulator's limit of \
         {MAX_OUT_BITS} bits (skeinhw_sched::sim::MAX_OUT_BITS; `skeinhw hash` streams any length)"
    )]
    OutputTooLong {
        /// Index of the input.
        stream: usize,
        /// Output bits asked for.
        out_bits: u64,
    },
    /// Input `stream` is not a possible Shabal computation.
    #[error("message {stream}: {source}")]
    ShabalInput {
        /// Index of the input.
        stream: usize,
        /// The library's reason.
        source: skeinhw_shabal::Error,
    },
    /// A raw block has the wrong number of words for the schedule's size.
    #[error(
        "raw block {stream}: key and block need {words} words each for {size}, got {key} and {block}"
    )]
    RawWords {
        /// Index of the block.
        stream: usize,
        /// Words needed.
        words: usize,
        /// The schedule's size.
        size: StateSize,
        /// Key words given.
        key: usize,
        /// Block words given.
        block: usize,
    },
    /// The sink could not write.
    #[error("writing the trace: {0}")]
    Sink(#[from] std::io::Error),
}

/// Simulates the Skein computations `jobs` (one stream each, interleaved as the schedule's
/// pipeline allows) cycle by cycle, writing every cycle into `sink`.
pub fn simulate(
    schedule: &Schedule,
    jobs: &[Job<'_>],
    sink: &mut dyn TraceSink,
) -> Result<SimReport, SimError> {
    if jobs.is_empty() {
        return Err(SimError::NoInput);
    }
    for (stream, job) in jobs.iter().enumerate() {
        job.check(stream)?;
    }
    fn go<const N: usize>(
        schedule: &Schedule,
        jobs: &[Job<'_>],
        sink: &mut dyn TraceSink,
    ) -> Result<SimReport, SimError> {
        let programs = jobs
            .iter()
            .map(|j| {
                Program::<N>::skein(
                    j.message,
                    j.msg_bits,
                    j.out_bits,
                    &j.params,
                    schedule.config_precomputed(),
                )
            })
            .collect();
        controller::run::<N>(schedule, programs, sink)
    }
    match schedule.size() {
        StateSize::S256 => go::<4>(schedule, jobs, sink),
        StateSize::S512 => go::<8>(schedule, jobs, sink),
        StateSize::S1024 => go::<16>(schedule, jobs, sink),
    }
}

/// Simulates several Skein computations per stream: `streams[s]` are the messages of stream
/// `s`, run back to back (the next one starts when the previous one's digest has left the
/// datapath, as a hardware stream is fed message after message). Streams interleave as in
/// [`simulate`], which is this with one job per stream. The report's digests are every
/// job's, `streams[0]` first.
pub fn simulate_streams(
    schedule: &Schedule,
    streams: &[Vec<Job<'_>>],
    sink: &mut dyn TraceSink,
) -> Result<SimReport, SimError> {
    if streams.is_empty() || streams.iter().any(Vec::is_empty) {
        return Err(SimError::NoInput);
    }
    for (stream, jobs) in streams.iter().enumerate() {
        for job in jobs {
            job.check(stream)?;
        }
    }
    fn go<const N: usize>(
        schedule: &Schedule,
        streams: &[Vec<Job<'_>>],
        sink: &mut dyn TraceSink,
    ) -> Result<SimReport, SimError> {
        let queues = streams
            .iter()
            .map(|jobs| {
                jobs.iter()
                    .map(|j| {
                        Program::<N>::skein(
                            j.message,
                            j.msg_bits,
                            j.out_bits,
                            &j.params,
                            schedule.config_precomputed(),
                        )
                    })
                    .collect()
            })
            .collect();
        controller::run_queued::<N>(schedule, queues, sink)
    }
    match schedule.size() {
        StateSize::S256 => go::<4>(schedule, streams, sink),
        StateSize::S512 => go::<8>(schedule, streams, sink),
        StateSize::S1024 => go::<16>(schedule, streams, sink),
    }
}

/// Simulates raw Threefish blocks with feed-forward (one stream each); each stream's digest is
/// its output words as little-endian bytes.
pub fn simulate_raw(
    schedule: &Schedule,
    blocks: &[RawBlock],
    sink: &mut dyn TraceSink,
) -> Result<SimReport, SimError> {
    if blocks.is_empty() {
        return Err(SimError::NoInput);
    }
    let words = schedule.words() as usize;
    for (stream, b) in blocks.iter().enumerate() {
        if b.key.len() != words || b.block.len() != words {
            return Err(SimError::RawWords {
                stream,
                words,
                size: schedule.size(),
                key: b.key.len(),
                block: b.block.len(),
            });
        }
    }
    fn go<const N: usize>(
        schedule: &Schedule,
        blocks: &[RawBlock],
        sink: &mut dyn TraceSink,
    ) -> Result<SimReport, SimError> {
        let programs = blocks
            .iter()
            .map(|b| {
                let key: [u64; N] = b.key.as_slice().try_into().expect("length checked");
                let block: [u64; N] = b.block.as_slice().try_into().expect("length checked");
                Program::<N>::raw_block(key, b.tweak, block)
            })
            .collect();
        controller::run::<N>(schedule, programs, sink)
    }
    match schedule.size() {
        StateSize::S256 => go::<4>(schedule, blocks, sink),
        StateSize::S512 => go::<8>(schedule, blocks, sink),
        StateSize::S1024 => go::<16>(schedule, blocks, sink),
    }
}
