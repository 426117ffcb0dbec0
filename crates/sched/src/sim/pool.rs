//! Long section 3.4's shared adders: a stage's round units grouped into layers, each layer one
//! pool of 64-bit adders with operand multiplexers, so a core builds only the adders some cycle
//! uses at once. The Verilog generator builds the pools, the estimator counts them; both read
//! them from here.
//!
//! Rule: subkey 0 added in the block's first cycle (on the load path) keeps a bank of its own.
//! The other units of a stage, in chain order, are cut into layers: a unit joins the current
//! layer when no cycle uses it together with a unit already there (so a layer does at most
//! one unit's work per cycle, all reading the same input: no combinational loop through a
//! shared adder), else it opens the next layer. A layer's pool is the most adders one cycle
//! uses in it (a subkey word or a MIX pair each take one). Long's counts for Skein-256 follow:
//! half the subkey adders 2 MIX + 2 subkey (3.4.2), half the MIX adders 1 + 4 (3.4.3), the
//! split round 2 + 4 (Fig. 14b), the MIX/key overlap 4 (3.4.4: one layer for both). The
//! permutation, wiring, is a layer of its own.

use super::datapath::MicroOp;
use super::placement::{Placement, Unit};

/// One layer of a stage: units that no cycle uses together, sharing one pool of adders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The units, in chain order.
    pub units: Vec<Unit>,
    /// 64-bit adders of the pool.
    pub adders: u32,
}

/// The adder pools of one pipeline stage (slot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StagePool {
    /// Subkey 0 is added on the load path (a bank of Nw adders of its own).
    pub load: bool,
    /// The layers, in chain order.
    pub layers: Vec<Layer>,
}

/// Where one op of a cycle runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolOp {
    /// Subkey 0 on the load path.
    Load,
    /// `op` on `unit`, in layer `layer`, on pool adders `0..adders(op)`.
    Layer {
        /// Index into [`StagePool::layers`].
        layer: usize,
        /// The unit of the layer doing it.
        unit: Unit,
        /// The op.
        op: MicroOp,
    },
}

/// The pools of every stage and the pool op of every cycle of a block.
#[derive(Clone, Debug)]
pub struct AdderPool {
    /// Per slot.
    pub stages: Vec<StagePool>,
    /// Per cycle e of a block: its ops in chain order.
    pub cycles: Vec<Vec<PoolOp>>,
}

/// 64-bit adders an op keeps busy: one per subkey word, one per MIX pair.
pub fn op_adders(op: &MicroOp) -> u32 {
    match *op {
        MicroOp::AddSubkey { first, end, .. } | MicroOp::Mix { first, end, .. } => end - first,
        MicroOp::Permute => 0,
    }
}

/// Whether op `i` of cycle `e` is subkey 0 on the load path.
fn is_load(e: usize, i: usize, op: &MicroOp) -> bool {
    e == 0 && i == 0 && matches!(op, MicroOp::AddSubkey { subkey: 0, .. })
}

impl AdderPool {
    /// The pools of a placement (by the rule of the module doc).
    pub fn new(placement: &Placement) -> AdderPool {
        let slots = placement.stage_units.len();
        // Per slot: the round units each cycle uses (the load left out).
        let mut used: Vec<Vec<Vec<Unit>>> = vec![Vec::new(); slots];
        let mut load = vec![false; slots];
        let cycle_slot = &placement.slots;
        for (e, ops) in placement.cycles.iter().enumerate() {
            let s = cycle_slot[e];
            let mut units = Vec::new();
            for (i, (u, m)) in ops.iter().enumerate() {
                if is_load(e, i, m) {
                    load[s] = true;
                } else {
                    units.push(*u);
                }
            }
            used[s].push(units);
        }
        let mut stages = Vec::with_capacity(slots);
        for s in 0..slots {
            let mut layers: Vec<Layer> = Vec::new();
            for &u in &placement.stage_units[s] {
                if !used[s].iter().any(|c| c.contains(&u)) {
                    continue;
                }
                // The permutation is wiring: it takes a layer of its own (in a layer with MIX
                // it would make every word a three-way select instead of two gated ones).
                let wiring = |v: &Unit| matches!(v, Unit::Perm(_));
                let joins = layers.last().is_some_and(|l| {
                    !wiring(&u)
                        && !l.units.iter().any(wiring)
                        && !used[s]
                            .iter()
                            .any(|c| c.contains(&u) && l.units.iter().any(|v| c.contains(v)))
                });
                if joins {
                    layers.last_mut().expect("checked").units.push(u);
                } else {
                    layers.push(Layer {
                        units: vec![u],
                        adders: 0,
                    });
                }
            }
            stages.push(StagePool {
                load: load[s],
                layers,
            });
        }
        let mut cycles = Vec::with_capacity(placement.cycles.len());
        for (e, ops) in placement.cycles.iter().enumerate() {
            let stage = &mut stages[cycle_slot[e]];
            let mut here = Vec::with_capacity(ops.len());
            for (i, (u, m)) in ops.iter().enumerate() {
                if is_load(e, i, m) {
                    here.push(PoolOp::Load);
                    continue;
                }
                let layer = stage
                    .layers
                    .iter()
                    .position(|l| l.units.contains(u))
                    .expect("every used unit is in a layer");
                let pool = &mut stage.layers[layer].adders;
                *pool = (*pool).max(op_adders(m));
                here.push(PoolOp::Layer {
                    layer,
                    unit: *u,
                    op: *m,
                });
            }
            cycles.push(here);
        }
        AdderPool { stages, cycles }
    }

    /// 64-bit adders of the round pools over all stages (the load banks and the key schedule
    /// not counted).
    pub fn round_adders(&self) -> u32 {
        self.stages
            .iter()
            .flat_map(|s| s.layers.iter().map(|l| l.adders))
            .sum()
    }

    /// The pools of a schedule's datapath.
    pub fn of(schedule: &crate::Schedule) -> AdderPool {
        AdderPool::new(&Placement::of(schedule))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(name: &str) -> AdderPool {
        AdderPool::of(&crate::preset(name).unwrap())
    }

    /// Long 2009, section 3.3 (p. 5): "the major component for the area for Skein-256 is thus
    /// the nine 64-bit adders", 3 of them the key schedule's: 6 in the round (2 MIX, 4 subkey).
    #[test]
    fn the_iterative_round_has_six_adders() {
        assert_eq!(pool("long-iter-256").round_adders(), 6);
    }

    /// Long 3.4.2 (Fig. 13): "we could use only two adders instead" of the four output
    /// adders: 2 MIX + 2 subkey.
    #[test]
    fn half_the_subkey_adders_leave_four() {
        let p = pool("long-outshare-256");
        assert_eq!(p.round_adders(), 4);
        assert!(p.stages[0].load);
    }

    /// Long 3.4.3 (Fig. 14a): "we could use only one adder" for the input mixing: 1 + 4.
    #[test]
    fn half_the_mix_adders_leave_five() {
        assert_eq!(pool("long-inshare-256").round_adders(), 5);
    }

    /// Long 3.4.3 (Fig. 14b): the split round keeps the round's adders, 2 + 4.
    #[test]
    fn the_split_round_keeps_six() {
        let p = pool("long-split-256");
        assert_eq!(p.round_adders(), 6);
        assert_eq!(p.stages[0].layers.len(), 3);
    }

    /// Long 3.4.4 (Fig. 15): "only four adders are used compared to the six".
    #[test]
    fn the_overlap_uses_four() {
        let p = pool("long-overlap-256");
        assert_eq!(p.round_adders(), 4);
        assert_eq!(p.stages[0].layers[0].units, [Unit::Add(0), Unit::Mix(0)]);
    }
}
