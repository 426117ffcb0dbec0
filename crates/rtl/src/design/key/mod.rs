//! The key schedule: the key injection functions (`add_subkey` and, by the core's
//! [`KeyForm`], the shared datapath's `subkey_words`, the lean selects `add_subkey_sel` and
//! `subkey_words_sel`, the rotating register's `add_subkey_rot` and `subkey_words_rot`),
//! the key and tweak each injection reads, and the rotating key register ([`rotation`]).

mod rotation;

use std::collections::BTreeSet;

use skeinhw_sched::sim::{AdderPool, Layer, MicroOp, PoolOp, Unit};

use crate::emit::{Emitter, dec};

use super::plan::{KeyForm, Plan, SUBKEY_BITS, single_source, subkey_sources_n};

use rotation::{Reader, rotated_key};
pub(crate) use rotation::{Rotation, issue_readers, key_rotation, steps_of, words_in_order};

/// The key injection functions the core's stages call, each declared only where some stage
/// calls it (see [`Calls`]), in this order: `add_subkey` (a shared datapath's load bank adds
/// subkey 0 with it), those of the core's [`KeyForm`], and those of the rotating key register.
pub(crate) fn functions(v: &mut Emitter, plan: &Plan) {
    let calls = calls(plan);
    if !calls.add_subkey.is_empty() {
        add_subkey(v, plan, &calls.add_subkey);
    }
    let called = |f: &str| calls.names.contains(f);
    if called("subkey_words") {
        subkey_words(v, plan);
    }
    if called("subkey_words_sel") {
        subkey_words_selected(v, plan);
    }
    if called("add_subkey_sel") {
        add_subkey_selected(v, plan);
    }
    if called("add_subkey_rot") {
        rotated_subkey_function(v, plan, true);
    }
    if called("subkey_words_rot") {
        rotated_subkey_function(v, plan, false);
    }
}

/// The key injection functions the stages call and the subkeys `add_subkey` is called with,
/// found by the choices the call sites make ([`injection_function`], [`pool_subkey_function`],
/// a load bank's subkey 0), so that the module declares only live logic: a function or a
/// subkey case no stage calls makes no hardware, but a reader (or a mutation test) would see it.
#[derive(Default)]
struct Calls {
    names: BTreeSet<&'static str>,
    add_subkey: BTreeSet<usize>,
}

fn calls(plan: &Plan) -> Calls {
    let mut c = Calls::default();
    for j in 0..plan.slots {
        let rot = key_rotation(plan, j);
        match &plan.pool {
            Some(pool) => {
                let stage = &pool.stages[j as usize];
                if stage.load {
                    c.names.insert("add_subkey");
                    c.add_subkey.insert(0);
                }
                // the layers `pool::stage` makes subkey words for
                let adds = |l: &Layer| l.units.iter().any(|u| matches!(u, Unit::Add(_)));
                if stage.layers.iter().any(adds) {
                    c.names.insert(pool_subkey_function(plan, rot.as_ref()));
                }
            }
            None => {
                for u in &plan.placement.stage_units[j as usize] {
                    if let Unit::Add(a) = u {
                        let f = injection_function(plan, *a, rot.as_ref());
                        c.names.insert(f);
                        if f == "add_subkey" {
                            let uses = injection_uses(plan, j, *a);
                            c.add_subkey.extend(uses.into_iter().map(|(_, s)| s));
                        }
                    }
                }
            }
        }
    }
    c
}

/// `add_subkey`: the words of each subkey in `subkeys` (those it is called with) as sums,
/// selected on `sk`, added under `mask`.
fn add_subkey(v: &mut Emitter, plan: &Plan, subkeys: &BTreeSet<usize>) {
    let n = plan.words as usize;
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    v.line("// Key injection: adds the words of subkey sk selected by mask (Skein 1.3, 3.3.2). Subkey word i");
    v.line("// is k[(s+i) mod (Nw+1)], plus t[s mod 3] (i = Nw-3), t[(s+1) mod 3] (i = Nw-2), s (i = Nw-1).");
    v.line("// ky = {k_Nw, ..., k_0}, tw = {t2, t1, t0}.");
    // Called with some subkeys only (a load bank's subkey 0), it reads only some key and tweak words.
    let some = subkeys.len() < plan.schedule.subkeys() as usize;
    if some {
        v.line("/* verilator lint_off UNUSEDSIGNAL */ // only the cases of the subkeys called");
    }
    v.open(format!("function [{}:0] add_subkey;", nbits - 1));
    v.line(format!("input [{}:0] x;", nbits - 1));
    v.line(format!("input [{}:0] ky;", kybits - 1));
    v.line("input [191:0] tw;");
    v.line(format!("input [{}:0] sk;", SUBKEY_BITS - 1));
    v.line(format!("input [{}:0] mask;", n - 1));
    v.line(format!("reg [{}:0] k;", nbits - 1));
    v.open("begin");
    v.open("case (sk)");
    for &s in subkeys {
        v.open(format!("{}: begin", dec(SUBKEY_BITS, s as u64)));
        for i in 0..n {
            let expr = subkey_sum(plan, s, i);
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
    if some {
        v.line("/* verilator lint_on UNUSEDSIGNAL */");
    }
    v.line("");
}

/// Subkey word `i` of subkey `s` as the sum of its key word, tweak word and counter
/// (`ky`, `tw`), as the library's key schedule makes it ([`subkey_sources_n`]).
fn subkey_sum(plan: &Plan, s: usize, i: usize) -> String {
    let (key, tweak, counter) = subkey_sources_n(plan.words, s, i);
    let mut expr = format!("ky[{} +: 64]", 64 * key);
    if let Some(t) = tweak {
        expr.push_str(&format!(" + tw[{} +: 64]", 64 * t));
    }
    if counter != 0 {
        expr.push_str(&format!(" + {}", dec(64, counter)));
    }
    expr
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

/// The injection `a` of `rot` that reads the rotating key register, if it does.
fn rotating_reader(a: u32, rot: Option<&Rotation>) -> Option<(&Rotation, &Reader)> {
    rot.and_then(|r| Some((r, r.readers.iter().find(|x| x.unit == Some(a))?)))
}

/// The function key injection `a` calls: `add_subkey_rot` where it reads the rotating key
/// `rot`, else the core's [`KeyForm`]'s.
fn injection_function(plan: &Plan, a: u32, rot: Option<&Rotation>) -> &'static str {
    match (rotating_reader(a, rot), plan.key_form()) {
        (Some(_), _) => "add_subkey_rot",
        (None, KeyForm::Selected) => "add_subkey_sel",
        (None, KeyForm::Sums) => "add_subkey",
    }
}

/// The call that adds slot `j`'s key injection `a` to `n<j>_st`: its [`injection_function`]
/// on the key and tweak it reads ([`injection_source`], or the rotating key `rot`).
pub(crate) fn injection_call(plan: &Plan, j: u32, a: u32, rot: Option<&Rotation>) -> String {
    let (ky, tw) = injection_source(plan, j, a);
    let ky = match rotating_reader(a, rot) {
        Some((r, reader)) => rotated_key(plan, j, r, reader),
        None => ky,
    };
    let f = injection_function(plan, a, rot);
    format!("n{j}_st = {f}(n{j}_st, {ky}, {tw}, c{j}_k{a}_sk, c{j}_k{a}_mask);")
}

/// The function that makes a shared slot's subkey words: `subkey_words_rot` where the slot has
/// the rotating key `rot`, else the core's [`KeyForm`]'s.
fn pool_subkey_function(plan: &Plan, rot: Option<&Rotation>) -> &'static str {
    match (rot, plan.key_form()) {
        (Some(_), _) => "subkey_words_rot",
        (None, KeyForm::Selected) => "subkey_words_sel",
        (None, KeyForm::Sums) => "subkey_words",
    }
}

/// The call that makes layer `l`'s subkey words in a shared slot `j`, `p<j>_l<l>_k`: the
/// function of the core's [`KeyForm`] (`subkey_words_rot` on the rotating key where the slot
/// has one) on the key and tweak the layer reads ([`pool_injection_source`]).
pub(crate) fn pool_subkey_call(
    plan: &Plan,
    pool: &AdderPool,
    j: u32,
    l: usize,
    rot: Option<&Rotation>,
) -> String {
    let (ky, tw) = pool_injection_source(plan, pool, j, l);
    let ky = match rot {
        Some(_) => format!("r{j}_ky[{}:0]", plan.nbits() - 1),
        None => ky,
    };
    let words = pool_subkey_function(plan, rot);
    format!("p{j}_l{l}_k = {words}({ky}, {tw}, c{j}_l{l}_sk);")
}

/// The key and tweak of slot `j`'s blocks that come from `source` (see [`single_source`]):
/// where the core reads known sources and they all come from one place, that place's key and
/// tweak, not the arrival select `a<j>_ky` (the same sums whenever the mask is set, and
/// synthesis no longer merges, and duplicates, the arrival select into the subkey selects);
/// otherwise `a<j>_ky`, `a<j>_tw`.
fn key_from(plan: &Plan, j: u32, source: Option<Option<usize>>) -> (String, String) {
    match source.filter(|_| plan.known_sources()) {
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

/// The key and tweak that slot `j`'s key injection `a` reads (see [`key_from`]): the source
/// of its working cycles.
fn injection_source(plan: &Plan, j: u32, a: u32) -> (String, String) {
    let works = |e: usize| {
        plan.placement.cycles[e]
            .iter()
            .any(|(u, m)| *u == Unit::Add(a) && matches!(m, MicroOp::AddSubkey { .. }))
    };
    key_from(plan, j, single_source(plan, j, works))
}

/// The key and tweak that layer `l` of a shared slot `j` reads (see [`key_from`]): the source
/// of the cycles that add a subkey on it.
fn pool_injection_source(plan: &Plan, pool: &AdderPool, j: u32, l: usize) -> (String, String) {
    let adds = |e: usize| {
        pool.cycles[e].iter().any(|op| {
            matches!(op, PoolOp::Layer { layer, op: MicroOp::AddSubkey { .. }, .. } if *layer == l)
        })
    };
    key_from(plan, j, single_source(plan, j, adds))
}

/// The working cycles of slot `j`'s key injection `a`, with the subkey each adds, in order.
pub(crate) fn injection_uses(plan: &Plan, j: u32, a: u32) -> Vec<(u32, usize)> {
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
            let expr = subkey_sum(plan, s, i);
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
