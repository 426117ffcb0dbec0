//! The Shabal model: what an unfolded Shabal core (the Shabal unfolding paper, section III)
//! needs, counted from the schedule's unfolding factor f, mapped with the same device rules
//! and timed with the same delay constants as Skein.
//!
//! What is counted (32-bit words):
//! - registers: A (12 words), B, C and M (16 words each), the block counter W (64 bits) and
//!   the cycle counter of the 48/f cycles of a message round;
//! - per iteration of P (f of them in a cycle): V(x) = 5x = x + (x << 2) as a carry-chain
//!   adder on A\[i-1\] <<< 15; U(y) = 3y = y + (y << 1) as a second adder, whose LUTs also take
//!   the XOR y = A\[i\] ^ V ^ C (the sum bit of y + 2y needs y_i and y_i-1: six inputs); the
//!   new A word U ^ B\[i+13\] ^ (B\[i+9\] & !B\[i+6\]) ^ M\[i\] (NL and the rest of COMBINE, five
//!   inputs), and the new B word (B\[i\] <<< 1) ^ !A (six inputs, a LUT of its own); rotations
//!   and the shift of the NLFSR are wires;
//! - once per core: the message addition B + M and subtraction C - M (16 + 16 adders), the
//!   final additions of C into A as 12 three-operand additions (two adders per word, the
//!   paper's unrolled form), W + 1 (an increment: carry chain only), and the input select of
//!   every register (A: P, final additions or A ^ W; B: P, B + M or C; C: C - M or B; M:
//!   shift or load);
//! - control (FSM, cycle counter decode, the I/O wrapper): `shabal_control_luts`, fitted on
//!   the paper's fit rows (f = 1, 2, 3, 4).
//!
//! The critical path runs through the A chain: per iteration a full V adder (the rotation by
//! 15 puts the last carry bits of the previous A word first), the U adder rippling right
//! behind it (`chained_adder_fraction`), and the LUT of the new A word; after the last
//! iteration the LUT of the new B word (the paper's path from A\[11\] to B\[15\] at f = 1). Nets
//! cost the ISE 13 routing delay (the paper used ISE 11.1) times `shabal_net_factor`, fitted
//! on the same rows: the paper's synthesis options maximized frequency.

use serde::Serialize;
use skeinhw_sched::shabal::ShabalSchedule;

use crate::constants::Constants;
use crate::count::{Item, Kind, Role};
use crate::device::{self, RoleLuts, Rules};
use crate::style::Flow;
use crate::timing;

/// Bits of a Shabal word.
const WORD: u32 = 32;
/// Words of A.
const A_WORDS: u32 = 12;
/// Words of B, C and M.
const BLOCK_WORDS: u32 = 16;
/// Bits of the block counter W.
const COUNTER_BITS: u32 = 64;
/// Control flip-flops: a 6-bit cycle counter (48/f cycles) and a 3-bit phase.
const CONTROL_FFS: u32 = 9;

/// Elements on the critical path of an unfolded Shabal core.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ShabalPath {
    /// Iterations of P on the path (f).
    pub iterations: u32,
    /// Full 32-bit adders (V of every iteration).
    pub full_adders: u32,
    /// Adders rippling right behind another (U of every iteration).
    pub chained_adders: u32,
    /// LUT levels (the new A word of every iteration, the new B word).
    pub lut_levels: u32,
    /// Routed nets (into every adder and LUT, and into the register).
    pub nets: u32,
    /// Register, adders and LUTs, ns.
    pub logic_ns: f64,
    /// Nets, ns.
    pub route_ns: f64,
    /// The clock period, ns.
    pub period_ns: f64,
}

/// The estimate of one Shabal schedule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShabalEstimate {
    /// Schedule name.
    pub schedule: String,
    /// `shabal`.
    pub algorithm: &'static str,
    /// f: iterations of P per cycle.
    pub unfolding: u32,
    /// Digest bits.
    pub output_bits: u32,
    /// Tool flow whose routing delays were used.
    pub flow: Flow,
    /// 32-bit adders (U, V, final, message).
    pub adders: u32,
    /// Logic LUT6s.
    pub luts: u32,
    /// CARRY4s.
    pub carry4: u32,
    /// Flip-flops.
    pub ffs: u32,
    /// LUT-FF pairs.
    pub lut_ff_pairs: u32,
    /// Slices.
    pub slices: u32,
    /// Estimated clock period, ns.
    pub period_ns: f64,
    /// Estimated clock frequency, MHz.
    pub freq_mhz: f64,
    /// Clock used for the throughput: the estimated one or the one given.
    pub clock_mhz: f64,
    /// Cycles per 512-bit block: 48/f.
    pub cycles_per_block: u32,
    /// Blocks in flight: 1.
    pub blocks_in_flight: u32,
    /// Latency of one block, ns, at `clock_mhz`.
    pub latency_ns: f64,
    /// Throughput for long messages at `clock_mhz`, Mbit/s (the paper's TP).
    pub throughput_mbps: f64,
    /// Throughput per LUT-FF pair, Mbit/s.
    pub mbps_per_pair: f64,
    /// Throughput per slice, Mbit/s.
    pub mbps_per_slice: f64,
    /// The path that sets the period.
    pub critical_path: ShabalPath,
    /// Counted LUTs by role, largest first.
    pub lut_breakdown: Vec<RoleLuts>,
}

/// Everything an unfolded Shabal core needs.
pub fn items(schedule: &ShabalSchedule) -> Vec<Item> {
    let f = schedule.unfolding();
    let adders = schedule.adders();
    let mut items = Vec::with_capacity(16);
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
    let adder = Kind::Adder {
        fused_select: false,
    };
    let reg = Kind::Register { lut_fed: true };
    // Registers.
    push(Role::State, reg, A_WORDS + 2 * BLOCK_WORDS, WORD);
    push(Role::MessageBuffer, reg, BLOCK_WORDS, WORD);
    push(Role::TweakCounter, reg, 1, COUNTER_BITS);
    push(Role::Control, reg, 1, CONTROL_FFS);
    // P, f iterations: V, U (with the XOR of A, V and C in its LUTs), the new A, the new B.
    push(Role::Mix, adder, adders.v + adders.u, WORD);
    push(Role::MixXor, Kind::Logic { inputs: 5 }, f, WORD);
    push(Role::MixXor, Kind::Logic { inputs: 6 }, f, WORD);
    // Message add and subtract, final additions, the counter increment.
    push(
        Role::SubkeyInjection,
        adder,
        adders.message_add + adders.message_sub,
        WORD,
    );
    push(Role::FeedForward, adder, adders.final_additions, WORD);
    push(Role::TweakCounter, Kind::Carry, 1, COUNTER_BITS);
    // Register input selects: A (P, final additions, A ^ W), B (P, B + M, C), C (C - M, B),
    // M (shift, load).
    let mux = |fan_in| Kind::Mux {
        fan_in,
        fused: false,
    };
    push(Role::InputSelect, mux(3), A_WORDS, WORD);
    push(Role::InputSelect, mux(3), BLOCK_WORDS, WORD);
    push(Role::InputSelect, mux(2), BLOCK_WORDS, WORD);
    push(Role::InputSelect, mux(2), BLOCK_WORDS, WORD);
    push(Role::Control, Kind::Control, 1, 1);
    items
}

/// The critical path through f iterations of P.
pub fn critical_path(f: u32, c: &Constants, flow: Flow, pairs: u32) -> ShabalPath {
    let net = timing::net_ns(c, flow, pairs) * c.shabal_net_factor;
    let adder = timing::adder_ns(c);
    let full = f;
    let chained = f;
    let luts = f + 1;
    let nets = 3 * f + 1;
    let logic = c.t_register_ns
        + f64::from(full) * adder
        + f64::from(chained) * c.chained_adder_fraction * adder
        + f64::from(luts) * c.t_lut_ns;
    let route = f64::from(nets) * net;
    ShabalPath {
        iterations: f,
        full_adders: full,
        chained_adders: chained,
        lut_levels: luts,
        nets,
        logic_ns: logic,
        route_ns: route,
        period_ns: logic + route,
    }
}

/// Estimates `schedule` in `flow` with `constants`; `freq_mhz` replaces the estimated clock
/// in the throughput and latency.
pub fn estimate(
    schedule: &ShabalSchedule,
    flow: Flow,
    constants: &Constants,
    freq_mhz: Option<f64>,
) -> ShabalEstimate {
    let items = items(schedule);
    let rules = Rules {
        lut6_only_muxes: false,
        overhead: constants.lut_overhead,
        control_luts: constants.shabal_control_luts,
        control_ffs: 0.0,
    };
    let r = device::map_items(&items, &rules, constants);
    let path = critical_path(schedule.unfolding(), constants, flow, r.lut_ff_pairs);
    let freq = 1000.0 / path.period_ns;
    let clock = freq_mhz.unwrap_or(freq);
    let throughput = schedule.throughput_mbps(clock);
    ShabalEstimate {
        schedule: schedule.name().to_owned(),
        algorithm: "shabal",
        unfolding: schedule.unfolding(),
        output_bits: schedule.output_bits(),
        flow,
        adders: schedule.adders().total(),
        luts: r.luts,
        carry4: r.carry4,
        ffs: r.ffs,
        lut_ff_pairs: r.lut_ff_pairs,
        slices: r.slices,
        period_ns: path.period_ns,
        freq_mhz: freq,
        clock_mhz: clock,
        cycles_per_block: schedule.cycles_per_block(),
        blocks_in_flight: schedule.blocks_in_flight(),
        latency_ns: f64::from(schedule.cycles_per_block()) * 1000.0 / clock,
        throughput_mbps: throughput,
        mbps_per_pair: throughput / f64::from(r.lut_ff_pairs.max(1)),
        mbps_per_slice: throughput / f64::from(r.slices.max(1)),
        critical_path: path,
        lut_breakdown: r.breakdown,
    }
}
