//! Other teams' designs (Athanasiou 2013, Figs. 10-12): their cores and flows are not
//! published, so the model's period is optimistic on all of them (it knows only the seed
//! papers' careful pipelines). The bias is shown and removed by a stated correction: their
//! periods x the geometric mean of measured / model over the other teams' rows, each row
//! corrected with the factor of the others (leave-one-out), so no row checks its own fit.

use super::*;
use crate::calibrate::loo::Errors;
use crate::count::Role;

/// One other team's row, its period raw and corrected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OtherTeamRow {
    /// Source (with the paper's reference number).
    pub source: String,
    /// Design.
    pub design: String,
    /// Goal metric: `slices` or `period_ns`.
    pub metric: &'static str,
    /// Published value.
    pub measured: f64,
    /// Model.
    pub model: f64,
    /// Model with the leave-one-out correction (periods; areas unchanged).
    pub corrected: f64,
    /// Slice areas: the LUT6s the model counts for the modelled schedule's rounds and
    /// feed-forward alone (MIX adders and XORs, subkey adders, the output XOR), before the
    /// key schedule, selects and control: what any full hash core of that structure holds.
    pub datapath_luts: Option<u32>,
}

impl OtherTeamRow {
    /// The share of the measured slices' LUT6s (4 a slice) that [`Self::datapath_luts`]
    /// would fill: near or above 1, the published area is too small for a full core of the
    /// modelled structure (a lighter design than the paper says, or another size).
    pub fn datapath_share(&self) -> Option<f64> {
        let luts = self.datapath_luts?;
        (self.metric == "slices" && self.measured > 0.0)
            .then(|| f64::from(luts) / (4.0 * self.measured))
    }
}

/// The LUT6s of the rounds and feed-forward of `row`'s modelled schedule.
fn datapath_luts(row: &SeedRow) -> Option<u32> {
    let RowModel::Modelled {
        schedule, options, ..
    } = row_model(row)
    else {
        return None;
    };
    let style = options.style_for(&schedule);
    let inventory = crate::count::inventory(&schedule, style);
    let resources = crate::device::map(&inventory, &Constants::built_in(), options.flow);
    Some(
        resources
            .breakdown
            .iter()
            .filter(|r| {
                matches!(
                    r.role,
                    Role::Mix | Role::MixXor | Role::SubkeyInjection | Role::FeedForward
                )
            })
            .map(|r| r.luts)
            .sum(),
    )
}

/// The other teams' rows and the stated period correction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OtherTeams {
    /// Measured / model period, geometric mean over every other team's row: the correction.
    pub period_factor: f64,
    /// The rows.
    pub rows: Vec<OtherTeamRow>,
    /// Errors without the correction.
    pub raw: Errors,
    /// Errors with the periods corrected leave-one-out.
    pub corrected: Errors,
}

/// The other teams' rows of `report`, with the period correction.
pub fn other_teams(report: &Report) -> OtherTeams {
    let mut rows: Vec<OtherTeamRow> = report
        .rows
        .iter()
        .filter(|r| r.row.role == "validation" && !r.row.is_own_design())
        .flat_map(|r| {
            r.goals().map(|c| OtherTeamRow {
                source: r.row.source.clone(),
                design: r.row.design.clone(),
                metric: c.metric,
                measured: c.paper,
                model: c.model,
                corrected: c.model,
                datapath_luts: (c.metric == "slices")
                    .then(|| datapath_luts(&r.row))
                    .flatten(),
            })
        })
        .collect();
    let logs: Vec<f64> = rows
        .iter()
        .filter(|r| r.metric == "period_ns")
        .map(|r| (r.measured / r.model).ln())
        .collect();
    let sum: f64 = logs.iter().sum();
    let n = logs.len();
    for r in rows.iter_mut().filter(|r| r.metric == "period_ns") {
        if n > 1 {
            let own = (r.measured / r.model).ln();
            r.corrected = r.model * ((sum - own) / (n - 1) as f64).exp();
        }
    }
    let err = |x: f64, m: f64| (x - m) / m * 100.0;
    OtherTeams {
        period_factor: if n > 0 { (sum / n as f64).exp() } else { 1.0 },
        raw: Errors::of(
            rows.iter()
                .map(|r| (r.metric == "period_ns", err(r.model, r.measured))),
        ),
        corrected: Errors::of(
            rows.iter()
                .map(|r| (r.metric == "period_ns", err(r.corrected, r.measured))),
        ),
        rows,
    }
}
