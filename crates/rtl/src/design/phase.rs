//! The full core's controller phase and busy counters, which only the trace reads
//! ([`Plan::trace_regs`]): the phase of the lowest-numbered stream with a block stepping, and
//! the sum of each busy count over the arriving blocks.

use skeinhw_trace::names;

use crate::emit::Emitter;

use super::balanced;
use super::plan::Plan;

/// The controller phase: that of the lowest-numbered stream with a block stepping this cycle.
/// A stream has at most one block in flight, so this is a tournament over the slots' arriving
/// blocks, `{valid, stream, phase}`, each match won by the valid one of lower stream: a tree
/// of depth log2(slots) rather than a chain of one comparison per slot.
pub(crate) fn phase_next(v: &mut Emitter, plan: &Plan) {
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

/// The busy counters' reset.
pub(crate) fn busy_reset(v: &mut Emitter) {
    for b in names::BUSY {
        v.line(format!("{b} <= 16'd0;"));
    }
}

/// The busy counters: each the sum of the arriving blocks' counts in the control ROM.
pub(crate) fn busy_next(v: &mut Emitter, plan: &Plan) {
    let sum = |field: &str| -> String {
        let terms: Vec<String> = (0..plan.slots)
            .map(|j| format!("(a{j}_valid ? c{j}_{field} : 16'd0)"))
            .collect();
        balanced(&terms, "+", "16'd0")
    };
    for (b, f) in names::BUSY.iter().zip(["bmix", "bsub", "bks", "bfs"]) {
        v.line(format!("{b} <= {};", sum(f)));
    }
}
