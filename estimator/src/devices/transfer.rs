//! The Virtex-5 estimate mapped onto another device: y = scale x x ^ exponent per metric,
//! fitted in log space on the device's measured rows.

use serde::Serialize;

use super::DeviceId;
use crate::estimate::Estimate;
use crate::interval::Spread;
use crate::style::CoreStyle;

/// y = scale x x ^ exponent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PowerLaw {
    /// Factor.
    pub scale: f64,
    /// Exponent (1: proportional).
    pub exponent: f64,
}

impl PowerLaw {
    /// The identity.
    pub const IDENTITY: PowerLaw = PowerLaw {
        scale: 1.0,
        exponent: 1.0,
    };

    /// y for `x`.
    pub fn apply(&self, x: f64) -> f64 {
        self.scale * x.max(0.0).powf(self.exponent)
    }

    /// Least squares of ln y on ln x over `(x, y)` pairs; with fewer than 3 pairs, or all x
    /// alike, the exponent stays 1 and only the scale is fitted (geometric mean of y / x).
    pub fn fit(pairs: &[(f64, f64)]) -> PowerLaw {
        let logs: Vec<(f64, f64)> = pairs
            .iter()
            .filter(|(x, y)| *x > 0.0 && *y > 0.0)
            .map(|(x, y)| (x.ln(), y.ln()))
            .collect();
        let n = logs.len() as f64;
        if logs.is_empty() {
            return PowerLaw::IDENTITY;
        }
        let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
        let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let exponent = if logs.len() >= 3 && sxx > 1e-9 {
            sxy / sxx
        } else {
            1.0
        };
        PowerLaw {
            scale: (my - exponent * mx).exp(),
            exponent,
        }
    }
}

/// A device's transfer from the Virtex-5 model, and its leave-one-out spread.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Transfer {
    /// Device area from the Virtex-5 model's area base.
    pub area: PowerLaw,
    /// Device period from the Virtex-5 model's period.
    pub period: PowerLaw,
    /// Leave-one-out ratios measured / model.
    pub spread: Spread,
}

/// `v5` mapped onto `device` (period, frequency and area fields; the throughputs are the
/// caller's).
pub fn apply(device: DeviceId, v5: Estimate) -> Estimate {
    match device {
        DeviceId::Virtex5 => v5,
        // Stub until the transfers are fitted: the Virtex-5 numbers.
        _ => v5,
    }
}

/// The area metric an interval is stated in on `device`, and its value in `e`.
pub fn area_metric(device: DeviceId, e: &Estimate) -> (&'static str, f64) {
    match (device, e.style) {
        (DeviceId::Virtex5, CoreStyle::UbiCore) => ("luts", f64::from(e.luts)),
        (DeviceId::Ecp5, _) => ("lut4", f64::from(e.luts)),
        _ => ("slices", f64::from(e.slices)),
    }
}

/// The leave-one-out spread of `device`'s calibration for `style`.
pub fn spread(_device: DeviceId, _style: CoreStyle) -> Spread {
    Spread::default()
}
