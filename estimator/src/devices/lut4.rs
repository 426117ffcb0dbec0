//! ECP5's LUT4 count of the generated RTL, from its inventory: two fitted constants, one per
//! kind of logic that a 4-input fabric prices differently from Virtex-5's LUT6.
//!
//! What the routed rows (`data/ecp5/results.json`) show: Yosys `synth_ecp5` maps adders to
//! CCU2C carry cells (no LUT4 of their own: their `ccu2c` counts are the inventory's adder
//! bits / 2), rotations and permutations are wires, and the LUT4 count splits in two:
//!
//! - **wide selects** (a function or multiplexer of more than 4 inputs: the subkey-word
//!   `case`, the rotation `case` over 8 rounds, the parity XOR of 8 or 16 words). ABC maps
//!   them into LUT4s joined by PFUMX and L6MUX21 (the rows' `pfumx` is 40-65% of their
//!   `lut4`); their cost grows faster than their inputs: `long-outshare-256`'s two subkey
//!   selects of 40 and 66 inputs cost about 7,400 LUT4s more than `long-split-256`'s four of
//!   10, 30, 30 and 36 (106 inputs a bit in both). Priced as inputs squared per bit, one
//!   fitted constant ([`Lut4Model::per_select_input_sq`]); a multiplexer's inputs are its
//!   data and select bits. The square is chosen, not fitted: of the powers 1, 1.5, 2 and 3
//!   (with the per-flip-flop term), 2 gave the lowest leave-one-out error on these rows (19%,
//!   11%, 10.3%, 14%), so that choice was made on the rows it is scored on;
//! - **narrow logic** (arrival selects, enables, feed-forward and MIX XORs, ROM bits: one or
//!   two LUT4s a bit), which in the generated design comes in proportion to its flip-flops
//!   (every register bit has its arrival select and most a XOR or enable behind it). Priced
//!   per flip-flop, the second constant ([`Lut4Model::per_ff`]).
//!
//! Fitted by least squares on the relative error over the routed `full` rows; each row's
//! out-of-sample error comes from the constants fitted on the others ([`loo_points`]).

use serde::Serialize;
use skeinhw_sched::Schedule;

use super::rows::DeviceRow;
use crate::calibrate::LooPoint;
use crate::count::{self, Kind};
use crate::style::CoreStyle;

/// Inputs one LUT4 takes: a function of more is a wide select.
const LUT4_INPUTS: u32 = 4;

/// What a design's LUT4 count is made of (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Lut4Basis {
    /// Sum over wide-select bits of their inputs squared.
    pub select_inputs_sq: f64,
    /// Flip-flops.
    pub ffs: f64,
}

/// LUT4s = `per_select_input_sq` x select inputs squared + `per_ff` x flip-flops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Lut4Model {
    /// LUT4s per wide-select bit and input squared.
    pub per_select_input_sq: f64,
    /// LUT4s of narrow logic per flip-flop.
    pub per_ff: f64,
}

/// The inputs a multiplexer of `fan_in` data inputs reads: data and select bits.
fn mux_inputs(fan_in: u32) -> u32 {
    fan_in + fan_in.next_power_of_two().trailing_zeros()
}

/// The basis of `schedule`'s `style` inventory.
pub fn basis(schedule: &Schedule, style: CoreStyle) -> Lut4Basis {
    let mut b = Lut4Basis::default();
    for item in &count::inventory(schedule, style).items {
        let bits = f64::from(item.bits());
        let inputs = match item.kind {
            Kind::Register { .. } => {
                b.ffs += bits;
                continue;
            }
            Kind::Mux {
                fan_in,
                fused: false,
            } if fan_in > 2 => mux_inputs(fan_in),
            Kind::Logic { inputs } | Kind::Xor { inputs, .. } => inputs,
            _ => continue,
        };
        if inputs > LUT4_INPUTS {
            b.select_inputs_sq += bits * f64::from(inputs).powi(2);
        }
    }
    b
}

impl Lut4Model {
    /// LUT4s of `b`.
    pub fn apply(&self, b: Lut4Basis) -> f64 {
        (self.per_select_input_sq * b.select_inputs_sq + self.per_ff * b.ffs).max(0.0)
    }

    /// Least squares of the relative error over `(basis, measured LUT4s)` pairs (the
    /// normal equations of two unknowns).
    pub fn fit(points: &[(Lut4Basis, f64)]) -> Lut4Model {
        let (mut uu, mut uv, mut vv, mut u1, mut v1) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (b, y) in points.iter().filter(|(_, y)| *y > 0.0) {
            let (u, v) = (b.select_inputs_sq / y, b.ffs / y);
            uu += u * u;
            uv += u * v;
            vv += v * v;
            u1 += u;
            v1 += v;
        }
        let det = uu * vv - uv * uv;
        if det.abs() < 1e-12 {
            return Lut4Model::default();
        }
        Lut4Model {
            per_select_input_sq: (u1 * vv - v1 * uv) / det,
            per_ff: (v1 * uu - u1 * uv) / det,
        }
    }
}

/// The routed rows' bases beside their measured LUT4s (rows whose design is no preset are
/// left out).
pub fn points(rows: &[DeviceRow]) -> Vec<(String, Lut4Basis, f64)> {
    rows.iter()
        .filter_map(|r| {
            let s = skeinhw_sched::preset(&r.design).ok()?;
            Some((r.design.clone(), basis(&s, CoreStyle::Generated), r.area?))
        })
        .collect()
}

/// The model fitted on every row of `rows`.
pub fn fit_rows(rows: &[DeviceRow]) -> Lut4Model {
    let pairs: Vec<(Lut4Basis, f64)> = points(rows).into_iter().map(|(_, b, y)| (b, y)).collect();
    Lut4Model::fit(&pairs)
}

/// Leave-one-out LUT4 points of `rows`: each row by the constants fitted on the others.
pub fn loo_points(rows: &[DeviceRow]) -> Vec<LooPoint> {
    let pts = points(rows);
    let all = Lut4Model::fit(&pts.iter().map(|(_, b, y)| (*b, *y)).collect::<Vec<_>>());
    pts.iter()
        .enumerate()
        .map(|(i, (design, b, y))| {
            let others: Vec<(Lut4Basis, f64)> = pts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, (_, b, y))| (*b, *y))
                .collect();
            LooPoint {
                design: design.clone(),
                metric: "lut4",
                measured: *y,
                model: all.apply(*b),
                loo: Lut4Model::fit(&others).apply(*b),
                validation: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_its_constants() {
        let b = |s: f64, f: f64| Lut4Basis {
            select_inputs_sq: s,
            ffs: f,
        };
        let truth = Lut4Model {
            per_select_input_sq: 0.03,
            per_ff: 2.5,
        };
        let pts: Vec<(Lut4Basis, f64)> = [b(1e5, 1800.0), b(2e5, 1800.0), b(1.5e5, 3300.0)]
            .into_iter()
            .map(|x| (x, truth.apply(x)))
            .collect();
        let m = Lut4Model::fit(&pts);
        assert!((m.per_select_input_sq - 0.03).abs() < 1e-9, "{m:?}");
        assert!((m.per_ff - 2.5).abs() < 1e-9, "{m:?}");
        assert_eq!(mux_inputs(8), 11);
        assert_eq!(mux_inputs(3), 5);
    }
}
