//! Throughput arithmetic: a table's printed throughput against its own clock.

use super::*;

/// The throughput a table prints against the one computed from its own clock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArithmeticCheck {
    /// Design.
    pub design: String,
    /// The table's throughput, Mbit/s.
    pub paper: f64,
    /// block bits x blocks in flight x f / cycles per block with the table's clock.
    pub computed: f64,
    /// What the printed precision of the clock and the throughput allows.
    pub tolerance: f64,
}

impl ArithmeticCheck {
    /// Whether the two agree within the printed precision.
    pub fn ok(&self) -> bool {
        (self.paper - self.computed).abs() <= self.tolerance
    }
}

/// Half a unit in the last printed digit of `text` ("1100" and "1.1 Gbps" alike count
/// trailing zeros of a whole number as not significant).
fn half_ulp(text: &str) -> f64 {
    let text = text.replace(',', ".");
    match text.split_once('.') {
        Some((_, decimals)) => 0.5 * 10f64.powi(-(decimals.len() as i32)),
        None => {
            let zeros = text.len() - text.trim_end_matches('0').len();
            0.5 * 10f64.powi(zeros as i32)
        }
    }
}

/// The throughput check of every row of the papers' own designs with a schedule.
pub fn arithmetic_checks() -> Vec<ArithmeticCheck> {
    let mut out = Vec::new();
    for row in seed_rows() {
        // The papers' own designs on every family: the arithmetic does not depend on it.
        if !row.is_own_design() {
            continue;
        }
        let throughput: Box<dyn Fn(f64) -> f64> = if let Ok(s) = preset(&row.design) {
            Box::new(move |f| s.throughput_mbps(f))
        } else if let Ok(s) = shabal_sched::preset(&row.design) {
            Box::new(move |f| s.throughput_mbps(f))
        } else {
            continue;
        };
        let (Some(freq), Some(tp_text)) = (row.freq(), row.throughput_mbps.as_ref()) else {
            continue;
        };
        let paper = num(&row.throughput_mbps).expect("a number");
        let computed = throughput(freq);
        let clock_text = row
            .freq_mhz
            .as_ref()
            .or(row.period_ns.as_ref())
            .expect("set");
        let clock_value = num(&Some(clock_text.clone())).expect("a number");
        let relative = half_ulp(clock_text) / clock_value;
        out.push(ArithmeticCheck {
            design: row.design.clone(),
            paper,
            computed,
            tolerance: computed * relative + half_ulp(tp_text),
        });
    }
    out
}

/// An other team's row: its throughput against the one of the schedule it is modelled as.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OtherTeamCheck {
    /// Source (with the reference number).
    pub source: String,
    /// The check, against the modelled schedule's cycles.
    pub check: ArithmeticCheck,
    /// Cycles per block the table implies: bits x blocks in flight x f / throughput.
    pub implied_cycles: f64,
    /// Cycles per block of the modelled schedule.
    pub model_cycles: u32,
}

/// The throughput check of every other team's row with a clock and a throughput, against
/// the schedule [`row_model`] gives it (its size column honoured): where they disagree, the
/// table's cycles per block are not the modelled design's.
pub fn other_team_checks() -> Vec<OtherTeamCheck> {
    let mut out = Vec::new();
    for row in seed_rows() {
        if row.is_own_design() || row.source.starts_with("shabal") {
            continue;
        }
        let RowModel::Modelled { schedule, .. } = row_model(&row) else {
            continue;
        };
        let (Some(freq), Some(tp_text), Some(clock_text)) = (
            row.freq(),
            row.throughput_mbps.as_ref(),
            row.freq_mhz.as_ref().or(row.period_ns.as_ref()),
        ) else {
            continue;
        };
        let paper = num(&row.throughput_mbps).expect("a number");
        let computed = schedule.throughput_mbps(freq);
        let clock_value = num(&Some(clock_text.clone())).expect("a number");
        let bits = f64::from(schedule.block_bits()) * f64::from(schedule.blocks_in_flight());
        out.push(OtherTeamCheck {
            source: row.source.clone(),
            check: ArithmeticCheck {
                design: schedule.name().to_owned(),
                paper,
                computed,
                tolerance: computed * half_ulp(clock_text) / clock_value + half_ulp(tp_text),
            },
            implied_cycles: bits * freq / paper,
            model_cycles: schedule.cycles_per_block(),
        });
    }
    out
}
