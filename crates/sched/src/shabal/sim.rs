//! The cycle simulator of a Shabal schedule: every register after every rising edge, computed
//! with the library's own steps of P (`skeinhw_shabal::perm`), never a second copy of them.
//!
//! Cycle k (0-based) of a pass over a block, with K = 48/f cycles per pass:
//! - k = 0 reads the block from the input port into M and, before its iterations, injects it:
//!   B += M, A\[0..2\] xor W, B <<< 17 (the first pass of a message starts from the built-in
//!   initial value instead of the registers);
//! - every cycle does iterations k f .. k f + f - 1 of P;
//! - k = K - 1 then does the final additions (one three-operand add per A word), C -= M, the
//!   B/C swap and, on every message block but the last, W += 1.
//!
//! A message of n padded blocks takes n passes in phase `message` and three more over its last
//! block in phase `final`; the digest (the last words of C) is on the output lines after the
//! last cycle of the last pass. Messages follow each other with no idle cycle.
//!
//! ```
//! use skeinhw_sched::shabal::{self, sim};
//! let schedule = shabal::preset("shabal-unfold-4")?;
//! let job = sim::ShabalJob::bytes(b"abc");
//! let mut sink = sim::ShabalMemorySink::default();
//! let report = sim::simulate(&schedule, &[job], &mut sink)?;
//! assert_eq!(report.cycles, (1 + 3) * 12);
//! assert_eq!(report.digests[0], skeinhw_shabal::hash(512, b"abc", 24).unwrap());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io;

use serde::{Deserialize, Serialize};
use skeinhw_shabal::constants::BLOCK_WORDS;
use skeinhw_shabal::perm::{self, State};

use crate::shabal::{FINAL_PASSES, ShabalSchedule};
use crate::sim::SimError;

/// Version of the Shabal trace schema: bumped whenever a field changes meaning.
pub const SHABAL_TRACE_SCHEMA_VERSION: u32 = 1;

/// What the core is doing with its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShabalPhase {
    /// No block in the datapath.
    #[default]
    Idle,
    /// A message round (the last block's included).
    Message,
    /// One of the three final rounds on the last block.
    Final,
}

impl ShabalPhase {
    /// Every phase; the index is its number in VCD and Verilog.
    pub const ALL: [ShabalPhase; 3] = [ShabalPhase::Idle, ShabalPhase::Message, ShabalPhase::Final];

    /// The number in VCD and Verilog.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The JSON spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            ShabalPhase::Idle => "idle",
            ShabalPhase::Message => "message",
            ShabalPhase::Final => "final",
        }
    }

    /// The phase for a VCD/Verilog number.
    pub fn from_code(code: u8) -> Option<ShabalPhase> {
        ShabalPhase::ALL.get(usize::from(code)).copied()
    }
}

/// The digest leaving the core: the last `words` words of C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShabalOutput {
    /// The message it belongs to.
    pub stream: u32,
    /// The digest words (the first `words` are used), little-endian bytes of the digest.
    pub data: [u32; BLOCK_WORDS],
}

/// All registers after one rising edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShabalCycleRecord {
    /// Clock cycle, from 1.
    pub cycle: u64,
    /// A block is in the datapath.
    pub valid: bool,
    /// The message (stream) the block belongs to.
    pub stream: u32,
    /// Message or final round.
    pub phase: ShabalPhase,
    /// Pass index within the message: 0..n for the message blocks, n..n+3 for the final rounds.
    pub block: u64,
    /// Iterations of P done in this pass (f, 2f, ..., 48).
    pub iteration: u32,
    /// A, B, C, M and W.
    pub state: State,
    /// Present in the cycle the digest is complete (`out_valid`).
    pub out: Option<ShabalOutput>,
}

/// What a Shabal trace says before its first cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShabalTraceHeader {
    /// [`SHABAL_TRACE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The schedule simulated.
    pub schedule: ShabalSchedule,
    /// Messages simulated.
    pub streams: usize,
}

impl ShabalTraceHeader {
    /// Digest words on the output lines.
    pub fn output_words(&self) -> usize {
        self.schedule.output_words()
    }
}

/// Receives a Shabal trace: the header, one record per cycle, then `finish`.
pub trait ShabalSink {
    /// Called once before the first cycle.
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()>;
    /// Called once per clock cycle, in order.
    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()>;
    /// Called once after the last cycle.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<S: ShabalSink + ?Sized> ShabalSink for &mut S {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        (**self).begin(header)
    }
    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()> {
        (**self).cycle(record)
    }
    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
}

/// Keeps every record in memory (tests, small runs).
#[derive(Clone, Debug, Default)]
pub struct ShabalMemorySink {
    /// The header, once begun.
    pub header: Option<ShabalTraceHeader>,
    /// The records.
    pub records: Vec<ShabalCycleRecord>,
}

impl ShabalSink for ShabalMemorySink {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.header = Some(header.clone());
        Ok(())
    }
    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()> {
        self.records.push(*record);
        Ok(())
    }
}

/// One Shabal message for the simulator.
#[derive(Clone, Copy, Debug)]
pub struct ShabalJob<'a> {
    /// Message bytes; the first `msg_bits` bits are hashed (most significant bit first).
    pub message: &'a [u8],
    /// Message length in bits.
    pub msg_bits: u64,
}

impl<'a> ShabalJob<'a> {
    /// A whole-byte message.
    pub fn bytes(message: &'a [u8]) -> Self {
        ShabalJob {
            message,
            msg_bits: message.len() as u64 * 8,
        }
    }

    /// The cycles this message takes on `schedule`: its padded blocks (the padding adds a 1
    /// bit, so a message of whole blocks gains one) and the three final passes. The run's
    /// report counts the same cycles (a test holds the two together).
    pub fn cycles(&self, schedule: &ShabalSchedule) -> u64 {
        schedule.cycles_per_message(self.msg_bits / u64::from(schedule.block_bits()) + 1)
    }
}

/// What a run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShabalReport {
    /// Clock cycles simulated.
    pub cycles: u64,
    /// Passes of P (message and final rounds) over all messages.
    pub passes: u64,
    /// The digest of every message, in order.
    pub digests: Vec<Vec<u8>>,
}

impl ShabalReport {
    /// Cycles per pass, as measured.
    pub fn cycles_per_block(&self) -> Option<u64> {
        (self.passes > 0).then(|| self.cycles / self.passes)
    }
}

/// Simulates the messages `jobs` one after the other on `schedule`, writing every cycle into
/// `sink`.
pub fn simulate(
    schedule: &ShabalSchedule,
    jobs: &[ShabalJob<'_>],
    sink: &mut dyn ShabalSink,
) -> Result<ShabalReport, SimError> {
    if jobs.is_empty() {
        return Err(SimError::NoInput);
    }
    let messages = jobs
        .iter()
        .enumerate()
        .map(|(stream, j)| {
            skeinhw_shabal::padded_blocks(j.message, j.msg_bits)
                .map_err(|source| SimError::ShabalInput { stream, source })
        })
        .collect::<Result<Vec<_>, _>>()?;
    sink.begin(&ShabalTraceHeader {
        schema_version: SHABAL_TRACE_SCHEMA_VERSION,
        schedule: schedule.clone(),
        streams: jobs.len(),
    })?;
    let out_bits = u64::from(schedule.output_bits());
    let iv = *perm::initial_state(out_bits).expect("validated output size");
    let f = schedule.unfolding() as usize;
    let cycles_per_pass = schedule.cycles_per_block() as usize;
    let mut report = ShabalReport {
        cycles: 0,
        passes: 0,
        digests: Vec::with_capacity(jobs.len()),
    };
    for (stream, blocks) in messages.iter().enumerate() {
        let mut state = iv;
        let passes = blocks.len() + FINAL_PASSES as usize;
        for pass in 0..passes {
            let block = &blocks[pass.min(blocks.len() - 1)];
            let counts = pass + 1 < blocks.len();
            let phase = if pass < blocks.len() {
                ShabalPhase::Message
            } else {
                ShabalPhase::Final
            };
            for k in 0..cycles_per_pass {
                if k == 0 {
                    perm::load_block(&mut state, block);
                    perm::inject_message(&mut state);
                    perm::rotate_b(&mut state);
                }
                for n in k * f..(k + 1) * f {
                    perm::iteration(&mut state, n);
                }
                let last = k + 1 == cycles_per_pass;
                if last {
                    perm::final_additions_per_word(&mut state);
                    perm::extract_message(&mut state);
                    if counts {
                        perm::increment_counter(&mut state);
                    }
                }
                report.cycles += 1;
                let out = (last && pass + 1 == passes)
                    .then(|| shift_digest(state.c, stream as u32, schedule.output_words()));
                sink.cycle(&ShabalCycleRecord {
                    cycle: report.cycles,
                    valid: true,
                    stream: stream as u32,
                    phase,
                    block: pass as u64,
                    iteration: ((k + 1) * f) as u32,
                    state,
                    out,
                })?;
            }
            report.passes += 1;
        }
        let mut digest = vec![0; schedule.output_words() * 4];
        perm::output(&state, &mut digest);
        report.digests.push(digest);
    }
    sink.finish()?;
    Ok(report)
}

/// The output lines carry the digest words first: C\[16 - words\], ..., C\[15\].
fn shift_digest(c: [u32; BLOCK_WORDS], stream: u32, words: usize) -> ShabalOutput {
    let mut data = [0; BLOCK_WORDS];
    data[..words].copy_from_slice(&c[BLOCK_WORDS - words..]);
    ShabalOutput { stream, data }
}
