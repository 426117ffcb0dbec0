//! Mapping onto the Virtex-5 fabric: LUT6s, CARRY4s, MUXF7/F8s and flip-flops, then LUT-FF
//! pairs and slices.
//!
//! Fusion rules (why an element may cost nothing of its own):
//! - rotations and permutations are wires (Long 3.2.1: "implemented through routing"), so
//!   they never appear in the inventory;
//! - a 2:1 select on an adder's operands shares the adder's LUT: a + (sel ? b : c) needs
//!   5 of the LUT6's 6 inputs, and the LUT's O6 still feeds the carry chain;
//! - a 2:1 rotation select shares the MIX XOR's LUT (sum bit, two rotated bits, select);
//! - an XOR after an adder cannot enter the carry chain: it costs a LUT per bit (and a
//!   level on the path, see `timing`);
//! - a wider multiplexer costs LUT6s of 4 data inputs each, combined by MUXF7/MUXF8 up to
//!   16 inputs in one slice, and by another LUT level beyond that.

use serde::Serialize;

use crate::constants::Constants;
use crate::count::{Inventory, Kind, Role};
use crate::style::{CoreStyle, Flow};

/// Data inputs one LUT6 multiplexes (2 select + 4 data).
const MUX_PER_LUT: u32 = 4;
/// Data inputs one slice multiplexes with its 4 LUTs, 2 MUXF7 and a MUXF8.
const MUX_PER_SLICE: u32 = 16;
/// Bits per CARRY4.
const CARRY4_BITS: u32 = 4;
/// Extra inputs each LUT6 of an XOR tree takes after the first (6 - 1 carried over).
const XOR_PER_LUT: u32 = 5;

/// LUT6s per output bit of an n:1 multiplexer.
pub const fn mux_luts(fan_in: u32) -> u32 {
    if fan_in <= 1 {
        0
    } else if fan_in <= MUX_PER_LUT {
        1
    } else if fan_in <= MUX_PER_SLICE {
        fan_in.div_ceil(MUX_PER_LUT)
    } else {
        fan_in.div_ceil(MUX_PER_LUT) + mux_luts(fan_in.div_ceil(MUX_PER_SLICE))
    }
}

/// LUT levels of an n:1 multiplexer (MUXF7/F8 stages are not LUT levels).
pub const fn mux_levels(fan_in: u32) -> u32 {
    if fan_in <= 1 {
        0
    } else if fan_in <= MUX_PER_SLICE {
        1
    } else {
        1 + mux_levels(fan_in.div_ceil(MUX_PER_SLICE))
    }
}

/// MUXF7/MUXF8 stages after the first LUT level of an n:1 multiplexer.
pub const fn mux_f_stages(fan_in: u32) -> u32 {
    let first = if fan_in > MUX_PER_SLICE {
        MUX_PER_SLICE
    } else {
        fan_in
    };
    if first <= MUX_PER_LUT {
        0
    } else if first <= 2 * MUX_PER_LUT {
        1
    } else {
        2
    }
}

/// LUT6s per output bit of an n:1 multiplexer built of LUT6s only (no MUXF7/MUXF8, as Yosys
/// maps with `-nowidelut`): each LUT6 is a 4:1 multiplexer, a tree of them.
pub const fn lut6_mux_luts(fan_in: u32) -> u32 {
    if fan_in <= 1 {
        0
    } else {
        (fan_in - 1).div_ceil(MUX_PER_LUT - 1)
    }
}

/// LUT6s per output bit of a function of `inputs` inputs: one LUT6 up to 6, then a tree
/// (each further LUT6 takes 5 more inputs).
pub const fn logic_luts(inputs: u32) -> u32 {
    if inputs <= 1 {
        0
    } else if inputs <= 6 {
        1
    } else {
        (inputs - 1).div_ceil(XOR_PER_LUT)
    }
}

/// LUT6s per output bit of an n-input XOR (a tree of 6-input LUTs).
pub const fn xor_luts(inputs: u32) -> u32 {
    if inputs <= 1 {
        0
    } else {
        (inputs - 1).div_ceil(XOR_PER_LUT)
    }
}

/// LUTs of one role, for the breakdown in reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RoleLuts {
    /// The role.
    pub role: Role,
    /// LUT6s counted for it, before the synthesis overhead.
    pub luts: u32,
}

/// The design on the device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Resources {
    /// Logic LUT6s: counted LUTs x overhead + control.
    pub luts: u32,
    /// LUT6s counted from the inventory, before the overhead.
    pub counted_luts: u32,
    /// CARRY4 elements.
    pub carry4: u32,
    /// Flip-flops.
    pub ffs: u32,
    /// Flip-flops driven by a LUT (may share its pair).
    pub lut_fed_ffs: u32,
    /// LUT-FF pairs.
    pub lut_ff_pairs: u32,
    /// Slices.
    pub slices: u32,
    /// Counted LUTs by role (largest first), then the fitted control LUTs (role `control`).
    pub breakdown: Vec<RoleLuts>,
    /// LUTs the overhead factor adds (negative when it is below 1): `luts` is the sum of
    /// `breakdown` and this, up to rounding.
    pub overhead_luts: i64,
}

/// Maps `inventory` onto the device with the `constants`' area factors for `flow`.
pub fn map(inventory: &Inventory, c: &Constants, flow: Flow) -> Resources {
    let (control_luts, control_ffs) = match inventory.style {
        CoreStyle::UbiCore => (c.control_luts_ubi, c.control_ffs_ubi),
        // A hash core holds a UBI core's control, and more (issue 30: never less).
        CoreStyle::HashCore => (c.control_luts_ubi + c.control_luts_hash, c.control_ffs_hash),
        // Counted element by element.
        CoreStyle::Generated => (0.0, 0.0),
    };
    let overhead = match (inventory.style, flow) {
        (CoreStyle::Generated, _) => c.lut_overhead_generated,
        (_, Flow::Ise9Default) => c.lut_overhead_ise9,
        (_, Flow::Ise13) => c.lut_overhead,
    };
    let rules = Rules {
        lut6_only_muxes: inventory.style == CoreStyle::Generated,
        overhead,
        control_luts,
        control_ffs,
    };
    map_items(&inventory.items, &rules, c)
}

/// How [`map_items`] prices a list of items.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    /// Multiplexers of LUT6s only (Yosys `-nowidelut`), not LUT6 + MUXF7/MUXF8.
    pub lut6_only_muxes: bool,
    /// Logic LUTs per counted LUT.
    pub overhead: f64,
    /// Control LUTs, before the overhead ([`Kind::Control`] items).
    pub control_luts: f64,
    /// Control flip-flops ([`Kind::Control`] items).
    pub control_ffs: f64,
}

/// Maps `items` onto the device with `rules` and the `constants`' pairing and packing.
pub fn map_items(items: &[crate::count::Item], rules: &Rules, c: &Constants) -> Resources {
    let Rules {
        lut6_only_muxes,
        overhead,
        control_luts,
        control_ffs,
    } = *rules;
    let mut counted = 0u32;
    let mut carry4 = 0u32;
    let mut lut_fed = 0u32;
    let mut free = 0u32;
    let mut breakdown: Vec<RoleLuts> = Vec::with_capacity(16);
    for item in items {
        let bits = item.bits();
        let luts = match item.kind {
            Kind::Adder { .. } => {
                carry4 += item.count * item.width.div_ceil(CARRY4_BITS);
                bits
            }
            Kind::Carry => {
                carry4 += item.count * item.width.div_ceil(CARRY4_BITS);
                0
            }
            Kind::Xor { inputs, .. } => bits * xor_luts(inputs),
            Kind::Mux { fused: true, .. } => 0,
            Kind::Mux { fan_in, .. } if lut6_only_muxes => bits * lut6_mux_luts(fan_in),
            Kind::Mux { fan_in, .. } => bits * mux_luts(fan_in),
            Kind::Logic { inputs } => bits * logic_luts(inputs),
            Kind::Register { lut_fed: true } => {
                lut_fed += bits;
                0
            }
            Kind::Register { lut_fed: false } => {
                free += bits;
                0
            }
            Kind::Control => {
                lut_fed += control_ffs.max(0.0).round() as u32;
                0
            }
        };
        counted += luts;
        if luts > 0 {
            match breakdown.iter_mut().find(|r| r.role == item.role) {
                Some(r) => r.luts += luts,
                None => breakdown.push(RoleLuts {
                    role: item.role,
                    luts,
                }),
            }
        }
    }
    breakdown.sort_by_key(|r| std::cmp::Reverse(r.luts));
    // Control is priced like counted logic: synthesized in the same flow, it takes the same
    // overhead, so a hash core's control is never below a UBI core's in one flow.
    let control = control_luts.max(0.0).round() as u32;
    if control > 0 {
        // A fitted block: shown beside the counted ones (issue 30).
        breakdown.push(RoleLuts {
            role: Role::Control,
            luts: control,
        });
    }
    let luts = (f64::from(counted + control) * overhead).round().max(0.0) as u32;
    let overhead_luts = i64::from(luts) - i64::from(counted) - i64::from(control);
    let ffs = lut_fed + free;
    let unpaired = f64::from(free) + (1.0 - c.ff_pairing) * f64::from(lut_fed);
    let pairs = (f64::from(luts) + unpaired)
        .round()
        .max(f64::from(luts.max(ffs))) as u32;
    let slices = (f64::from(pairs) / (c.luts_per_slice * c.slice_packing)).ceil() as u32;
    Resources {
        luts,
        counted_luts: counted,
        carry4,
        ffs,
        lut_fed_ffs: lut_fed,
        lut_ff_pairs: pairs,
        slices,
        breakdown,
        overhead_luts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mux_costs() {
        assert_eq!(
            [1, 2, 3, 4, 5, 8, 9, 16, 17].map(mux_luts),
            [0, 1, 1, 1, 2, 2, 3, 4, 6]
        );
        assert_eq!([2, 4, 8, 16, 17].map(mux_levels), [1, 1, 1, 1, 2]);
        assert_eq!(
            [2, 4, 5, 8, 9, 16, 17].map(mux_f_stages),
            [0, 0, 1, 1, 2, 2, 2]
        );
        assert_eq!([2, 6, 7, 8, 16].map(xor_luts), [1, 1, 2, 2, 3]);
    }
}
