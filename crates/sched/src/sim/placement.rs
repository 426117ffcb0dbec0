//! Where each cycle's micro-ops sit in the hardware: a pipeline stage with `r` round units is
//! the chain `Add(0), Mix(0), Perm(0), Add(1), ..., Mix(r-1), Perm(r-1), Add(r)` (a key
//! injection before, between and after the rounds), and every cycle of a block uses an
//! ordered subset of it. The Verilog generator builds the units this placement uses and the
//! estimator counts them, so both read it from here.
//!
//! Rule: of the two ways to place each cycle's ops in order (each op on the first unit that can
//! take it, or on the last), the one that needs fewer units; on a tie, the last. Matched from
//! the end, a cycle that does less than a full stage uses the units the full cycles use: a half
//! key injection on its own (Long 3.4.2) lands on the injection after the round, which every
//! fourth round needs anyway, and Athanasiou's first-subkey cycle on the last injection, so
//! the injection before the round is not built. Matched from the front, a datapath whose key
//! injections all have cycles of their own (Long 3.4.4's overlap) needs only the one before
//! the round.

use super::datapath::{Datapath, MicroOp};

/// A round unit of a stage, in the chain order of [`Unit::chain`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// Key injection `u`: before round unit `u` (`Add(r)`: after the last one).
    Add(u32),
    /// The MIX functions of round unit `u`.
    Mix(u32),
    /// The permutation of round unit `u`.
    Perm(u32),
}

impl Unit {
    /// The chain of a stage with `r` round units, in order.
    pub fn chain(r: u32) -> Vec<Unit> {
        let mut t = vec![Unit::Add(0)];
        for u in 0..r {
            t.extend([Unit::Mix(u), Unit::Perm(u), Unit::Add(u + 1)]);
        }
        t
    }

    /// Whether this unit does `op`.
    pub fn accepts(self, op: &MicroOp) -> bool {
        matches!(
            (self, op),
            (Unit::Add(_), MicroOp::AddSubkey { .. })
                | (Unit::Mix(_), MicroOp::Mix { .. })
                | (Unit::Perm(_), MicroOp::Permute)
        )
    }
}

/// The placement of every cycle's ops of a [`Datapath`] on its stages' units.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Round units per stage.
    pub rounds_per_stage: u32,
    /// Per cycle e of a block (as [`Datapath::cycle_ops`]): its ops, each with its unit, in
    /// chain order.
    pub cycles: Vec<Vec<(Unit, MicroOp)>>,
    /// Per cycle e of a block: the slot it is in.
    pub slots: Vec<usize>,
    /// Per slot: the units some cycle uses, in chain order.
    pub stage_units: Vec<Vec<Unit>>,
    /// The first cycle whose ops do not fit the chain (those ops are left out), if any.
    pub overflow: Option<u32>,
}

impl Placement {
    /// Places the ops of every cycle of `dp` on stages of `rounds_per_stage` round units.
    pub fn new(dp: &Datapath, rounds_per_stage: u32) -> Placement {
        let last = Placement::aligned(dp, rounds_per_stage, Align::Last);
        let first = Placement::aligned(dp, rounds_per_stage, Align::First);
        if first.overflow.is_none() && first.units() < last.units() {
            first
        } else {
            last
        }
    }

    /// Units built over all slots.
    fn units(&self) -> usize {
        self.stage_units.iter().map(Vec::len).sum()
    }

    fn aligned(dp: &Datapath, rounds_per_stage: u32, align: Align) -> Placement {
        let chain = Unit::chain(rounds_per_stage);
        let mut stage_units: Vec<Vec<Unit>> = vec![Vec::new(); dp.slots()];
        let mut cycles = Vec::with_capacity(dp.cycle_ops().len());
        let mut overflow = None;
        let slots = dp.cycle_ops().iter().map(|op| op.slot).collect();
        for op in dp.cycle_ops() {
            let mut here = Vec::with_capacity(op.ops.len());
            let fits = match align {
                Align::First => {
                    let mut at = 0;
                    op.ops.iter().all(|m| {
                        let found = chain[at..].iter().position(|u| u.accepts(m));
                        found
                            .inspect(|i| {
                                here.push((chain[at + i], *m));
                                at += i + 1;
                            })
                            .is_some()
                    })
                }
                Align::Last => {
                    let mut at = chain.len();
                    let fits = op.ops.iter().rev().all(|m| {
                        let found = chain[..at].iter().rposition(|u| u.accepts(m));
                        found
                            .inspect(|&i| {
                                here.push((chain[i], *m));
                                at = i;
                            })
                            .is_some()
                    });
                    here.reverse();
                    fits
                }
            };
            if !fits {
                overflow.get_or_insert(op.elapsed);
            }
            let units = &mut stage_units[op.slot];
            for (u, _) in &here {
                if !units.contains(u) {
                    units.push(*u);
                }
            }
            cycles.push(here);
        }
        for units in &mut stage_units {
            units.sort_by_key(|u| chain.iter().position(|t| t == u));
        }
        Placement {
            rounds_per_stage,
            cycles,
            slots,
            stage_units,
            overflow,
        }
    }

    /// The placement of a schedule's datapath: `k / p` round units per stage.
    pub fn of(schedule: &crate::Schedule) -> Placement {
        let r = schedule.rounds_per_cycle() / schedule.functional_stages();
        Placement::new(&Datapath::new(schedule), r)
    }
}

/// Which end of the chain a cycle's ops are matched from.
#[derive(Clone, Copy)]
enum Align {
    First,
    Last,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_cycle_fills_the_chain_in_order() {
        let s = crate::preset("long-iter-256").unwrap();
        let p = Placement::of(&s);
        // Cycle 0: subkey 0, MIX of round 0, permute.
        let units: Vec<Unit> = p.cycles[0].iter().map(|(u, _)| *u).collect();
        assert_eq!(units, [Unit::Add(0), Unit::Mix(0), Unit::Perm(0)]);
        assert!(p.overflow.is_none());
    }

    #[test]
    fn injections_in_cycles_of_their_own_take_the_injection_before_the_round() {
        let s = crate::preset("long-overlap-256").unwrap();
        let p = Placement::of(&s);
        assert_eq!(
            p.stage_units[0],
            [Unit::Add(0), Unit::Mix(0), Unit::Perm(0)]
        );
    }

    #[test]
    fn a_first_subkey_cycle_takes_the_last_injection() {
        let s = crate::preset("ath-1r").unwrap();
        let p = Placement::of(&s);
        assert_eq!(
            p.stage_units[0],
            [Unit::Mix(0), Unit::Perm(0), Unit::Add(1)]
        );
    }

    #[test]
    fn a_half_injection_on_its_own_takes_the_injection_after_the_round() {
        let s = crate::preset("long-outshare-256").unwrap();
        let p = Placement::of(&s);
        for (e, ops) in p.cycles.iter().enumerate() {
            for (u, m) in ops {
                if let MicroOp::AddSubkey { subkey, .. } = m {
                    let want = if *subkey == 0 {
                        Unit::Add(0)
                    } else {
                        Unit::Add(1)
                    };
                    assert_eq!(*u, want, "cycle {e}: {m:?}");
                }
            }
        }
    }
}
