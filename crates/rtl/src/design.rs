//! The design: module `skeinhw`, generated from a [`Schedule`].
//!
//! Structure (every name that the golden trace has is a register of that name here, from
//! `skeinhw_trace::names`):
//! - per stream k (one per block in flight): an input register `b<k>_*` filled through the
//!   valid/ready port, and the controller context `s<k>_*` (what comes next in Skein's UBI
//!   sequence, the chaining value, the Position counter);
//! - the issue rule (the simulator's controller): a new block enters slot 0 when no block in
//!   flight is about to use it, lowest ready stream first;
//! - per pipeline register (slot) j: which block arrives (`a<j>_*`), the control ROM on the
//!   arriving block's cycle count (`c<j>_*`, made from `Datapath::cycle_ops`, the list the
//!   simulator executes), the stage's combinational work (`n<j>_st`, on the round units that
//!   `skeinhw_sched::sim::Placement` assigns each op, the same the estimator counts) and the
//!   registers;
//! - the completion bus (feed-forward), the output registers, the phase and busy counters.

use std::collections::BTreeSet;

use skeinhw_sched::sim::{AdderPool, Datapath, Layer, MicroOp, Phase, Placement, PoolOp, Unit};
use skeinhw_sched::{RoundDatapath, Schedule};
use skeinhw_skein::TreeParams;
use skeinhw_skein::constants::{BlockType, C240, permutation, rotation};
use skeinhw_skein::threefish::{KeySchedule, words_from_bytes};
use skeinhw_skein::tweak::{BIT_PAD_BIT, FINAL_BIT, FIRST_BIT, TREE_LEVEL_SHIFT, TYPE_SHIFT};
use skeinhw_trace::names;

use crate::RtlError;
use crate::emit::{Emitter, dec, mask, words_const};

/// Width of the per-slot cycle counter: the longest block latency (Skein-1024 with two-cycle
/// rounds, 160 + 1) fits in 8 bits.
pub(crate) const ELAPSED_BITS: u32 = 8;
/// Width of a subkey index (0..=20).
const SUBKEY_BITS: u32 = 5;

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
    placement: Placement,
    /// Long 3.4's shared datapaths: the adder pools the units share (shared with the
    /// estimator); `None` for the baseline round, whose units each have their own adders.
    pool: Option<AdderPool>,
    /// A lean core: without the registers and counters only the trace reads
    /// ([`crate::LEAN_OMITTED`]).
    pub(crate) lean: bool,
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
            lean: false,
        })
    }

    /// The same plan for a lean core (see [`crate::Options::lean`]).
    pub(crate) fn lean(mut self, lean: bool) -> Plan {
        self.lean = lean;
        self
    }

    /// Whether the input register holds its block's tweak Position (`b<k>_end`), summed when
    /// the block is loaded, instead of the issue summing it: that takes an adder off the
    /// cycle that issues a block, every Long core's critical path. A lean core of one
    /// stream does it; a core of many would need an adder per stream.
    pub(crate) fn position_at_load(&self) -> bool {
        self.lean && self.streams == 1
    }

    /// The per-slot trace fields this core has as registers: all of them, or a lean core's
    /// (without those only the trace reads).
    pub(crate) fn slot_fields(&self) -> Vec<(String, u32)> {
        names::slot_fields(self.words as usize)
            .into_iter()
            .filter(|(f, _)| !(self.lean && crate::LEAN_SLOT_OMITTED.contains(&f.as_str())))
            .collect()
    }

    fn nbits(&self) -> u32 {
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
    fn moves_to(&self, i: usize, j: usize) -> String {
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

    /// Bits that tell the streams apart: a block's stream is always below `streams`, so the
    /// controller compares these rather than all 32 bits of the trace's stream field.
    pub(crate) fn stream_bits(&self) -> u32 {
        (32 - (self.streams - 1).leading_zeros()).max(1)
    }

    fn kybits(&self) -> u32 {
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
    fn out_counter_bits(&self) -> u32 {
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

fn subkey_sources_n(words: u32, s: usize, i: usize) -> (usize, Option<usize>, u64) {
    match words {
        4 => subkey_sources::<4>(s, i),
        8 => subkey_sources::<8>(s, i),
        _ => subkey_sources::<16>(s, i),
    }
}

/// The configuration block (32-byte config string, zero padded) and the chaining value after
/// the Config UBI (the IV of a precomputed design), for the core's output length and tree.
fn config_words(words: u32, features: Features) -> (Vec<u64>, Vec<u64>) {
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

/// The Verilog text of the design.
pub(crate) fn design(plan: &Plan) -> String {
    let mut v = Emitter::new();
    header(&mut v, plan);
    ports(&mut v, plan);
    functions(&mut v, plan);
    declarations(&mut v, plan);
    streams(&mut v, plan);
    issue(&mut v, plan);
    for j in 0..plan.slots {
        slot(&mut v, plan, j);
    }
    completion(&mut v, plan);
    v.close("endmodule");
    v.finish()
}

fn header(v: &mut Emitter, plan: &Plan) {
    let s = &plan.schedule;
    v.line(
        "// Generated by skeinhw-rtl from the schedule below: do not edit by hand (regenerate).",
    );
    v.line(format!("// schedule {}: {}", s.name(), s.source()));
    for l in s.to_json_pretty().lines() {
        v.line(format!("//   {l}"));
    }
    v.line(format!(
        "// Skein-{}: {} words, {} rounds; k = {}, p = {}, s = {}; {} cycles per block, {} block(s) in flight.",
        s.block_bits(),
        plan.words,
        s.rounds(),
        s.rounds_per_cycle(),
        s.functional_stages(),
        s.structural_stages(),
        s.cycles_per_block(),
        s.blocks_in_flight()
    ));
    v.line("//");
    v.line("// Interface: blocks of Key UBI (in_key = 1) and message (in_key = 0) data enter per stream through");
    v.line("// in_valid/in_ready (in_ready has one bit per stream: its input register is free); in_first and");
    v.line("// in_last mark the first and last block of a UBI call, in_bytes is the number of data bytes in the");
    v.line("// block (Position), in_bitpad says the last byte was bit-padded by the sender. The design runs the");
    v.line(
        "// Config UBI (or starts from its precomputed value), the message and the Output UBI and",
    );
    v.line("// presents each Output block on out_data_* with out_valid for one cycle (out_index counts them).");
    header_features(v, plan);
    v.line("// Registers named like the golden trace's signals (skeinhw_trace::names) hold the same values");
    v.line("// after every rising edge.");
    if plan.lean {
        v.line("// Lean build: without the registers only the trace reads (phase, busy_*, slot<i>_block,");
        v.line(
            "// slot<i>_round, slot<i>_subkey); a diff of this core cannot compare those fields.",
        );
    }
    v.line("");
}

/// The header's account of the Skein features: the Config string the core was built for, the
/// optional arguments and (tree cores) the tree protocol on the port.
fn header_features(v: &mut Emitter, plan: &Plan) {
    let f = plan.features;
    let tree = match f.tree {
        Some(t) => format!(
            "tree Yl = {}, Yf = {}, Ym = {}",
            t.leaf, t.fan_out, t.max_height
        ),
        None => "no tree".to_owned(),
    };
    v.line("//");
    v.line(format!(
        "// Built for an output of {} bits ({} Output UBI block(s), counter 0..{}) and {tree}: the Config",
        f.out_bits,
        plan.out_blocks(),
        plan.out_blocks() - 1
    ));
    v.line("// string carries both, so a core that precomputes the Config UBI holds its result as a constant.");
    v.line("// in_type: the UBI type of a block with in_key = 0 (Skein 1.3, Table 6: 8 personalization,");
    v.line("// 12 public key, 16 key identifier, 20 nonce, 48 message; 0 also means message). The host sends");
    v.line("// the optional arguments after the Key UBI and before the message, in type order, as Key blocks");
    v.line("// are sent: in_first/in_last/in_bytes/in_bitpad per UBI call.");
    if plan.tree() {
        v.line("// Tree hashing (the host arranges the tree): in_level is the block's tree level (1: a leaf,");
        v.line("// 2..: a node; 0 outside the tree), in_offset the Position before the call's first block (the");
        v.line("// leaf's or the node's byte offset in its level). Every leaf and node call starts from the chain");
        v.line("// before the message (G); its result comes back on res_data with res_valid/res_stream, and the");
        v.line("// host sends it as a block of the node above (one child result is one block). in_root marks");
        v.line("// the call whose result is the root: the core then runs the Output UBI from it.");
    }
}

fn ports(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    let ns = plan.streams;
    v.open("module skeinhw (");
    v.line("input  wire clk,");
    v.line("input  wire rst, // synchronous, active high");
    v.line("input  wire in_valid,");
    v.line("input  wire [31:0] in_stream,");
    v.line("input  wire in_key,");
    v.line("input  wire in_first,");
    v.line("input  wire in_last,");
    v.line("input  wire [7:0] in_bytes,");
    v.line("input  wire in_bitpad,");
    v.line(format!("input  wire [{}:0] in_data,", nbits - 1));
    v.line("input  wire [5:0] in_type,");
    if plan.tree() {
        v.line("input  wire [6:0] in_level,");
        v.line("input  wire in_root,");
        v.line("input  wire [63:0] in_offset,");
        v.line("output reg  res_valid,");
        v.line("output reg  [31:0] res_stream,");
        v.line(format!("output reg  [{}:0] res_data,", nbits - 1));
    }
    v.line(format!("output wire [{}:0] in_ready,", ns - 1));
    let mut outs = Vec::new();
    if !plan.lean {
        outs.push(format!(
            "output reg  [{}:0] {}",
            names::PHASE_BITS - 1,
            names::PHASE
        ));
    }
    outs.push(format!("output reg  {}", names::OUT_VALID));
    outs.push(format!(
        "output reg  [{}:0] {}",
        names::STREAM_BITS - 1,
        names::OUT_STREAM
    ));
    outs.push(format!(
        "output reg  [{}:0] {}",
        names::INDEX_BITS - 1,
        names::OUT_INDEX
    ));
    for w in 0..plan.words as usize {
        outs.push(format!("output reg  [63:0] {}", names::out_data(w)));
    }
    if !plan.lean {
        for b in names::BUSY {
            outs.push(format!("output reg  [{}:0] {b}", names::BUSY_BITS - 1));
        }
    }
    let last = outs.len() - 1;
    for (i, o) in outs.iter().enumerate() {
        v.line(if i == last {
            o.clone()
        } else {
            format!("{o},")
        });
    }
    v.close(");");
    v.indent_more(); // the module body
    v.line("");
    v.line(format!(
        "localparam [2:0] PH_IDLE = 3'd{}, PH_KEY = 3'd{}, PH_CONFIG = 3'd{}, PH_MESSAGE = 3'd{}, PH_OUTPUT = 3'd{};",
        Phase::Idle.code(),
        Phase::Key.code(),
        Phase::Config.code(),
        Phase::Message.code(),
        Phase::Output.code()
    ));
    v.line("// What a stream does next (s<k>_sq): the controller's Idle/Key/Config/Message/Output sequence.");
    v.line("localparam [2:0] SQ_IDLE = 3'd0, SQ_KEY = 3'd1, SQ_CONFIG = 3'd2, SQ_MESSAGE = 3'd3, SQ_OUTPUT = 3'd4;");
    v.line("");
}

fn functions(v: &mut Emitter, plan: &Plan) {
    let n = plan.words as usize;
    let nbits = plan.nbits();
    // rotl
    v.line("// 64-bit rotation left by a constant (a rotation is wiring).");
    v.open("function [63:0] rotl;");
    v.line("input [63:0] w;");
    v.line("input [5:0] r;");
    v.open("begin");
    v.line("rotl = (w << r) | (w >> (7'd64 - {1'b0, r}));");
    v.close("end");
    v.close("endfunction");
    v.line("");
    // mix layer: a shared datapath computes MIX on its adder pool instead
    if plan.pool.is_none() {
        mix_layer(v, n);
    }
    // permutation
    let pi = permutation(n);
    v.line("// The word permutation pi (Skein 1.3, Table 3): word w of the result is word pi(w).");
    v.open(format!("function [{}:0] permute;", nbits - 1));
    v.line(format!("input [{}:0] x;", nbits - 1));
    v.open("begin");
    for (w, &src) in pi.iter().enumerate() {
        v.line(format!(
            "permute[{} +: 64] = x[{} +: 64]; // PERM w={w} pi={src}",
            64 * w,
            64 * src
        ));
    }
    v.close("end");
    v.close("endfunction");
    v.line("");
    // key injection
    let subkeys = plan.schedule.subkeys() as usize;
    let kybits = plan.kybits();
    v.line("// Key injection: adds the words of subkey sk selected by mask (Skein 1.3, 3.3.2). Subkey word i");
    v.line("// is k[(s+i) mod (Nw+1)], plus t[s mod 3] (i = Nw-3), t[(s+1) mod 3] (i = Nw-2), s (i = Nw-1).");
    v.line("// ky = {k_Nw, ..., k_0}, tw = {t2, t1, t0}.");
    v.open(format!("function [{}:0] add_subkey;", nbits - 1));
    v.line(format!("input [{}:0] x;", nbits - 1));
    v.line(format!("input [{}:0] ky;", kybits - 1));
    v.line("input [191:0] tw;");
    v.line(format!("input [{}:0] sk;", SUBKEY_BITS - 1));
    v.line(format!("input [{}:0] mask;", n - 1));
    v.line(format!("reg [{}:0] k;", nbits - 1));
    v.open("begin");
    v.open("case (sk)");
    for s in 0..subkeys {
        v.open(format!("{}: begin", dec(SUBKEY_BITS, s as u64)));
        for i in 0..n {
            let (key, tweak, counter) = subkey_sources_n(plan.words, s, i);
            let mut expr = format!("ky[{} +: 64]", 64 * key);
            if let Some(t) = tweak {
                expr.push_str(&format!(" + tw[{} +: 64]", 64 * t));
            }
            if counter != 0 {
                expr.push_str(&format!(" + {}", dec(64, counter)));
            }
            v.line(format!(
                "k[{} +: 64] = {expr}; // SUBKEY s={s} i={i}",
                64 * i
            ));
        }
        v.close("end");
    }
    v.line(format!("default: k = {{{nbits}{{1'b0}}}};"));
    v.close("endcase");
    v.line("add_subkey = x;");
    for i in 0..n {
        v.line(format!(
            "if (mask[{i}]) add_subkey[{o} +: 64] = x[{o} +: 64] + k[{o} +: 64];",
            o = 64 * i
        ));
    }
    v.close("end");
    v.close("endfunction");
    v.line("");
    match (plan.pool.is_some(), plan.lean) {
        (true, false) => subkey_words(v, plan),
        (true, true) => subkey_words_selected(v, plan),
        (false, false) => {}
        (false, true) => add_subkey_selected(v, plan),
    }
    match (key_rotation(plan, 0).is_some(), plan.pool.is_some()) {
        (true, false) => rotated_subkey_function(v, plan, true),
        (true, true) => rotated_subkey_function(v, plan, false),
        (false, _) => {}
    }
    tweak_words(v, plan.tree());
    if plan.slots > 1 {
        v.line("// The pipeline register a block is in during its cycle e (the simulator's Datapath::slot).");
        v.open("function [7:0] slot_of;");
        v.line(format!("input [{}:0] e;", ELAPSED_BITS - 1));
        v.open("begin");
        v.open("case (e)");
        for op in plan.dp.cycle_ops() {
            v.line(format!(
                "{}: slot_of = {};",
                dec(ELAPSED_BITS, u64::from(op.elapsed)),
                dec(8, op.slot as u64)
            ));
        }
        v.line("default: slot_of = 8'd0;");
        v.close("endcase");
        v.close("end");
        v.close("endfunction");
        v.line("");
    }
}

/// A lean core's key injection, `add_subkey_sel`: the same sums as `add_subkey`, but each
/// subkey word is built by selecting its key word, tweak word and counter on `sk` first and
/// adding once (one adder chain per word), where `add_subkey` writes one sum per subkey and
/// selects among the sums, which synthesis keeps as one adder per distinct (key, tweak) pair.
/// The routing comes from the library's key schedule ([`subkey_sources_n`]), as there.
fn add_subkey_selected(v: &mut Emitter, plan: &Plan) {
    let n = plan.words as usize;
    let nbits = plan.nbits();
    v.line("// Key injection of the lean core: subkey word i is the key word, tweak word and counter that");
    v.line("// sk selects, added once (the same sums as add_subkey).");
    v.open(format!("function [{}:0] add_subkey_sel;", nbits - 1));
    v.line(format!("input [{}:0] x;", nbits - 1));
    subkey_select_inputs(v, plan);
    v.line(format!("input [{}:0] mask;", n - 1));
    subkey_select_regs(v);
    v.open("begin");
    v.line("add_subkey_sel = x;");
    for i in 0..n {
        let sum = select_subkey_word(v, plan, i);
        // The mask gates the subkey word to 0 (an AND the adder's LUTs absorb) rather than
        // selecting between x and the sum after the adder.
        v.line(format!(
            "add_subkey_sel[{o} +: 64] = x[{o} +: 64] + ({{64{{mask[{i}]}}}} & ({sum}));",
            o = 64 * i
        ));
    }
    v.close("end");
    v.close("endfunction");
    v.line("");
}

/// A lean shared datapath's subkey words, `subkey_words_sel`: the words `subkey_words` gives,
/// selected before they are added (as in [`add_subkey_selected`]), so the shared subkey adders
/// are fed by one key-plus-tweak chain per word instead of a mux over every subkey's sum.
fn subkey_words_selected(v: &mut Emitter, plan: &Plan) {
    let n = plan.words as usize;
    v.line("// Subkey sk's words of the lean core: key word, tweak word and counter selected on sk, then");
    v.line("// added once (the same words as subkey_words).");
    v.open(format!(
        "function [{}:0] subkey_words_sel;",
        plan.nbits() - 1
    ));
    subkey_select_inputs(v, plan);
    subkey_select_regs(v);
    v.open("begin");
    for i in 0..n {
        let sum = select_subkey_word(v, plan, i);
        v.line(format!("subkey_words_sel[{} +: 64] = {sum};", 64 * i));
    }
    v.close("end");
    v.close("endfunction");
    v.line("");
}

fn subkey_select_inputs(v: &mut Emitter, plan: &Plan) {
    v.line(format!("input [{}:0] ky;", plan.kybits() - 1));
    v.line("input [191:0] tw;");
    v.line(format!("input [{}:0] sk;", SUBKEY_BITS - 1));
}

fn subkey_select_regs(v: &mut Emitter) {
    v.line(format!(
        "reg [63:0] kw, tv; reg [{}:0] cv;",
        SUBKEY_BITS - 1
    ));
}

/// Emits the case on `sk` that selects subkey word `i`'s key word (`kw`), tweak word (`tv`)
/// and counter (`cv`), and returns the sum that makes the word of them.
fn select_subkey_word(v: &mut Emitter, plan: &Plan, i: usize) -> String {
    select_subkey_word_from(v, plan, i, None)
}

/// As [`select_subkey_word`]; with `fixed`, the key word is that expression, not selected on
/// `sk`.
fn select_subkey_word_from(v: &mut Emitter, plan: &Plan, i: usize, fixed: Option<&str>) -> String {
    let sources: Vec<_> = (0..plan.schedule.subkeys() as usize)
        .map(|s| subkey_sources_n(plan.words, s, i))
        .collect();
    let tweaked = sources.iter().any(|x| x.1.is_some());
    let counted = sources.iter().any(|x| x.2 != 0);
    v.line(format!("// word {i}"));
    v.open("case (sk)");
    for (s, (key, tweak, counter)) in sources.iter().enumerate() {
        let mut sets = match fixed {
            None => vec![format!("kw = ky[{} +: 64];", 64 * key)],
            Some(_) => Vec::new(),
        };
        if tweaked {
            sets.push(match tweak {
                Some(t) => format!("tv = tw[{} +: 64];", 64 * t),
                None => "tv = 64'd0;".to_owned(),
            });
        }
        if counted {
            sets.push(format!("cv = {};", dec(SUBKEY_BITS, *counter)));
        }
        v.line(format!(
            "{}: begin {} end",
            dec(SUBKEY_BITS, s as u64),
            sets.join(" ")
        ));
    }
    v.line(format!(
        "default: begin {}tv = 64'd0; cv = {}; end",
        if fixed.is_some() { "" } else { "kw = 64'd0; " },
        dec(SUBKEY_BITS, 0)
    ));
    v.close("endcase");
    let mut sum = fixed.unwrap_or("kw").to_owned();
    if tweaked {
        sum.push_str(" + tv");
    }
    if counted {
        sum.push_str(&format!(" + {{{}'d0, cv}}", 64 - SUBKEY_BITS));
    }
    sum
}

/// The tweak words a block carries from slot to slot, rebuilt from t0 and t1 at every arrival.
/// Writing the bits that are always 0 here as constants (Position above bit 64, the reserved
/// bits, tree level 0) and t2 as t0 ^ t1 lets synthesis drop them in one pass; carried from
/// register to register, they would cost Yosys one `opt` pass per pipeline slot.
fn tweak_words(v: &mut Emitter, tree: bool) {
    // t1's lowest carried bit: the tree level's in a tree core, else BitPad's
    let flags = if tree {
        TREE_LEVEL_SHIFT - 64
    } else {
        BIT_PAD_BIT - 64
    };
    v.line("// The tweak words {t2, t1, t0} (Skein 1.3, Table 5 and 3.3.2): t0 is Position (64 bits here), t1");
    v.line(format!(
        "// carries only bits {flags} and up ({}BitPad, Type, First, Final), t2 = t0 ^ t1.",
        if tree {
            "tree level, "
        } else {
            "tree level 0; "
        }
    ));
    v.line("/* verilator lint_off UNUSEDSIGNAL */ // t1's other bits are 0");
    v.open("function [191:0] tweak_words;");
    v.line("input [63:0] t0, t1;");
    v.line("reg [63:0] flags;");
    v.open("begin");
    v.line(format!("flags = {{t1[63:{flags}], {flags}'d0}};"));
    v.line("tweak_words = {t0 ^ flags, flags, t0};");
    v.close("end");
    v.close("endfunction");
    v.line("/* verilator lint_on UNUSEDSIGNAL */");
    v.line("");
}

fn declarations(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    let n = plan.words as usize;
    v.line("// ---- pipeline registers: the trace's slot<i>_* names, plus the cycle count and the plaintext");
    v.line("/* verilator lint_off UNUSEDSIGNAL */ // some trace registers are only observed in the VCD");
    for j in 0..plan.slots as usize {
        for (field, width) in plan.slot_fields() {
            let name = names::slot(j, &field);
            if width == 1 {
                v.line(format!("reg {name};"));
            } else {
                v.line(format!("reg [{}:0] {name};", width - 1));
            }
        }
        v.line(format!(
            "reg slot{j}_live; // holds a block that has cycles left"
        ));
        match plan.fixed_cycle(j as u32) {
            Some(e) => v.line(format!(
                "wire [{}:0] slot{j}_elapsed = {}; // the only cycle of a block this slot holds",
                ELAPSED_BITS - 1,
                dec(ELAPSED_BITS, u64::from(e))
            )),
            None => v.line(format!(
                "reg [{}:0] slot{j}_elapsed; // the block's cycle count (its last cycle e)",
                ELAPSED_BITS - 1
            )),
        }
        v.line(format!(
            "reg [{}:0] slot{j}_plain; // the block's plaintext, for the feed-forward",
            nbits - 1
        ));
        let st: Vec<String> = (0..n)
            .rev()
            .map(|w| names::slot(j, &format!("state_{w}")))
            .collect();
        let ky: Vec<String> = (0..=n)
            .rev()
            .map(|w| names::slot(j, &format!("key_{w}")))
            .collect();
        let tw: Vec<String> = (0..3)
            .rev()
            .map(|t| names::slot(j, &format!("tweak_{t}")))
            .collect();
        v.line(format!(
            "wire [{}:0] slot{j}_st = {{{}}};",
            nbits - 1,
            st.join(", ")
        ));
        v.line(format!(
            "wire [{}:0] slot{j}_ky = {{{}}};",
            kybits - 1,
            ky.join(", ")
        ));
        v.line(format!("wire [191:0] slot{j}_tw = {{{}}};", tw.join(", ")));
    }
    v.line("/* verilator lint_on UNUSEDSIGNAL */");
    v.line("");
}

fn streams(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    let ns = plan.streams;
    let sb = plan.stream_bits();
    let tree = plan.tree();
    let multi = plan.out_blocks() > 1;
    let ocb = plan.out_counter_bits();
    v.line("// ---- per stream: the input register (b<k>_*) and the controller context (s<k>_*)");
    for k in 0..ns {
        v.line(format!(
            "reg b{k}_full, b{k}_key, b{k}_first, b{k}_last, b{k}_bitpad; {} reg [5:0] b{k}_type; reg [{}:0] b{k}_data;",
            if plan.position_at_load() {
                format!("reg [63:0] b{k}_end;")
            } else {
                format!("reg [7:0] b{k}_bytes;")
            },
            nbits - 1
        ));
        v.line(format!(
            "reg [2:0] s{k}_sq; reg s{k}_busy; reg [{}:0] s{k}_chain;{}{} reg [2:0] s{k}_kind; reg s{k}_last;",
            nbits - 1,
            if plan.position_at_load() { String::new() } else { format!(" reg [63:0] s{k}_pos;") },
            if plan.lean { String::new() } else { format!(" reg [63:0] s{k}_blk;") }
        ));
        if multi {
            v.line(format!(
                "reg [{}:0] s{k}_oc; // the Output UBI counter of the next Output block",
                ocb - 1
            ));
        }
        if tree {
            v.line(format!(
                "reg [6:0] b{k}_level; reg b{k}_root; reg [63:0] b{k}_offset; reg [{}:0] s{k}_g; reg s{k}_tl, s{k}_ret; // G, the block in flight is a tree block, its result goes back",
                nbits - 1
            ));
        }
        v.line(format!(
            "wire s{k}_ready = !s{k}_busy && (s{k}_sq == SQ_CONFIG || s{k}_sq == SQ_OUTPUT || b{k}_full);"
        ));
    }
    let full: Vec<String> = (0..ns).rev().map(|k| format!("b{k}_full")).collect();
    v.line(format!(
        "assign in_ready = rst ? {} : ~{{{}}};",
        dec(ns, 0),
        full.join(", ")
    ));
    let ready: Vec<String> = (0..ns).rev().map(|k| format!("s{k}_ready")).collect();
    v.line(format!(
        "wire [{}:0] ready = {{{}}};",
        ns - 1,
        ready.join(", ")
    ));
    v.line("// the lowest-numbered ready stream, one-hot: stream k is ready and none below it is");
    v.line(format!("wire [{}:0] grant;", ns - 1));
    v.line("assign grant[0] = ready[0];");
    for k in 1..ns {
        v.line(format!(
            "assign grant[{k}] = ready[{k}] && !(|ready[{}:0]);",
            k - 1
        ));
    }
    v.line("");
    // Issue / completion wires used by the per-stream blocks.
    v.line("// ---- the issue (iss_*) and the completion (c_*) of this cycle");
    v.line("reg blocked, iss_valid, iss_from_buf, iss_first, iss_last, iss_bitpad; reg [31:0] iss_stream;");
    v.line(format!(
        "reg [2:0] iss_kind; reg [63:0] iss_pos{}; reg [{}:0] iss_chain, iss_data; reg [5:0] iss_type; reg [63:0] iss_t0, iss_t1, iss_parity;",
        if plan.lean { "" } else { ", iss_blk" },
        nbits - 1
    ));
    v.line(format!(
        "reg [2:0] g_sq; reg [{nb}:0] g_chain, g_bdata; reg [63:0] {}; reg g_bkey, g_bfirst, g_blast, g_bbitpad;{} reg [5:0] g_btype; reg [2:0] host_kind;",
        match (plan.position_at_load(), plan.lean) {
            (true, _) => "g_bend",
            (false, true) => "g_pos",
            (false, false) => "g_pos, g_blk",
        },
        if plan.position_at_load() { "" } else { " reg [7:0] g_bbytes;" },
        nb = nbits - 1
    ));
    if multi {
        v.line(format!("reg [{}:0] g_oc;", ocb - 1));
    }
    if tree {
        v.line(format!(
            "reg [6:0] g_blevel, iss_level; reg g_broot, iss_root; reg [63:0] g_boffset; reg [{}:0] g_g;",
            nbits - 1
        ));
    }
    v.line(format!(
        "reg c_valid; reg [31:0] c_stream; reg [2:0] c_phase; reg [{}:0] c_chain;",
        nbits - 1
    ));
    v.line("");
    for k in 0..ns {
        stream(v, plan, k, sb);
    }
    v.line("");
}

/// The registers of stream `k`: its input register and its place in Skein's UBI sequence.
fn stream(v: &mut Emitter, plan: &Plan, k: u32, sb: u32) {
    // s<k>_blk (the block index) is read only by the trace: not in a lean core.
    let (blk0, blk1) = if plan.lean {
        (String::new(), String::new())
    } else {
        (
            format!(" s{k}_blk <= 64'd0;"),
            format!(" s{k}_blk <= s{k}_blk + 64'd1;"),
        )
    };
    let nbits = plan.nbits();
    let tree = plan.tree();
    let multi = plan.out_blocks() > 1;
    let ocb = plan.out_counter_bits();
    // the block's byte count and the stream's position, or (position_at_load) the tweak
    // Position after the block: a first block starts at 0 (a tree block at its offset), a
    // later one where the stream's last ended, which the register still holds (it is loaded
    // only once the block before has been issued)
    let (pos0, pos1) = if plan.position_at_load() {
        (String::new(), String::new())
    } else {
        (
            format!(" s{k}_pos <= 64'd0;"),
            format!(" s{k}_pos <= iss_pos;"),
        )
    };
    let (bytes0, bytes1) = if plan.position_at_load() {
        let base = if tree { "in_offset" } else { "64'd0" };
        (
            format!("b{k}_end <= 64'd0;"),
            format!("b{k}_end <= (in_first ? {base} : b{k}_end) + {{56'd0, in_bytes}};"),
        )
    } else {
        (
            format!("b{k}_bytes <= 8'd0;"),
            format!("b{k}_bytes <= in_bytes;"),
        )
    };
    v.line(format!("// stream {k}"));
    v.open(format!("always @(posedge clk) begin : stream{k}"));
    v.open("if (rst) begin");
    v.line(format!(
        "b{k}_full <= 1'b0; b{k}_key <= 1'b0; b{k}_first <= 1'b0; b{k}_last <= 1'b0; b{k}_bitpad <= 1'b0; {bytes0} b{k}_type <= 6'd0; b{k}_data <= {{{nbits}{{1'b0}}}};"
    ));
    v.line(format!(
        "s{k}_sq <= SQ_IDLE; s{k}_busy <= 1'b0; s{k}_chain <= {{{nbits}{{1'b0}}}};{pos0}{blk0} s{k}_kind <= PH_IDLE; s{k}_last <= 1'b0;"
    ));
    if multi {
        v.line(format!("s{k}_oc <= {};", dec(ocb, 0)));
    }
    if tree {
        v.line(format!(
            "b{k}_level <= 7'd0; b{k}_root <= 1'b0; b{k}_offset <= 64'd0; s{k}_g <= {{{nbits}{{1'b0}}}}; s{k}_tl <= 1'b0; s{k}_ret <= 1'b0;"
        ));
    }
    v.close("end else begin");
    v.indent_more();
    v.open(format!(
        "if (in_valid && in_ready[{k}] && in_stream == {}) begin",
        dec(32, u64::from(k))
    ));
    v.line(format!(
        "b{k}_full <= 1'b1; b{k}_key <= in_key; b{k}_first <= in_first; b{k}_last <= in_last; b{k}_bitpad <= in_bitpad; {bytes1} b{k}_type <= in_type; b{k}_data <= in_data;"
    ));
    if tree {
        v.line(format!(
            "b{k}_level <= in_level; b{k}_root <= in_root; b{k}_offset <= in_offset;"
        ));
    }
    v.close("end");
    v.open(format!(
        "if (iss_valid && iss_stream[{}:0] == {}) begin",
        sb - 1,
        dec(sb, u64::from(k))
    ));
    v.line(format!(
        "s{k}_busy <= 1'b1;{blk1} s{k}_kind <= iss_kind; s{k}_last <= iss_last;"
    ));
    if tree {
        v.line(format!(
            "s{k}_tl <= iss_level != 7'd0; s{k}_ret <= iss_last && iss_level != 7'd0 && !iss_root;"
        ));
        v.line(format!(
            "if (iss_from_buf && iss_first && iss_level != 7'd0) s{k}_g <= iss_chain;"
        ));
    }
    v.open("if (iss_from_buf) begin");
    v.line(format!("b{k}_full <= 1'b0;{pos1}"));
    v.close("end");
    v.close("end");
    v.open(format!(
        "if (c_valid && c_stream[{}:0] == {}) begin",
        sb - 1,
        dec(sb, u64::from(k))
    ));
    v.line(format!("s{k}_busy <= 1'b0;"));
    v.line(format!(
        "if (s{k}_kind != PH_OUTPUT) s{k}_chain <= c_chain; // an Output block leaves the chain for the next"
    ));
    if tree {
        v.line(format!(
            "if (!s{k}_tl) s{k}_g <= c_chain; // G: the chain before the message, where every leaf and node starts"
        ));
    }
    v.open(format!("case (s{k}_kind)"));
    v.line(format!(
        "PH_KEY: s{k}_sq <= s{k}_last ? SQ_CONFIG : SQ_KEY;"
    ));
    v.line(format!(
        "PH_CONFIG: s{k}_sq <= SQ_MESSAGE; // after the Config UBI and each optional argument"
    ));
    let ret = if tree {
        format!(" && !s{k}_ret")
    } else {
        String::new()
    };
    v.line(format!(
        "PH_MESSAGE: s{k}_sq <= (s{k}_last{ret}) ? SQ_OUTPUT : SQ_MESSAGE;"
    ));
    v.open(
        "default: begin // an Output block: after the last, the stream is done and may start again",
    );
    if multi {
        v.open(format!(
            "if (s{k}_oc != {}) begin",
            dec(ocb, plan.out_blocks() - 1)
        ));
        v.line(format!("s{k}_oc <= s{k}_oc + {};", dec(ocb, 1)));
        v.close("end else begin");
        v.indent_more();
        v.line(format!(
            "s{k}_sq <= SQ_IDLE;{blk0} s{k}_oc <= {};",
            dec(ocb, 0)
        ));
        v.close("end");
    } else {
        v.line(format!("s{k}_sq <= SQ_IDLE;{blk0}"));
    }
    v.close("end");
    v.close("endcase");
    v.close("end");
    v.close("end");
    v.close("end");
}

fn issue(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    let n = plan.words as usize;
    let (config, iv) = config_words(plan.words, plan.features);
    let precomputed = plan.schedule.config_precomputed();
    v.line("// ---- the issue rule (the simulator's controller): a block enters slot 0 when no block in flight");
    v.line("// is about to use it; the lowest-numbered ready stream goes first.");
    v.open("always @* begin : issue_rule");
    let mut conds = Vec::new();
    for j in 0..plan.slots {
        let cycles: Vec<u32> = plan
            .dp
            .cycle_ops()
            .iter()
            .filter(|op| op.slot == j as usize && !op.done)
            .map(|op| op.elapsed)
            .filter(|&e| plan.dp.holds_input(e + 1))
            .collect();
        if cycles.is_empty() {
            continue;
        }
        conds.push(plan.moves_to(j as usize, 0));
    }
    if conds.is_empty() {
        v.line("blocked = 1'b0;");
    } else {
        v.line(format!("blocked = {};", conds.join(" || ")));
    }
    // The grant: the lowest-numbered ready stream, one-hot, and its context and input register
    // as an AND-OR over it (a priority chain over the streams would be as deep as they are many).
    let ns = plan.streams;
    v.line("iss_valid = !blocked && |ready;");
    let pick = |width: u32, reg: &dyn Fn(u32) -> String| -> String {
        let terms: Vec<String> = (0..ns)
            .map(|k| {
                if width == 1 {
                    format!("(grant[{k}] & {})", reg(k))
                } else {
                    format!("({{{width}{{grant[{k}]}}}} & {})", reg(k))
                }
            })
            .collect();
        balanced(&terms, "|", &dec(width, 0))
    };
    let streams: Vec<String> = (1..ns)
        .map(|k| format!("(grant[{k}] ? {} : 32'd0)", dec(32, u64::from(k))))
        .collect();
    v.line(format!(
        "iss_stream = {};",
        balanced(&streams, "|", "32'd0")
    ));
    // (field, width, register of stream k: `{prefix}{k}_{name}`)
    let mut fields = vec![
        ("g_sq", 3, "s", "sq"),
        ("g_chain", nbits, "s", "chain"),
        ("g_pos", 64, "s", "pos"),
        ("g_blk", 64, "s", "blk"),
        ("g_bkey", 1, "b", "key"),
        ("g_bfirst", 1, "b", "first"),
        ("g_blast", 1, "b", "last"),
        ("g_bbitpad", 1, "b", "bitpad"),
        ("g_bbytes", 8, "b", "bytes"),
        ("g_bdata", nbits, "b", "data"),
        ("g_btype", 6, "b", "type"),
    ];
    if plan.position_at_load() {
        fields.push(("g_bend", 64, "b", "end"));
    }
    if plan.out_blocks() > 1 {
        fields.push(("g_oc", plan.out_counter_bits(), "s", "oc"));
    }
    if plan.tree() {
        fields.extend([
            ("g_blevel", 7, "b", "level"),
            ("g_broot", 1, "b", "root"),
            ("g_boffset", 64, "b", "offset"),
            ("g_g", nbits, "s", "g"),
        ]);
    }
    // g_blk only carries the block index the trace reads; a Position summed at the load
    // (`position_at_load`) needs neither the stream's position nor the block's bytes
    let fields = fields.into_iter().filter(|f| {
        !(plan.lean && f.0 == "g_blk"
            || plan.position_at_load() && ["g_pos", "g_bbytes"].contains(&f.0))
    });
    for (field, width, prefix, name) in fields {
        let reg = |k: u32| format!("{prefix}{k}_{name}");
        v.line(format!("{field} = {};", pick(width, &reg)));
    }
    v.close("end");
    v.line("");
    v.line("// The block the granted stream issues next, in Skein's order: Key UBI blocks (MAC), the Config");
    v.line(format!(
        "// UBI ({}), the optional arguments and the message blocks (from the port), the Output UBI.",
        if precomputed {
            "precomputed: a plain hash starts from its result, the IV"
        } else {
            "computed"
        }
    ));
    v.open("always @* begin : issue_block");
    v.line("iss_from_buf = 1'b0; iss_kind = PH_OUTPUT; iss_chain = g_chain;");
    v.line(format!(
        "// a block from the port: type 0 or {msg} is the message, another type an optional argument (Config phase)",
        msg = BlockType::Message.value()
    ));
    v.line(format!(
        "host_kind = (g_btype == 6'd0 || g_btype == 6'd{}) ? PH_MESSAGE : PH_CONFIG;",
        BlockType::Message.value()
    ));
    v.open("case (g_sq)");
    v.open("SQ_IDLE: begin");
    v.line(format!("iss_chain = {{{nbits}{{1'b0}}}};"));
    v.open("if (g_bkey) begin");
    v.line("iss_kind = PH_KEY; iss_from_buf = 1'b1;");
    if precomputed {
        v.close("end else begin");
        v.indent_more();
        v.line("iss_kind = host_kind; iss_from_buf = 1'b1;");
        v.line(format!(
            "iss_chain = {}; // IV: the Config UBI's output",
            words_const(&iv)
        ));
    } else {
        v.close("end else begin");
        v.indent_more();
        v.line("iss_kind = PH_CONFIG;");
    }
    v.close("end");
    v.close("end");
    v.line("SQ_KEY: begin iss_kind = PH_KEY; iss_from_buf = 1'b1; end");
    v.line("SQ_CONFIG: iss_kind = PH_CONFIG;");
    v.line("SQ_MESSAGE: begin iss_kind = host_kind; iss_from_buf = 1'b1; end");
    v.line("default: iss_kind = PH_OUTPUT;");
    v.close("endcase");
    v.open("if (iss_from_buf) begin");
    v.line("iss_data = g_bdata; iss_first = g_bfirst; iss_last = g_blast; iss_bitpad = g_bbitpad;");
    if plan.position_at_load() {
        v.line("iss_pos = g_bend; // summed when the block was loaded");
    } else {
        let base = if plan.tree() { "g_boffset" } else { "64'd0" };
        v.line(format!(
            "iss_pos = (g_bfirst ? {base} : g_pos) + {{56'd0, g_bbytes}};"
        ));
    }
    v.close("end else if (iss_kind == PH_CONFIG) begin");
    v.indent_more();
    v.line(format!(
        "iss_data = {}; // the config string: \"SHA3\", version 1, output {} bits{}",
        words_const(&config),
        plan.features.out_bits,
        plan.features
            .tree
            .map(|t| format!(", tree {} {} {}", t.leaf, t.fan_out, t.max_height))
            .unwrap_or_default()
    ));
    v.line(format!(
        "iss_first = 1'b1; iss_last = 1'b1; iss_bitpad = 1'b0; iss_pos = {};",
        dec(64, skeinhw_skein::constants::CONFIG_LEN as u64)
    ));
    v.close("end else begin");
    v.indent_more();
    if plan.out_blocks() > 1 {
        v.line(format!(
            "iss_data = {{{}'d0, g_oc}}; // the output counter as 8 bytes, zero padded",
            nbits - plan.out_counter_bits()
        ));
    } else {
        v.line(format!(
            "iss_data = {{{nbits}{{1'b0}}}}; // the output counter 0 as 8 bytes, zero padded"
        ));
    }
    v.line("iss_first = 1'b1; iss_last = 1'b1; iss_bitpad = 1'b0; iss_pos = 64'd8;");
    v.close("end");
    v.open("case (iss_kind)");
    v.line(format!("PH_KEY: iss_type = 6'd{};", BlockType::Key.value()));
    v.line(format!(
        "PH_CONFIG: iss_type = iss_from_buf ? g_btype : 6'd{};",
        BlockType::Config.value()
    ));
    v.line(format!(
        "PH_MESSAGE: iss_type = 6'd{};",
        BlockType::Message.value()
    ));
    v.line(format!(
        "default: iss_type = 6'd{};",
        BlockType::Output.value()
    ));
    v.close("endcase");
    if plan.tree() {
        v.line("// tree blocks: the level from the port; the first block of a leaf or a node starts from G");
        v.line("iss_level = 7'd0; iss_root = 1'b0;");
        v.open("if (iss_from_buf && !g_bkey) begin");
        v.line("iss_level = g_blevel; iss_root = g_broot;");
        v.line("if (g_bfirst && g_blevel != 7'd0 && g_sq != SQ_IDLE) iss_chain = g_g;");
        v.close("end");
    }
    v.line("// The tweak (Skein 1.3, Table 5): Position in t0 (and the low 32 bits of t1, always 0 here),");
    v.line(format!(
        "// the tree level at bit {}, then BitPad, Type, First, Final.",
        TREE_LEVEL_SHIFT
    ));
    v.line("iss_t0 = iss_pos;");
    v.line("iss_t1 = 64'd0;");
    if plan.tree() {
        v.line(format!(
            "iss_t1[{} +: 7] = iss_level; // TWEAK TreeLevel",
            TREE_LEVEL_SHIFT - 64
        ));
    }
    v.line(format!(
        "iss_t1[{}] = iss_bitpad; // TWEAK BitPad",
        BIT_PAD_BIT - 64
    ));
    v.line(format!(
        "iss_t1[{} +: 6] = iss_type; // TWEAK Type",
        TYPE_SHIFT - 64
    ));
    v.line(format!(
        "iss_t1[{}] = iss_first; // TWEAK First",
        FIRST_BIT - 64
    ));
    v.line(format!(
        "iss_t1[{}] = iss_last; // TWEAK Final",
        FINAL_BIT - 64
    ));
    let parity: Vec<String> = (0..n)
        .map(|w| format!("iss_chain[{} +: 64]", 64 * w))
        .collect();
    v.line(format!(
        "iss_parity = 64'h{C240:016x} ^ {}; // C240 ^ k_0 ^ ... ^ k_Nw-1",
        parity.join(" ^ ")
    ));
    if !plan.lean {
        v.line("iss_blk = g_blk;");
    }
    v.close("end");
    v.line("");
}

/// The ops of cycle `e`, as ROM assignments for slot `j`.
fn rom_entry(plan: &Plan, j: u32, e: u32) -> (String, Vec<String>) {
    let n = plan.words;
    let op = &plan.dp.cycle_ops()[e as usize];
    let mut sets = Vec::new();
    let mut what = Vec::new();
    if let Some(pool) = &plan.pool {
        pooled_rom_entry(plan, pool, j, e, &mut sets, &mut what);
    }
    for (unit, m) in plan.placement.cycles[e as usize]
        .iter()
        .filter(|_| plan.pool.is_none())
    {
        match (unit, m) {
            (Unit::Add(a), MicroOp::AddSubkey { subkey, first, end }) => {
                sets.push(format!(
                    "c{j}_k{a}_sk = {}; c{j}_k{a}_mask = {};",
                    dec(SUBKEY_BITS, u64::from(*subkey)),
                    mask(n, *first, *end)
                ));
                if *first == 0 && *end == n {
                    what.push(format!("subkey {subkey}"));
                } else {
                    what.push(format!("subkey {subkey} words {first}..{}", end - 1));
                }
            }
            (Unit::Mix(u), MicroOp::Mix { round, first, end }) => {
                sets.push(format!(
                    "c{j}_m{u}_rs = 3'd{}; c{j}_m{u}_en = {};",
                    round % 8,
                    mask(n / 2, *first, *end)
                ));
                if *first == 0 && *end == n / 2 {
                    what.push(format!("MIX of round {round}"));
                } else {
                    what.push(format!("MIX {first}..{} of round {round}", end - 1));
                }
            }
            (Unit::Perm(u), MicroOp::Permute) => {
                sets.push(format!("c{j}_p{u} = 1'b1;"));
                what.push("permute".into());
            }
            _ => unreachable!("placed by kind"),
        }
    }
    if !plan.lean {
        sets.push(format!(
            "c{j}_round = {}; c{j}_subkey = {};",
            dec(8, u64::from(op.round)),
            dec(8, u64::from(op.subkey))
        ));
    }
    if let Some(r) = key_rotation(plan, j) {
        if r.rot_cycles.contains(&e) {
            sets.push(format!("c{j}_rot = 1'b1;"));
        }
        if cycle_source(plan, e as usize).is_none() {
            for a in issue_readers(&r) {
                let works = plan.placement.cycles[e as usize]
                    .iter()
                    .any(|(u, _)| *u == Unit::Add(a));
                if works {
                    sets.push(format!("c{j}_k{a}_iss = 1'b1;"));
                }
            }
        }
    }
    if op.done {
        sets.push(format!("c{j}_done = 1'b1;"));
    }
    let b = op.busy;
    let busy = [
        ("bmix", b.mix),
        ("bsub", b.subkey),
        ("bks", b.key_schedule),
        ("bfs", b.first_subkey),
    ];
    for (name, val) in if plan.lean { &busy[..0] } else { &busy[..] } {
        if *val != 0 {
            sets.push(format!("c{j}_{name} = {};", dec(16, u64::from(*val))));
        }
    }
    let comment = if what.is_empty() {
        "no work (first-subkey pass)".to_owned()
    } else {
        what.join(", ")
    };
    (comment, sets)
}

fn slot(v: &mut Emitter, plan: &Plan, j: u32) {
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    let n = plan.words;
    let units = &plan.placement.stage_units[j as usize];
    let ops = plan.dp.cycle_ops();
    v.line(format!(
        "// ==== slot {j}: stage {} of module {} ({} round unit(s))",
        j % plan.schedule.functional_stages(),
        j / plan.schedule.functional_stages(),
        plan.placement.rounds_per_stage
    ));
    let lean = plan.lean;
    // The block index travels with a block only for the trace (`slot<j>_block`).
    let blk = |text: String| if lean { String::new() } else { text };
    v.line(format!(
        "reg a{j}_valid; reg [31:0] a{j}_stream; reg [2:0] a{j}_phase;{}",
        blk(format!(" reg [63:0] a{j}_block;"))
    ));
    // The arriving block's cycle count, where the slot counts (see `Plan::fixed_cycle`).
    let counted = plan.fixed_cycle(j).is_none();
    let set_e = |value: String| {
        if counted {
            format!(" a{j}_e = {value};")
        } else {
            String::new()
        }
    };
    if counted {
        v.line(format!("reg [{}:0] a{j}_e;", ELAPSED_BITS - 1));
    }
    // A lean slot's stage and registers may read their sources directly (`injection_source`,
    // `completion_plain`, `loads_on_issue` below), leaving some of the arrival unread.
    if lean {
        v.line("/* verilator lint_off UNUSEDSIGNAL */ // read directly from the sources where they are one");
    }
    v.line(format!(
        "reg [{}:0] a{j}_st, a{j}_plain, n{j}_st; reg [{}:0] a{j}_ky; reg [191:0] a{j}_tw;",
        nbits - 1,
        kybits - 1
    ));
    if lean {
        v.line("/* verilator lint_on UNUSEDSIGNAL */");
    }
    let mut decl = Vec::new();
    if let Some(pool) = &plan.pool {
        decl.extend(pooled_decl(plan, pool, j));
    }
    for u in units.iter().filter(|_| plan.pool.is_none()) {
        match u {
            Unit::Add(a) => decl.push(format!(
                "reg [{}:0] c{j}_k{a}_sk; reg [{}:0] c{j}_k{a}_mask;",
                SUBKEY_BITS - 1,
                n - 1
            )),
            Unit::Mix(m) => decl.push(format!(
                "reg [2:0] c{j}_m{m}_rs; reg [{}:0] c{j}_m{m}_en;",
                n / 2 - 1
            )),
            Unit::Perm(p) => decl.push(format!("reg c{j}_p{p};")),
        }
    }
    let rot = key_rotation(plan, j);
    if let Some(r) = &rot {
        decl.push(format!(
            "reg c{j}_rot; reg [{}:0] r{j}_ky; // the rotating key schedule",
            kybits - 1
        ));
        for a in issue_readers(r) {
            decl.push(format!(
                "reg c{j}_k{a}_iss; // key injection {a} reads the issue's key"
            ));
        }
    }
    decl.push(if lean {
        format!("reg c{j}_done;")
    } else {
        format!(
            "reg [7:0] c{j}_round, c{j}_subkey; reg c{j}_done; reg [15:0] c{j}_bmix, c{j}_bsub, c{j}_bks, c{j}_bfs;"
        )
    });
    for d in decl {
        v.line(d);
    }
    v.line("");
    // Arrival.
    v.line(format!("// which block enters slot {j} at the next edge"));
    v.open(format!("always @* begin : arrive{j}"));
    v.line(format!(
        "a{j}_valid = 1'b0;{} a{j}_stream = 32'd0; a{j}_phase = PH_IDLE;{}",
        set_e(dec(ELAPSED_BITS, 0)),
        blk(format!(" a{j}_block = 64'd0;"))
    ));
    v.line(format!(
        "a{j}_st = {{{nbits}{{1'b0}}}}; a{j}_plain = {{{nbits}{{1'b0}}}}; a{j}_ky = {{{kybits}{{1'b0}}}}; a{j}_tw = 192'd0;"
    ));
    let mut sources: Vec<usize> = Vec::new();
    for e in 1..ops.len() {
        if ops[e].slot == j as usize && !sources.contains(&ops[e - 1].slot) {
            sources.push(ops[e - 1].slot);
        }
    }
    sources.sort_unstable();
    let mut first = true;
    for i in &sources {
        let cond = plan.moves_to(*i, j as usize);
        if first {
            v.open(format!("if ({cond}) begin"));
            first = false;
        } else {
            v.close(format!("end else if ({cond}) begin"));
            v.indent_more();
        }
        v.line(format!(
            "a{j}_valid = 1'b1;{} a{j}_stream = {}; a{j}_phase = slot{i}_phase;{}",
            set_e(format!("slot{i}_elapsed + {}", dec(ELAPSED_BITS, 1))),
            stream_id(plan, &format!("slot{i}_stream")),
            blk(format!(" a{j}_block = slot{i}_block;"))
        ));
        v.line(format!(
            "a{j}_st = slot{i}_st; a{j}_plain = slot{i}_plain; a{j}_ky = slot{i}_ky; a{j}_tw = tweak_words(slot{i}_tw[0 +: 64], slot{i}_tw[64 +: 64]);"
        ));
    }
    if j == 0 {
        let cond = "iss_valid";
        if first {
            v.open(format!("if ({cond}) begin"));
            first = false;
        } else {
            v.close(format!("end else if ({cond}) begin"));
            v.indent_more();
        }
        v.line("// a new block: the key is the chaining value and its parity, the tweak extended with t2");
        v.line(format!(
            "a{j}_valid = 1'b1;{} a{j}_stream = iss_stream; a{j}_phase = iss_kind;{}",
            set_e(dec(ELAPSED_BITS, 0)),
            blk(format!(" a{j}_block = iss_blk;"))
        ));
        v.line(format!(
            "a{j}_st = iss_data; a{j}_plain = iss_data; a{j}_ky = {{iss_parity, iss_chain}}; a{j}_tw = tweak_words(iss_t0, iss_t1);"
        ));
    }
    if !first {
        v.close("end");
    }
    v.close("end");
    v.line("");
    // ROM.
    v.line(format!(
        "// slot {j}'s control ROM on the arriving block's cycle (from Datapath::cycle_ops)"
    ));
    v.open(format!("always @* begin : rom{j}"));
    let mut defaults = Vec::new();
    if let Some(pool) = &plan.pool {
        defaults.extend(pooled_defaults(plan, pool, j));
    }
    for u in units.iter().filter(|_| plan.pool.is_none()) {
        match u {
            Unit::Add(a) => defaults.push(format!(
                "c{j}_k{a}_sk = {}; c{j}_k{a}_mask = {};",
                dec(SUBKEY_BITS, 0),
                dec(n, 0)
            )),
            Unit::Mix(m) => defaults.push(format!(
                "c{j}_m{m}_rs = 3'd0; c{j}_m{m}_en = {};",
                dec(n / 2, 0)
            )),
            Unit::Perm(p) => defaults.push(format!("c{j}_p{p} = 1'b0;")),
        }
    }
    if let Some(r) = &rot {
        defaults.push(format!("c{j}_rot = 1'b0;"));
        for a in issue_readers(r) {
            defaults.push(format!("c{j}_k{a}_iss = 1'b0;"));
        }
    }
    defaults.push(if lean {
        format!("c{j}_done = 1'b0;")
    } else {
        format!(
            "c{j}_round = 8'd0; c{j}_subkey = 8'd0; c{j}_done = 1'b0; c{j}_bmix = 16'd0; c{j}_bsub = 16'd0; c{j}_bks = 16'd0; c{j}_bfs = 16'd0;"
        )
    });
    for d in defaults {
        v.line(d);
    }
    if let Some(e) = plan.fixed_cycle(j) {
        // Gated by the arrival, which also gives the block a signal to wait on (an `always @*`
        // that reads nothing never runs in Icarus).
        let (comment, sets) = rom_entry(plan, j, e);
        v.line(format!(
            "// cycle {e}, the only one this slot holds: {comment}"
        ));
        v.line(format!(
            "if (a{j}_valid) begin {} end // CYCLE e={e}",
            sets.join(" ")
        ));
    } else {
        v.open(format!("case (a{j}_e)"));
        for op in ops.iter().filter(|op| op.slot == j as usize) {
            let (comment, sets) = rom_entry(plan, j, op.elapsed);
            v.line(format!("// cycle {}: {comment}", op.elapsed));
            v.line(format!(
                "{}: begin {} end // CYCLE e={}",
                dec(ELAPSED_BITS, u64::from(op.elapsed)),
                sets.join(" "),
                op.elapsed
            ));
        }
        v.line("default: ;");
        v.close("endcase");
    }
    v.close("end");
    v.line("");
    // Stage.
    v.line(format!(
        "// slot {j}'s stage: its round units and key injections in chain order"
    ));
    v.open(format!("always @* begin : stage{j}"));
    v.line(format!("n{j}_st = a{j}_st;"));
    if let Some(pool) = &plan.pool {
        pooled_stage(v, plan, pool, j);
    }
    for u in units.iter().filter(|_| plan.pool.is_none()) {
        match u {
            Unit::Add(a) => {
                let (ky, tw) = if plan.lean {
                    injection_source(plan, j, *a)
                } else {
                    (format!("a{j}_ky"), format!("a{j}_tw"))
                };
                let reader = rot
                    .as_ref()
                    .and_then(|r| Some((r, r.readers.iter().find(|x| x.unit == Some(*a))?)));
                let (ky, tw, f) = if let Some((r, reader)) = reader {
                    (rotated_key(plan, j, r, reader), tw, "add_subkey_rot")
                } else if plan.lean {
                    (ky, tw, "add_subkey_sel")
                } else {
                    (ky, tw, "add_subkey")
                };
                v.line(format!(
                    "n{j}_st = {f}(n{j}_st, {ky}, {tw}, c{j}_k{a}_sk, c{j}_k{a}_mask);"
                ))
            }
            Unit::Mix(m) => v.line(format!(
                "n{j}_st = mix_layer(n{j}_st, c{j}_m{m}_rs, c{j}_m{m}_en);"
            )),
            Unit::Perm(p) => v.line(format!("if (c{j}_p{p}) n{j}_st = permute(n{j}_st);")),
        }
    }
    v.close("end");
    v.line("");
    // Registers. A lean slot 0 whose blocks stay in it loads the key, the tweak and the
    // plaintext only from the issue: a block that stays keeps its own, so these registers need
    // an enable, not the arrival select (the same values every cycle).
    let loads_on_issue = loads_on_issue(plan, j);
    if loads_on_issue {
        v.line(format!(
            "wire iss{j}_load = !({}) && iss_valid; // a new block enters slot {j}",
            plan.moves_to(0, 0)
        ));
        v.line(format!(
            "wire [{}:0] iss{j}_ky = {{iss_parity, iss_chain}}; wire [191:0] iss{j}_tw = tweak_words(iss_t0, iss_t1);",
            kybits - 1
        ));
    }
    let (ky, tw, plain) = if loads_on_issue {
        (
            format!("iss{j}_ky"),
            format!("iss{j}_tw"),
            "iss_data".to_owned(),
        )
    } else {
        (
            format!("a{j}_ky"),
            format!("a{j}_tw"),
            format!("a{j}_plain"),
        )
    };
    v.open(format!("always @(posedge clk) begin : slot{j}_regs"));
    v.open("if (rst) begin");
    let mut resets = vec![format!("slot{j}_live <= 1'b0;")];
    if counted {
        resets.push(format!("slot{j}_elapsed <= {};", dec(ELAPSED_BITS, 0)));
    }
    resets.push(format!("slot{j}_plain <= {{{nbits}{{1'b0}}}};"));
    if rot.is_some() {
        resets.push(format!("r{j}_ky <= {{{kybits}{{1'b0}}}};"));
    }
    for (field, width) in plan.slot_fields() {
        resets.push(format!(
            "{} <= {};",
            names::slot(j as usize, &field),
            dec(width, 0)
        ));
    }
    for r in resets {
        v.line(r);
    }
    v.close("end else begin");
    v.indent_more();
    v.line(format!("slot{j}_valid <= a{j}_valid;"));
    v.line(format!("slot{j}_live <= a{j}_valid && !c{j}_done;"));
    v.open(format!("if (a{j}_valid) begin"));
    if counted {
        v.line(format!("slot{j}_elapsed <= a{j}_e;"));
    }
    if !loads_on_issue {
        v.line(format!("slot{j}_plain <= a{j}_plain;"));
    }
    v.line(format!(
        "{} <= a{j}_stream; {} <= a{j}_phase;{}",
        names::slot(j as usize, "stream"),
        names::slot(j as usize, "phase"),
        blk(format!(
            " {} <= a{j}_block; {} <= c{j}_round; {} <= c{j}_subkey;",
            names::slot(j as usize, "block"),
            names::slot(j as usize, "round"),
            names::slot(j as usize, "subkey"),
        ))
    ));
    for w in 0..n as usize {
        v.line(format!(
            "{} <= n{j}_st[{} +: 64];",
            names::slot(j as usize, &format!("state_{w}")),
            64 * w
        ));
    }
    if loads_on_issue {
        v.close("end");
        v.open(format!("if (iss{j}_load) begin"));
        v.line(format!("slot{j}_plain <= {plain};"));
    }
    for w in 0..=n as usize {
        v.line(format!(
            "{} <= {}[{} +: 64];",
            names::slot(j as usize, &format!("key_{w}")),
            ky,
            64 * w
        ));
    }
    for t in 0..3 {
        v.line(format!(
            "{} <= {tw}[{} +: 64];",
            names::slot(j as usize, &format!("tweak_{t}")),
            64 * t
        ));
    }
    if let Some(r) = &rot {
        // loaded in the order of the first subkey, rotated after each subkey
        v.line(format!("r{j}_ky <= {};", words_in_order(&ky, &r.key_load)));
        v.close(format!("end else if (a{j}_valid && c{j}_rot) begin"));
        v.indent_more();
        v.line(format!(
            "r{j}_ky <= {};",
            words_in_order(&format!("r{j}_ky"), &steps_of(&r.key_step, r.stride))
        ));
    }
    v.close("end");
    v.close("end");
    v.close("end");
    v.line("");
}

/// Where the blocks that do cycle `e` in slot `j` come from: the issue (`None`, cycle 0) or the
/// slot of cycle `e - 1` (`Some(i)`). The arriving block's cycle picks both the ROM's control
/// and this source, so the source is known for every cycle.
fn cycle_source(plan: &Plan, e: usize) -> Option<usize> {
    e.checked_sub(1).map(|p| plan.dp.cycle_ops()[p].slot)
}

/// The one source of the blocks doing the cycles of slot `j` that `uses` picks, if they all
/// come from one place (see [`cycle_source`]).
fn single_source(plan: &Plan, j: u32, uses: impl Fn(usize) -> bool) -> Option<Option<usize>> {
    let ops = plan.dp.cycle_ops();
    let mut sources = (0..ops.len())
        .filter(|&e| ops[e].slot == j as usize && uses(e))
        .map(|e| cycle_source(plan, e));
    let first = sources.next()?;
    sources.all(|s| s == first).then_some(first)
}

/// The key and tweak that slot `j`'s key injection `a` reads in a lean core: where all its
/// working cycles come from one place, that place's key and tweak, not the arrival select
/// `a<j>_ky` (the same sums whenever the mask is set, and synthesis no longer merges, and
/// duplicates, the arrival select into the subkey selects); otherwise `a<j>_ky`, `a<j>_tw`.
fn injection_source(plan: &Plan, j: u32, a: u32) -> (String, String) {
    let works = |e: usize| {
        plan.placement.cycles[e]
            .iter()
            .any(|(u, m)| *u == Unit::Add(a) && matches!(m, MicroOp::AddSubkey { .. }))
    };
    match single_source(plan, j, works) {
        Some(None) => (
            "{iss_parity, iss_chain}".to_owned(),
            "tweak_words(iss_t0, iss_t1)".to_owned(),
        ),
        Some(Some(i)) => (
            format!("slot{i}_ky"),
            format!("tweak_words(slot{i}_tw[0 +: 64], slot{i}_tw[64 +: 64])"),
        ),
        None => (format!("a{j}_ky"), format!("a{j}_tw")),
    }
}

/// The key and tweak that layer `l` of a shared slot `j` reads: in a lean core, where all the
/// cycles that add a subkey on it come from one place, that place's (as [`injection_source`]).
fn pool_injection_source(plan: &Plan, pool: &AdderPool, j: u32, l: usize) -> (String, String) {
    let adds = |e: usize| {
        pool.cycles[e].iter().any(|op| {
            matches!(op, PoolOp::Layer { layer, op: MicroOp::AddSubkey { .. }, .. } if *layer == l)
        })
    };
    match single_source(plan, j, adds) {
        Some(Some(i)) if plan.lean => (
            format!("slot{i}_ky"),
            format!("tweak_words(slot{i}_tw[0 +: 64], slot{i}_tw[64 +: 64])"),
        ),
        Some(None) if plan.lean => (
            "{iss_parity, iss_chain}".to_owned(),
            "tweak_words(iss_t0, iss_t1)".to_owned(),
        ),
        _ => (format!("a{j}_ky"), format!("a{j}_tw")),
    }
}

/// Whether a lean slot `j` loads its key, tweak and plaintext only from the issue: slot 0 whose
/// blocks come only from the issue and from itself (a block that stays keeps its own).
fn loads_on_issue(plan: &Plan, j: u32) -> bool {
    let ops = plan.dp.cycle_ops();
    let stays: Vec<usize> = (1..ops.len()).filter(|&e| ops[e].slot == 0).collect();
    plan.lean && j == 0 && !stays.is_empty() && stays.iter().all(|&e| ops[e - 1].slot == 0)
}

/// The working cycles of slot `j`'s key injection `a`, with the subkey each adds, in order.
fn injection_uses(plan: &Plan, j: u32, a: u32) -> Vec<(u32, usize)> {
    let ops = plan.dp.cycle_ops();
    (0..ops.len())
        .filter(|&e| ops[e].slot == j as usize)
        .flat_map(|e| {
            plan.placement.cycles[e]
                .iter()
                .filter_map(move |(u, m)| match (u, m) {
                    (Unit::Add(b), MicroOp::AddSubkey { subkey, .. }) if *b == a => {
                        Some((e as u32, *subkey as usize))
                    }
                    _ => None,
                })
        })
        .collect()
}

/// A lean slot 0's key schedule as a rotating register (`r0_ky`): the key injections that read
/// the slot's own key add subkeys s0, s0 + k, ... in turn (each at a fixed offset from the
/// others: ath-8r's second injection adds the subkey after the first's), so rather than select
/// each subkey word's key word on the subkey number (a (Nw+1)-way select per bit), the register
/// holds the key words in the order of the subkey being added and rotates after each subkey
/// (by k steps); an injection an offset ahead reads it that many steps on, which is wiring. The
/// trace's `slot0_key_*` keep the block's key unrotated. The tweak words stay selected on the
/// subkey (a rotating tweak would not share t2's bits with t0's: more flip-flops). The
/// positions and the rotation are read off the library's key schedule ([`subkey_sources_n`])
/// and checked there for every subkey an injection adds.
struct Rotation {
    /// The key injections that read the register.
    readers: Vec<Reader>,
    /// Key word (0..=Nw) in each register position when the block is issued.
    key_load: Vec<usize>,
    /// The position each position takes its word from at one step.
    key_step: Vec<usize>,
    /// Steps per rotation.
    stride: usize,
    /// The cycles after which the register rotates (the last cycle of a subkey).
    rot_cycles: Vec<u32>,
}

/// An injection's working cycles, each with the subkey it adds then, in order.
type Uses = Vec<(u32, usize)>;

/// A key injection that reads the rotating key register.
struct Reader {
    /// The injection (`None`: a shared datapath's subkey layers, which all read it).
    unit: Option<u32>,
    /// Steps ahead of the register: the injection's subkey is the register's plus this.
    offset: usize,
    /// The subkey the injection adds on the cycle that issues a block, if it works then: that
    /// cycle reads the issue's key (the register is loaded at its end), selected by the ROM's
    /// `c<j>_k<a>_iss`.
    on_issue: Option<usize>,
}

/// Fills `load` (the words in position order) with the words missing from it, and returns the
/// step: position m takes the word that `next[m]` names (the rest in order after them).
fn rotation_step(load: &mut Vec<usize>, next: &[usize], total: usize) -> Option<Vec<usize>> {
    let rest: Vec<usize> = (0..total).filter(|w| !load.contains(w)).collect();
    load.extend(rest);
    let mut targets: Vec<usize> = next.to_vec();
    targets.extend((0..total).filter(|w| !next.contains(w)));
    targets
        .iter()
        .map(|w| load.iter().position(|x| x == w))
        .collect()
}

/// The positions `steps` steps of `step` take each position's word from.
fn steps_of(step: &[usize], steps: usize) -> Vec<usize> {
    (0..steps).fold((0..step.len()).collect(), |pos: Vec<usize>, _| {
        step.iter().map(|&m| pos[m]).collect()
    })
}

/// The key injections of `r` that also work on the cycle that issues a block.
fn issue_readers(r: &Rotation) -> impl Iterator<Item = u32> + '_ {
    r.readers
        .iter()
        .filter(|x| x.on_issue.is_some())
        .filter_map(|x| x.unit)
}

/// The key words (positions 0..Nw-1) that `reader` of slot `j` adds: the rotating register
/// `offset` steps on, or on the cycle that issues a block, the issue's key in the order of the
/// subkey it adds then.
fn rotated_key(plan: &Plan, j: u32, r: &Rotation, reader: &Reader) -> String {
    let n = plan.words as usize;
    let held = if reader.offset == 0 {
        format!("r{j}_ky[{}:0]", plan.nbits() - 1)
    } else {
        words_in_order(
            &format!("r{j}_ky"),
            &steps_of(&r.key_step, reader.offset)[..n],
        )
    };
    match (reader.on_issue, reader.unit) {
        (Some(s), Some(a)) => {
            let issued: Vec<String> = (0..n)
                .rev()
                .map(|i| match subkey_sources_n(plan.words, s, i).0 {
                    w if w == n => "iss_parity".to_owned(),
                    w => format!("iss_chain[{} +: 64]", 64 * w),
                })
                .collect();
            format!("(c{j}_k{a}_iss ? {{{}}} : {held})", issued.join(", "))
        }
        _ => held,
    }
}

/// Slot `j`'s rotating key register (see [`Rotation`]), where the schedule allows one.
fn key_rotation(plan: &Plan, j: u32) -> Option<Rotation> {
    if !plan.lean || !loads_on_issue(plan, j) {
        return None;
    }
    let readers = match &plan.pool {
        Some(pool) => vec![(None, pool_injection_uses(plan, pool, j)?)],
        None => rotating_units(plan, j),
    };
    rotation_of(plan, &readers)
}

/// The key injections of slot `j` whose working cycles all read the slot's own key, but for
/// the cycle that issues a block, with their uses.
fn rotating_units(plan: &Plan, j: u32) -> Vec<(Option<u32>, Uses)> {
    let ops = plan.dp.cycle_ops();
    plan.placement.stage_units[j as usize]
        .iter()
        .filter_map(|u| match u {
            Unit::Add(a) => {
                let uses = injection_uses(plan, j, *a);
                let own = |e: u32| cycle_source(plan, e as usize) == Some(j as usize);
                let readable = uses.iter().all(|&(e, _)| {
                    ops[e as usize].slot == j as usize
                        && (own(e) || cycle_source(plan, e as usize).is_none())
                });
                (readable && uses.iter().any(|&(e, _)| own(e))).then_some((Some(*a), uses))
            }
            _ => None,
        })
        .collect()
}

/// The cycles of a shared slot `j`'s subkey layers with the subkey each adds, in order, if they
/// all read the slot's own key (the load bank's subkey 0 reads the issue's) and no cycle adds
/// two subkeys.
fn pool_injection_uses(plan: &Plan, pool: &AdderPool, j: u32) -> Option<Vec<(u32, usize)>> {
    let ops = plan.dp.cycle_ops();
    let mut uses: Vec<(u32, usize)> = Vec::new();
    for (e, cycle) in pool.cycles.iter().enumerate() {
        for op in cycle {
            if let PoolOp::Layer {
                op: MicroOp::AddSubkey { subkey, .. },
                ..
            } = op
            {
                if ops[e].slot != j as usize {
                    continue;
                }
                if cycle_source(plan, e) != Some(j as usize) {
                    return None;
                }
                match uses.last() {
                    Some(&(le, ls)) if le == e as u32 && ls != *subkey as usize => return None,
                    Some(&(le, _)) if le == e as u32 => {}
                    _ => uses.push((e as u32, *subkey as usize)),
                }
            }
        }
    }
    (!uses.is_empty()).then_some(uses)
}

/// The rotation that serves `readers` (each injection's cycles and the subkeys it adds, in
/// order), if on the slot's own cycles they all start together and each adds the subkey a
/// fixed offset from the others', the subkeys advance by a fixed stride, and the library's key
/// schedule agrees at every one. An injection may also work on the cycle that issues a block.
fn rotation_of(plan: &Plan, readers: &[(Option<u32>, Uses)]) -> Option<Rotation> {
    let n = plan.words as usize;
    let issued = |e: u32| cycle_source(plan, e as usize).is_none();
    // Each reader's uses on the slot's own cycles, and the subkey it adds on the issue's.
    let mut own: Vec<Uses> = Vec::new();
    let mut on_issue: Vec<Option<usize>> = Vec::new();
    for (_, uses) in readers {
        let (iss, mine): (Vec<_>, Vec<_>) = uses.iter().partition(|u| issued(u.0));
        match iss[..] {
            [] => on_issue.push(None),
            [(_, s)] => on_issue.push(Some(s)),
            _ => return None,
        }
        own.push(mine);
    }
    let first = own
        .iter()
        .map(|u| u.first().map(|f| f.0))
        .collect::<Option<Vec<_>>>()?;
    let e0 = *first.first()?;
    if first.iter().any(|&e| e != e0) {
        return None;
    }
    let base0 = own.iter().map(|u| u[0].1).min()?;
    let offsets: Vec<usize> = own.iter().map(|u| u[0].1 - base0).collect();
    // The register's subkey on each own cycle, the same for every reader working then.
    let mut bases: Vec<(u32, usize)> = own
        .iter()
        .zip(&offsets)
        .flat_map(|(uses, &o)| uses.iter().map(move |&(e, s)| (e, s.checked_sub(o))))
        .map(|(e, s)| s.map(|s| (e, s)))
        .collect::<Option<Vec<_>>>()?;
    bases.sort_unstable();
    bases.dedup();
    if bases
        .windows(2)
        .any(|w| w[0].0 == w[1].0 || w[1].1 < w[0].1)
    {
        return None;
    }
    let mut strides: Vec<usize> = bases.windows(2).map(|w| w[1].1 - w[0].1).collect();
    strides.retain(|&k| k != 0);
    strides.dedup();
    let [stride] = strides[..] else { return None };
    let table = |s: usize, i: usize| subkey_sources_n(plan.words, s, i);
    let mut key_load: Vec<usize> = (0..n).map(|i| table(base0, i).0).collect();
    let key_next: Vec<usize> = (0..n).map(|i| table(base0 + 1, i).0).collect();
    let key_step = rotation_step(&mut key_load, &key_next, n + 1)?;
    let rot_cycles: Vec<u32> = bases
        .windows(2)
        .filter(|w| w[1].1 != w[0].1)
        .map(|w| w[0].0)
        .collect();
    // Check every subkey each injection adds against the key schedule.
    let rotate = steps_of(&key_step, stride);
    let ahead: Vec<Vec<usize>> = offsets.iter().map(|&o| steps_of(&key_step, o)).collect();
    let mut keys = key_load.clone();
    for &(e, _) in &bases {
        for (uses, pos) in own.iter().zip(&ahead) {
            let view: Vec<usize> = pos.iter().map(|&m| keys[m]).collect();
            for &(_, s) in uses.iter().filter(|u| u.0 == e) {
                if (0..n).any(|i| view[i] != table(s, i).0) {
                    return None;
                }
            }
        }
        if rot_cycles.contains(&e) {
            keys = rotate.iter().map(|&m| keys[m]).collect();
        }
    }
    let readers = readers
        .iter()
        .zip(offsets)
        .zip(on_issue)
        .map(|(((unit, _), offset), on_issue)| Reader {
            unit: *unit,
            offset,
            on_issue,
        })
        .collect();
    Some(Rotation {
        readers,
        key_load,
        key_step,
        stride,
        rot_cycles,
    })
}

/// `{w[pos[last]], ..., w[pos[0]]}`: the 64-bit words of `w` in the order `pos` gives.
fn words_in_order(w: &str, pos: &[usize]) -> String {
    let parts: Vec<String> = pos
        .iter()
        .rev()
        .map(|p| format!("{w}[{} +: 64]", 64 * p))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The key injection that reads the rotating key register (see [`Rotation`]),
/// `add_subkey_rot` (`add`: the words added to `x` under `mask`, the same sums as
/// `add_subkey`), or a shared datapath's `subkey_words_rot` (the words alone, as
/// `subkey_words`): subkey word i is the key word in position i plus the tweak word and
/// counter `sk` selects.
fn rotated_subkey_function(v: &mut Emitter, plan: &Plan, add: bool) {
    let n = plan.words as usize;
    let nbits = plan.nbits();
    let name = if add {
        "add_subkey_rot"
    } else {
        "subkey_words_rot"
    };
    if add {
        v.line("// Key injection from the rotating key register: subkey word i is the key word in position i,");
        v.line("// plus the tweak word and counter sk selects (the same sums as add_subkey).");
    } else {
        v.line("// Subkey sk's words from the rotating key register: word i is the key word in position i,");
        v.line("// plus the tweak word and counter sk selects (the same words as subkey_words).");
    }
    v.open(format!("function [{}:0] {name};", nbits - 1));
    if add {
        v.line(format!("input [{}:0] x;", nbits - 1));
    }
    v.line(format!(
        "input [{}:0] ky; // positions 0..Nw-1 (position Nw only rotates)",
        nbits - 1
    ));
    v.line("input [191:0] tw;");
    v.line(format!("input [{}:0] sk;", SUBKEY_BITS - 1));
    if add {
        v.line(format!("input [{}:0] mask;", n - 1));
    }
    v.line(format!("reg [63:0] tv; reg [{}:0] cv;", SUBKEY_BITS - 1));
    v.open("begin");
    if add {
        v.line("add_subkey_rot = x;");
    }
    for i in 0..n {
        // the tweak word and counter as the select functions pick them; the key word from position i
        let key = format!("ky[{} +: 64]", 64 * i);
        let sum = select_subkey_word_from(v, plan, i, Some(&key));
        if add {
            v.line(format!(
                "add_subkey_rot[{o} +: 64] = x[{o} +: 64] + ({{64{{mask[{i}]}}}} & ({sum}));",
                o = 64 * i
            ));
        } else {
            v.line(format!("subkey_words_rot[{} +: 64] = {sum};", 64 * i));
        }
    }
    v.close("end");
    v.close("endfunction");
    v.line("");
}

/// The plaintext that slot `j`'s completing blocks feed forward: in a lean core, where they all
/// come from one place, that place's plaintext rather than the arrival select `a<j>_plain`.
fn completion_plain(plan: &Plan, j: u32) -> String {
    if !plan.lean {
        return format!("a{j}_plain");
    }
    match single_source(plan, j, |e| plan.dp.cycle_ops()[e].done) {
        Some(None) => "iss_data".to_owned(),
        Some(Some(i)) => format!("slot{i}_plain"),
        None => format!("a{j}_plain"),
    }
}

/// A stream number carried from register to register: its upper bits written as the constant
/// 0 they always are (the trace's field is 32 bits wide), so synthesis drops them at once.
fn stream_id(plan: &Plan, reg: &str) -> String {
    let sb = plan.stream_bits();
    format!("{{{}'d0, {reg}[{}:0]}}", 32 - sb, sb - 1)
}

fn completion(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    let n = plan.words as usize;
    v.line("// ---- completion: a block that did its last cycle leaves with its feed-forward (state ^ plaintext)");
    v.open("always @* begin : complete");
    v.line(format!(
        "c_valid = 1'b0; c_stream = 32'd0; c_phase = PH_IDLE; c_chain = {{{nbits}{{1'b0}}}};"
    ));
    let done_slots: Vec<u32> = (0..plan.slots)
        .filter(|&j| {
            plan.dp
                .cycle_ops()
                .iter()
                .any(|op| op.done && op.slot == j as usize)
        })
        .collect();
    for (idx, j) in done_slots.iter().enumerate() {
        let cond = format!("a{j}_valid && c{j}_done");
        if idx == 0 {
            v.open(format!("if ({cond}) begin"));
        } else {
            v.close(format!("end else if ({cond}) begin"));
            v.indent_more();
        }
        v.line(format!(
            "c_valid = 1'b1; c_stream = a{j}_stream; c_phase = a{j}_phase; c_chain = n{j}_st ^ {};",
            completion_plain(plan, *j)
        ));
    }
    if !done_slots.is_empty() {
        v.close("end");
    }
    v.close("end");
    v.line("");
    completing_stream(v, plan);
    if !plan.lean {
        phase_next(v, plan);
    }
    let sum = |field: &str| -> String {
        let terms: Vec<String> = (0..plan.slots)
            .map(|j| format!("(a{j}_valid ? c{j}_{field} : 16'd0)"))
            .collect();
        balanced(&terms, "+", "16'd0")
    };
    v.open("always @(posedge clk) begin : outputs");
    v.open("if (rst) begin");
    v.line(format!(
        "{}{} <= 1'b0; {} <= 32'd0; {} <= 64'd0;",
        if plan.lean {
            String::new()
        } else {
            format!("{} <= PH_IDLE; ", names::PHASE)
        },
        names::OUT_VALID,
        names::OUT_STREAM,
        names::OUT_INDEX
    ));
    for w in 0..n {
        v.line(format!("{} <= 64'd0;", names::out_data(w)));
    }
    if !plan.lean {
        for b in names::BUSY {
            v.line(format!("{b} <= 16'd0;"));
        }
    }
    v.close("end else begin");
    v.indent_more();
    if !plan.lean {
        v.line(format!("{} <= ph_next;", names::PHASE));
    }
    v.line(format!(
        "{} <= c_valid && c_phase == PH_OUTPUT;",
        names::OUT_VALID
    ));
    v.open("if (c_valid && c_phase == PH_OUTPUT) begin");
    if plan.out_blocks() > 1 {
        v.line(format!(
            "{} <= c_stream; {} <= {{{}'d0, c_oc}}; // the Output block's counter",
            names::OUT_STREAM,
            names::OUT_INDEX,
            64 - plan.out_counter_bits()
        ));
    } else {
        v.line(format!(
            "{} <= c_stream; {} <= 64'd0; // output counter 0: the digest is one block",
            names::OUT_STREAM,
            names::OUT_INDEX
        ));
    }
    for w in 0..n {
        v.line(format!(
            "{} <= c_chain[{} +: 64];",
            names::out_data(w),
            64 * w
        ));
    }
    v.close("end");
    if !plan.lean {
        for (b, f) in names::BUSY.iter().zip(["bmix", "bsub", "bks", "bfs"]) {
            v.line(format!("{b} <= {};", sum(f)));
        }
    }
    v.close("end");
    v.close("end");
    v.line("");
    if plan.tree() {
        let nbits = plan.nbits();
        v.line("// a leaf's or a node's result (not the root's) goes back to the host, one cycle after its last round");
        v.open("always @(posedge clk) begin : results");
        v.open("if (rst) begin");
        v.line(format!(
            "res_valid <= 1'b0; res_stream <= 32'd0; res_data <= {{{nbits}{{1'b0}}}};"
        ));
        v.close("end else begin");
        v.indent_more();
        v.line("res_valid <= c_valid && c_ret;");
        v.line("if (c_valid && c_ret) begin res_stream <= c_stream; res_data <= c_chain; end");
        v.close("end");
        v.close("end");
        v.line("");
    }
}

/// What the completing block's stream knows that the block does not carry: its Output counter
/// (several Output blocks) and whether its result goes back to the host (tree cores). A stream
/// has one block in flight, so this is the completing stream's register, an AND-OR over them.
fn completing_stream(v: &mut Emitter, plan: &Plan) {
    let sb = plan.stream_bits();
    let is = |k: u32| format!("c_stream[{}:0] == {}", sb - 1, dec(sb, u64::from(k)));
    if plan.out_blocks() > 1 {
        let w = plan.out_counter_bits();
        let terms: Vec<String> = (0..plan.streams)
            .map(|k| format!("(({}) ? s{k}_oc : {})", is(k), dec(w, 0)))
            .collect();
        v.line(format!(
            "wire [{}:0] c_oc = {};",
            w - 1,
            balanced(&terms, "|", &dec(w, 0))
        ));
    }
    if plan.tree() {
        let terms: Vec<String> = (0..plan.streams)
            .map(|k| format!("(({}) && s{k}_ret)", is(k)))
            .collect();
        v.line(format!("wire c_ret = {};", balanced(&terms, "||", "1'b0")));
    }
}

/// The controller phase: that of the lowest-numbered stream with a block stepping this cycle.
/// A stream has at most one block in flight, so this is a tournament over the slots' arriving
/// blocks, `{valid, stream, phase}`, each match won by the valid one of lower stream: a tree
/// of depth log2(slots) rather than a chain of one comparison per slot.
fn phase_next(v: &mut Emitter, plan: &Plan) {
    let sb = plan.stream_bits();
    let width = 1 + sb + 3;
    v.line("// The controller phase: that of the lowest-numbered stream with a block stepping this cycle");
    v.line("// (one block per stream at most): a tournament over the arriving blocks {valid, stream, phase}.");
    if plan.slots > 1 {
        v.open(format!("function [{}:0] first_stream;", width - 1));
        v.line(format!("input [{}:0] x, y;", width - 1));
        v.open("begin");
        v.line(format!(
            "first_stream = (y[{v}] && (!x[{v}] || y[{hi}:3] < x[{hi}:3])) ? y : x;",
            v = width - 1,
            hi = width - 2
        ));
        v.close("end");
        v.close("endfunction");
    }
    let mut level: Vec<String> = (0..plan.slots)
        .map(|j| format!("{{a{j}_valid, a{j}_stream[{}:0], a{j}_phase}}", sb - 1))
        .collect();
    let mut depth = 0;
    while level.len() > 1 {
        let mut next = Vec::new();
        for (i, pair) in level.chunks(2).enumerate() {
            let name = format!("ph_{depth}_{i}");
            let expr = match pair {
                [x, y] => format!("first_stream({x}, {y})"),
                [x] => x.clone(),
                _ => unreachable!("chunks of two"),
            };
            v.line(format!("wire [{}:0] {name} = {expr};", width - 1));
            next.push(name);
        }
        level = next;
        depth += 1;
    }
    v.line("/* verilator lint_off UNUSEDSIGNAL */ // the winner's stream only decides matches");
    v.line(format!("wire [{}:0] ph_first = {};", width - 1, level[0]));
    v.line("/* verilator lint_on UNUSEDSIGNAL */");
    v.line(format!(
        "wire [2:0] ph_next = ph_first[{}] ? ph_first[2:0] : PH_IDLE;",
        width - 1
    ));
    v.line("");
}

/// `a op b op ...` as a balanced tree (depth log2 of the terms, not their number): sums, AND-ORs.
fn balanced(terms: &[String], op: &str, empty: &str) -> String {
    match terms {
        [] => empty.to_owned(),
        [t] => t.clone(),
        _ => {
            let (l, r) = terms.split_at(terms.len().div_ceil(2));
            let side = |t: &[String]| {
                if t.len() == 1 {
                    t[0].clone()
                } else {
                    format!("({})", balanced(t, op, empty))
                }
            };
            format!("{} {op} {}", side(l), side(r))
        }
    }
}

// ---- Long 3.4's shared adders -------------------------------------------------------------------

/// Subkey `sk` as a whole (the words `add_subkey` adds), for the pools that pick its words.
fn subkey_words(v: &mut Emitter, plan: &Plan) {
    let n = plan.words as usize;
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    v.line("// Subkey sk's words (as add_subkey), for the shared subkey adders to pick from.");
    v.open(format!("function [{}:0] subkey_words;", nbits - 1));
    v.line(format!("input [{}:0] ky;", kybits - 1));
    v.line("input [191:0] tw;");
    v.line(format!("input [{}:0] sk;", SUBKEY_BITS - 1));
    v.open("begin");
    v.open("case (sk)");
    for s in 0..plan.schedule.subkeys() as usize {
        v.open(format!("{}: begin", dec(SUBKEY_BITS, s as u64)));
        for i in 0..n {
            let (key, tweak, counter) = subkey_sources_n(plan.words, s, i);
            let mut expr = format!("ky[{} +: 64]", 64 * key);
            if let Some(t) = tweak {
                expr.push_str(&format!(" + tw[{} +: 64]", 64 * t));
            }
            if counter != 0 {
                expr.push_str(&format!(" + {}", dec(64, counter)));
            }
            v.line(format!(
                "subkey_words[{} +: 64] = {expr}; // SUBKEY s={s} i={i}",
                64 * i
            ));
        }
        v.close("end");
    }
    v.line(format!("default: subkey_words = {{{nbits}{{1'b0}}}};"));
    v.close("endcase");
    v.close("end");
    v.close("endfunction");
    v.line("");
}

/// Bits of a layer's unit select (0: the layer does nothing this cycle).
const UNIT_SEL_BITS: u32 = 4;
/// Bits of a layer's first word or pair.
const OFFSET_BITS: u32 = 8;

fn layer_has(layer: &Layer, kind: fn(&Unit) -> bool) -> bool {
    layer.units.iter().any(kind)
}

fn is_add(u: &Unit) -> bool {
    matches!(u, Unit::Add(_))
}

fn is_mix(u: &Unit) -> bool {
    matches!(u, Unit::Mix(_))
}

/// The first words (pairs) one unit of a layer starts at in some cycle of slot `j`.
fn offsets(plan: &Plan, pool: &AdderPool, j: u32, l: usize, unit: Unit) -> Vec<u32> {
    let mut offs: Vec<u32> = pool
        .cycles
        .iter()
        .enumerate()
        .filter(|(e, _)| plan.placement.slots[*e] == j as usize)
        .flat_map(|(_, ops)| ops.iter())
        .filter_map(|op| match op {
            PoolOp::Layer {
                layer,
                unit: u,
                op: MicroOp::AddSubkey { first, .. } | MicroOp::Mix { first, .. },
            } if *layer == l && *u == unit => Some(*first),
            _ => None,
        })
        .collect();
    offs.sort_unstable();
    offs.dedup();
    offs
}

fn pooled_decl(plan: &Plan, pool: &AdderPool, j: u32) -> Vec<String> {
    let stage = &pool.stages[j as usize];
    let top = plan.nbits() - 1;
    let mut decl = Vec::new();
    if stage.load {
        decl.push(format!("reg c{j}_ld; reg [{top}:0] o{j}_ld;"));
    }
    for (l, layer) in stage.layers.iter().enumerate() {
        let mut d = format!(
            "reg [{}:0] c{j}_l{l}_u; reg [{top}:0] i{j}_l{l}, o{j}_l{l};",
            UNIT_SEL_BITS - 1
        );
        if layer.adders > 0 {
            d.push_str(&format!(
                " reg [{}:0] c{j}_l{l}_off; reg [{}:0] c{j}_l{l}_en;",
                OFFSET_BITS - 1,
                layer.adders - 1
            ));
            let ops: Vec<String> = (0..layer.adders)
                .flat_map(|i| [format!("p{j}_l{l}_a{i}"), format!("p{j}_l{l}_b{i}")])
                .collect();
            d.push_str(&format!(" reg [63:0] {};", ops.join(", ")));
            let sums: Vec<String> = (0..layer.adders)
                .map(|i| format!("p{j}_l{l}_s{i}"))
                .collect();
            d.push_str(&format!(" reg [63:0] {};", sums.join(", ")));
        }
        if layer_has(layer, is_add) {
            d.push_str(&format!(
                " reg [{}:0] c{j}_l{l}_sk; reg [{}:0] p{j}_l{l}_k;",
                SUBKEY_BITS - 1,
                plan.nbits() - 1
            ));
        }
        if layer_has(layer, is_mix) {
            d.push_str(&format!(" reg [2:0] c{j}_l{l}_rs;"));
        }
        decl.push(d);
    }
    decl
}

fn pooled_defaults(_plan: &Plan, pool: &AdderPool, j: u32) -> Vec<String> {
    let stage = &pool.stages[j as usize];
    let mut d = Vec::new();
    if stage.load {
        d.push(format!("c{j}_ld = 1'b0;"));
    }
    for (l, layer) in stage.layers.iter().enumerate() {
        let mut x = format!("c{j}_l{l}_u = {};", dec(UNIT_SEL_BITS, 0));
        if layer.adders > 0 {
            x.push_str(&format!(
                " c{j}_l{l}_off = {}; c{j}_l{l}_en = {};",
                dec(OFFSET_BITS, 0),
                dec(layer.adders, 0)
            ));
        }
        if layer_has(layer, is_add) {
            x.push_str(&format!(" c{j}_l{l}_sk = {};", dec(SUBKEY_BITS, 0)));
        }
        if layer_has(layer, is_mix) {
            x.push_str(&format!(" c{j}_l{l}_rs = 3'd0;"));
        }
        d.push(x);
    }
    d
}

fn pooled_rom_entry(
    plan: &Plan,
    pool: &AdderPool,
    j: u32,
    e: u32,
    sets: &mut Vec<String>,
    what: &mut Vec<String>,
) {
    let n = plan.words;
    let stage = &pool.stages[j as usize];
    for op in &pool.cycles[e as usize] {
        match op {
            PoolOp::Load => {
                sets.push(format!("c{j}_ld = 1'b1;"));
                what.push("subkey 0 (load)".into());
            }
            PoolOp::Layer { layer, unit, op } => {
                let l = *layer;
                let layer_def = &stage.layers[l];
                let idx = layer_def
                    .units
                    .iter()
                    .position(|u| u == unit)
                    .expect("unit of its layer") as u64
                    + 1;
                let mut x = format!("c{j}_l{l}_u = {};", dec(UNIT_SEL_BITS, idx));
                let used = skeinhw_sched::sim::pool::op_adders(op);
                match *op {
                    MicroOp::AddSubkey { subkey, first, end } => {
                        x.push_str(&format!(
                            " c{j}_l{l}_off = {}; c{j}_l{l}_en = {}; c{j}_l{l}_sk = {};",
                            dec(OFFSET_BITS, u64::from(first)),
                            mask(layer_def.adders, 0, used),
                            dec(SUBKEY_BITS, u64::from(subkey))
                        ));
                        if first == 0 && end == n {
                            what.push(format!("subkey {subkey}"));
                        } else {
                            what.push(format!("subkey {subkey} words {first}..{}", end - 1));
                        }
                    }
                    MicroOp::Mix { round, first, end } => {
                        x.push_str(&format!(
                            " c{j}_l{l}_off = {}; c{j}_l{l}_en = {}; c{j}_l{l}_rs = 3'd{};",
                            dec(OFFSET_BITS, u64::from(first)),
                            mask(layer_def.adders, 0, used),
                            round % 8
                        ));
                        if first == 0 && end == n / 2 {
                            what.push(format!("MIX of round {round}"));
                        } else {
                            what.push(format!("MIX {first}..{} of round {round}", end - 1));
                        }
                    }
                    MicroOp::Permute => what.push("permute".into()),
                }
                what.last_mut()
                    .expect("pushed")
                    .push_str(&format!(" (layer {l})"));
                sets.push(x);
            }
        }
    }
}

/// Where the value entering a layer of a shared stage (or leaving the stage) comes from in a
/// cycle: the stage's input, the load bank's sum, or the result of an earlier layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Input,
    Load,
    Layer(usize),
}

/// The sources that the cycles of slot `j` chain: for each layer, those its input takes in
/// the cycles it works (the last of the load bank and the earlier layers working in that
/// cycle, else the stage's input), and those the stage's result takes. A select built from
/// these alone has no path through layers that no cycle runs one after the other, so static
/// timing sees only the chains the schedule uses (Long 3.4.3: a MIX cycle, then a permutation
/// and key addition cycle, never both in one).
fn layer_sources(
    plan: &Plan,
    pool: &AdderPool,
    j: u32,
) -> (Vec<BTreeSet<Source>>, BTreeSet<Source>) {
    let layers = pool.stages[j as usize].layers.len();
    let mut into = vec![BTreeSet::new(); layers];
    // A cycle without work (no block, or none of its cycles) keeps the stage's input.
    let mut out = BTreeSet::from([Source::Input]);
    let cycles = pool
        .cycles
        .iter()
        .enumerate()
        .filter(|(e, _)| plan.placement.slots[*e] == j as usize);
    for (_, ops) in cycles {
        let mut last = if ops.iter().any(|op| matches!(op, PoolOp::Load)) {
            Source::Load
        } else {
            Source::Input
        };
        let mut working: Vec<usize> = ops
            .iter()
            .filter_map(|op| match op {
                PoolOp::Layer { layer, .. } => Some(*layer),
                PoolOp::Load => None,
            })
            .collect();
        working.sort_unstable();
        working.dedup();
        for l in working {
            into[l].insert(last);
            last = Source::Layer(l);
        }
        out.insert(last);
    }
    (into, out)
}

/// `target = ` the source of `sources` that this cycle chains: the latest one working (a
/// layer whose unit select is set, the load bank when it loads), the earliest otherwise.
fn select_source(v: &mut Emitter, j: u32, target: &str, sources: &BTreeSet<Source>) {
    let name = |s: Source| match s {
        Source::Input => format!("a{j}_st"),
        Source::Load => format!("o{j}_ld"),
        Source::Layer(l) => format!("o{j}_l{l}"),
    };
    let working = |s: Source| match s {
        Source::Input => unreachable!("the stage's input is never tested"),
        Source::Load => format!("c{j}_ld"),
        Source::Layer(l) => format!("c{j}_l{l}_u != {}", dec(UNIT_SEL_BITS, 0)),
    };
    let mut latest_first = sources.iter().rev().copied().peekable();
    let mut line = String::new();
    while let Some(s) = latest_first.next() {
        if latest_first.peek().is_none() {
            if line.is_empty() {
                line = format!("{target} = {};", name(s));
            } else {
                line.push_str(&format!(" else {target} = {};", name(s)));
            }
        } else {
            if !line.is_empty() {
                line.push_str(" else ");
            }
            line.push_str(&format!("if ({}) {target} = {};", working(s), name(s)));
        }
    }
    v.line(line);
}

/// The stage of a shared datapath: the load bank, then each layer: its input taken from the
/// source this cycle chains, its pool adders' operands chosen by the unit and first word (pair)
/// the control ROM gives, then its results; the stage's result from the last layer working.
fn pooled_stage(v: &mut Emitter, plan: &Plan, pool: &AdderPool, j: u32) {
    let n = plan.words;
    let stage = &pool.stages[j as usize];
    let (into, out) = layer_sources(plan, pool, j);
    let rot = key_rotation(plan, j);
    if stage.load {
        // a lean core's load bank reads the issue, where its blocks come from, directly
        let loads = |e: usize| pool.cycles[e].contains(&PoolOp::Load);
        let (st, ky, tw) = match single_source(plan, j, loads) {
            Some(None) if plan.lean => (
                "iss_data".to_owned(),
                "{iss_parity, iss_chain}".to_owned(),
                "tweak_words(iss_t0, iss_t1)".to_owned(),
            ),
            _ => (format!("a{j}_st"), format!("a{j}_ky"), format!("a{j}_tw")),
        };
        v.line(format!(
            "o{j}_ld = add_subkey({st}, {ky}, {tw}, {}, {});",
            dec(SUBKEY_BITS, 0),
            mask(n, 0, n)
        ));
    }
    for (l, layer) in stage.layers.iter().enumerate() {
        let p = layer.adders;
        v.line(format!(
            "// layer {l}: {} on {p} pool adder(s)",
            layer
                .units
                .iter()
                .map(|u| format!("{u:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if into[l].is_empty() {
            // No cycle of this slot works the layer: it passes its input on.
            v.line(format!("i{j}_l{l} = a{j}_st;"));
        } else {
            select_source(v, j, &format!("i{j}_l{l}"), &into[l]);
        }
        v.line(format!("o{j}_l{l} = i{j}_l{l};"));
        if layer_has(layer, is_add) {
            let (ky, tw) = pool_injection_source(plan, pool, j, l);
            let (words, ky) = match (&rot, plan.lean) {
                (Some(_), _) => (
                    "subkey_words_rot",
                    format!("r{j}_ky[{}:0]", plan.nbits() - 1),
                ),
                (None, true) => ("subkey_words_sel", ky),
                (None, false) => ("subkey_words", ky),
            };
            v.line(format!("p{j}_l{l}_k = {words}({ky}, {tw}, c{j}_l{l}_sk);"));
        }
        // Each adder's operands default to its first alternative's (not to zero, which would
        // put an AND in front of every carry chain): an adder with one alternative has no
        // select at all.
        for i in 0..p {
            let first = layer.units.iter().find_map(|unit| {
                let off = *offsets(plan, pool, j, l, *unit).first()?;
                let w = off + i;
                match unit {
                    Unit::Add(_) if w < n => Some(format!(
                        "p{j}_l{l}_a{i} = i{j}_l{l}[{o} +: 64]; p{j}_l{l}_b{i} = p{j}_l{l}_k[{o} +: 64];",
                        o = 64 * w
                    )),
                    Unit::Mix(_) if w < n / 2 => Some(format!(
                        "p{j}_l{l}_a{i} = i{j}_l{l}[{} +: 64]; p{j}_l{l}_b{i} = i{j}_l{l}[{} +: 64];",
                        128 * w,
                        128 * w + 64
                    )),
                    _ => None,
                }
            });
            v.line(
                first.unwrap_or_else(|| format!("p{j}_l{l}_a{i} = 64'd0; p{j}_l{l}_b{i} = 64'd0;")),
            );
        }
        // Operands.
        if p > 0 {
            v.open(format!("case (c{j}_l{l}_u)"));
            for (ui, unit) in layer.units.iter().enumerate() {
                let offs = offsets(plan, pool, j, l, *unit);
                if offs.is_empty() {
                    continue;
                }
                v.open(format!("{}: begin", dec(UNIT_SEL_BITS, ui as u64 + 1)));
                v.open(format!("case (c{j}_l{l}_off)"));
                for off in offs {
                    let mut a = Vec::new();
                    for i in 0..p {
                        let w = off + i;
                        match unit {
                            Unit::Add(_) if w < n => a.push(format!(
                                "p{j}_l{l}_a{i} = i{j}_l{l}[{o} +: 64]; p{j}_l{l}_b{i} = p{j}_l{l}_k[{o} +: 64];",
                                o = 64 * w
                            )),
                            Unit::Mix(_) if w < n / 2 => a.push(format!(
                                "p{j}_l{l}_a{i} = i{j}_l{l}[{} +: 64]; p{j}_l{l}_b{i} = i{j}_l{l}[{} +: 64];",
                                128 * w,
                                128 * w + 64
                            )),
                            _ => {}
                        }
                    }
                    v.line(format!(
                        "{}: begin {} end",
                        dec(OFFSET_BITS, u64::from(off)),
                        a.join(" ")
                    ));
                }
                v.line("default: ;");
                v.close("endcase");
                v.close("end");
            }
            v.line("default: ;");
            v.close("endcase");
        }
        for i in 0..p {
            v.line(format!(
                "p{j}_l{l}_s{i} = p{j}_l{l}_a{i} + p{j}_l{l}_b{i}; // pool adder {i} of layer {l}, shared by its units"
            ));
        }
        // Results.
        v.open(format!("case (c{j}_l{l}_u)"));
        for (ui, unit) in layer.units.iter().enumerate() {
            let sel = dec(UNIT_SEL_BITS, ui as u64 + 1);
            match unit {
                Unit::Perm(_) => v.line(format!("{sel}: o{j}_l{l} = permute(i{j}_l{l});")),
                Unit::Add(_) | Unit::Mix(_) => {
                    let offs = offsets(plan, pool, j, l, *unit);
                    if offs.is_empty() {
                        continue;
                    }
                    v.open(format!("{sel}: begin"));
                    v.open(format!("case (c{j}_l{l}_off)"));
                    for off in offs {
                        v.open(format!("{}: begin", dec(OFFSET_BITS, u64::from(off))));
                        for i in 0..p {
                            let w = off + i;
                            match unit {
                                Unit::Add(_) if w < n => v.line(format!(
                                    "if (c{j}_l{l}_en[{i}]) o{j}_l{l}[{} +: 64] = p{j}_l{l}_s{i}; // SUBKEY word {w}",
                                    64 * w
                                )),
                                Unit::Mix(_) if w < n / 2 => {
                                    v.open(format!("if (c{j}_l{l}_en[{i}]) begin // MIX {w}"));
                                    v.line(format!("o{j}_l{l}[{} +: 64] = p{j}_l{l}_s{i};", 128 * w));
                                    v.open(format!("case (c{j}_l{l}_rs)"));
                                    for d in 0..8 {
                                        v.line(format!(
                                            "3'd{d}: o{j}_l{l}[{} +: 64] = rotl(p{j}_l{l}_b{i}, 6'd{}) ^ p{j}_l{l}_s{i}; // ROT d={d} j={w}",
                                            128 * w + 64,
                                            rotation(n as usize, d, w as usize)
                                        ));
                                    }
                                    v.close("endcase");
                                    v.close("end");
                                }
                                _ => {}
                            }
                        }
                        v.close("end");
                    }
                    v.line("default: ;");
                    v.close("endcase");
                    v.close("end");
                }
            }
        }
        v.line("default: ;");
        v.close("endcase");
    }
    select_source(v, j, &format!("n{j}_st"), &out);
}

/// The MIX functions of one round as a Verilog function (the baseline datapath's round units).
fn mix_layer(v: &mut Emitter, n: usize) {
    let nbits = n * 64;
    v.line("// The MIX functions of one round (Skein 1.3, 3.3.1): y0 = x0 + x1, y1 = (x1 <<< R[d mod 8][j]) ^ y0.");
    v.line("// rs = round mod 8 selects the rotation constants; en says which MIX functions work this cycle.");
    v.open(format!("function [{}:0] mix_layer;", nbits - 1));
    v.line(format!("input [{}:0] x;", nbits - 1));
    v.line("input [2:0] rs;");
    v.line(format!("input [{}:0] en;", n / 2 - 1));
    v.line("reg [63:0] x0, x1, y0, y1;");
    v.open("begin");
    v.line("mix_layer = x;");
    for j in 0..n / 2 {
        v.line(format!("// MIX {j}: words {} and {}", 2 * j, 2 * j + 1));
        v.line(format!("x0 = x[{} +: 64];", 128 * j));
        v.line(format!("x1 = x[{} +: 64];", 128 * j + 64));
        v.line("y0 = x0 + x1;");
        v.open("case (rs)");
        for d in 0..8 {
            v.line(format!(
                "3'd{d}: y1 = rotl(x1, 6'd{}) ^ y0; // ROT d={d} j={j}",
                rotation(n, d, j)
            ));
        }
        v.close("endcase");
        v.open(format!("if (en[{j}]) begin"));
        v.line(format!("mix_layer[{} +: 64] = y0;", 128 * j));
        v.line(format!("mix_layer[{} +: 64] = y1;", 128 * j + 64));
        v.close("end");
    }
    v.close("end");
    v.close("endfunction");
    v.line("");
}
