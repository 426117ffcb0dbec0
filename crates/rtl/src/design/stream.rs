//! Per stream (one per block in flight): the input register `b<k>_*`, filled through the
//! valid/ready port, and the controller context `s<k>_*` (what comes next in Skein's UBI
//! sequence, the chaining value, the Position), and the grant of the lowest ready stream.
//! The full core counts each stream's blocks (`s<k>_blk`, read only by the trace:
//! [`Plan::trace_regs`]); a lean core of one stream sums the tweak Position at the load
//! ([`Plan::position_at_load`]).

use crate::emit::{Emitter, dec};

use super::plan::Plan;
use super::{completion, issue};

pub(crate) fn streams(v: &mut Emitter, plan: &Plan) {
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
            if plan.trace_regs() { format!(" reg [63:0] s{k}_blk;") } else { String::new() }
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
    // The issue's and the completion's wires, which the per-stream blocks read.
    issue::declarations(v, plan);
    completion::declarations(v, plan);
    v.line("");
    for k in 0..ns {
        stream(v, plan, k, sb);
    }
    v.line("");
}

/// The registers of stream `k`: its input register and its place in Skein's UBI sequence.
fn stream(v: &mut Emitter, plan: &Plan, k: u32, sb: u32) {
    // s<k>_blk (the block index) is read only by the trace: not in a lean core.
    let (blk0, blk1) = if plan.trace_regs() {
        (
            format!(" s{k}_blk <= 64'd0;"),
            format!(" s{k}_blk <= s{k}_blk + 64'd1;"),
        )
    } else {
        (String::new(), String::new())
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
