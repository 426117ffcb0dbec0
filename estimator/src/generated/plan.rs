//! [`GeneratedPlan`]: the placement of the schedule on the slots, as the generator does it.

use super::*;

impl GeneratedPlan {
    /// Places every cycle's micro-ops on the slots' round units, as the generator does.
    pub fn new(schedule: &Schedule) -> GeneratedPlan {
        let dp = Datapath::new(schedule);
        // The generator refuses a schedule whose ops do not fit; this counts what fits.
        let placement = Placement::new(
            &dp,
            schedule.rounds_per_cycle() / schedule.functional_stages(),
        );
        let mut slots = vec![Slot::default(); dp.slots()];
        let ops = dp.cycle_ops();
        for (e, (op, placed)) in ops.iter().zip(&placement.cycles).enumerate() {
            let slot = &mut slots[op.slot];
            slot.cycles += 1;
            slot.done |= op.done;
            for (i, v) in [
                op.busy.mix,
                op.busy.subkey,
                op.busy.key_schedule,
                op.busy.first_subkey,
            ]
            .into_iter()
            .enumerate()
            {
                slot.busy[i].insert(v);
            }
            if e > 0 {
                slot.sources.insert(ops[e - 1].slot);
            }
            for (unit, m) in placed {
                let value = match *m {
                    MicroOp::AddSubkey { subkey, first, end } => (subkey, first, end),
                    MicroOp::Mix { round, first, end } => (round % 8, first, end),
                    MicroOp::Permute => (1, 0, 0),
                };
                slot.units.entry(*unit).or_default().values.insert(value);
            }
        }
        for (i, slot) in slots.iter_mut().enumerate() {
            slot.next = dp.successors(i);
            // The ROM's default (every cycle of the other slots, and past the last one).
            for values in slot.units.values_mut() {
                values.values.insert((0, 0, 0));
            }
            for b in &mut slot.busy {
                b.insert(0);
            }
        }
        slots[0].sources.insert(usize::MAX); // the issue
        let pools = (schedule.round_datapath() != RoundDatapath::Baseline).then(|| {
            let pool = AdderPool::new(&placement);
            let mut out: Vec<PoolSlot> = pool
                .stages
                .iter()
                .map(|st| PoolSlot {
                    load: st.load,
                    layers: st
                        .layers
                        .iter()
                        .map(|l| PoolLayer {
                            adders: l.adders,
                            perm: l.units.iter().any(|u| matches!(u, Unit::Perm(_))),
                            units: l.units.len() as u32,
                            ..PoolLayer::default()
                        })
                        .collect(),
                })
                .collect();
            for (e, ops) in pool.cycles.iter().enumerate() {
                for op in ops {
                    let PoolOp::Layer { layer, unit, op } = op else {
                        continue;
                    };
                    let (first, value) = match *op {
                        MicroOp::AddSubkey { subkey, first, .. } => (first, subkey),
                        MicroOp::Mix { round, first, .. } => (first, round % 8),
                        MicroOp::Permute => continue,
                    };
                    out[placement.slots[e]].layers[*layer]
                        .alts
                        .entry((*unit, first))
                        .or_default()
                        .insert(value);
                }
            }
            out
        });
        GeneratedPlan {
            words: schedule.words(),
            streams: schedule.blocks_in_flight(),
            slots,
            pools,
        }
    }

    /// One line per slot: its sources, and per unit the ROM values it sees.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (j, slot) in self.slots.iter().enumerate() {
            let sources: Vec<String> = slot
                .sources
                .iter()
                .map(|&s| {
                    if s == usize::MAX {
                        "issue".to_owned()
                    } else {
                        format!("slot{s}")
                    }
                })
                .collect();
            out.push_str(&format!(
                "slot{j}: {} cycles, from {}{}\n",
                slot.cycles,
                sources.join(", "),
                if slot.done { ", done here" } else { "" }
            ));
            for (unit, values) in &slot.units {
                let v: Vec<String> = values
                    .values
                    .iter()
                    .map(|(a, b, c)| format!("{a}:{b}..{c}"))
                    .collect();
                out.push_str(&format!("  {unit:?}: {}\n", v.join(" ")));
            }
        }
        out
    }

    /// Pipeline registers (slots).
    pub fn slots(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Streams (blocks in flight): one input register and controller context each.
    pub fn streams(&self) -> u32 {
        self.streams
    }
}
