//! Leave-one-out: each fit row predicted by the constants fitted on the other rows. Its
//! errors are the calibration's headline (a fit's errors on its own rows flatter it), and
//! its ratios measured / model make every estimate's interval.

use super::*;
use crate::interval::{Spread, bounds, coverage};

/// One row's metric predicted with and without the row in the fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LooPoint {
    /// Design.
    pub design: String,
    /// `luts`, `slices`, `lut4` or `period_ns`.
    pub metric: &'static str,
    /// The measured (published or routed) value.
    pub measured: f64,
    /// The model fitted on every row.
    pub model: f64,
    /// The model fitted without this row.
    pub loo: f64,
    /// A validation row (never fitted on: `loo` is `model`): in the interval's spread, not
    /// in the leave-one-out errors.
    pub validation: bool,
}

impl LooPoint {
    /// (loo - measured) / measured, percent.
    pub fn error_pct(&self) -> f64 {
        (self.loo - self.measured) / self.measured * 100.0
    }

    /// measured / loo: what an interval scales the model by.
    pub fn ratio(&self) -> f64 {
        self.measured / self.loo
    }

    /// Whether this is a period (else an area).
    pub fn is_period(&self) -> bool {
        self.metric == "period_ns"
    }
}

/// Leave-one-out predictions of a calibration.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Loo {
    /// One per row and metric.
    pub points: Vec<LooPoint>,
}

/// Mean absolute and mean signed percentage errors of area and period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Errors {
    /// Area MAPE, percent.
    pub area: f64,
    /// Period MAPE, percent.
    pub period: f64,
    /// Mean signed area error, percent (negative: the model is low).
    pub area_bias: f64,
    /// Mean signed period error, percent (negative: the model's clock is optimistic).
    pub period_bias: f64,
    /// Area points.
    pub area_rows: usize,
    /// Period points.
    pub period_rows: usize,
}

impl Errors {
    /// The errors of `(is_period, error_pct)` pairs.
    pub fn of(errors: impl IntoIterator<Item = (bool, f64)>) -> Errors {
        let mut e = Errors::default();
        for (period, x) in errors {
            if period {
                e.period += x.abs();
                e.period_bias += x;
                e.period_rows += 1;
            } else {
                e.area += x.abs();
                e.area_bias += x;
                e.area_rows += 1;
            }
        }
        let n = |k: usize| k.max(1) as f64;
        e.area /= n(e.area_rows);
        e.area_bias /= n(e.area_rows);
        e.period /= n(e.period_rows);
        e.period_bias /= n(e.period_rows);
        e
    }
}

impl Loo {
    /// The ratios measured / leave-one-out model.
    pub fn spread(&self) -> Spread {
        Spread {
            area: self
                .points
                .iter()
                .filter(|p| !p.is_period())
                .map(LooPoint::ratio)
                .collect(),
            period: self
                .points
                .iter()
                .filter(|p| p.is_period())
                .map(LooPoint::ratio)
                .collect(),
        }
    }

    /// Leave-one-out errors of the fit rows.
    pub fn errors(&self) -> Errors {
        Errors::of(
            self.points
                .iter()
                .filter(|p| !p.validation)
                .map(|p| (p.is_period(), p.error_pct())),
        )
    }
}

/// Leave-one-out over the Skein fit rows of `rows` with `base`'s fixed constants, and the
/// own designs' validation rows against the fit on every fit row (out of sample as well): the
/// interval's spread is made of both.
pub fn virtex5_loo(base: &Constants, rows: &[SeedRow]) -> Loo {
    let fit_rows = modelled_fit_rows(rows);
    let full = fit_skein(base, &fit_rows);
    let mut points = Vec::new();
    for i in 0..fit_rows.len() {
        let others: Vec<_> = fit_rows
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, r)| r.clone())
            .collect();
        let c = fit_skein(base, &others);
        let (row, schedule, options) = &fit_rows[i];
        let loo = comparisons(row, &estimate(schedule, *options, &c, None));
        let all = comparisons(row, &estimate(schedule, *options, &full, None));
        for (l, a) in loo.iter().zip(&all).filter(|(l, _)| l.goal) {
            points.push(LooPoint {
                design: row.design.clone(),
                metric: l.metric,
                measured: l.paper,
                model: a.model,
                loo: l.model,
                validation: false,
            });
        }
    }
    for row in rows
        .iter()
        .filter(|r| r.role == "validation" && r.is_own_design() && r.is_virtex5())
    {
        let RowModel::Modelled {
            schedule, options, ..
        } = row_model(row)
        else {
            continue;
        };
        let e = estimate(&schedule, options, &full, None);
        for c in comparisons(row, &e).iter().filter(|c| c.goal) {
            points.push(LooPoint {
                design: row.design.clone(),
                metric: c.metric,
                measured: c.paper,
                model: c.model,
                loo: c.model,
                validation: true,
            });
        }
    }
    Loo { points }
}

/// How often measured values fall inside the interval a spread gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Honesty {
    /// Values inside.
    pub inside: usize,
    /// Values checked.
    pub total: usize,
    /// The coverage the interval states.
    pub stated: f64,
}

impl Honesty {
    /// Counts `(is_period, measured, model)` inside `spread`'s interval around the model.
    pub fn count(spread: &Spread, values: impl IntoIterator<Item = (bool, f64, f64)>) -> Self {
        let (alo, ahi) = bounds(&spread.area);
        let (plo, phi) = bounds(&spread.period);
        let mut h = Honesty {
            stated: coverage(spread.area.len().min(spread.period.len())),
            ..Honesty::default()
        };
        for (period, measured, model) in values {
            let (lo, hi) = if period { (plo, phi) } else { (alo, ahi) };
            h.total += 1;
            if measured >= model * lo && measured <= model * hi {
                h.inside += 1;
            }
        }
        h
    }
}

impl fmt::Display for Honesty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{} inside ({:.0}%), stated coverage {:.0}%",
            self.inside,
            self.total,
            100.0 * self.inside as f64 / self.total.max(1) as f64,
            100.0 * self.stated
        )
    }
}
