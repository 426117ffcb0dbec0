//! Error bars: every estimate carries an interval built from the leave-one-out residuals of
//! its device's calibration.
//!
//! With n leave-one-out ratios measured / model, the interval [model x smallest ratio,
//! model x largest ratio] holds a new design's measured value with probability
//! (n - 1) / (n + 1) if the new design is like the calibration rows (the jackknife+ /
//! conformal argument: the new ratio is equally likely to fall in any of the n + 1 gaps the
//! n ratios leave). That is the coverage stated; `calibrate` counts how often it holds on
//! rows never fitted on.

use serde::Serialize;

/// An estimate's interval: area, period and throughput, each (low, high).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// The area metric the interval is of: `luts`, `slices` or `lut4`.
    pub area_metric: &'static str,
    /// Area, in `area_metric`.
    pub area: (f64, f64),
    /// Clock period, ns.
    pub period_ns: (f64, f64),
    /// Throughput at the period's bounds (high throughput at the low period), Mbit/s.
    pub throughput_mbps: (f64, f64),
    /// Probability the measured value lies inside, stated: (n - 1) / (n + 1).
    pub coverage: f64,
}

impl Interval {
    /// A zero-width interval (no calibration behind it: coverage 0).
    pub fn point(
        area_metric: &'static str,
        area: f64,
        period_ns: f64,
        throughput_mbps: f64,
    ) -> Self {
        Interval {
            area_metric,
            area: (area, area),
            period_ns: (period_ns, period_ns),
            throughput_mbps: (throughput_mbps, throughput_mbps),
            coverage: 0.0,
        }
    }
}

/// Leave-one-out ratios measured / model of a calibration: what an interval is made from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    /// Area ratios, one per calibration row with an area.
    pub area: Vec<f64>,
    /// Period ratios, one per calibration row with a clock.
    pub period: Vec<f64>,
}

/// (smallest, largest) of `ratios`; (1, 1) when there are none.
pub fn bounds(ratios: &[f64]) -> (f64, f64) {
    if ratios.is_empty() {
        return (1.0, 1.0);
    }
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

/// Coverage of the (min, max) interval of `n` exchangeable ratios: (n - 1) / (n + 1).
pub fn coverage(n: usize) -> f64 {
    if n < 2 {
        0.0
    } else {
        (n as f64 - 1.0) / (n as f64 + 1.0)
    }
}

impl Spread {
    /// The interval around a model's `area` (in `area_metric`), `period_ns` and
    /// `throughput_mbps` (at that period). The stated coverage is the smaller of the two
    /// metrics'.
    pub fn interval(
        &self,
        area_metric: &'static str,
        area: f64,
        period_ns: f64,
        throughput_mbps: f64,
    ) -> Interval {
        let (alo, ahi) = bounds(&self.area);
        let (plo, phi) = bounds(&self.period);
        Interval {
            area_metric,
            area: (area * alo, area * ahi),
            period_ns: (period_ns * plo, period_ns * phi),
            throughput_mbps: (throughput_mbps / phi, throughput_mbps / plo),
            coverage: coverage(self.area.len().min(self.period.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_scales_by_the_extreme_ratios() {
        let s = Spread {
            area: vec![0.9, 1.1, 1.0],
            period: vec![0.8, 1.25, 1.0, 1.0],
        };
        let i = s.interval("slices", 1000.0, 10.0, 100.0);
        assert_eq!(i.area, (900.0, 1100.0));
        assert_eq!(i.period_ns, (8.0, 12.5));
        assert_eq!(i.throughput_mbps, (80.0, 125.0));
        assert_eq!(i.coverage, 0.5);
    }
}
