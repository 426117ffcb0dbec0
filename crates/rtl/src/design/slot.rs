//! Each pipeline register (slot): the trace's `slot<i>_*` registers, which block arrives
//! (`a<j>_*`), the stage's combinational work on the round units that
//! `skeinhw_sched::sim::Placement` assigns each op (or Long 3.4's adder pools, [`pool`]) and
//! the registers; the slot's control ROM is [`rom`]'s. The lean core's slot reads the one
//! place its blocks come from where the schedule makes it known ([`Plan::known_sources`]).

use skeinhw_sched::sim::Unit;
use skeinhw_trace::names;

use crate::emit::{Emitter, dec};

use super::key::{self, Rotation, key_rotation, steps_of, words_in_order};
use super::plan::{ELAPSED_BITS, Plan};
use super::{pool, rom, stream_id};

/// The pipeline registers: the trace's `slot<i>_*` names, the cycle count and the plaintext.
pub(crate) fn declarations(v: &mut Emitter, plan: &Plan) {
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

/// Slot `j`: which block arrives (`a<j>_*`), its control ROM ([`rom`]), the stage's work on
/// its round units or adder pools (`n<j>_st`) and its registers.
pub(crate) fn slot(v: &mut Emitter, plan: &Plan, j: u32) {
    let rot = key_rotation(plan, j);
    arrival_declarations(v, plan, j);
    rom::declarations(v, plan, j, rot.as_ref());
    arrival(v, plan, j);
    rom::rom(v, plan, j, rot.as_ref());
    stage(v, plan, j, rot.as_ref());
    registers(v, plan, j, rot.as_ref());
}

/// The arriving block's registers (`a<j>_*`) and the stage's result (`n<j>_st`).
fn arrival_declarations(v: &mut Emitter, plan: &Plan, j: u32) {
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    v.line(format!(
        "// ==== slot {j}: stage {} of module {} ({} round unit(s))",
        j % plan.schedule.functional_stages(),
        j / plan.schedule.functional_stages(),
        plan.placement.rounds_per_stage
    ));
    let blk = block_index(plan);
    v.line(format!(
        "reg a{j}_valid; reg [31:0] a{j}_stream; reg [2:0] a{j}_phase;{}",
        blk(format!(" reg [63:0] a{j}_block;"))
    ));
    // The arriving block's cycle count, where the slot counts (see `Plan::fixed_cycle`).
    let counted = plan.fixed_cycle(j).is_none();
    if counted {
        v.line(format!("reg [{}:0] a{j}_e;", ELAPSED_BITS - 1));
    }
    // A lean slot's stage and registers may read their sources directly (`injection_source`,
    // `completion_plain`, `loads_on_issue` below), leaving some of the arrival unread.
    let known = plan.known_sources();
    if known {
        v.line("/* verilator lint_off UNUSEDSIGNAL */ // read directly from the sources where they are one");
    }
    v.line(format!(
        "reg [{}:0] a{j}_st, a{j}_plain, n{j}_st; reg [{}:0] a{j}_ky; reg [191:0] a{j}_tw;",
        nbits - 1,
        kybits - 1
    ));
    if known {
        v.line("/* verilator lint_on UNUSEDSIGNAL */");
    }
}

/// The block that enters slot `j` at the next edge: from the slot of its cycle before, or
/// (slot 0) from the issue.
fn arrival(v: &mut Emitter, plan: &Plan, j: u32) {
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    let ops = plan.dp.cycle_ops();
    let blk = block_index(plan);
    let counted = plan.fixed_cycle(j).is_none();
    let set_e = |value: String| {
        if counted {
            format!(" a{j}_e = {value};")
        } else {
            String::new()
        }
    };
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
}

/// Slot `j`'s stage: its round units and key injections in chain order, or its adder pools.
fn stage(v: &mut Emitter, plan: &Plan, j: u32, rot: Option<&Rotation>) {
    let units = &plan.placement.stage_units[j as usize];
    v.line(format!(
        "// slot {j}'s stage: its round units and key injections in chain order"
    ));
    v.open(format!("always @* begin : stage{j}"));
    v.line(format!("n{j}_st = a{j}_st;"));
    if let Some(pool) = &plan.pool {
        pool::stage(v, plan, pool, j, rot);
    }
    for u in units.iter().filter(|_| plan.pool.is_none()) {
        match u {
            Unit::Add(a) => v.line(key::injection_call(plan, j, *a, rot)),
            Unit::Mix(m) => v.line(format!(
                "n{j}_st = mix_layer(n{j}_st, c{j}_m{m}_rs, c{j}_m{m}_en);"
            )),
            Unit::Perm(p) => v.line(format!("if (c{j}_p{p}) n{j}_st = permute(n{j}_st);")),
        }
    }
    v.close("end");
    v.line("");
}

/// Slot `j`'s registers: the trace's `slot<j>_*`, the cycle count, the plaintext and (where
/// slot 0 has one) the rotating key. A slot 0 whose blocks stay in it loads the key, the tweak
/// and the plaintext only from the issue where the core reads known sources
/// ([`loads_on_issue`]).
fn registers(v: &mut Emitter, plan: &Plan, j: u32, rot: Option<&Rotation>) {
    let nbits = plan.nbits();
    let kybits = plan.kybits();
    let n = plan.words;
    let blk = block_index(plan);
    let counted = plan.fixed_cycle(j).is_none();
    // A slot 0 whose blocks stay in it loads the key, the tweak and the
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
    if let Some(r) = rot {
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

/// The block index and the ROM's round and subkey travel with a block only for the trace
/// (`slot<j>_block`, `_round`, `_subkey`: [`Plan::trace_regs`]): `text` where the core has
/// them, else nothing.
fn block_index(plan: &Plan) -> impl Fn(String) -> String {
    let kept = plan.trace_regs();
    move |text: String| if kept { text } else { String::new() }
}

/// Whether a lean slot `j` loads its key, tweak and plaintext only from the issue: slot 0 whose
/// blocks come only from the issue and from itself (a block that stays keeps its own).
pub(crate) fn loads_on_issue(plan: &Plan, j: u32) -> bool {
    let ops = plan.dp.cycle_ops();
    let stays: Vec<usize> = (1..ops.len()).filter(|&e| ops[e].slot == 0).collect();
    plan.known_sources()
        && j == 0
        && !stays.is_empty()
        && stays.iter().all(|&e| ops[e - 1].slot == 0)
}
