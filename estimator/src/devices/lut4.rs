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
//!   10, 30, 30 and 36 (106 inputs a bit in both). Priced as a power of the inputs per bit,
//!   one fitted constant ([`Lut4Model::per_select_input_pow`]); a multiplexer's inputs are
//!   its data and select bits. The power is chosen among [`SELECT_POWERS`] by the lowest
//!   leave-one-out error, and inside each fold of the headline leave-one-out on the other
//!   rows only ([`loo_points`]), so the headline error is not of a choice made on the row it
//!   scores (on all 9 rows the square wins: 19%, 11%, 10.3%, 14% for 1, 1.5, 2, 3);
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

/// The powers of a wide select's inputs its LUT4 cost may grow with (see the module doc).
pub const SELECT_POWERS: [f64; 4] = [1.0, 1.5, 2.0, 3.0];

/// What a design's LUT4 count is made of (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Lut4Basis {
    /// Sum over wide-select bits of their inputs to each of [`SELECT_POWERS`].
    pub select_inputs_pow: [f64; SELECT_POWERS.len()],
    /// Flip-flops.
    pub ffs: f64,
}

/// LUT4s = `per_select_input_pow` x select inputs^`select_power` + `per_ff` x flip-flops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Lut4Model {
    /// The power of a wide select's inputs (one of [`SELECT_POWERS`]).
    pub select_power: f64,
    /// LUT4s per wide-select bit and input to `select_power`.
    pub per_select_input_pow: f64,
    /// LUT4s of narrow logic per flip-flop.
    pub per_ff: f64,
    #[serde(skip)]
    power: usize,
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
            for (sum, p) in b.select_inputs_pow.iter_mut().zip(SELECT_POWERS) {
                *sum += bits * f64::from(inputs).powf(p);
            }
        }
    }
    b
}

impl Lut4Model {
    /// LUT4s of `b`.
    pub fn apply(&self, b: Lut4Basis) -> f64 {
        let selects = b.select_inputs_pow[self.power];
        (self.per_select_input_pow * selects + self.per_ff * b.ffs).max(0.0)
    }

    /// The power of [`SELECT_POWERS`] with the lowest leave-one-out error over `points`, and
    /// its constants fitted on all of them.
    pub fn choose(points: &[(Lut4Basis, f64)]) -> Lut4Model {
        let loo_error = |power: usize| -> f64 {
            (0..points.len())
                .map(|i| {
                    let others: Vec<_> = (0..points.len())
                        .filter(|&j| j != i)
                        .map(|j| points[j])
                        .collect();
                    let (b, y) = points[i];
                    (Lut4Model::fit(&others, power).apply(b) / y - 1.0).abs()
                })
                .sum()
        };
        let errors: Vec<f64> = (0..SELECT_POWERS.len()).map(loo_error).collect();
        let best = (0..errors.len())
            .min_by(|&a, &b| errors[a].total_cmp(&errors[b]))
            .expect("powers to choose from");
        Lut4Model::fit(points, best)
    }

    /// Least squares of the relative error over `(basis, measured LUT4s)` pairs with the
    /// select inputs to `SELECT_POWERS[power]` (the normal equations of two unknowns).
    pub fn fit(points: &[(Lut4Basis, f64)], power: usize) -> Lut4Model {
        let (mut uu, mut uv, mut vv, mut u1, mut v1) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (b, y) in points.iter().filter(|(_, y)| *y > 0.0) {
            let (u, v) = (b.select_inputs_pow[power] / y, b.ffs / y);
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
            select_power: SELECT_POWERS[power],
            per_select_input_pow: (u1 * vv - v1 * uv) / det,
            per_ff: (v1 * uu - u1 * uv) / det,
            power,
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

/// The model chosen and fitted on every row of `rows`.
pub fn fit_rows(rows: &[DeviceRow]) -> Lut4Model {
    let pairs: Vec<(Lut4Basis, f64)> = points(rows).into_iter().map(|(_, b, y)| (b, y)).collect();
    Lut4Model::choose(&pairs)
}

/// Leave-one-out LUT4 points of `rows`: each row by the power chosen and the constants
/// fitted on the others alone.
pub fn loo_points(rows: &[DeviceRow]) -> Vec<LooPoint> {
    let pts = points(rows);
    let all = Lut4Model::choose(&pts.iter().map(|(_, b, y)| (*b, *y)).collect::<Vec<_>>());
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
                loo: Lut4Model::choose(&others).apply(*b),
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
        // Inputs 8, 20, 40 and 66 with their powers as `basis` sums them.
        let b = |inputs: f64, bits: f64, ffs: f64| Lut4Basis {
            select_inputs_pow: SELECT_POWERS.map(|p| bits * inputs.powf(p)),
            ffs,
        };
        let truth = Lut4Model {
            select_power: 2.0,
            per_select_input_pow: 0.03,
            per_ff: 2.5,
            power: 2,
        };
        let pts: Vec<(Lut4Basis, f64)> = [
            b(8.0, 900.0, 1800.0),
            b(20.0, 300.0, 1800.0),
            b(40.0, 256.0, 3300.0),
            b(66.0, 64.0, 600.0),
        ]
        .into_iter()
        .map(|x| (x, truth.apply(x)))
        .collect();
        let m = Lut4Model::choose(&pts);
        assert_eq!(m.select_power, 2.0, "{m:?}");
        assert!((m.per_select_input_pow - 0.03).abs() < 1e-9, "{m:?}");
        assert!((m.per_ff - 2.5).abs() < 1e-9, "{m:?}");
        assert_eq!(mux_inputs(8), 11);
        assert_eq!(mux_inputs(3), 5);
    }
}
