//! The Virtex-5 estimate mapped onto another device: y = scale x x ^ exponent per metric,
//! fitted in log space on the device's measured rows (see [`super::rows`]).

use serde::Serialize;

use super::rows::DeviceRow;
use crate::calibrate::{Loo, LooPoint};

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

/// A device's transfer from the Virtex-5 model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Transfer {
    /// Device area from the Virtex-5 model's area base.
    pub area: PowerLaw,
    /// Device period from the Virtex-5 model's period.
    pub period: PowerLaw,
}

impl Transfer {
    /// The identity (Virtex-5 itself).
    pub const IDENTITY: Transfer = Transfer {
        area: PowerLaw::IDENTITY,
        period: PowerLaw::IDENTITY,
    };

    /// Fitted on `rows` (each metric on the rows that measure it).
    pub fn fit(rows: &[DeviceRow]) -> Transfer {
        let area: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| r.area.map(|y| (r.model_area, y)))
            .collect();
        let period: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| r.period.map(|y| (r.model_period, y)))
            .collect();
        Transfer {
            area: PowerLaw::fit(&area),
            period: PowerLaw::fit(&period),
        }
    }
}

/// Leave-one-out over `rows`: each row's area and period by the transfer fitted on the
/// others, `area_metric` naming the area.
pub fn loo(rows: &[DeviceRow], area_metric: &'static str) -> Loo {
    let all = Transfer::fit(rows);
    let mut points = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let others: Vec<DeviceRow> = rows
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, r)| r.clone())
            .collect();
        let t = Transfer::fit(&others);
        if let Some(y) = r.area {
            points.push(LooPoint {
                design: r.design.clone(),
                metric: area_metric,
                measured: y,
                model: all.area.apply(r.model_area),
                loo: t.area.apply(r.model_area),
                validation: false,
            });
        }
        if let Some(y) = r.period {
            points.push(LooPoint {
                design: r.design.clone(),
                metric: "period_ns",
                measured: y,
                model: all.period.apply(r.model_period),
                loo: t.period.apply(r.model_period),
                validation: false,
            });
        }
    }
    Loo { points }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_law_recovers_its_constants() {
        let pairs: Vec<(f64, f64)> = [100.0, 400.0, 2000.0]
            .iter()
            .map(|x: &f64| (*x, 3.0 * x.powf(0.8)))
            .collect();
        let p = PowerLaw::fit(&pairs);
        assert!((p.scale - 3.0).abs() < 1e-9 && (p.exponent - 0.8).abs() < 1e-9);
        let two = PowerLaw::fit(&pairs[..2]);
        assert_eq!(two.exponent, 1.0);
    }
}
