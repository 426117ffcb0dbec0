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
//! other styles (a [`Kind::Logic`] of n inputs is a tree of LUT6s).

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

impl GeneratedPlan {
    /// Places every cycle's micro-ops on the slots' round units, as the generator does.
    pub fn new(schedule: &Schedule) -> GeneratedPlan {
        let dp = Datapath::new(schedule);
        // The generator refuses a schedule whose ops do not fit; this counts what fits.
        let placement = Placement::new(
            &dp,
            schedule.rounds_per_cycle() / schedule.functional_stages(),
        );
        let mut slots = vec![Slot::default(); dp.slots()];
        let ops = dp.cycle_ops();
        for (e, (op, placed)) in ops.iter().zip(&placement.cycles).enumerate() {
            let slot = &mut slots[op.slot];
            slot.cycles += 1;
            slot.done |= op.done;
            for (i, v) in [
                op.busy.mix,
                op.busy.subkey,
                op.busy.key_schedule,
                op.busy.first_subkey,
            ]
            .into_iter()
            .enumerate()
            {
                slot.busy[i].insert(v);
            }
            if e > 0 {
                slot.sources.insert(ops[e - 1].slot);
            }
            for (unit, m) in placed {
                let value = match *m {
                    MicroOp::AddSubkey { subkey, first, end } => (subkey, first, end),
                    MicroOp::Mix { round, first, end } => (round % 8, first, end),
                    MicroOp::Permute => (1, 0, 0),
                };
                slot.units.entry(*unit).or_default().values.insert(value);
            }
        }
        for (i, slot) in slots.iter_mut().enumerate() {
            slot.next = dp.successors(i);
            // The ROM's default (every cycle of the other slots, and past the last one).
            for values in slot.units.values_mut() {
                values.values.insert((0, 0, 0));
            }
            for b in &mut slot.busy {
                b.insert(0);
            }
        }
        slots[0].sources.insert(usize::MAX); // the issue
        let pools = (schedule.round_datapath() != RoundDatapath::Baseline).then(|| {
            let pool = AdderPool::new(&placement);
            let mut out: Vec<PoolSlot> = pool
                .stages
                .iter()
                .map(|st| PoolSlot {
                    load: st.load,
                    layers: st
                        .layers
                        .iter()
                        .map(|l| PoolLayer {
                            adders: l.adders,
                            perm: l.units.iter().any(|u| matches!(u, Unit::Perm(_))),
                            units: l.units.len() as u32,
                            ..PoolLayer::default()
                        })
                        .collect(),
                })
                .collect();
            for (e, ops) in pool.cycles.iter().enumerate() {
                for op in ops {
                    let PoolOp::Layer { layer, unit, op } = op else {
                        continue;
                    };
                    let (first, value) = match *op {
                        MicroOp::AddSubkey { subkey, first, .. } => (first, subkey),
                        MicroOp::Mix { round, first, .. } => (first, round % 8),
                        MicroOp::Permute => continue,
                    };
                    out[placement.slots[e]].layers[*layer]
                        .alts
                        .entry((*unit, first))
                        .or_default()
                        .insert(value);
                }
            }
            out
        });
        GeneratedPlan {
            words: schedule.words(),
            streams: schedule.blocks_in_flight(),
            slots,
            pools,
        }
    }

    /// One line per slot: its sources, and per unit the ROM values it sees.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (j, slot) in self.slots.iter().enumerate() {
            let sources: Vec<String> = slot
                .sources
                .iter()
                .map(|&s| {
                    if s == usize::MAX {
                        "issue".to_owned()
                    } else {
                        format!("slot{s}")
                    }
                })
                .collect();
            out.push_str(&format!(
                "slot{j}: {} cycles, from {}{}\n",
                slot.cycles,
                sources.join(", "),
                if slot.done { ", done here" } else { "" }
            ));
            for (unit, values) in &slot.units {
                let v: Vec<String> = values
                    .values
                    .iter()
                    .map(|(a, b, c)| format!("{a}:{b}..{c}"))
                    .collect();
                out.push_str(&format!("  {unit:?}: {}\n", v.join(" ")));
            }
        }
        out
    }

    /// Pipeline registers (slots).
    pub fn slots(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Streams (blocks in flight): one input register and controller context each.
    pub fn streams(&self) -> u32 {
        self.streams
    }
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

/// The inventory of the generated RTL of `schedule`.
pub fn inventory(schedule: &Schedule) -> Inventory {
    let plan = GeneratedPlan::new(schedule);
    let nw = plan.words;
    let n = nw * W;
    let ky = n + W;
    let ns = plan.streams;
    let mut items = Vec::with_capacity(64);
    let mut push = |role, kind, count: u32, width: u32| {
        if count > 0 && width > 0 {
            items.push(Item {
                role,
                kind,
                count,
                width,
            });
        }
    };
    let reg = Kind::Register { lut_fed: true };
    let logic = |inputs: u32| Kind::Logic { inputs };
    let mux = |fan_in: u32| Kind::Mux {
        fan_in,
        fused: false,
    };
    let fused2 = Kind::Mux {
        fan_in: 2,
        fused: true,
    };
    let adder = Kind::Adder {
        fused_select: false,
    };
    let mut adders = Adders::default();

    // ---- per stream: input register, controller context, their compares and sequencer.
    push(Role::MessageBuffer, reg, ns, BUFFER_FLAGS + BYTES_BITS + n);
    push(Role::BlockStore, reg, ns, n + CONTEXT_BITS);
    // in_stream == k (the port's 32 bits), iss_stream == k and c_stream == k (on the bits that
    // tell the streams apart) and the sequencer.
    let sb = stream_bits(ns);
    push(Role::Control, logic(STREAM_BITS), ns, 1);
    push(Role::Control, logic(sb + 1), ns * 2, 1);
    push(Role::Control, logic(8), ns, 8);

    // ---- the issue: the lowest ready stream's context and buffer, the next block.
    // The grant, stream k ready and none below it: a k+1-input function per stream. g_*: an
    // AND-OR over the one-hot grant (ns data, ns grant bits) of the chain, the buffered
    // block, the position, the byte count and the flags; iss_stream encodes the grant.
    let g_bits = n + n + W + BYTES_BITS + 4;
    if ns > 1 {
        for k in 1..ns {
            push(Role::Control, logic(k + 1), 1, 1);
        }
        push(Role::InputSelect, logic(2 * ns), 1, g_bits);
        push(Role::Control, logic(ns / 2), 1, sb);
    }
    // iss_chain (zero, IV or the chain) and iss_data (buffer, Config string or zero): the
    // sequence decode is shared, each bit a small function.
    push(Role::KeyInputSelect, logic(4), 1, n);
    push(Role::InputSelect, logic(4), 1, n);
    // iss_pos = (first ? 0 : pos) + bytes.
    push(Role::TweakCounter, adder, 1, W);
    adders.total += 1;
    // k_Nw = C240 ^ k_0 ^ ... ^ k_Nw-1.
    push(
        Role::KeyParity,
        Kind::Xor {
            inputs: nw,
            fused_select: false,
        },
        1,
        W,
    );

    // ---- per slot.
    let done_slots = plan.slots.iter().filter(|s| s.done).count() as u32;
    for (slot_index, slot) in plan.slots.iter().enumerate() {
        // Registers: state, key, tweak, plaintext, cycle count (where the slot holds more than
        // one cycle of a block), live, phase, stream.
        let counted = slot.cycles > 1;
        let elapsed_bits = if counted { ELAPSED_BITS } else { 0 };
        push(Role::State, reg, 1, n);
        push(Role::KeyStore, reg, 1, ky + TWEAK_BITS);
        push(Role::BlockStore, reg, 1, n);
        push(Role::Control, reg, 1, elapsed_bits + 1 + PHASE_BITS + sb);
        // Arrival: a priority select over the slots (and the issue) a block comes from,
        // zero when none: f data inputs and f conditions per bit.
        let f = slot.sources.len() as u32;
        let arrive_bits = n + n + ky + W + TWEAK_FLAG_BITS + sb + PHASE_BITS + elapsed_bits;
        push(Role::InputSelect, logic(2 * f), 1, arrive_bits);
        // t2's flag bits, t0 ^ t1 of each source.
        push(Role::InputSelect, logic(3 * f), 1, TWEAK_FLAG_BITS);
        // The arriving cycle count `slot_i_elapsed + 1`, an 8-bit increment per source that
        // counts, and where the source's blocks go to different slots the condition
        // `slot_of(slot_i_elapsed + 1) == j`, a decode (a fixed source's is a constant).
        if plan.slots.len() > 1 {
            let counting: Vec<usize> = slot
                .sources
                .iter()
                .copied()
                .filter(|&i| i != usize::MAX && plan.slots[i].cycles > 1)
                .collect();
            let decoded = counting
                .iter()
                .filter(|&&i| plan.slots[i].next.len() > 1)
                .count() as u32;
            push(Role::Control, adder, counting.len() as u32, ELAPSED_BITS);
            push(Role::Control, logic(ELAPSED_BITS), decoded, 1);
        }
        // The control ROM on the arriving cycle count: each output bit some entry sets.
        // The done bit (the round and subkey outputs feed only trace registers: counted with
        // them, not here).
        let mut rom_bits = 1;
        let pool = plan.pools.as_ref().map(|p| &p[slot_index]);
        if let Some(pool) = pool {
            rom_bits += pool_rom_bits(pool);
        }
        for (unit, values) in slot.units.iter().filter(|_| pool.is_none()) {
            let set = &values.values;
            rom_bits += match unit {
                Unit::Add(_) => {
                    let sk = set.iter().fold(0, |a, v| a | v.0);
                    bit_len(sk).min(5) + nw.min(set.len() as u32)
                }
                Unit::Mix(_) => 3 + (nw / 2).min(set.len() as u32),
                Unit::Perm(_) => 1,
            };
        }
        // A slot that holds one cycle of a block has constant control: no ROM.
        if counted {
            push(Role::Control, logic(ELAPSED_BITS), 1, rom_bits);
        }

        // The stage: the chain of units.
        let mut key_adds: BTreeSet<(u32, u32, u32)> = BTreeSet::new();
        if let Some(pool) = pool {
            pool_items(pool, nw, &mut push, &mut adders, &mut key_adds);
        }
        for (unit, values) in slot.units.iter().filter(|_| pool.is_none()) {
            let set = &values.values;
            match unit {
                Unit::Add(_) => {
                    // One subkey index per unit: every word's `case` is over the subkeys the
                    // unit injects (with some words, or all).
                    let cases = selectable_subkeys(set);
                    for i in 0..nw {
                        if !set.iter().any(|&(_, first, end)| (first..end).contains(&i)) {
                            continue; // no entry adds to word i
                        }
                        let mut exprs = BTreeSet::new();
                        for &s in &cases {
                            let src = subkey_source(nw, s, i);
                            exprs.insert(src);
                            if src.1.is_some() || src.2 != 0 {
                                key_adds.insert((src.0, src.1.map_or(u32::MAX, |t| t), src.2));
                            }
                        }
                        // The subkey word: a case over the selectable subkeys. Yosys
                        // (pmux2shiftx) turns a case whose data are all distinct into a mux
                        // tree indexed by the subkey, padded to a power of two; a case with
                        // repeated data stays a pmux of its d distinct inputs, each with its
                        // decoded condition.
                        let d = exprs.len() as u32;
                        let c = cases.len() as u32;
                        if d > 1 {
                            if d == c {
                                push(Role::RoundKeySelect, mux(c.next_power_of_two()), 1, W);
                            } else {
                                push(Role::RoundKeySelect, logic(2 * d), 1, W);
                            }
                        }
                        // x + k, then the word mask (add or pass).
                        push(Role::SubkeyInjection, adder, 1, W);
                        adders.subkey += 1;
                        push(Role::SubkeyEnable, logic(3), 1, W);
                    }
                }
                Unit::Mix(_) => {
                    let rs: BTreeSet<u32> = set.iter().map(|v| v.0).collect();
                    for j in 0..nw / 2 {
                        let rots: BTreeSet<u32> = rs
                            .iter()
                            .map(|&d| rotation(nw as usize, d as usize, j as usize))
                            .collect();
                        push(Role::Mix, adder, 1, W);
                        adders.mix += 1;
                        let r = rots.len() as u32;
                        // y1 = rotl(x1, R) ^ y0: the rotation case (a mux tree indexed by
                        // the round) and the XOR, in one LUT up to a 2:1 select.
                        if r > 2 {
                            push(Role::RotationSelect, mux(r), 1, W);
                        }
                        push(Role::MixXor, logic(if r > 2 { 2 } else { 4 }), 1, W);
                        // The enable (y or x) costs no LUT of its own: with the
                        // permutation enable after it, it is absorbed by the LUTs in front of
                        // the next carry chain or XOR (in the netlists, each Mix unit after the
                        // first adds about 2 LUTs per MIX bit: the adder's and the XOR's).
                        push(Role::SubkeyEnable, fused2, 1, 2 * W);
                    }
                }
                Unit::Perm(_) => {
                    let pi = permutation(nw as usize);
                    let moved = pi.iter().enumerate().filter(|(w, p)| *w != **p).count() as u32;
                    push(Role::Permutation, fused2, moved, W);
                }
            }
        }
        // Key-schedule additions k + t and k + s, one per distinct pair in the slot; an
        // addition of the constant s needs no LUT in front of its carry chain, and one of t1
        // is as wide as t1's flags (Yosys passes the bits where t1 is 0 through).
        let t1_adds = key_adds.iter().filter(|a| a.1 == 1).count() as u32;
        let tweak_adds = key_adds.iter().filter(|a| a.1 != u32::MAX).count() as u32;
        let counter_adds = key_adds.len() as u32 - tweak_adds;
        push(Role::KeySchedule, adder, tweak_adds - t1_adds, W);
        push(Role::KeySchedule, adder, t1_adds, TWEAK_FLAG_BITS);
        push(Role::KeySchedule, Kind::Carry, counter_adds, W);
        adders.key_schedule += key_adds.len() as u32;

        if slot.done {
            // c_chain = n_st ^ a_plain, selected over the slots a block can finish in.
            push(
                Role::FeedForward,
                logic(2 * done_slots + (done_slots - 1)),
                1,
                n,
            );
        }
    }
    // Busy counters summed over the slots.
    if plan.slots.len() > 1 {
        push(Role::Control, adder, 4 * (plan.slots.len() as u32 - 1), 16);
    }

    // ---- outputs: digest, stream, valid, phase, busy counters.
    push(Role::OutputSelect, reg, 1, n + sb + 1 + PHASE_BITS);
    push(Role::Control, reg, 1, busy_ffs(&plan));
    // Phase: a tournament over the arriving blocks {valid, stream, phase}: per match a
    // comparison of the streams' distinguishing bits and a select of the winner.
    let matches = plan.slots.len() as u32 - 1;
    push(Role::Control, logic(2 * sb + 2), matches, 1);
    push(Role::Control, mux(2), matches, 1 + sb + PHASE_BITS);

    adders.total += adders.mix + adders.subkey + adders.key_schedule;
    Inventory {
        style: CoreStyle::Generated,
        adders,
        rotation_sets: 0,
        items,
    }
}

/// The `lut_overhead_generated` that fits the netlist summaries of every preset: the
/// geometric mean of netlist LUTs over counted LUTs (least squares on the log error), rounded
/// to 4 significant digits.
///
/// Why every preset and not a subset: the factor stands for what the element counts cannot
/// see, chiefly the logic ABC's depth-oriented mapping duplicates, and that varies from design
/// to design by more than the counts explain. Slot 0's round reading a registered copy of the
/// arriving key (`scripts/register-experiment.sh PRESET`) removes 2,111 of `long-iter-512`'s
/// 10,987 LUTs, 156 of `long-iter-256`'s 5,877 and 90 of `long-iter-1024`'s 23,434; the five
/// 256-bit presets the model counts alike have 5,599 to 5,877. Fitted on six presets, one of
/// each kind, the factor was 1.064, pulled up by `long-iter-512` and `ath-8r-3sp`, whose
/// netlists are 13% and 11% above their counted LUTs, the most of the six. One factor is
/// estimated best from every design; each preset's out-of-sample error is the leave-one-out
/// one, with [`left_out_luts`].
pub fn fit_overhead(c: &crate::Constants) -> Result<f64, crate::EstimatorError> {
    let fits = preset_fits(c)?;
    let mean = fits.iter().map(|f| f.log_ratio).sum::<f64>() / fits.len().max(1) as f64;
    Ok(crate::calibrate::round_sig(mean.exp(), 4))
}

/// Per preset, the LUTs the `generated` style gives it with the overhead fitted on the other
/// presets' netlists only (leave-one-out, not rounded): an estimate for a netlist the fit
/// never saw.
pub fn left_out_luts(c: &crate::Constants) -> Result<Vec<(String, u32)>, crate::EstimatorError> {
    let fits = preset_fits(c)?;
    let total: f64 = fits.iter().map(|f| f.log_ratio).sum();
    let others = (fits.len() as f64 - 1.0).max(1.0);
    Ok(fits
        .into_iter()
        .map(|f| {
            let overhead = ((total - f.log_ratio) / others).exp();
            let luts = (f64::from(f.counted) * overhead).round() as u32;
            (f.preset, luts)
        })
        .collect())
}

/// One preset's counted LUTs and the log of its netlist's LUTs over them.
struct PresetFit {
    preset: String,
    counted: u32,
    log_ratio: f64,
}

/// [`PresetFit`] of every preset (each needs its netlist summary).
fn preset_fits(c: &crate::Constants) -> Result<Vec<PresetFit>, crate::EstimatorError> {
    skeinhw_sched::presets()
        .into_iter()
        .map(|schedule| {
            let summary = crate::netlist::summary::NetlistSummary::load(schedule.name())?;
            let counted = crate::device::map(&inventory(&schedule), c).counted_luts;
            Ok(PresetFit {
                preset: schedule.name().to_owned(),
                counted,
                log_ratio: (f64::from(summary.luts) / f64::from(counted.max(1))).ln(),
            })
        })
        .collect()
}

/// LUT levels of an n:1 multiplexer of LUT6s (4:1 each).
fn lut6_mux_levels(fan_in: u32) -> u32 {
    let mut levels = 0;
    let mut n = fan_in;
    while n > 1 {
        n = n.div_ceil(4);
        levels += 1;
    }
    levels
}

/// The longest register-to-register chain of the generated RTL: per slot, the arrival select,
/// then per unit in chain order: a key injection's subkey select, key-schedule addition,
/// injection addition and word mask; a MIX addition, the rotation select and the XOR; and the
/// feed-forward XOR where a block finishes. Returns the chain of the worst slot and its index.
pub fn critical_chain(schedule: &Schedule) -> (u32, crate::timing::Chain) {
    let plan = GeneratedPlan::new(schedule);
    let nw = plan.words;
    let mut worst = (0, crate::timing::Chain::default());
    let mut worst_len = -1.0f64;
    for (j, slot) in plan.slots.iter().enumerate() {
        // The control in front of the datapath: the arriving cycle count `a_e` (an 8-bit
        // increment) and the control ROM on it (two LUT levels); where a source's blocks go
        // to different slots also `slot_of(elapsed + 1) == j`, which picks the arriving block
        // (three more levels). A slot that holds one cycle of a block has constant control.
        let decoded = slot
            .sources
            .iter()
            .any(|&i| i != usize::MAX && plan.slots[i].next.len() > 1);
        let control = match (slot.cycles > 1, decoded) {
            (false, _) => 0,
            (true, true) => 5,
            (true, false) => 2,
        };
        let mut chain = crate::timing::Chain {
            adders: 0,
            lut_levels: 1 + control,
            muxf: 0,
        };
        for (unit, values) in &slot.units {
            let set = &values.values;
            match unit {
                Unit::Add(_) => {
                    let cases = selectable_subkeys(set).len() as u32;
                    chain.lut_levels += lut6_mux_levels(cases) + 1;
                    chain.adders += if cases > 1 { 2 } else { 1 };
                }
                Unit::Mix(_) => {
                    let rs: BTreeSet<u32> = set.iter().map(|v| v.0).collect();
                    let r = (0..nw / 2)
                        .map(|j| {
                            rs.iter()
                                .map(|&d| rotation(nw as usize, d as usize, j as usize))
                                .collect::<BTreeSet<u32>>()
                                .len() as u32
                        })
                        .max()
                        .unwrap_or(1);
                    chain.adders += 1;
                    chain.lut_levels += if r > 2 { lut6_mux_levels(r) + 1 } else { 1 };
                }
                Unit::Perm(_) => {}
            }
        }
        if slot.done {
            chain.lut_levels += 1;
        }
        let len = f64::from(chain.adders) * 10.0 + f64::from(chain.lut_levels);
        if len > worst_len {
            worst_len = len;
            worst = (j as u32, chain);
        }
    }
    worst
}

/// ROM output bits of a slot's pools: the load bit, per layer the unit select, and where it
/// has adders the first word, the adder enables, the subkey and the rotation select.
fn pool_rom_bits(pool: &PoolSlot) -> u32 {
    let mut bits = u32::from(pool.load);
    for l in &pool.layers {
        bits += bit_len(l.units);
        if l.adders > 0 {
            let offs = l.alts.keys().fold(0, |a, (_, f)| a | f);
            bits += bit_len(offs) + l.adders;
            let sk = l
                .alts
                .iter()
                .filter(|((u, _), _)| matches!(u, Unit::Add(_)))
                .flat_map(|(_, v)| v.iter())
                .fold(0, |a, v| a | v);
            bits += bit_len(sk).min(5);
            if l.alts.keys().any(|(u, _)| matches!(u, Unit::Mix(_))) {
                bits += 3;
            }
        }
    }
    bits
}

/// The elements of a slot's pools (Long 3.4): subkey 0's load bank, then per layer its pool
/// adders with their operand selects over the layer's alternatives, the subkey words they
/// pick, the rotation and XOR of the MIX results and the write-back select per word.
fn pool_items(
    pool: &PoolSlot,
    nw: u32,
    push: &mut impl FnMut(Role, Kind, u32, u32),
    adders: &mut Adders,
    key_adds: &mut BTreeSet<(u32, u32, u32)>,
) {
    let adder = Kind::Adder {
        fused_select: false,
    };
    let logic = |inputs: u32| Kind::Logic { inputs };
    let mux = |fan_in: u32| Kind::Mux {
        fan_in,
        fused: false,
    };
    let fused2 = Kind::Mux {
        fan_in: 2,
        fused: true,
    };
    let note_key = |s: u32, i: u32, key_adds: &mut BTreeSet<(u32, u32, u32)>| {
        let src = subkey_source(nw, s, i);
        if src.1.is_some() || src.2 != 0 {
            key_adds.insert((src.0, src.1.map_or(u32::MAX, |t| t), src.2));
        }
        src
    };
    if pool.load {
        for i in 0..nw {
            note_key(0, i, key_adds);
            push(Role::SubkeyInjection, adder, 1, W);
            push(Role::SubkeyEnable, logic(3), 1, W);
        }
        adders.subkey += nw;
    }
    for l in &pool.layers {
        // Writers of each state word (pool results, the permutation), for the write-back.
        let mut writers = vec![0u32; nw as usize];
        for i in 0..l.adders {
            let mut alts = 0;
            let mut key_words = BTreeSet::new();
            let mut rots = BTreeSet::new();
            let mut mix = false;
            let mut has_add = false;
            for ((unit, off), values) in &l.alts {
                let w = off + i;
                match unit {
                    Unit::Add(_) if w < nw => {
                        alts += 1;
                        has_add = true;
                        writers[w as usize] += 1;
                        for &s in values {
                            key_words.insert(note_key(s, w, key_adds));
                        }
                    }
                    Unit::Mix(_) if w < nw / 2 => {
                        alts += 1;
                        mix = true;
                        writers[2 * w as usize] += 1;
                        writers[2 * w as usize + 1] += 1;
                        for &d in values {
                            rots.insert((w, rotation(nw as usize, d as usize, w as usize)));
                        }
                    }
                    _ => {}
                }
            }
            // Alternatives of one kind (words or pairs at other offsets) select the operands
            // in the LUT in front of the carry chain ((s ? a0 : a1) ^ (s ? b0 : b1), five
            // inputs): no LUT of their own in the netlists of long-outshare-256 and
            // long-inshare-256. A subkey word and a MIX pair on one adder (the overlap) need
            // the operand selects and, the sum going to different words, two more selects.
            if alts > 1 && mix && has_add {
                push(Role::InputSelect, mux(alts), 2, W);
                push(Role::SubkeyEnable, logic(2 * alts), 2, W);
            }
            let d = key_words.len() as u32;
            if d > 1 {
                push(Role::RoundKeySelect, logic(2 * d), 1, W);
            }
            push(
                if mix {
                    Role::Mix
                } else {
                    Role::SubkeyInjection
                },
                adder,
                1,
                W,
            );
            if mix {
                adders.mix += 1;
                let r = rots.len() as u32;
                if r > 2 {
                    push(Role::RotationSelect, mux(r), 1, W);
                }
                push(Role::MixXor, logic(if r > 2 { 2 } else { 4 }), 1, W);
            } else {
                adders.subkey += 1;
            }
        }
        // Each word: its writers or the word passed through.
        for &n in &writers {
            if n > 0 {
                push(Role::SubkeyEnable, logic(2 * n + 2), 1, W);
            }
        }
        if l.perm {
            let pi = permutation(nw as usize);
            let moved = pi.iter().enumerate().filter(|(w, p)| *w != **p).count() as u32;
            push(Role::Permutation, fused2, moved, W);
        }
    }
}
