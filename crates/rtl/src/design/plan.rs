//! The core's plan: its sizes and tables, derived once from the schedule and the features it
//! is built for, and the choice between the full and the lean core ([`Core`]), which each
//! part reads through one named method (`trace_regs`, `position_at_load`, `key_form`,
//! `known_sources`).

use skeinhw_sched::sim::{AdderPool, Datapath, Placement};
use skeinhw_sched::{RoundDatapath, Schedule};
use skeinhw_skein::TreeParams;
use skeinhw_skein::constants::BlockType;
use skeinhw_skein::threefish::{KeySchedule, words_from_bytes};
use skeinhw_trace::names;

use crate::RtlError;
use crate::emit::dec;

/// Width of the per-slot cycle counter: the longest block latency (Skein-1024 with two-cycle
/// rounds, 160 + 1) fits in 8 bits.
pub(crate) const ELAPSED_BITS: u32 = 8;
/// Width of a subkey index (0..=20).
pub(crate) const SUBKEY_BITS: u32 = 5;

/// What a core is built for besides its schedule: the output length and the tree parameters,
/// the two fields of the Config string (Skein 1.3, 3.5.2). A design that precomputes the Config
/// UBI holds its result as a constant, so they are fixed when the core is generated; the
/// optional arguments (personalization, public key, key id, nonce) and the MAC key are per
/// message, on the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Output length in bits (at least 1): ceil(out_bits / 8 / Nb) Output UBI blocks.
    pub out_bits: u64,
    /// Tree hashing (Yl, Yf, Ym): the host arranges the tree through the port.
    pub tree: Option<TreeParams>,
}

impl Features {
    /// Plain Skein: output of the state size, no tree (the checked-in designs).
    pub fn plain(schedule: &Schedule) -> Self {
        Features {
            out_bits: u64::from(schedule.words()) * 64,
            tree: None,
        }
    }
}

/// The longest output a generated core is built for: the golden simulator's limit, so that every
/// core can be checked against it.
pub const MAX_CORE_OUT_BITS: u64 = skeinhw_sched::sim::MAX_OUT_BITS;

/// The design's sizes and tables, derived once.
pub(crate) struct Plan {
    pub(crate) features: Features,
    pub(crate) schedule: Schedule,
    pub(crate) dp: Datapath,
    pub(crate) words: u32,
    pub(crate) streams: u32,
    pub(crate) slots: u32,
    /// Which round unit of a stage does each op (shared with the estimator).
    pub(crate) placement: Placement,
    /// Long 3.4's shared datapaths: the adder pools the units share (shared with the
    /// estimator); `None` for the baseline round, whose units each have their own adders.
    pub(crate) pool: Option<AdderPool>,
    /// The full or the lean core.
    core: Core,
}

/// The two builds of a core ([`crate::Options::lean`]). Only this module matches on it: each
/// part asks the plan the named choices it differs in (`trace_regs`, `position_at_load`,
/// `key_form`, `known_sources`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Core {
    /// Every register the golden trace has.
    Full,
    /// Without the registers and counters only the trace reads ([`crate::LEAN_OMITTED`]),
    /// reading what the schedule makes known rather than selecting it.
    Lean,
}

/// How a key injection makes a subkey word (the key schedule's choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyForm {
    /// One sum per subkey, then a select among the sums (`add_subkey`, `subkey_words`).
    Sums,
    /// The key word, tweak word and counter selected on the subkey first, then added once
    /// (`add_subkey_sel`, `subkey_words_sel`), or read from a rotating key register where the
    /// schedule allows one (`add_subkey_rot`, `subkey_words_rot`).
    Selected,
}

impl Plan {
    pub(crate) fn new(schedule: &Schedule, features: Features) -> Result<Plan, RtlError> {
        if features.out_bits == 0 || features.out_bits > MAX_CORE_OUT_BITS {
            return Err(RtlError::Input(format!(
                "output length {} bits: a core is built for 1 to {MAX_CORE_OUT_BITS} bits",
                features.out_bits
            )));
        }
        if let Some(t) = features.tree {
            TreeParams::new(t.leaf, t.fan_out, t.max_height)
                .map_err(|e| RtlError::Input(format!("tree parameters: {e}")))?;
        }
        let unsupported = |what: &str| RtlError::Unsupported {
            schedule: schedule.name().to_owned(),
            what: what.to_owned(),
        };
        let dp = Datapath::new(schedule);
        if dp.latency() >= 1 << ELAPSED_BITS {
            return Err(unsupported("a block latency of 256 cycles or more"));
        }
        let words = schedule.words();
        let slots = dp.slots() as u32;
        let placement = Placement::new(
            &dp,
            schedule.rounds_per_cycle() / schedule.functional_stages(),
        );
        if let Some(e) = placement.overflow {
            return Err(unsupported(&format!(
                "cycle {e} of a block ({:?}) does not fit a stage of {} round units",
                dp.cycle_ops()[e as usize].ops,
                placement.rounds_per_stage
            )));
        }
        let pool = (schedule.round_datapath() != RoundDatapath::Baseline)
            .then(|| AdderPool::new(&placement));
        Ok(Plan {
            features,
            schedule: schedule.clone(),
            dp,
            words,
            streams: schedule.blocks_in_flight(),
            slots,
            placement,
            pool,
            core: Core::Full,
        })
    }

    /// The same plan for a lean core (see [`crate::Options::lean`]).
    pub(crate) fn lean(mut self, lean: bool) -> Plan {
        self.core = if lean { Core::Lean } else { Core::Full };
        self
    }

    /// Whether the core has the registers and counters only the trace reads: the controller
    /// `phase` and `busy_*` ports, each stream's block index, each slot's `block`, `round` and
    /// `subkey` (the full core; the parts header, ports, stream, issue, ROM, slot, phase).
    pub(crate) fn trace_regs(&self) -> bool {
        self.core == Core::Full
    }

    /// How the key injections make their subkey words (the part key).
    pub(crate) fn key_form(&self) -> KeyForm {
        match self.core {
            Core::Full => KeyForm::Sums,
            Core::Lean => KeyForm::Selected,
        }
    }

    /// Whether a slot's stage, its registers and the feed-forward read the one place their
    /// blocks come from where the schedule makes it known (the lean core), rather than the
    /// slot's arrival select (the parts slot, pool, completion).
    pub(crate) fn known_sources(&self) -> bool {
        self.core == Core::Lean
    }

    /// Whether the input register holds its block's tweak Position (`b<k>_end`), summed when
    /// the block is loaded, instead of the issue summing it: that takes an adder off the
    /// cycle that issues a block, every Long core's critical path. A lean core of one
    /// stream does it; a core of many would need an adder per stream.
    pub(crate) fn position_at_load(&self) -> bool {
        self.core == Core::Lean && self.streams == 1
    }

    /// The per-slot trace fields this core has as registers: all of them, or a lean core's
    /// (without those only the trace reads).
    pub(crate) fn slot_fields(&self) -> Vec<(String, u32)> {
        names::slot_fields(self.words as usize)
            .into_iter()
            .filter(|(f, _)| self.trace_regs() || !crate::LEAN_SLOT_OMITTED.contains(&f.as_str()))
            .collect()
    }

    pub(crate) fn nbits(&self) -> u32 {
        self.words * 64
    }

    /// The one cycle of a block that slot `j` ever holds, if it holds only one (each stage of
    /// a fully pipelined datapath): such a slot needs no cycle counter, and its control is
    /// constant. Written out as constants, this saves synthesis from discovering it one
    /// pipeline register per pass of constant propagation.
    pub(crate) fn fixed_cycle(&self, j: u32) -> Option<u32> {
        let mut cycles = self
            .dp
            .cycle_ops()
            .iter()
            .filter(|op| op.slot == j as usize)
            .map(|op| op.elapsed);
        let first = cycles.next()?;
        cycles.next().is_none().then_some(first)
    }

    /// Whether a block in slot `i` with cycles left moves to slot `j` at the next edge: the
    /// slot's `live` bit, and where the slot's blocks go to different slots, the slot their next
    /// cycle is in.
    pub(crate) fn moves_to(&self, i: usize, j: usize) -> String {
        if self.slots == 1 || self.dp.successors(i).len() == 1 {
            format!("slot{i}_live")
        } else {
            format!(
                "(slot{i}_live && slot_of(slot{i}_elapsed + {}) == {})",
                dec(ELAPSED_BITS, 1),
                dec(8, j as u64)
            )
        }
    }

    /// Whether some slot's blocks go on to different slots, so that [`moves_to`](Self::moves_to)
    /// decodes their cycle with `slot_of` (declared only then).
    pub(crate) fn decodes_slot(&self) -> bool {
        self.slots > 1 && (0..self.slots as usize).any(|i| self.dp.successors(i).len() > 1)
    }

    /// Bits that tell the streams apart: a block's stream is always below `streams`, so the
    /// controller compares these rather than all 32 bits of the trace's stream field.
    pub(crate) fn stream_bits(&self) -> u32 {
        (32 - (self.streams - 1).leading_zeros()).max(1)
    }

    pub(crate) fn kybits(&self) -> u32 {
        (self.words + 1) * 64
    }

    /// Whether the core hashes trees (tree ports and the chain G of the leaves).
    pub(crate) fn tree(&self) -> bool {
        self.features.tree.is_some()
    }

    /// Output UBI blocks per message: ceil(out_bits / 8 / Nb).
    pub(crate) fn out_blocks(&self) -> u64 {
        self.features
            .out_bits
            .div_ceil(8)
            .div_ceil(u64::from(self.words) * 8)
    }

    /// Width of the per-stream Output counter (several Output blocks only).
    pub(crate) fn out_counter_bits(&self) -> u32 {
        (64 - (self.out_blocks() - 1).leading_zeros()).max(1)
    }
}

/// Which key word, tweak word and counter make subkey word `i` of subkey `s`, read off the
/// library's key schedule by feeding it marked words (so the routing is never re-derived
/// here): returns (key word index, tweak word index if added, counter added).
fn subkey_sources<const N: usize>(s: usize, i: usize) -> (usize, Option<usize>, u64) {
    let ks = KeySchedule::<N> {
        key: core::array::from_fn(|j| (j as u64 + 1) << 40),
        key_parity: (N as u64 + 1) << 40,
        tweak: [1 << 20, 2 << 20, 3 << 20],
    };
    let v = ks.subkey_word(s, i);
    let key = (v >> 40) as usize - 1;
    let tweak = ((v >> 20) & 0xf_ffff) as usize;
    let counter = v & 0xf_ffff;
    (key, tweak.checked_sub(1), counter)
}

pub(crate) fn subkey_sources_n(words: u32, s: usize, i: usize) -> (usize, Option<usize>, u64) {
    match words {
        4 => subkey_sources::<4>(s, i),
        8 => subkey_sources::<8>(s, i),
        _ => subkey_sources::<16>(s, i),
    }
}

/// The configuration block (32-byte config string, zero padded) and the chaining value after
/// the Config UBI (the IV of a precomputed design), for the core's output length and tree.
pub(crate) fn config_words(words: u32, features: Features) -> (Vec<u64>, Vec<u64>) {
    let config = skeinhw_skein::config_string(features.out_bits, features.tree);
    fn go<const N: usize>(config: &[u8]) -> (Vec<u64>, Vec<u64>) {
        let mut block = vec![0u8; N * 8];
        block[..config.len()].copy_from_slice(config);
        let w = words_from_bytes::<N>(&block);
        let iv = skeinhw_skein::ubi::ubi::<N>([0; N], config, BlockType::Config);
        (w.to_vec(), iv.to_vec())
    }
    match words {
        4 => go::<4>(&config),
        8 => go::<8>(&config),
        _ => go::<16>(&config),
    }
}

/// Where the blocks that do cycle `e` in slot `j` come from: the issue (`None`, cycle 0) or the
/// slot of cycle `e - 1` (`Some(i)`). The arriving block's cycle picks both the ROM's control
/// and this source, so the source is known for every cycle.
pub(crate) fn cycle_source(plan: &Plan, e: usize) -> Option<usize> {
    e.checked_sub(1).map(|p| plan.dp.cycle_ops()[p].slot)
}

/// The one source of the blocks doing the cycles of slot `j` that `uses` picks, if they all
/// come from one place (see [`cycle_source`]).
pub(crate) fn single_source(
    plan: &Plan,
    j: u32,
    uses: impl Fn(usize) -> bool,
) -> Option<Option<usize>> {
    let ops = plan.dp.cycle_ops();
    let mut sources = (0..ops.len())
        .filter(|&e| ops[e].slot == j as usize && uses(e))
        .map(|e| cycle_source(plan, e));
    let first = sources.next()?;
    sources.all(|s| s == first).then_some(first)
}
