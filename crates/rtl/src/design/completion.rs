//! Completion and outputs: the block that did its last cycle leaves with its feed-forward
//! (state ^ plaintext, the plaintext read from where it is known in a lean core:
//! [`Plan::known_sources`]), the stream registers it updates, the `out_*` registers and a tree
//! core's `res_*`; the full core's phase and busy counters are [`phase`]'s.

use skeinhw_trace::names;

use crate::emit::{Emitter, dec};

use super::plan::{Plan, single_source};
use super::{balanced, phase};

/// The completion's registers (`c_*`): the block that did its last cycle this cycle.
pub(crate) fn declarations(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    v.line(format!(
        "reg c_valid; reg [31:0] c_stream; reg [2:0] c_phase; reg [{}:0] c_chain;",
        nbits - 1
    ));
}

/// The plaintext that slot `j`'s completing blocks feed forward: where the core reads known
/// sources and they all
/// come from one place, that place's plaintext rather than the arrival select `a<j>_plain`.
fn completion_plain(plan: &Plan, j: u32) -> String {
    if !plan.known_sources() {
        return format!("a{j}_plain");
    }
    match single_source(plan, j, |e| plan.dp.cycle_ops()[e].done) {
        Some(None) => "iss_data".to_owned(),
        Some(Some(i)) => format!("slot{i}_plain"),
        None => format!("a{j}_plain"),
    }
}

/// The completion (`complete`: the feed-forward of the block that did its last cycle), the
/// output registers and (tree cores) the results that go back to the host.
pub(crate) fn completion(v: &mut Emitter, plan: &Plan) {
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
    if plan.trace_regs() {
        phase::phase_next(v, plan);
    }
    v.open("always @(posedge clk) begin : outputs");
    v.open("if (rst) begin");
    v.line(format!(
        "{}{} <= 1'b0; {} <= 32'd0; {} <= 64'd0;",
        if plan.trace_regs() {
            format!("{} <= PH_IDLE; ", names::PHASE)
        } else {
            String::new()
        },
        names::OUT_VALID,
        names::OUT_STREAM,
        names::OUT_INDEX
    ));
    for w in 0..n {
        v.line(format!("{} <= 64'd0;", names::out_data(w)));
    }
    if plan.trace_regs() {
        phase::busy_reset(v);
    }
    v.close("end else begin");
    v.indent_more();
    if plan.trace_regs() {
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
    if plan.trace_regs() {
        phase::busy_next(v, plan);
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
