//! The devices an estimate can be asked for, each with its size (the largest part of its
//! family, from the vendor's family overview) so that a design too large for it is flagged.
//!
//! Virtex-5 is the structural model (`count`, `device`, `timing`); the other devices map the
//! Virtex-5 estimate onto their fabric through a transfer fitted on their own measured rows
//! (see [`transfer`]).

pub mod calibration;
pub mod lut4;
pub mod report;
pub mod rows;
pub mod transfer;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use skeinhw_sched::Schedule;

use crate::constants::Constants;
use crate::error::EstimatorError;
use crate::estimate::{Estimate, model};
use crate::style::Options;

/// A device the estimator models. Parsed from and printed as its command-line name
/// (`virtex5`, `virtex6`, `ecp5`, `kintex7`), so it can be a clap value through `FromStr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceId {
    /// Xilinx Virtex-5 (the seed papers' family): the structural model itself.
    #[default]
    Virtex5,
    /// Xilinx Virtex-6: the Virtex-5 estimate mapped through a transfer fitted on
    /// Athanasiou's ten Virtex-6 rows.
    Virtex6,
    /// Lattice ECP5: fitted on this project's routed rows (`data/ecp5/results.json`).
    Ecp5,
    /// Xilinx Kintex-7: area from Yosys `synth_xilinx -family xc7` netlists, timing
    /// Virtex-6's (same slice architecture; not calibrated on 7-series measurements).
    Kintex7,
}

/// What a device holds: the bounds a design must keep to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Capacity {
    /// Logic LUTs (LUT6 on Xilinx, LUT4 on ECP5).
    pub luts: u32,
    /// Flip-flops.
    pub ffs: u32,
    /// Slices (ECP5: slices of 2 LUT4 + 2 flip-flops).
    pub slices: u32,
    /// Inputs of one LUT.
    pub lut_inputs: u32,
}

/// A device's names and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// Command-line name (`virtex5`, ...).
    pub name: &'static str,
    /// Vendor family.
    pub family: &'static str,
    /// The part whose size is checked (the family's largest, unless noted).
    pub part: &'static str,
    /// Its resources.
    pub capacity: Capacity,
    /// Where the size and the calibration come from.
    pub source: &'static str,
}

impl DeviceId {
    /// Every device, the default first.
    pub const ALL: [DeviceId; 4] = [
        DeviceId::Virtex5,
        DeviceId::Virtex6,
        DeviceId::Ecp5,
        DeviceId::Kintex7,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        self.info().name
    }

    /// Names and size.
    pub const fn info(self) -> DeviceInfo {
        match self {
            DeviceId::Virtex5 => DeviceInfo {
                name: "virtex5",
                family: "Xilinx Virtex-5",
                part: "xc5vlx330",
                capacity: Capacity {
                    luts: 207_360,
                    ffs: 207_360,
                    slices: 51_840,
                    lut_inputs: 6,
                },
                source: "size: Xilinx DS100 (largest Virtex-5); model: fitted on the seed papers' \
                         Virtex-5 rows",
            },
            DeviceId::Virtex6 => DeviceInfo {
                name: "virtex6",
                family: "Xilinx Virtex-6",
                part: "xc6vlx760",
                capacity: Capacity {
                    luts: 474_240,
                    ffs: 948_480,
                    slices: 118_560,
                    lut_inputs: 6,
                },
                source: "size: Xilinx DS150 (largest Virtex-6); model: Virtex-5 mapped through a \
                         transfer fitted on Athanasiou 2013's ten Virtex-6 rows",
            },
            DeviceId::Ecp5 => DeviceInfo {
                name: "ecp5",
                family: "Lattice ECP5",
                part: "LFE5UM-85F",
                capacity: Capacity {
                    luts: 83_640,
                    ffs: 83_640,
                    slices: 41_820,
                    lut_inputs: 4,
                },
                source: "size: nextpnr-ecp5's comb_available for --um-85k (data/ecp5/results.json); \
                         model: fitted on this project's routed rows (LUT4, FFs, routed Fmax)",
            },
            DeviceId::Kintex7 => DeviceInfo {
                name: "kintex7",
                family: "Xilinx Kintex-7",
                part: "xc7k480t",
                capacity: Capacity {
                    luts: 298_600,
                    ffs: 597_200,
                    slices: 74_650,
                    lut_inputs: 6,
                },
                source: "size: Xilinx DS180 (largest Kintex-7); area: Yosys synth_xilinx -family \
                         xc7 netlists; timing: Virtex-6's transfer (same CLB; uncalibrated on \
                         7-series)",
            },
        }
    }

    /// What of `luts`, `ffs` and `slices` exceeds the device: one line per resource, empty
    /// when the design fits.
    pub fn exceeds(self, luts: u32, ffs: u32, slices: u32) -> Vec<String> {
        let info = self.info();
        let cap = info.capacity;
        [
            ("LUTs", luts, cap.luts),
            ("flip-flops", ffs, cap.ffs),
            ("slices", slices, cap.slices),
        ]
        .into_iter()
        .filter(|(_, used, have)| used > have)
        .map(|(what, used, have)| format!("{used} {what} > {have} of the {}", info.part))
        .collect()
    }
}

/// Estimates `schedule` on Virtex-5 with `options` and `constants`; `freq_mhz` replaces the
/// estimated clock in the throughput and latency (the period and frequency stay the
/// estimates).
pub fn estimate(
    schedule: &Schedule,
    options: Options,
    constants: &Constants,
    freq_mhz: Option<f64>,
) -> Estimate {
    estimate_on(DeviceId::Virtex5, schedule, options, constants, freq_mhz)
}

/// Estimates `schedule` on `device`: the Virtex-5 model, mapped through the device's
/// transfer for the others (see [`crate::devices`]). On ECP5 and Kintex-7, calibrated on the
/// generated RTL, the style is `generated` unless `options` names one.
pub fn estimate_on(
    device: DeviceId,
    schedule: &Schedule,
    options: Options,
    constants: &Constants,
    freq_mhz: Option<f64>,
) -> Estimate {
    let mut options = options;
    if matches!(device, DeviceId::Ecp5 | DeviceId::Kintex7) && options.style.is_none() {
        // Calibrated on the generated RTL's netlists: that is the design they estimate
        // unless a style is asked for.
        options.style = Some(crate::style::CoreStyle::Generated);
    }
    let v5 = model(schedule, options, constants, freq_mhz);
    map_estimate(device, schedule, v5, freq_mhz)
}

/// `v5` (the Virtex-5 estimate of `schedule`) on `device`: area and period through the
/// device's transfer, the throughputs at the new clock (unless `freq_mhz` fixes it), the
/// interval from the device's leave-one-out spread, and the size check.
pub fn map_estimate(
    device: DeviceId,
    schedule: &Schedule,
    v5: Estimate,
    freq_mhz: Option<f64>,
) -> Estimate {
    let cal = calibration::calibration(device);
    let mut e = transfer_estimate(device, schedule, v5, cal);
    e.device = device;
    let clock = freq_mhz.unwrap_or(e.freq_mhz);
    e.clock_mhz = clock;
    e.throughput_mbps = schedule.throughput_mbps(clock);
    e.throughput_one_message_mbps =
        f64::from(schedule.block_bits()) * clock / f64::from(schedule.cycles_per_block());
    e.latency_ns = f64::from(schedule.block_latency()) * 1000.0 / clock;
    e.latency_one_message_ns = e.latency_ns;
    e.mbps_per_pair = e.throughput_mbps / f64::from(e.lut_ff_pairs.max(1));
    e.mbps_per_slice = e.throughput_mbps / f64::from(e.slices.max(1));
    let (metric, area) = area_metric(device, &e);
    e.interval = cal
        .spread()
        .interval(metric, area, e.period_ns, e.throughput_mbps);
    e.interval_other_implementations = cal
        .other_spread()
        .map(|s| s.interval(metric, area, e.period_ns, e.throughput_mbps));
    if freq_mhz.is_some() {
        // The clock is given, not estimated: the throughput is exact at it.
        e.interval.throughput_mbps = (e.throughput_mbps, e.throughput_mbps);
        if let Some(i) = e.interval_other_implementations.as_mut() {
            i.throughput_mbps = (e.throughput_mbps, e.throughput_mbps);
        }
    }
    e.exceeds = device.exceeds(e.luts, e.ffs, e.slices);
    e.fits_device = e.exceeds.is_empty();
    e
}

/// The area metric an interval is stated in on `device`, and its value in `e`.
pub fn area_metric(device: DeviceId, e: &Estimate) -> (&'static str, f64) {
    match (device, e.style) {
        (DeviceId::Virtex5, crate::style::CoreStyle::UbiCore) | (DeviceId::Kintex7, _) => {
            ("luts", f64::from(e.luts))
        }
        (DeviceId::Ecp5, _) => ("lut4", f64::from(e.luts)),
        _ => ("slices", f64::from(e.slices)),
    }
}

/// `v5`'s area and period through `t` onto `device` (the throughputs are the caller's).
fn transfer_estimate(
    device: DeviceId,
    schedule: &Schedule,
    v5: Estimate,
    cal: &calibration::DeviceCalibration,
) -> Estimate {
    let t = &cal.transfer;
    let mut e = v5;
    let round = |x: f64| x.round().max(0.0) as u32;
    match device {
        DeviceId::Virtex5 => return e,
        DeviceId::Virtex6 => e.slices = round(t.area.apply(f64::from(e.slices))),
        DeviceId::Ecp5 => {
            let model = cal.lut4.unwrap_or_default();
            e.luts = round(model.apply(lut4::basis(schedule, e.style)));
            e.lut_ff_pairs = e.luts.max(e.ffs);
            // A slice: 2 LUT4s and 2 flip-flops.
            e.slices = e.lut_ff_pairs.div_ceil(2);
        }
        DeviceId::Kintex7 => {
            let v6 = &calibration::calibration(DeviceId::Virtex6).transfer;
            e.luts = round(t.area.apply(f64::from(e.luts)));
            e.slices = round(v6.area.apply(f64::from(e.slices)));
        }
    }
    let period = t.period.apply(e.period_ns);
    let scale = period / e.period_ns;
    e.critical_path.logic_ns *= scale;
    e.critical_path.route_ns *= scale;
    e.critical_path.period_ns = period;
    e.period_ns = period;
    e.freq_mhz = 1000.0 / period;
    e
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DeviceId {
    type Err = EstimatorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.to_ascii_lowercase().replace(['-', '_'], "");
        DeviceId::ALL
            .into_iter()
            .find(|d| d.name() == key)
            .ok_or_else(|| EstimatorError::UnknownName {
                what: "device",
                name: s.to_owned(),
                allowed: DeviceId::ALL.map(DeviceId::name).join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes_flag() {
        for d in DeviceId::ALL {
            assert_eq!(d.name().parse::<DeviceId>().unwrap(), d);
        }
        assert_eq!("Virtex-6".parse::<DeviceId>().unwrap(), DeviceId::Virtex6);
        assert!("spartan3".parse::<DeviceId>().is_err());
        // Issue 30: a Skein-1024 design of 75,851 slices is larger than any Virtex-5.
        let e = DeviceId::Virtex5.exceeds(100_000, 264_000, 75_851);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(DeviceId::Virtex5.exceeds(7029, 586, 1800).is_empty());
    }
}
