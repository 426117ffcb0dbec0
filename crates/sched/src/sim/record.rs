//! What the trace holds for one clock cycle: the registers of the datapath after the rising
//! edge. These types are the contract between the simulator, the trace writers and readers
//! (`skeinhw-trace`) and the Verilog generator, which names its registers after the fields.
//!
//! Words are fixed-size arrays of the largest state (16 words) so that a record is plain data
//! with no allocation per cycle; `words` says how many are meaningful.

use serde::{Deserialize, Serialize};

/// Version of the trace schema: bumped whenever a field of a record changes meaning.
pub const TRACE_SCHEMA_VERSION: u32 = 1;

/// The most state words of any size (Threefish-1024).
pub const MAX_WORDS: usize = 16;

/// The controller's state (Athanasiou et al. 2013, Fig. 3b: Idle, Key, Config, Message,
/// Output). The optional arguments of Skein (personalization, public key, key identifier,
/// nonce) are UBIs before the message that the FSM has no state for; they run in `Config`, and
/// the tweak register tells them apart by its type field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// No block in the datapath.
    #[default]
    Idle,
    /// Key UBI (Skein-MAC, KDF).
    Key,
    /// Config UBI and the optional arguments.
    Config,
    /// Message UBI (sequential, or the leaves and nodes of tree hashing).
    Message,
    /// Output UBI.
    Output,
}

impl Phase {
    /// Every phase, in FSM order; the index is the phase's number in VCD and Verilog.
    pub const ALL: [Phase; 5] = [
        Phase::Idle,
        Phase::Key,
        Phase::Config,
        Phase::Message,
        Phase::Output,
    ];

    /// The number of the phase in VCD and Verilog (`phase` is a 3-bit register).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The phase for a VCD/Verilog number.
    pub fn from_code(code: u8) -> Option<Phase> {
        Phase::ALL.get(usize::from(code)).copied()
    }

    /// The JSON spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Key => "key",
            Phase::Config => "config",
            Phase::Message => "message",
            Phase::Output => "output",
        }
    }

    /// The phase for its JSON spelling.
    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// 64-bit adders doing work in one cycle, by the role they have in
/// [`crate::AdderCounts`] (the shared adders of the MIX/key overlap count half as MIX, half as
/// subkey adders, as there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AdderBusy {
    /// MIX adders.
    pub mix: u32,
    /// Subkey (key-injection) adders.
    pub subkey: u32,
    /// Key-schedule adders.
    pub key_schedule: u32,
    /// Athanasiou's Key Generation 0.
    pub first_subkey: u32,
}

impl AdderBusy {
    /// All busy adders.
    pub const fn total(&self) -> u32 {
        self.mix + self.subkey + self.key_schedule + self.first_subkey
    }

    /// Adds another cycle's or slot's counts.
    pub fn add(&mut self, other: AdderBusy) {
        self.mix += other.mix;
        self.subkey += other.subkey;
        self.key_schedule += other.key_schedule;
        self.first_subkey += other.first_subkey;
    }
}

/// One pipeline register of the datapath (slot `m * p + j` is stage j of structural module m)
/// and the key/tweak registers of the block it holds.
///
/// A slot with no block keeps what it last held (registers are not cleared) with `valid`
/// false, so that a reader and an RTL simulation see the same values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SlotRecord {
    /// A block is in this register.
    pub valid: bool,
    /// The stream (message index) the block belongs to.
    pub stream: u32,
    /// The controller phase of that stream's block.
    pub phase: Phase,
    /// Index of the block among all UBI blocks of its stream (Key, Config, ..., Output).
    pub block: u64,
    /// Rounds done on the block so far (0..=Nr).
    pub round: u32,
    /// Index of the next subkey to inject (0..=Nr/4 + 1): the key schedule's counter.
    pub subkey: u32,
    /// The state words (the first `words` are used).
    pub state: [u64; MAX_WORDS],
    /// The extended key k_0..k_Nw (the chaining value and its parity word), Nw + 1 used.
    pub key: [u64; MAX_WORDS + 1],
    /// The extended tweak t0, t1, t2.
    pub tweak: [u64; 3],
}

/// A result leaving the datapath: one Output UBI block (Nb bytes of the digest, as words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutputRecord {
    /// The stream it belongs to.
    pub stream: u32,
    /// The output counter i of Skein's output transform (block i of the digest).
    pub index: u64,
    /// The chaining value of that block; its little-endian bytes are the digest bytes.
    pub data: [u64; MAX_WORDS],
}

/// All registers after one rising edge, borrowed from the simulator (no copy per cycle).
#[derive(Clone, Copy, Debug)]
pub struct CycleRecord<'a> {
    /// Clock cycle, from 1 (the first rising edge).
    pub cycle: u64,
    /// The controller phase: that of the lowest-numbered stream with a block in the datapath,
    /// or `Idle`.
    pub phase: Phase,
    /// State words Nw.
    pub words: usize,
    /// The pipeline registers, `functional_stages * structural_stages` of them.
    pub slots: &'a [SlotRecord],
    /// Adders that did work in this cycle.
    pub busy: AdderBusy,
    /// Present in the cycle in which an Output block completes (`out_valid`).
    pub out: Option<OutputRecord>,
    /// The core's `in_ready` port: bit k is 1 when stream k's input register is free, as the
    /// test bench's feed rule fills it ([`crate::sim::feed`]); one bit per stream of the
    /// design ([`TraceHeader::in_ready`]), empty where the run models no feed (raw blocks).
    pub in_ready: &'a [bool],
}

/// An owned [`CycleRecord`], for sinks that keep records and for trace readers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedCycleRecord {
    /// See [`CycleRecord::cycle`].
    pub cycle: u64,
    /// See [`CycleRecord::phase`].
    pub phase: Phase,
    /// See [`CycleRecord::words`].
    pub words: usize,
    /// See [`CycleRecord::slots`].
    pub slots: Vec<SlotRecord>,
    /// See [`CycleRecord::busy`].
    pub busy: AdderBusy,
    /// See [`CycleRecord::out`].
    pub out: Option<OutputRecord>,
    /// See [`CycleRecord::in_ready`].
    pub in_ready: Vec<bool>,
}

impl CycleRecord<'_> {
    /// Copies the record.
    pub fn to_owned(&self) -> OwnedCycleRecord {
        OwnedCycleRecord {
            cycle: self.cycle,
            phase: self.phase,
            words: self.words,
            slots: self.slots.to_vec(),
            busy: self.busy,
            out: self.out,
            in_ready: self.in_ready.to_vec(),
        }
    }
}

impl OwnedCycleRecord {
    /// Borrows the record, as a sink takes it.
    pub fn as_record(&self) -> CycleRecord<'_> {
        CycleRecord {
            cycle: self.cycle,
            phase: self.phase,
            words: self.words,
            slots: &self.slots,
            busy: self.busy,
            out: self.out,
            in_ready: &self.in_ready,
        }
    }
}

/// What a trace says before its first cycle: the schema and the design it is a trace of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceHeader {
    /// [`TRACE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The schedule simulated.
    pub schedule: crate::Schedule,
    /// State words Nw.
    pub words: usize,
    /// Pipeline registers (slots) per record: p x s.
    pub slots: usize,
    /// Independent streams (messages) simulated.
    pub streams: usize,
    /// Bits of `in_ready` per record (the design's streams, [`CycleRecord::in_ready`]); 0 when
    /// the run models no feed, and in traces written before the field existed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub in_ready: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
