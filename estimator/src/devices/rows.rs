//! The measured rows each device is calibrated on, with the Virtex-5 model's numbers of the
//! same designs beside them.
//!
//! - Virtex-6: Athanasiou 2013's ten Virtex-6 rows of the seed table (slices, clock), against
//!   the model's Virtex-5 hash core in the ISE 13 flow.
//! - ECP5: this project's routed rows, `data/ecp5/results.json`, `full` cores that placed (the generated
//!   RTL the `generated` style counts): Yosys `synth_ecp5` LUT4s and nextpnr's routed Fmax,
//!   against the `generated` style's Virtex-5 LUTs (shown only: the LUT4 count is
//!   [`super::lut4`]'s, from the inventory) and period.
//! - Kintex-7: Yosys `synth_xilinx -family xc7` LUT counts of the generated RTL
//!   (`data/kintex7/netlists.csv`), against the `generated` style's LUTs; its periods are
//!   Virtex-6's rows (no 7-series timing was measured).

use serde_json::Value;
use skeinhw_sched::{Schedule, preset};

use crate::calibrate::{SeedRow, seed_rows};
use crate::constants::Constants;
use crate::estimate::{Estimate, model};
use crate::style::{CoreStyle, Flow, Options};

/// The ECP5 routed rows, embedded.
pub const ECP5_RESULTS: &str = include_str!("../../data/ecp5/results.json");
/// The Kintex-7 netlist counts, embedded.
pub const KINTEX7_NETLISTS: &str = include_str!("../../data/kintex7/netlists.csv");

/// One measured design: the model's Virtex-5 area base and period, and the device's values.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRow {
    /// Design (a preset).
    pub design: String,
    /// The model's area base on Virtex-5 (slices or LUTs, by device).
    pub model_area: f64,
    /// The device's measured area, if measured.
    pub area: Option<f64>,
    /// The model's Virtex-5 period, ns.
    pub model_period: f64,
    /// The device's measured period, ns, if measured.
    pub period: Option<f64>,
}

fn hash_core() -> Options {
    Options {
        style: Some(CoreStyle::HashCore),
        flow: Flow::Ise13,
    }
}

fn generated() -> Options {
    Options {
        style: Some(CoreStyle::Generated),
        flow: Flow::Ise13,
    }
}

fn v5(schedule: &Schedule, options: Options) -> Estimate {
    model(schedule, options, &Constants::built_in(), None)
}

/// Virtex-6 rows of `rows` (a seed table).
pub fn virtex6(rows: &[SeedRow]) -> Vec<DeviceRow> {
    rows.iter()
        .filter(|r| r.device.eq_ignore_ascii_case("virtex-6") || r.device.starts_with("xc6v"))
        .filter_map(|r| {
            let s = preset(&r.design).ok()?;
            let e = v5(&s, hash_core());
            Some(DeviceRow {
                design: r.design.clone(),
                model_area: f64::from(e.slices),
                area: r.slices.as_deref().and_then(|x| x.parse().ok()),
                model_period: e.period_ns,
                period: r.period(),
            })
        })
        .collect()
}

/// The embedded seed table's Virtex-6 rows.
pub fn virtex6_seed() -> Vec<DeviceRow> {
    virtex6(&seed_rows())
}

/// The routed ECP5 rows of `results` (the JSON of `data/ecp5/results.json`), `full` cores.
pub fn ecp5(results: &str) -> Vec<DeviceRow> {
    let Ok(doc) = serde_json::from_str::<Value>(results) else {
        return Vec::new();
    };
    let rows = doc["rows"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .filter(|r| r["variant"] == "full")
        // Routed rows only: one nextpnr could not place (`"fits": false`) has no routed
        // numbers, and its LUT4 count is of a design 99% over the device.
        .filter(|r| r["ecp5"]["fits"] != false && r["ecp5"]["fmax_mhz"].is_number())
        .filter_map(|r| {
            let design = r["design"].as_str()?;
            let s = preset(design).ok()?;
            let e = v5(&s, generated());
            let ecp5 = &r["ecp5"];
            Some(DeviceRow {
                design: design.to_owned(),
                model_area: f64::from(e.luts),
                area: ecp5["lut4"].as_f64(),
                model_period: e.period_ns,
                period: ecp5["fmax_mhz"].as_f64().map(|f| 1000.0 / f),
            })
        })
        .collect()
}

/// The embedded ECP5 rows.
pub fn ecp5_routed() -> Vec<DeviceRow> {
    ecp5(ECP5_RESULTS)
}

/// The Kintex-7 rows: Yosys xc7 LUTs of the generated RTL (`design,luts,...` CSV), no period.
pub fn kintex7(csv: &str) -> Vec<DeviceRow> {
    csv.lines()
        .skip(1)
        .filter_map(|line| {
            let mut cells = line.split(',');
            let design = cells.next()?;
            let luts: f64 = cells.next()?.trim().parse().ok()?;
            let s = preset(design).ok()?;
            let e = v5(&s, generated());
            Some(DeviceRow {
                design: design.to_owned(),
                model_area: f64::from(e.luts),
                area: Some(luts),
                model_period: e.period_ns,
                period: None,
            })
        })
        .collect()
}

/// The embedded Kintex-7 rows.
pub fn kintex7_netlists() -> Vec<DeviceRow> {
    kintex7(KINTEX7_NETLISTS)
}
