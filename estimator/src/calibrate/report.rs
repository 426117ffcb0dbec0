//! Paper value against model value for every row, and the error summary.

use super::*;

/// One compared number.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Compared {
    /// `luts`, `slices`, `period_ns`, `ffs` or `lut_ff_pairs`.
    pub metric: &'static str,
    /// The paper's value.
    pub paper: f64,
    /// The model's value.
    pub model: f64,
    /// (model - paper) / paper, percent.
    pub error_pct: f64,
    /// An area or period goal metric (the others are shown, not judged).
    pub goal: bool,
}

/// One row of the calibration table.
#[derive(Clone, Debug, Serialize)]
pub struct RowReport {
    /// The seed row.
    pub row: SeedRow,
    /// Comparisons (empty when not modelled).
    pub compared: Vec<Compared>,
    /// Why the row is not modelled, or the assumption made for it.
    pub remark: String,
}

impl RowReport {
    /// The goal comparisons.
    pub fn goals(&self) -> impl Iterator<Item = &Compared> {
        self.compared.iter().filter(|c| c.goal)
    }
}

/// Mean absolute percentage errors of the goal metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Mape {
    /// Area (LUTs for Long, slices for Athanasiou), percent.
    pub area: f64,
    /// Clock period, percent.
    pub period: f64,
    /// Rows with an area comparison.
    pub area_rows: usize,
    /// Rows with a period comparison.
    pub period_rows: usize,
    /// Largest absolute goal error of a row, percent.
    pub worst: f64,
}

/// The calibration table.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Every row, fit rows first, then validation rows, then rows not modelled.
    pub rows: Vec<RowReport>,
    /// MAPE over the fit rows.
    pub fit: Mape,
    /// MAPE over the validation rows of the papers' own designs (the mixed pipelines).
    pub validation: Mape,
    /// MAPE over the validation rows of other teams' designs, whose structure is not known.
    pub validation_other: Mape,
    /// MAPE over the Shabal fit rows (Table I, f = 1, 2, 3, 4): slices and period.
    pub shabal_fit: Mape,
    /// MAPE over the Shabal validation rows (f = 6, 8).
    pub shabal_validation: Mape,
    /// The Shabal paper's conclusion against the model's.
    pub shabal_conclusion: ShabalConclusion,
    /// Rows of other device families left out of the table.
    pub other_family_rows: usize,
}

/// Compares every Virtex-5 row with the model under `constants`.
pub fn report(constants: &Constants) -> Report {
    report_on(&seed_rows(), constants)
}

/// [`report`] on `rows` (the seed table's or a user's).
pub fn report_on(rows: &[SeedRow], constants: &Constants) -> Report {
    let mut fit = Vec::new();
    let mut validation = Vec::new();
    let mut shabal_fit = Vec::new();
    let mut shabal_validation = Vec::new();
    let mut not_modelled = Vec::new();
    let mut other_family_rows = 0;
    for row in rows.iter().cloned() {
        if row.role == "other-family" {
            other_family_rows += 1;
            continue;
        }
        let report = compare(&row, constants);
        if report.compared.is_empty() {
            not_modelled.push(report);
        } else if row.source.starts_with("shabal") {
            if row.role == "fit" {
                shabal_fit.push(report);
            } else {
                shabal_validation.push(report);
            }
        } else if row.role == "fit" {
            fit.push(report);
        } else {
            validation.push(report);
        }
    }
    let fit_mape = mape(&fit);
    let (own, other): (Vec<RowReport>, Vec<RowReport>) =
        validation.into_iter().partition(|r| r.row.is_own_design());
    let validation_mape = mape(&own);
    let validation_other = mape(&other);
    let mut validation = own;
    validation.extend(other);
    let shabal_fit_mape = mape(&shabal_fit);
    let shabal_validation_mape = mape(&shabal_validation);
    let mut rows = fit;
    rows.extend(validation);
    rows.extend(shabal_fit);
    rows.extend(shabal_validation);
    rows.extend(not_modelled);
    Report {
        rows,
        fit: fit_mape,
        validation: validation_mape,
        validation_other,
        shabal_fit: shabal_fit_mape,
        shabal_validation: shabal_validation_mape,
        shabal_conclusion: shabal_conclusion(constants),
        other_family_rows,
    }
}

fn compare(row: &SeedRow, constants: &Constants) -> RowReport {
    let (schedule, options, note) = match row_model(row) {
        RowModel::Modelled {
            schedule,
            options,
            note,
        } => (schedule, options, note),
        RowModel::Shabal(schedule) => {
            let e = shabal::estimate(&schedule, Flow::Ise13, constants, None);
            return RowReport {
                row: row.clone(),
                compared: shabal_comparisons(row, &e),
                remark: String::new(),
            };
        }
        RowModel::NotModelled(reason) => {
            return RowReport {
                row: row.clone(),
                compared: Vec::new(),
                remark: reason,
            };
        }
    };
    let e = estimate(&schedule, options, constants, None);
    RowReport {
        row: row.clone(),
        compared: comparisons(row, &e),
        remark: note,
    }
}

pub(super) fn comparisons(row: &SeedRow, e: &Estimate) -> Vec<Compared> {
    let mut out = Vec::with_capacity(4);
    let mut push = |metric, paper: Option<f64>, model: f64, goal| {
        if let Some(paper) = paper {
            out.push(Compared {
                metric,
                paper,
                model,
                error_pct: (model - paper) / paper * 100.0,
                goal,
            });
        }
    };
    // Area goal: LUTs where the paper gives them (Long), slices otherwise (Athanasiou).
    let luts = num(&row.luts);
    push("luts", luts, f64::from(e.luts), true);
    push(
        "slices",
        num(&row.slices),
        f64::from(e.slices),
        luts.is_none(),
    );
    push("period_ns", row.period(), e.period_ns, true);
    push("ffs", num(&row.ffs), f64::from(e.ffs), false);
    push(
        "lut_ff_pairs",
        num(&row.lut_ff_pairs),
        f64::from(e.lut_ff_pairs),
        false,
    );
    out
}

pub(super) fn shabal_comparisons(row: &SeedRow, e: &ShabalEstimate) -> Vec<Compared> {
    let mut out = Vec::with_capacity(3);
    let mut push = |metric, paper: Option<f64>, model: f64, goal| {
        if let Some(paper) = paper {
            out.push(Compared {
                metric,
                paper,
                model,
                error_pct: (model - paper) / paper * 100.0,
                goal,
            });
        }
    };
    push("slices", num(&row.slices), f64::from(e.slices), true);
    push("period_ns", row.period(), e.period_ns, true);
    push(
        "throughput_mbps",
        num(&row.throughput_mbps),
        e.throughput_mbps,
        false,
    );
    out
}

fn mape(rows: &[RowReport]) -> Mape {
    let mut m = Mape::default();
    for r in rows {
        for c in r.goals() {
            let abs = c.error_pct.abs();
            m.worst = m.worst.max(abs);
            if c.metric == "period_ns" {
                m.period += abs;
                m.period_rows += 1;
            } else {
                m.area += abs;
                m.area_rows += 1;
            }
        }
    }
    if m.area_rows > 0 {
        m.area /= m.area_rows as f64;
    }
    if m.period_rows > 0 {
        m.period /= m.period_rows as f64;
    }
    m
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut role = "";
        for r in &self.rows {
            let heading = if r.compared.is_empty() {
                "not modelled"
            } else if r.row.source.starts_with("shabal") {
                if r.row.role == "fit" {
                    "Shabal fit"
                } else {
                    "Shabal validation"
                }
            } else {
                r.row.role.as_str()
            };
            if heading != role {
                role = heading;
                writeln!(f, "\n{heading} rows")?;
                writeln!(
                    f,
                    "{:<22} {:<24} {:<13} {:>10} {:>10} {:>8}  note",
                    "design", "source", "metric", "paper", "model", "error"
                )?;
            }
            let name = format!("{} ({})", r.row.design, r.row.place);
            if r.compared.is_empty() {
                writeln!(f, "{:<47.47} {:<13}  {}", name, "-", r.remark)?;
                continue;
            }
            for (i, c) in r.compared.iter().enumerate() {
                let (d, s, note) = if i == 0 {
                    (
                        r.row.design.as_str(),
                        r.row.source.as_str(),
                        r.remark.as_str(),
                    )
                } else {
                    ("", "", "")
                };
                let mark = if c.goal { "" } else { " (shown)" };
                writeln!(
                    f,
                    "{:<22.22} {:<24.24} {:<13} {:>10.2} {:>10.2} {:>+7.1}%  {}{}",
                    d, s, c.metric, c.paper, c.model, c.error_pct, note, mark
                )?;
            }
        }
        writeln!(f)?;
        for (name, m) in [
            ("fit", &self.fit),
            ("validation (own designs)", &self.validation),
            ("validation (other teams)", &self.validation_other),
        ] {
            writeln!(
                f,
                "MAPE {name:<24}: area {:5.1}% ({} rows), period {:5.1}% ({} rows), worst row {:5.1}%",
                m.area, m.area_rows, m.period, m.period_rows, m.worst
            )?;
        }
        for (name, m) in [
            ("Shabal fit", &self.shabal_fit),
            ("Shabal validation", &self.shabal_validation),
        ] {
            writeln!(
                f,
                "MAPE {name:<24}: slices {:5.1}% ({} rows), period {:5.1}% ({} rows), worst row {:5.1}%",
                m.area, m.area_rows, m.period, m.period_rows, m.worst
            )?;
        }
        let c = &self.shabal_conclusion;
        writeln!(
            f,
            "\nShabal, Table I at its own clocks against the model at its estimated clocks:"
        )?;
        writeln!(
            f,
            "{:>3} {:>12} {:>12} {:>16} {:>16}",
            "f", "paper Mbps", "model Mbps", "paper Mbps/sl", "model Mbps/sl"
        )?;
        for (u, tp, mtp, ps, ms) in &c.rows {
            writeln!(f, "{u:>3} {tp:>12.1} {mtp:>12.1} {ps:>16.3} {ms:>16.3}")?;
        }
        writeln!(
            f,
            "paper: best throughput at f = {}, best per slice at f = {}; model: f = {} and f = {}",
            c.paper_best_throughput,
            c.paper_best_per_slice,
            c.model_best_throughput,
            c.model_best_per_slice
        )?;
        writeln!(f, "{}", c.explanation)?;
        write!(
            f,
            "({} Virtex-4/Virtex-6 rows not modelled)",
            self.other_family_rows
        )
    }
}
