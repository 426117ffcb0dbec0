//! The third core style: the RTL that `skeinhw-rtl` generates from a schedule
//! (`crates/rtl/src/design/`), counted element by element from the same schedule.
//!
//! The papers' styles ([`CoreStyle::UbiCore`], [`CoreStyle::HashCore`]) model the designs the
//! papers built; the generated RTL is a different design: it carries the golden trace's
//! registers (per pipeline slot the state, key, tweak, plaintext, stream, phase and cycle
//! count), an input register and a controller context per stream, output registers, and per
//! slot a control ROM that drives a chain of round units whose subkey words come from a
//! `case` over every subkey the unit injects (a slot that only ever holds one cycle of a block
//! has no cycle counter and constant control). This module walks the same placement the
//! generator does (the placement of each cycle's micro-ops on the chain
//! `Add(0), Mix(0), Perm(0), Add(1), ...`, [`Placement`], shared with the generator) and counts:
//!
//! - flip-flops exactly as Yosys keeps them: registers that nothing reads (the trace-only
//!   `round`, `subkey`, `block` and `valid` fields, the stream's block counter) are removed,
//!   as are bits whose next value is a constant (the output index, the busy counters' bits
//!   that no ROM entry sets);
//! - adders by width, including the key-schedule additions `k + t` and `k + s` of every
//!   subkey a slot's units inject (Yosys merges equal ones, so each distinct pair counts once);
//! - selects by their distinct data inputs and select bits (the arrival of a block in a slot,
//!   the subkey word `case`, the rotation `case`, the MIX enable and the permutation enable,
//!   the stream arbitration, the completion bus), XORs by inputs, and the ROMs by their
//!   output bits.
//!
//! Each element becomes an [`Item`] that `device::map` prices with the same rules as the

mod chain;
mod inventory;
mod overhead;
mod plan;

pub use chain::critical_chain;
pub use inventory::inventory;
pub use overhead::{fit_overhead, left_out_luts};

use std::collections::{BTreeMap, BTreeSet};

use skeinhw_sched::RoundDatapath;
use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{AdderPool, Datapath, MicroOp, Placement, PoolOp, Unit};
use skeinhw_skein::constants::{permutation, rotation};
use skeinhw_skein::tweak::BIT_PAD_BIT;

use crate::count::{Adders, Inventory, Item, Kind, Role};
use crate::style::CoreStyle;

const W: u32 = 64;
/// Width of the per-slot cycle counter (`ELAPSED_BITS` in the generator).
const ELAPSED_BITS: u32 = 8;
/// The trace's stream width (`skeinhw_trace::names`): the input port compares all of it; the
/// registers keep only the bits that tell the streams apart ([`stream_bits`]).
const STREAM_BITS: u32 = 32;
const PHASE_BITS: u32 = 3;
/// Input-register flags per stream (full, key, first, last, bitpad) and the byte count.
const BUFFER_FLAGS: u32 = 5;
const BYTES_BITS: u32 = 8;
/// Controller context per stream besides the chain: sequence 3, busy 1, kind 3, last 1,
/// position 64 (the block counter `s<k>_blk` is read only by trace registers: removed).
const CONTEXT_BITS: u32 = 3 + 1 + 3 + 1 + 64;
/// The flag bits of tweak word t1 (BitPad, Type, First, Final, Skein 1.3 Table 5): the rest of
/// t1 is 0 in the generated design (Position above bit 64, reserved, tree level 0).
const TWEAK_FLAG_BITS: u32 = 128 - BIT_PAD_BIT;
/// Tweak flip-flops of a slot: t0, t1's flags and t2's (t2 = t0 ^ t1 elsewhere equals t0, and
/// Yosys merges those flip-flops with t0's).
const TWEAK_BITS: u32 = W + 2 * TWEAK_FLAG_BITS;

/// The ROM values one unit of one slot sees (the default, all zeros, included).
#[derive(Clone, Debug, Default)]
struct UnitValues {
    /// Add: (subkey, first word, end word); Mix: (round mod 8, first pair, end pair).
    values: BTreeSet<(u32, u32, u32)>,
}

/// One pipeline slot of the generated design.
#[derive(Clone, Debug, Default)]
struct Slot {
    units: BTreeMap<Unit, UnitValues>,
    /// Slots whose blocks arrive here (plus the issue, for slot 0).
    sources: BTreeSet<usize>,
    /// Slots this slot's blocks move to (one, in a chain or a ring of stages: then whether a
    /// block moves on needs no decode of its cycle count).
    next: BTreeSet<usize>,
    /// ROM entries (cycles) of this slot.
    cycles: u32,
    /// A block may finish here (the completion bus reads it).
    done: bool,
    /// Busy-counter values of this slot's ROM entries: mix, subkey, key schedule, first subkey.
    busy: [BTreeSet<u32>; 4],
}

/// One layer of a shared datapath's stage (Long 3.4, [`AdderPool`]) as the generator builds
/// it: `adders` pool adders whose operands each (unit, first word or pair) alternative picks.
#[derive(Clone, Debug, Default)]
struct PoolLayer {
    adders: u32,
    /// Per (unit, first word or pair): the subkeys (Add) or rounds mod 8 (Mix) it sees.
    alts: BTreeMap<(Unit, u32), BTreeSet<u32>>,
    /// A permutation unit in the layer.
    perm: bool,
    units: u32,
}

/// The pools of one slot of a shared datapath.
#[derive(Clone, Debug, Default)]
struct PoolSlot {
    load: bool,
    layers: Vec<PoolLayer>,
}

/// The generated design's structure, derived from the schedule as the generator does.
#[derive(Clone, Debug)]
pub struct GeneratedPlan {
    words: u32,
    streams: u32,
    slots: Vec<Slot>,
    /// Per slot, Long 3.4's shared datapaths only: the adder pools the generator builds
    /// instead of the units.
    pools: Option<Vec<PoolSlot>>,
}

/// Bits that tell `streams` streams apart (the generator's `Plan::stream_bits`).
fn stream_bits(streams: u32) -> u32 {
    bit_len(streams.saturating_sub(1)).max(1)
}

/// Bits needed for `v` (0 for 0).
fn bit_len(v: u32) -> u32 {
    32 - v.leading_zeros()
}

/// Subkey word `i` of subkey `s` (Skein 1.3, 3.3.2): key word, tweak word added (if any),
/// counter added.
fn subkey_source(words: u32, s: u32, i: u32) -> (u32, Option<u32>, u32) {
    let key = (s + i) % (words + 1);
    let tweak = if i == words - 3 {
        Some(s % 3)
    } else if i == words - 2 {
        Some((s + 1) % 3)
    } else {
        None
    };
    let counter = if i == words - 1 { s } else { 0 };
    (key, tweak, counter)
}

/// The subkeys a unit's `case (sk)` can select in the netlist: the values its control ROM
/// gives it (the default 0 included). The case lists every subkey, but the index is a function
/// of the arriving cycle count alone, so the mapping (ABC, on the flattened cone from the cycle
/// count through the ROM to the select) drops the cases no cycle reaches; folding only the
/// index bits that no entry sets counted up to 16 cases where a structural-pipeline module
/// sees 4 (ath-8r-3sp: 9.5% under its netlist with this rule, 11.2% over with that one).
fn selectable_subkeys(set: &BTreeSet<(u32, u32, u32)>) -> Vec<u32> {
    let sks: BTreeSet<u32> = set.iter().map(|v| v.0).collect();
    sks.into_iter().collect()
}

/// Flip-flops of the busy counters: with one slot, the bits some ROM entry sets (equal bit
/// columns share a flip-flop); with several, the width of the sum of the slots' values.
fn busy_ffs(plan: &GeneratedPlan) -> u32 {
    let mut total = 0;
    for field in 0..4 {
        let widths: Vec<u32> = plan
            .slots
            .iter()
            .map(|s| bit_len(s.busy[field].iter().fold(0, |a, &v| a | v)))
            .filter(|&w| w > 0)
            .collect();
        total += match widths.len() {
            0 => 0,
            1 => {
                let or = plan
                    .slots
                    .iter()
                    .flat_map(|s| s.busy[field].iter())
                    .fold(0, |a, &v| a | v);
                or.count_ones()
            }
            _ => widths
                .iter()
                .skip(1)
                .fold(widths[0], |acc, &w| acc.max(w) + 1)
                .min(16),
        };
    }
    total
}
