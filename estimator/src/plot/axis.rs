//! The plot's axes: data to pixels on a linear or log scale, and ticks on 1-2-5 values whose
//! labels do not run into each other.

/// One axis: the data range `[lo, hi]` drawn from pixel `px0` to pixel `px1` (`px1 < px0`
/// for a y axis that grows upwards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    px0: f64,
    px1: f64,
}

/// Mantissas per decade of a log axis's ticks, densest first.
const LOG_STEPS: [&[f64]; 3] = [&[1.0, 2.0, 5.0], &[1.0, 3.0], &[1.0]];

impl Axis {
    /// An axis around the positive values `[lo, hi]` with a margin: log when they span more
    /// than one decade (a paper's area axis runs from hundreds to tens of thousands of
    /// slices), linear otherwise.
    pub fn new(lo: f64, hi: f64, px0: f64, px1: f64) -> Axis {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo {
            (lo, hi)
        } else {
            (1.0, 10.0)
        };
        let (lo, hi) = if hi == lo {
            (lo / 1.25, hi * 1.25)
        } else {
            (lo, hi)
        };
        let log = hi / lo > 10.0;
        let (lo, hi) = if log {
            (lo / 1.2, hi * 1.2)
        } else {
            let m = (hi - lo) * 0.06;
            ((lo - m).max(0.0), hi + m)
        };
        Axis {
            lo,
            hi,
            log,
            px0,
            px1,
        }
    }

    /// Whether the scale is logarithmic.
    pub fn is_log(&self) -> bool {
        self.log
    }

    /// The pixel of value `v`.
    pub fn px(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.px0 + t * (self.px1 - self.px0)
    }

    /// Whether `v` lies inside the axis's range.
    pub fn contains(&self, v: f64) -> bool {
        v >= self.lo && v <= self.hi
    }

    /// Tick values on 1-2-5 steps: the densest set whose labels (`label_px` wide each) keep
    /// `gap` pixels apart.
    pub fn ticks(&self, label_px: &dyn Fn(&str) -> f64, gap: f64) -> Vec<f64> {
        let fits = |ticks: &[f64]| {
            ticks.windows(2).all(|w| {
                let room = (label_px(&number(w[0])) + label_px(&number(w[1]))) / 2.0 + gap;
                (self.px(w[1]) - self.px(w[0])).abs() >= room
            })
        };
        let sets: Vec<Vec<f64>> = if self.log {
            LOG_STEPS.iter().map(|m| self.log_ticks(m)).collect()
        } else {
            linear_steps(self.hi - self.lo)
                .map(|step| self.linear_ticks(step))
                .collect()
        };
        let last = sets.last().cloned().unwrap_or_default();
        sets.into_iter()
            .find(|t| t.len() >= 2 && fits(t))
            .unwrap_or(last)
    }

    fn log_ticks(&self, mantissas: &[f64]) -> Vec<f64> {
        let (e0, e1) = (
            self.lo.log10().floor() as i32,
            self.hi.log10().ceil() as i32,
        );
        (e0..=e1)
            .flat_map(|e| mantissas.iter().map(move |m| round(m * 10f64.powi(e))))
            .filter(|v| self.contains(*v))
            .collect()
    }

    fn linear_ticks(&self, step: f64) -> Vec<f64> {
        let first = (self.lo / step).ceil() as i64;
        let last = (self.hi / step).floor() as i64;
        (first..=last).map(|i| round(i as f64 * step)).collect()
    }
}

/// Steps 1, 2, 5 x 10^k from about a fiftieth of `span` upwards, eight of them.
fn linear_steps(span: f64) -> impl Iterator<Item = f64> {
    let base = 10f64.powf((span / 50.0).log10().floor());
    (0..8).map(move |i| base * [1.0, 2.0, 5.0][i % 3] * 10f64.powi(i as i32 / 3))
}

/// `v` to 12 significant digits: 3 x 0.1 is 0.3.
fn round(v: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(11 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

/// A tick or data value as a reader writes it: whole numbers with thousands separators
/// ("51,840"), others to three significant digits.
pub fn number(v: f64) -> String {
    if v.abs() >= 1.0 && (v - v.round()).abs() < 1e-9 {
        let digits = format!("{}", v.round().abs() as u64);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        if v < 0.0 {
            out.insert(0, '-');
        }
        out
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn width(s: &str) -> f64 {
        s.len() as f64 * 7.0
    }

    #[test]
    fn numbers_have_thousands_separators() {
        assert_eq!(number(51_840.0), "51,840");
        assert_eq!(number(1_000_000.0), "1,000,000");
        assert_eq!(number(500.0), "500");
        assert_eq!(number(0.3), "0.3");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(1234.56), "1235");
    }

    #[test]
    fn log_ticks_are_1_2_5_distinct_and_apart() {
        // Three decades of slices over 880 pixels: every 1-2-5 value fits.
        let axis = Axis::new(300.0, 90_000.0, 90.0, 970.0);
        assert!(axis.is_log());
        let ticks = axis.ticks(&width, 12.0);
        assert_eq!(
            ticks,
            [500.0, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5],
            "{ticks:?}"
        );
        let labels: Vec<String> = ticks.iter().map(|&t| number(t)).collect();
        let mut unique = labels.clone();
        unique.dedup();
        assert_eq!(labels, unique);
        // Squeezed into 200 pixels, fewer ticks, still apart.
        let narrow = Axis::new(300.0, 90_000.0, 0.0, 200.0).ticks(&width, 12.0);
        assert!(
            narrow.len() >= 2 && narrow.len() < ticks.len(),
            "{narrow:?}"
        );
        assert!(
            narrow
                .iter()
                .all(|t| [1.0, 3.0].contains(&(t / 10f64.powi(t.log10().floor() as i32)).round()))
        );
    }

    #[test]
    fn a_narrow_range_is_linear_with_round_steps() {
        let axis = Axis::new(1200.0, 3400.0, 0.0, 800.0);
        assert!(!axis.is_log());
        let ticks = axis.ticks(&width, 12.0);
        assert!(ticks.len() >= 4, "{ticks:?}");
        let step = ticks[1] - ticks[0];
        assert!([100.0, 200.0, 250.0, 500.0].contains(&step), "{ticks:?}");
        assert!(ticks.windows(2).all(|w| (w[1] - w[0] - step).abs() < 1e-6));
    }

    #[test]
    fn pixels_grow_with_values_and_y_goes_up() {
        let y = Axis::new(100.0, 10_000.0, 600.0, 60.0);
        assert!(y.px(1000.0) < y.px(500.0));
        assert!(y.px(100.0) < 600.0 && y.px(10_000.0) > 60.0);
        let single = Axis::new(42.0, 42.0, 0.0, 100.0);
        assert!(single.contains(42.0));
    }
}
