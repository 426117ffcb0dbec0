//! Each device's calibration: its transfer from the Virtex-5 model, its leave-one-out
//! predictions (the headline errors) and the spread every estimate's interval is made of.
//! Computed once per process from the embedded data.

use std::sync::OnceLock;

use serde::Serialize;

use super::DeviceId;
use super::lut4::{self, Lut4Model};
use super::rows::{self, DeviceRow};
use super::transfer::{self, Transfer};
use crate::calibrate::{
    Loo, LooPoint, SeedRow, fit_skein, modelled_fit_rows, other_teams, report_on, seed_rows,
    virtex5_loo,
};
use crate::constants::Constants;
use crate::interval::Spread;

/// A device's calibration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceCalibration {
    /// The device.
    pub device: DeviceId,
    /// What the area of its rows is: `luts`, `slices`, `lut4`, or `luts/slices` (Virtex-5:
    /// Long's LUTs, Athanasiou's slices).
    pub area_metric: &'static str,
    /// Virtex-5 model to device (the identity on Virtex-5).
    pub transfer: Transfer,
    /// Leave-one-out predictions of every measured row.
    pub loo: Loo,
    /// ECP5: the LUT4 count's constants (the area is counted, not transferred).
    pub lut4: Option<Lut4Model>,
    /// Other teams' designs on this device (Virtex-5: Athanasiou 2013's Figs. 10-12 rows),
    /// measured against the model fitted on every fit row (`loo` = `model`: never fitted
    /// on), periods raw: what the "other implementations" interval adds to the spread.
    pub other_teams: Vec<LooPoint>,
    /// What the device's numbers are calibrated on, and what is not.
    pub notes: Vec<String>,
}

impl DeviceCalibration {
    /// The ratios measured / leave-one-out model: this project's flow and the seed papers'.
    pub fn spread(&self) -> Spread {
        self.loo.spread()
    }

    /// The ratios of the own rows and the other teams' rows together: the spread of an
    /// "other implementations" interval (another team's RTL and tools for the schedule).
    /// `None` where no other team's row was measured on the device.
    pub fn other_spread(&self) -> Option<Spread> {
        (!self.other_teams.is_empty()).then(|| {
            let mut points = self.loo.points.clone();
            points.extend(self.other_teams.iter().cloned());
            Loo { points }.spread()
        })
    }
}

/// The other teams' rows of `seed` against the Virtex-5 model fitted on its fit rows.
fn other_team_points(seed: &[SeedRow]) -> Vec<LooPoint> {
    let fitted = fit_skein(&Constants::built_in(), &modelled_fit_rows(seed));
    other_teams(&report_on(seed, &fitted))
        .rows
        .into_iter()
        .map(|r| LooPoint {
            design: format!("{} {}", r.source, r.design),
            metric: r.metric,
            measured: r.measured,
            model: r.model,
            loo: r.model,
            validation: true,
        })
        .collect()
}

/// `device`'s calibration on `seed` (a seed table: the embedded one or a user's), the ECP5
/// routed rows and the Kintex-7 netlists.
pub fn calibrate_device(device: DeviceId, seed: &[SeedRow]) -> DeviceCalibration {
    let v6 = || rows::virtex6(seed);
    match device {
        DeviceId::Virtex5 => DeviceCalibration {
            device,
            area_metric: "luts/slices",
            transfer: Transfer::IDENTITY,
            loo: virtex5_loo(&Constants::built_in(), seed),
            lut4: None,
            other_teams: other_team_points(seed),
            notes: vec![
                "the structural model, fitted on the seed table's role=fit rows (Long 2009's \
                 LUTs, Athanasiou 2013's slices, both papers' clocks)"
                    .into(),
            ],
        },
        DeviceId::Virtex6 => {
            let rows = v6();
            DeviceCalibration {
                device,
                area_metric: "slices",
                transfer: Transfer::fit(&rows),
                loo: transfer::loo(&rows, "slices"),
                lut4: None,
                other_teams: Vec::new(),
                notes: vec![format!(
                    "the Virtex-5 hash core mapped by a power law fitted on {} Virtex-6 rows of \
                     Athanasiou 2013 (Figs. 6-8; slices and clocks)",
                    rows.len()
                )],
            }
        }
        DeviceId::Ecp5 => {
            let rows = rows::ecp5_routed();
            let model = lut4::fit_rows(&rows);
            let mut points = lut4::loo_points(&rows);
            points.extend(
                transfer::loo(&rows, "lut4")
                    .points
                    .into_iter()
                    .filter(|p| p.is_period()),
            );
            DeviceCalibration {
                device,
                area_metric: "lut4",
                transfer: Transfer {
                    area: transfer::PowerLaw::IDENTITY,
                    period: Transfer::fit(&rows).period,
                },
                loo: Loo { points },
                lut4: Some(model),
                other_teams: Vec::new(),
                notes: vec![
                    format!(
                        "area: LUT4s counted from the generated RTL's inventory with 2 constants \
                         fitted on {} routed rows (data/ecp5/results.json, full cores, Yosys \
                         synth_ecp5): {:.4} LUT4 per wide-select bit and input to the power {} \
                         (selects of more than 4 inputs; ABC's PFUMX/L6MUX21 trees grow faster \
                         than their inputs; the power chosen among 1, 1.5, 2, 3 by \
                         leave-one-out, inside each fold for the headline), {:.3} LUT4 of \
                         narrow logic per flip-flop; adders are CCU2C carry cells and rotations \
                         wires (no LUT4)",
                        rows.len(),
                        model.per_select_input_pow,
                        model.select_power,
                        model.per_ff
                    ),
                    "period: the Virtex-5 period mapped by a power law fitted on the same rows' \
                     nextpnr-ecp5 routed Fmax (LFE5UM-85F, speed 6)"
                        .into(),
                ],
            }
        }
        DeviceId::Kintex7 => {
            let area = rows::kintex7_netlists();
            let period = v6();
            let t = Transfer {
                area: Transfer::fit(&area).area,
                period: Transfer::fit(&period).period,
            };
            let mut loo = transfer::loo(&area, "luts");
            loo.points.extend(
                transfer::loo(&period, "slices")
                    .points
                    .into_iter()
                    .filter(|p| p.is_period()),
            );
            DeviceCalibration {
                device,
                area_metric: "luts",
                transfer: t,
                loo,
                lut4: None,
                other_teams: Vec::new(),
                notes: vec![
                    format!(
                        "area: LUTs of {} Yosys `synth_xilinx -family xc7 -nowidelut` netlists \
                         of the generated RTL (data/kintex7/netlists.csv); slices as Virtex-6's \
                         (the same CLB: 4 LUT6 and 8 flip-flops a slice, UG474)",
                        area.len()
                    ),
                    "timing: UNCALIBRATED on 7-series; Virtex-6's transfer (Kintex-7's CLB and \
                     speed are Virtex-6's generation; no 7-series clock was measured here)"
                        .into(),
                ],
            }
        }
    }
}

/// The embedded calibration of `device`, computed once.
pub fn calibration(device: DeviceId) -> &'static DeviceCalibration {
    static CACHE: [OnceLock<DeviceCalibration>; 4] = [const { OnceLock::new() }; 4];
    let i = DeviceId::ALL
        .iter()
        .position(|d| *d == device)
        .expect("listed");
    CACHE[i].get_or_init(|| calibrate_device(device, &seed_rows()))
}

/// The rows `device` is calibrated on (Kintex-7: the netlists' areas).
pub fn device_rows(device: DeviceId) -> Vec<DeviceRow> {
    match device {
        DeviceId::Virtex5 => Vec::new(),
        DeviceId::Virtex6 => rows::virtex6_seed(),
        DeviceId::Ecp5 => rows::ecp5_routed(),
        DeviceId::Kintex7 => rows::kintex7_netlists(),
    }
}
