//! The design: module `skeinhw`, generated from a [`Schedule`](skeinhw_sched::Schedule).
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
//!
//! One module per hardware part. The lean and the full core differ through four named
//! choices the [`Plan`] makes of its `Core` (only `plan` matches on it); each part asks for
//! the ones it differs in:
//! - `trace_regs`: the registers only the trace reads (phase, busy, block index, round, subkey);
//! - `position_at_load`: the tweak Position summed as a block is loaded, not at the issue;
//! - `key_form`: subkey words as sums per subkey, or selected then added (and rotating);
//! - `known_sources`: a slot reads the one place its blocks come from, where known.
//!
//! | module         | part                                                | choices                 |
//! |----------------|-----------------------------------------------------|-------------------------|
//! | [`plan`]       | sizes, tables, features, schedule queries           | (makes them)            |
//! | [`header`]     | the header comment: schedule, port protocol         | `trace_regs`            |
//! | [`ports`]      | module ports, phase and sequence codes              | `trace_regs`            |
//! | [`functions`]  | rotl, MIX, permute, tweak words, `slot_of`          | none (key's below)      |
//! | [`stream`]     | per-stream input registers and contexts, the grant  | `trace_regs`, `position_at_load` |
//! | [`issue`]      | the issue rule and the issued block                 | `trace_regs`, `position_at_load` |
//! | [`rom`]        | each slot's control ROM                             | `trace_regs`            |
//! | [`slot`]       | each slot's arrival, stage and registers            | `trace_regs`, `known_sources` |
//! | [`key`]        | key injection functions and the key each reads      | `key_form`, `known_sources` |
//! | `key::rotation`| the rotating key register of a lean slot 0          | `key_form`              |
//! | [`pool`]       | Long 3.4's shared adder pools                       | `known_sources`         |
//! | [`completion`] | feed-forward, outputs, tree results                 | `trace_regs`, `known_sources` |
//! | [`phase`]      | the controller phase and busy counters (full only)  | (only when `trace_regs`) |

mod completion;
mod functions;
mod header;
mod issue;
mod key;
mod phase;
mod plan;
mod pool;
mod ports;
mod rom;
mod slot;
mod stream;

pub(crate) use plan::Plan;
pub use plan::{Features, MAX_CORE_OUT_BITS};

use crate::emit::Emitter;

/// The Verilog text of the design.
pub(crate) fn design(plan: &Plan) -> String {
    let mut v = Emitter::new();
    header::header(&mut v, plan);
    ports::ports(&mut v, plan);
    functions::functions(&mut v, plan);
    slot::declarations(&mut v, plan);
    stream::streams(&mut v, plan);
    issue::issue(&mut v, plan);
    for j in 0..plan.slots {
        slot::slot(&mut v, plan, j);
    }
    completion::completion(&mut v, plan);
    v.close("endmodule");
    v.finish()
}

/// A stream number carried from register to register: its upper bits written as the constant
/// 0 they always are (the trace's field is 32 bits wide), so synthesis drops them at once.
pub(crate) fn stream_id(plan: &Plan, reg: &str) -> String {
    let sb = plan.stream_bits();
    format!("{{{}'d0, {reg}[{}:0]}}", 32 - sb, sb - 1)
}

/// `a op b op ...` as a balanced tree (depth log2 of the terms, not their number): sums, AND-ORs.
pub(crate) fn balanced(terms: &[String], op: &str, empty: &str) -> String {
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
