//! The critical register-to-register chain of the generated RTL.

use super::*;

/// LUT levels of an n:1 multiplexer of LUT6s (4:1 each).
fn lut6_mux_levels(fan_in: u32) -> u32 {
    let mut levels = 0;
    let mut n = fan_in;
    while n > 1 {
        n = n.div_ceil(4);
        levels += 1;
    }
    levels
}

/// The longest register-to-register chain of the generated RTL: per slot, the arrival select,
/// then per unit in chain order: a key injection's subkey select, key-schedule addition,
/// injection addition and word mask; a MIX addition, the rotation select and the XOR; and the
/// feed-forward XOR where a block finishes. Returns the chain of the worst slot and its index.
pub fn critical_chain(schedule: &Schedule) -> (u32, crate::timing::Chain) {
    let plan = GeneratedPlan::new(schedule);
    let nw = plan.words;
    let mut worst = (0, crate::timing::Chain::default());
    let mut worst_len = -1.0f64;
    for (j, slot) in plan.slots.iter().enumerate() {
        // The control in front of the datapath: the arriving cycle count `a_e` (an 8-bit
        // increment) and the control ROM on it (two LUT levels); where a source's blocks go
        // to different slots also `slot_of(elapsed + 1) == j`, which picks the arriving block
        // (three more levels). A slot that holds one cycle of a block has constant control.
        let decoded = slot
            .sources
            .iter()
            .any(|&i| i != usize::MAX && plan.slots[i].next.len() > 1);
        let control = match (slot.cycles > 1, decoded) {
            (false, _) => 0,
            (true, true) => 5,
            (true, false) => 2,
        };
        let mut chain = crate::timing::Chain {
            adders: 0,
            lut_levels: 1 + control,
            muxf: 0,
        };
        for (unit, values) in &slot.units {
            let set = &values.values;
            match unit {
                Unit::Add(_) => {
                    let cases = selectable_subkeys(set).len() as u32;
                    chain.lut_levels += lut6_mux_levels(cases) + 1;
                    chain.adders += if cases > 1 { 2 } else { 1 };
                }
                Unit::Mix(_) => {
                    let rs: BTreeSet<u32> = set.iter().map(|v| v.0).collect();
                    let r = (0..nw / 2)
                        .map(|j| {
                            rs.iter()
                                .map(|&d| rotation(nw as usize, d as usize, j as usize))
                                .collect::<BTreeSet<u32>>()
                                .len() as u32
                        })
                        .max()
                        .unwrap_or(1);
                    chain.adders += 1;
                    chain.lut_levels += if r > 2 { lut6_mux_levels(r) + 1 } else { 1 };
                }
                Unit::Perm(_) => {}
            }
        }
        if slot.done {
            chain.lut_levels += 1;
        }
        let len = f64::from(chain.adders) * 10.0 + f64::from(chain.lut_levels);
        if len > worst_len {
            worst_len = len;
            worst = (j as u32, chain);
        }
    }
    worst
}
