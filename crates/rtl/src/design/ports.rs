//! The module's ports and the codes of the controller's phases and stream sequence.

use skeinhw_sched::sim::Phase;
use skeinhw_trace::names;

use crate::emit::Emitter;

use super::Plan;

pub(crate) fn ports(v: &mut Emitter, plan: &Plan) {
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
    if plan.trace_regs() {
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
    if plan.trace_regs() {
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
