//! The issue rule (the simulator's controller): a new block enters slot 0 when no block in
//! flight is about to use it, the lowest-numbered ready stream first; and the block it issues,
//! in Skein's order (Key, Config, optional arguments and message, Output), with its tweak.

use skeinhw_skein::constants::{BlockType, C240};
use skeinhw_skein::tweak::{BIT_PAD_BIT, FINAL_BIT, FIRST_BIT, TREE_LEVEL_SHIFT, TYPE_SHIFT};

use crate::emit::{Emitter, dec, words_const};

use super::balanced;
use super::plan::{Plan, config_words};

/// The issue's registers and the granted stream's (`g_*`), which the streams read too.
pub(crate) fn declarations(v: &mut Emitter, plan: &Plan) {
    let nbits = plan.nbits();
    let tree = plan.tree();
    let multi = plan.out_blocks() > 1;
    let ocb = plan.out_counter_bits();
    v.line("// ---- the issue (iss_*) and the completion (c_*) of this cycle");
    v.line("reg blocked, iss_valid, iss_from_buf, iss_first, iss_last, iss_bitpad; reg [31:0] iss_stream;");
    v.line(format!(
        "reg [2:0] iss_kind; reg [63:0] iss_pos{}; reg [{}:0] iss_chain, iss_data; reg [5:0] iss_type; reg [63:0] iss_t0, iss_t1, iss_parity;",
        if plan.trace_regs() { ", iss_blk" } else { "" },
        nbits - 1
    ));
    v.line(format!(
        "reg [2:0] g_sq; reg [{nb}:0] g_chain, g_bdata; reg [63:0] {}; reg g_bkey, g_bfirst, g_blast, g_bbitpad;{} reg [5:0] g_btype; reg [2:0] host_kind;",
        match (plan.position_at_load(), plan.trace_regs()) {
            (true, _) => "g_bend",
            (false, false) => "g_pos",
            (false, true) => "g_pos, g_blk",
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
}

/// The issue rule (`issue_rule`: the grant and the granted stream's registers) and the block it
/// issues (`issue_block`).
pub(crate) fn issue(v: &mut Emitter, plan: &Plan) {
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
        !(!plan.trace_regs() && f.0 == "g_blk"
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
    if plan.trace_regs() {
        v.line("iss_blk = g_blk;");
    }
    v.close("end");
    v.line("");
}
