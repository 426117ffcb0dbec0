//! The Verilog functions of the datapath: rotl, the MIX layer of the baseline round, the
//! permutation, the key injection's (from [`key`]), the tweak words and `slot_of`: each only
//! where the module calls it.

use skeinhw_skein::constants::{permutation, rotation};
use skeinhw_skein::tweak::{BIT_PAD_BIT, TREE_LEVEL_SHIFT};

use crate::emit::{Emitter, dec};

use super::key;
use super::plan::{ELAPSED_BITS, Plan};

/// The functions the core's stages call, in the order they are declared.
pub(crate) fn functions(v: &mut Emitter, plan: &Plan) {
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
    key::functions(v, plan);
    tweak_words(v, plan.tree());
    if plan.decodes_slot() {
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
