//! Long 3.4's shared adders: each stage's units cut into layers
//! (`skeinhw_sched::sim::AdderPool`), each layer one pool of 64-bit adders whose operands the
//! control ROM picks per cycle, a load bank adding subkey 0 in the block's first cycle, and
//! each layer's input wired only from the sources some cycle of the schedule chains. A lean
//! core's load bank reads the issue directly ([`Plan::known_sources`]); the subkey words come
//! from [`key`].

use std::collections::BTreeSet;

use skeinhw_sched::sim::{AdderPool, Layer, MicroOp, PoolOp, Unit};
use skeinhw_skein::constants::rotation;

use crate::emit::{Emitter, dec, mask};

use super::key::{self, Rotation};
use super::plan::{Plan, SUBKEY_BITS, single_source};

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

/// The declarations of slot `j`'s load bank and layers: their ROM outputs (`c<j>_l<l>_*`),
/// inputs, results, adder operands and sums.
pub(crate) fn declarations(plan: &Plan, pool: &AdderPool, j: u32) -> Vec<String> {
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

/// The ROM's defaults for slot `j`'s load bank and layers (nothing working).
pub(crate) fn defaults(pool: &AdderPool, j: u32) -> Vec<String> {
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

/// The ROM assignments (`sets`) and the comment (`what`) of cycle `e` for slot `j`'s layers.
pub(crate) fn rom_entry(
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
pub(crate) fn stage(
    v: &mut Emitter,
    plan: &Plan,
    pool: &AdderPool,
    j: u32,
    rot: Option<&Rotation>,
) {
    let n = plan.words;
    let stage = &pool.stages[j as usize];
    let (into, out) = layer_sources(plan, pool, j);
    if stage.load {
        // where the core reads known sources, the load bank reads the issue, where its blocks
        // come from, directly
        let loads = |e: usize| pool.cycles[e].contains(&PoolOp::Load);
        let (st, ky, tw) = match single_source(plan, j, loads) {
            Some(None) if plan.known_sources() => (
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
            v.line(key::pool_subkey_call(plan, pool, j, l, rot));
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
