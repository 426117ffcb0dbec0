//! Each slot's control ROM (`c<j>_*`) on the arriving block's cycle count, made from
//! `Datapath::cycle_ops` (the list the simulator executes): per cycle, the subkey and mask of
//! each key injection, the rotation set and enables of each MIX unit, the permutations, the
//! shared adder pools' selects ([`pool`]), the rotating key's steps, `done`, and (full core:
//! [`Plan::trace_regs`]) the round, subkey and busy counts only the trace reads.

use skeinhw_sched::sim::{MicroOp, Unit};

use crate::emit::{Emitter, dec, mask};

use super::key::{Rotation, issue_readers};
use super::plan::{ELAPSED_BITS, Plan, SUBKEY_BITS, cycle_source};
use super::pool;

/// Slot `j`'s ROM outputs (and the rotating key register `rot`), declared.
pub(crate) fn declarations(v: &mut Emitter, plan: &Plan, j: u32, rot: Option<&Rotation>) {
    let n = plan.words;
    let kybits = plan.kybits();
    let units = &plan.placement.stage_units[j as usize];
    let mut decl = Vec::new();
    if let Some(pool) = &plan.pool {
        decl.extend(pool::declarations(plan, pool, j));
    }
    for u in units.iter().filter(|_| plan.pool.is_none()) {
        match u {
            Unit::Add(a) => decl.push(format!(
                "reg [{}:0] c{j}_k{a}_sk; reg [{}:0] c{j}_k{a}_mask;",
                SUBKEY_BITS - 1,
                n - 1
            )),
            Unit::Mix(m) => decl.push(format!(
                "reg [2:0] c{j}_m{m}_rs; reg [{}:0] c{j}_m{m}_en;",
                n / 2 - 1
            )),
            Unit::Perm(p) => decl.push(format!("reg c{j}_p{p};")),
        }
    }
    if let Some(r) = rot {
        decl.push(format!(
            "reg c{j}_rot; reg [{}:0] r{j}_ky; // the rotating key schedule",
            kybits - 1
        ));
        for a in issue_readers(r) {
            decl.push(format!(
                "reg c{j}_k{a}_iss; // key injection {a} reads the issue's key"
            ));
        }
    }
    decl.push(if plan.trace_regs() {
        format!(
            "reg [7:0] c{j}_round, c{j}_subkey; reg c{j}_done; reg [15:0] c{j}_bmix, c{j}_bsub, c{j}_bks, c{j}_bfs;"
        )
    } else {
        format!("reg c{j}_done;")
    });
    for d in decl {
        v.line(d);
    }
    v.line("");
}

/// Slot `j`'s ROM: defaults, then each cycle the slot holds (a constant where it holds one).
pub(crate) fn rom(v: &mut Emitter, plan: &Plan, j: u32, rot: Option<&Rotation>) {
    let n = plan.words;
    let units = &plan.placement.stage_units[j as usize];
    let ops = plan.dp.cycle_ops();
    v.line(format!(
        "// slot {j}'s control ROM on the arriving block's cycle (from Datapath::cycle_ops)"
    ));
    v.open(format!("always @* begin : rom{j}"));
    let mut defaults = Vec::new();
    if let Some(pool) = &plan.pool {
        defaults.extend(pool::defaults(pool, j));
    }
    for u in units.iter().filter(|_| plan.pool.is_none()) {
        match u {
            Unit::Add(a) => defaults.push(format!(
                "c{j}_k{a}_sk = {}; c{j}_k{a}_mask = {};",
                dec(SUBKEY_BITS, 0),
                dec(n, 0)
            )),
            Unit::Mix(m) => defaults.push(format!(
                "c{j}_m{m}_rs = 3'd0; c{j}_m{m}_en = {};",
                dec(n / 2, 0)
            )),
            Unit::Perm(p) => defaults.push(format!("c{j}_p{p} = 1'b0;")),
        }
    }
    if let Some(r) = rot {
        defaults.push(format!("c{j}_rot = 1'b0;"));
        for a in issue_readers(r) {
            defaults.push(format!("c{j}_k{a}_iss = 1'b0;"));
        }
    }
    defaults.push(if plan.trace_regs() {
        format!(
            "c{j}_round = 8'd0; c{j}_subkey = 8'd0; c{j}_done = 1'b0; c{j}_bmix = 16'd0; c{j}_bsub = 16'd0; c{j}_bks = 16'd0; c{j}_bfs = 16'd0;"
        )
    } else {
        format!("c{j}_done = 1'b0;")
    });
    for d in defaults {
        v.line(d);
    }
    if let Some(e) = plan.fixed_cycle(j) {
        // Gated by the arrival, which also gives the block a signal to wait on (an `always @*`
        // that reads nothing never runs in Icarus).
        let (comment, sets) = rom_entry(plan, j, e, rot);
        v.line(format!(
            "// cycle {e}, the only one this slot holds: {comment}"
        ));
        v.line(format!(
            "if (a{j}_valid) begin {} end // CYCLE e={e}",
            sets.join(" ")
        ));
    } else {
        v.open(format!("case (a{j}_e)"));
        for op in ops.iter().filter(|op| op.slot == j as usize) {
            let (comment, sets) = rom_entry(plan, j, op.elapsed, rot);
            v.line(format!("// cycle {}: {comment}", op.elapsed));
            v.line(format!(
                "{}: begin {} end // CYCLE e={}",
                dec(ELAPSED_BITS, u64::from(op.elapsed)),
                sets.join(" "),
                op.elapsed
            ));
        }
        v.line("default: ;");
        v.close("endcase");
    }
    v.close("end");
    v.line("");
}

/// The ops of cycle `e`, as ROM assignments for slot `j`.
fn rom_entry(plan: &Plan, j: u32, e: u32, rot: Option<&Rotation>) -> (String, Vec<String>) {
    let n = plan.words;
    let op = &plan.dp.cycle_ops()[e as usize];
    let mut sets = Vec::new();
    let mut what = Vec::new();
    if let Some(pool) = &plan.pool {
        pool::rom_entry(plan, pool, j, e, &mut sets, &mut what);
    }
    for (unit, m) in plan.placement.cycles[e as usize]
        .iter()
        .filter(|_| plan.pool.is_none())
    {
        match (unit, m) {
            (Unit::Add(a), MicroOp::AddSubkey { subkey, first, end }) => {
                sets.push(format!(
                    "c{j}_k{a}_sk = {}; c{j}_k{a}_mask = {};",
                    dec(SUBKEY_BITS, u64::from(*subkey)),
                    mask(n, *first, *end)
                ));
                if *first == 0 && *end == n {
                    what.push(format!("subkey {subkey}"));
                } else {
                    what.push(format!("subkey {subkey} words {first}..{}", end - 1));
                }
            }
            (Unit::Mix(u), MicroOp::Mix { round, first, end }) => {
                sets.push(format!(
                    "c{j}_m{u}_rs = 3'd{}; c{j}_m{u}_en = {};",
                    round % 8,
                    mask(n / 2, *first, *end)
                ));
                if *first == 0 && *end == n / 2 {
                    what.push(format!("MIX of round {round}"));
                } else {
                    what.push(format!("MIX {first}..{} of round {round}", end - 1));
                }
            }
            (Unit::Perm(u), MicroOp::Permute) => {
                sets.push(format!("c{j}_p{u} = 1'b1;"));
                what.push("permute".into());
            }
            _ => unreachable!("placed by kind"),
        }
    }
    if plan.trace_regs() {
        sets.push(format!(
            "c{j}_round = {}; c{j}_subkey = {};",
            dec(8, u64::from(op.round)),
            dec(8, u64::from(op.subkey))
        ));
    }
    if let Some(r) = rot {
        if r.rot_cycles.contains(&e) {
            sets.push(format!("c{j}_rot = 1'b1;"));
        }
        if cycle_source(plan, e as usize).is_none() {
            for a in issue_readers(r) {
                let works = plan.placement.cycles[e as usize]
                    .iter()
                    .any(|(u, _)| *u == Unit::Add(a));
                if works {
                    sets.push(format!("c{j}_k{a}_iss = 1'b1;"));
                }
            }
        }
    }
    if op.done {
        sets.push(format!("c{j}_done = 1'b1;"));
    }
    let b = op.busy;
    let busy = [
        ("bmix", b.mix),
        ("bsub", b.subkey),
        ("bks", b.key_schedule),
        ("bfs", b.first_subkey),
    ];
    for (name, val) in if plan.trace_regs() {
        &busy[..]
    } else {
        &busy[..0]
    } {
        if *val != 0 {
            sets.push(format!("c{j}_{name} = {};", dec(16, u64::from(*val))));
        }
    }
    let comment = if what.is_empty() {
        "no work (first-subkey pass)".to_owned()
    } else {
        what.join(", ")
    };
    (comment, sets)
}
