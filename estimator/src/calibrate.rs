//! Calibration: the published rows of `data/seed-tables.csv`, the schedule each row is, the
//! deterministic fit of the `[timing]` and `[area]` constants on the `role=fit` rows, and
//! the table of paper value, model value and error for every row.
//!
//! The fit is a coordinate search on the sum of squared log errors (area and period of every
//! fit row; Long's flip-flops and LUT-FF pairs at a quarter weight, since only they pin the
//! control flip-flops and the pairing). It starts from fixed initial values in this file, not
//! from the constants file, so it is reproducible; its results are rounded to 4 significant
//! digits, which is what `--write` stores. Validation rows are never used for fitting.

use std::fmt::{self, Write as _};

use serde::Serialize;
use skeinhw_sched::shabal::{self as shabal_sched, ShabalSchedule};
use skeinhw_sched::{Schedule, preset, preset_spec};

use crate::constants::Constants;
use crate::error::EstimatorError;
use crate::estimate::{Estimate, estimate};
use crate::shabal::{self, ShabalEstimate};
use crate::style::{CoreStyle, Flow, Options};

/// The seed tables, embedded.
pub const SEED_TABLES: &str = include_str!("../data/seed-tables.csv");

/// One row of the seed tables, as transcribed (empty cells are `None`; the text of each
/// number is kept for its printed precision).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeedRow {
    /// Paper (and cited reference).
    pub source: String,
    /// Table or figure.
    pub place: String,
    /// Device or family.
    pub device: String,
    /// Design name (a preset name for the papers' own designs).
    pub design: String,
    /// State bits, when given.
    pub size: Option<u32>,
    /// `fit`, `validation` or `other-family`.
    pub role: String,
    /// Flip-flops.
    pub ffs: Option<String>,
    /// Logic LUTs.
    pub luts: Option<String>,
    /// LUT-FF pairs.
    pub lut_ff_pairs: Option<String>,
    /// Slices.
    pub slices: Option<String>,
    /// Clock period, ns.
    pub period_ns: Option<String>,
    /// Clock frequency, MHz.
    pub freq_mhz: Option<String>,
    /// Throughput, Mbit/s.
    pub throughput_mbps: Option<String>,
    /// Transcriber's note.
    pub note: String,
}

fn num(cell: &Option<String>) -> Option<f64> {
    cell.as_deref()
        .and_then(|s| s.replace(',', ".").parse().ok())
}

impl SeedRow {
    /// The paper's clock, MHz: the frequency, or 1000 / period.
    pub fn freq(&self) -> Option<f64> {
        num(&self.freq_mhz).or_else(|| num(&self.period_ns).map(|p| 1000.0 / p))
    }

    /// The paper's clock period, ns: the period, or 1000 / frequency.
    pub fn period(&self) -> Option<f64> {
        num(&self.period_ns).or_else(|| num(&self.freq_mhz).map(|f| 1000.0 / f))
    }

    /// Whether the row is a Virtex-5 result.
    pub fn is_virtex5(&self) -> bool {
        let d = self.device.to_ascii_lowercase();
        d.starts_with("xc5v") || d == "virtex-5"
    }

    /// Whether the row is one of the seed papers' own designs (not a cited team's).
    pub fn is_own_design(&self) -> bool {
        !self.source.contains('[')
    }
}

/// Parses the seed tables CSV (header line first; quoted cells allowed).
pub fn parse_seed_tables(text: &str) -> Result<Vec<SeedRow>, EstimatorError> {
    const HEADER: [&str; 14] = [
        "source",
        "where",
        "device",
        "design",
        "size",
        "role",
        "ffs",
        "luts",
        "lut_ff_pairs",
        "slices",
        "period_ns",
        "freq_mhz",
        "throughput_mbps",
        "note",
    ];
    let mut lines = text.lines().enumerate();
    let header = lines.next().map(|(_, l)| split_csv(l)).unwrap_or_default();
    if header != HEADER {
        return Err(EstimatorError::SeedTable {
            line: 1,
            message: format!("header is not `{}`", HEADER.join(",")),
        });
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let cells = split_csv(line);
        if cells.len() != HEADER.len() {
            return Err(EstimatorError::SeedTable {
                line: i + 1,
                message: format!("{} cells, expected {}", cells.len(), HEADER.len()),
            });
        }
        let opt = |j: usize| Some(cells[j].clone()).filter(|s| !s.is_empty());
        let size = match opt(4) {
            None => None,
            Some(s) => Some(s.parse().map_err(|_| EstimatorError::SeedTable {
                line: i + 1,
                message: format!("size `{s}` is not a number"),
            })?),
        };
        rows.push(SeedRow {
            source: cells[0].clone(),
            place: cells[1].clone(),
            device: cells[2].clone(),
            design: cells[3].clone(),
            size,
            role: cells[5].clone(),
            ffs: opt(6),
            luts: opt(7),
            lut_ff_pairs: opt(8),
            slices: opt(9),
            period_ns: opt(10),
            freq_mhz: opt(11),
            throughput_mbps: opt(12),
            note: cells[13].clone(),
        });
    }
    Ok(rows)
}

fn split_csv(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cells.last_mut().expect("one cell").push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(String::new()),
            _ => cells.last_mut().expect("one cell").push(ch),
        }
    }
    cells
}

/// The seed rows, embedded.
pub fn seed_rows() -> Vec<SeedRow> {
    parse_seed_tables(SEED_TABLES).expect("the embedded seed table parses")
}

/// What the model makes of a row.
#[derive(Clone, Debug)]
pub enum RowModel {
    /// A schedule and options the model estimates; `note` says what was assumed.
    Modelled {
        /// The schedule.
        schedule: Box<Schedule>,
        /// Style and flow.
        options: Options,
        /// Assumptions, empty for the papers' own designs.
        note: String,
    },
    /// A Shabal schedule, estimated by [`crate::shabal`] in the ISE 13 flow.
    Shabal(Box<ShabalSchedule>),
    /// Not modelled, and why.
    NotModelled(String),
}

/// The schedule and options of a seed row.
pub fn row_model(row: &SeedRow) -> RowModel {
    if row.source.starts_with("shabal") {
        return match shabal_sched::preset(&row.design) {
            Ok(s) => RowModel::Shabal(Box::new(s)),
            Err(e) => RowModel::NotModelled(format!("no Shabal schedule: {e}")),
        };
    }
    if !row.is_virtex5() {
        return RowModel::NotModelled(format!("other family ({}): not modelled", row.device));
    }
    let (style, flow) = if row.source.starts_with("long") {
        (CoreStyle::UbiCore, Flow::Ise9Default)
    } else {
        (CoreStyle::HashCore, Flow::Ise13)
    };
    let options = Options {
        style: Some(style),
        flow,
    };
    if let Ok(schedule) = preset(&row.design) {
        return RowModel::Modelled {
            schedule: Box::new(schedule),
            options,
            note: String::new(),
        };
    }
    let other = |base: &str, p: u32, note: &str| {
        let mut spec = preset_spec(base).expect("known preset");
        spec.functional_stages = p;
        spec.name = format!("{base}-like");
        RowModel::Modelled {
            schedule: Box::new(spec.build().expect("valid variation")),
            options,
            note: note.to_owned(),
        }
    };
    match row.design.as_str() {
        "other 4-round unrolled" => other(
            "ath-4r",
            1,
            "other team; modelled as ath-4r (its core and flow are not published here)",
        ),
        "other 8-round unrolled" => other(
            "ath-8r",
            1,
            "other team; modelled as ath-8r (its core and flow are not published here)",
        ),
        "other 4-round unrolled 2-stage pipeline" => other(
            "ath-4r",
            2,
            "other team; modelled as ath-4r with 2 functional stages",
        ),
        d if d.starts_with("other 4-round unrolled") => RowModel::NotModelled(
            "not modelled: 5 or 10 stages do not divide a 4-round datapath; \
             its registers lie outside the rounds (structure not published here)"
                .into(),
        ),
        _ => RowModel::NotModelled(format!("no schedule for design `{}`", row.design)),
    }
}

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
    let mut fit = Vec::new();
    let mut validation = Vec::new();
    let mut shabal_fit = Vec::new();
    let mut shabal_validation = Vec::new();
    let mut not_modelled = Vec::new();
    let mut other_family_rows = 0;
    for row in seed_rows() {
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

fn comparisons(row: &SeedRow, e: &Estimate) -> Vec<Compared> {
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

fn shabal_comparisons(row: &SeedRow, e: &ShabalEstimate) -> Vec<Compared> {
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

/// Which unfolding factor is best by throughput and by throughput per slice, in the paper's
/// Table I and in the model (each at its own clock).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShabalConclusion {
    /// f of the best throughput in Table I (the paper: 4).
    pub paper_best_throughput: u32,
    /// f of the best throughput per slice in Table I (the paper: 3).
    pub paper_best_per_slice: u32,
    /// f of the best throughput in the model.
    pub model_best_throughput: u32,
    /// f of the best throughput per slice in the model.
    pub model_best_per_slice: u32,
    /// (f, paper Mbps, model Mbps, paper Mbps/slice, model Mbps/slice) per row.
    pub rows: Vec<(u32, f64, f64, f64, f64)>,
    /// Why the model agrees or not.
    pub explanation: String,
}

/// The Shabal paper's conclusion (best throughput at f = 4, best throughput per slice at
/// f = 3) against the model's, with `constants`.
pub fn shabal_conclusion(constants: &Constants) -> ShabalConclusion {
    let mut rows = Vec::new();
    for row in seed_rows() {
        if !row.source.starts_with("shabal") {
            continue;
        }
        let (Ok(s), Some(freq), Some(slices)) = (
            shabal_sched::preset(&row.design),
            row.freq(),
            num(&row.slices),
        ) else {
            continue;
        };
        let e = shabal::estimate(&s, Flow::Ise13, constants, None);
        let tp = s.throughput_mbps(freq);
        rows.push((
            s.unfolding(),
            tp,
            e.throughput_mbps,
            tp / slices,
            e.mbps_per_slice,
        ));
    }
    let best = |key: fn(&(u32, f64, f64, f64, f64)) -> f64| {
        rows.iter()
            .max_by(|a, b| key(a).total_cmp(&key(b)))
            .map_or(0, |r| r.0)
    };
    let paper_best_throughput = best(|r| r.1);
    let model_best_throughput = best(|r| r.2);
    let paper_best_per_slice = best(|r| r.3);
    let model_best_per_slice = best(|r| r.4);
    let mut explanation = Vec::new();
    if model_best_per_slice == paper_best_per_slice {
        explanation.push(format!(
            "best throughput per slice at f = {model_best_per_slice} as in the paper"
        ));
    } else {
        let (paper_slope, model_slope) = shabal_slices_per_iteration(constants);
        explanation.push(format!(
            "best throughput per slice at f = {model_best_per_slice}, the paper's at f = \
             {paper_best_per_slice}: the model adds {model_slope:.0} slices per iteration of P \
             (128 LUTs: the V and U adders, the new A and new B words of a 32-bit word), Table \
             I {paper_slope:.0} on average from f = 1 to 8 (the paper gives no breakdown), so \
             the model's area grows more slowly and its throughput per slice peaks later"
        ));
    }
    if model_best_throughput == paper_best_throughput {
        explanation.push(format!(
            "best throughput at f = {model_best_throughput} as in the paper"
        ));
    } else {
        explanation.push(format!(
            "best throughput at f = {model_best_throughput}, not the paper's f = \
             {paper_best_throughput}: the model's period grows by the same delay per \
             iteration of P (V adder, U adder, a LUT and three nets) plus a routing delay \
             that grows only as (LUT-FF pairs)^{:.2}, so f / period keeps rising; Table I's \
             delay per added iteration ((period(f) - period(1)) / (f - 1)) grows from {:.2} ns \
             at f = 2 to {:.2} ns at f = 8, which the paper \
             puts down to \"operations added and more complex place-route step\" (section \
             V.A) and the model does not itemise. Table I's throughputs from f = 3 to 8 lie \
             within 2.6% of each other, so the peak is a small effect",
            constants.net_size_exponent,
            paper_period_per_iteration(2),
            paper_period_per_iteration(8),
        ));
    }
    ShabalConclusion {
        paper_best_throughput,
        paper_best_per_slice,
        model_best_throughput,
        model_best_per_slice,
        rows,
        explanation: explanation.join("; "),
    }
}

/// Table I's value of `metric` at unfolding factor `f`.
fn shabal_paper(f: u32, metric: fn(&SeedRow) -> Option<f64>) -> f64 {
    seed_rows()
        .iter()
        .find(|r| r.design == format!("shabal-unfold-{f}"))
        .and_then(metric)
        .unwrap_or(0.0)
}

/// Table I's delay per added iteration of P at unfolding factor `f` > 1, ns:
/// (period(f) - period(1)) / (f - 1).
fn paper_period_per_iteration(f: u32) -> f64 {
    (shabal_paper(f, SeedRow::period) - shabal_paper(1, SeedRow::period)) / f64::from(f - 1)
}

/// Slices per added iteration of P from f = 1 to f = 8: (Table I, model).
fn shabal_slices_per_iteration(c: &Constants) -> (f64, f64) {
    let slices = |r: &SeedRow| num(&r.slices);
    let paper = (shabal_paper(8, slices) - shabal_paper(1, slices)) / 7.0;
    let model = |f: u32| {
        shabal_sched::preset(&format!("shabal-unfold-{f}")).map_or(0.0, |s| {
            f64::from(shabal::estimate(&s, Flow::Ise13, c, None).slices)
        })
    };
    (paper, (model(8) - model(1)) / 7.0)
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

// ---- the fit ----------------------------------------------------------------------------

/// A fitted constant: where the search starts and the range it keeps to.
#[derive(Clone, Copy, Debug)]
pub struct FitParam {
    /// Constant name.
    pub name: &'static str,
    /// Starting value.
    pub initial: f64,
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
}

/// The fitted constants, with their starting values and physical ranges.
pub const FIT_PARAMS: [FitParam; 10] = [
    FitParam {
        name: "chained_adder_fraction",
        initial: 0.25,
        min: 0.1,
        max: 1.0,
    },
    FitParam {
        name: "net_ise9_ns",
        initial: 1.0,
        min: 0.05,
        max: 3.0,
    },
    FitParam {
        name: "net_ise13_ns",
        initial: 0.2,
        min: 0.02,
        max: 3.0,
    },
    FitParam {
        name: "net_size_exponent",
        initial: 0.2,
        min: 0.0,
        max: 1.0,
    },
    FitParam {
        name: "lut_overhead",
        initial: 1.1,
        min: 0.5,
        max: 2.5,
    },
    FitParam {
        name: "control_luts_ubi",
        initial: 500.0,
        min: 0.0,
        max: 4000.0,
    },
    FitParam {
        name: "control_luts_hash",
        initial: 200.0,
        min: 0.0,
        max: 4000.0,
    },
    FitParam {
        name: "control_ffs_ubi",
        initial: 64.0,
        min: 0.0,
        max: 500.0,
    },
    FitParam {
        name: "ff_pairing",
        initial: 0.5,
        min: 0.0,
        max: 1.0,
    },
    FitParam {
        name: "slice_packing",
        initial: 0.9,
        min: 0.3,
        max: 1.0,
    },
];

/// Weight of the shown (non-goal) metrics in the fit objective.
const SHOWN_WEIGHT: f64 = 0.25;

/// The fit objective: squared log errors over the fit rows.
pub fn objective(constants: &Constants, rows: &[(SeedRow, Schedule, Options)]) -> f64 {
    let mut sum = 0.0;
    for (row, schedule, options) in rows {
        let e = estimate(schedule, *options, constants, None);
        for c in comparisons(row, &e) {
            let w = if c.goal { 1.0 } else { SHOWN_WEIGHT };
            let l = (c.model.max(1e-9) / c.paper).ln();
            sum += w * l * l;
        }
    }
    sum
}

/// The Skein fit rows with their schedules.
pub fn fit_rows() -> Vec<(SeedRow, Schedule, Options)> {
    seed_rows()
        .into_iter()
        .filter(|r| r.role == "fit")
        .filter_map(|r| match row_model(&r) {
            RowModel::Modelled {
                schedule, options, ..
            } => Some((r, *schedule, options)),
            RowModel::Shabal(_) | RowModel::NotModelled(_) => None,
        })
        .collect()
}

/// Whether the calibration goals hold: fit rows within 15% MAPE for area and for period,
/// no fit row worse than 30%, own validation rows within 25% MAPE.
pub fn goals_met(report: &Report) -> bool {
    report.fit.area <= 15.0
        && report.fit.period <= 15.0
        && report.fit.worst <= 30.0
        && report.validation.area <= 25.0
        && report.validation.period <= 25.0
}

/// Fits the [`FIT_PARAMS`] of `base` (whose fixed constants are kept) and rounds them to 4
/// significant digits. Deterministic: same inputs, same constants.
pub fn fit(base: &Constants) -> Constants {
    let rows = fit_rows();
    let mut c = base.clone();
    for p in FIT_PARAMS {
        *c.get_mut(p.name).expect("fitted constant exists") = p.initial;
    }
    let mut steps: Vec<f64> = FIT_PARAMS.iter().map(|p| (p.max - p.min) / 8.0).collect();
    let mut best = objective(&c, &rows);
    for _round in 0..400 {
        let mut improved = false;
        for (i, p) in FIT_PARAMS.iter().enumerate() {
            for dir in [1.0, -1.0] {
                let old = c.get(p.name).expect("exists");
                let new = (old + dir * steps[i]).clamp(p.min, p.max);
                if new == old {
                    continue;
                }
                *c.get_mut(p.name).expect("exists") = new;
                let value = objective(&c, &rows);
                if value < best {
                    best = value;
                    improved = true;
                    break;
                }
                *c.get_mut(p.name).expect("exists") = old;
            }
        }
        if !improved {
            for (step, p) in steps.iter_mut().zip(FIT_PARAMS) {
                *step /= 2.0;
                if *step < (p.max - p.min) * 1e-6 {
                    *step = 0.0;
                }
            }
            if steps.iter().all(|s| *s == 0.0) {
                break;
            }
        }
    }
    for p in FIT_PARAMS {
        let v = c.get_mut(p.name).expect("exists");
        *v = round_sig(*v, 4);
    }
    fit_shabal(&mut c);
    c
}

/// The Shabal constants, fitted on the Shabal fit rows (after the Skein fit, whose constants
/// they reuse), with their starting values and ranges.
pub const SHABAL_FIT_PARAMS: [FitParam; 2] = [
    FitParam {
        name: "shabal_control_luts",
        initial: 500.0,
        min: 0.0,
        max: 6000.0,
    },
    FitParam {
        name: "shabal_net_factor",
        initial: 1.0,
        min: 0.2,
        max: 5.0,
    },
];

/// The Shabal fit rows (Table I, f = 1, 2, 3, 4) with their schedules.
pub fn shabal_fit_rows() -> Vec<(SeedRow, ShabalSchedule)> {
    seed_rows()
        .into_iter()
        .filter(|r| r.role == "fit" && r.source.starts_with("shabal"))
        .filter_map(|r| shabal_sched::preset(&r.design).ok().map(|s| (r, s)))
        .collect()
}

fn shabal_objective(c: &Constants, rows: &[(SeedRow, ShabalSchedule)]) -> f64 {
    let mut sum = 0.0;
    for (row, s) in rows {
        let e = shabal::estimate(s, Flow::Ise13, c, None);
        for cmp in shabal_comparisons(row, &e).iter().filter(|x| x.goal) {
            let l = (cmp.model.max(1e-9) / cmp.paper).ln();
            sum += l * l;
        }
    }
    sum
}

/// Fits [`SHABAL_FIT_PARAMS`] in `c` (coordinate search, as [`fit`]), rounded to 4 digits.
fn fit_shabal(c: &mut Constants) {
    let rows = shabal_fit_rows();
    for p in SHABAL_FIT_PARAMS {
        *c.get_mut(p.name).expect("fitted constant exists") = p.initial;
    }
    let mut steps: Vec<f64> = SHABAL_FIT_PARAMS
        .iter()
        .map(|p| (p.max - p.min) / 8.0)
        .collect();
    let mut best = shabal_objective(c, &rows);
    for _round in 0..400 {
        let mut improved = false;
        for (i, p) in SHABAL_FIT_PARAMS.iter().enumerate() {
            for dir in [1.0, -1.0] {
                let old = c.get(p.name).expect("exists");
                let new = (old + dir * steps[i]).clamp(p.min, p.max);
                if new == old {
                    continue;
                }
                *c.get_mut(p.name).expect("exists") = new;
                let value = shabal_objective(c, &rows);
                if value < best {
                    best = value;
                    improved = true;
                    break;
                }
                *c.get_mut(p.name).expect("exists") = old;
            }
        }
        if !improved {
            for (step, p) in steps.iter_mut().zip(SHABAL_FIT_PARAMS) {
                *step /= 2.0;
                if *step < (p.max - p.min) * 1e-6 {
                    *step = 0.0;
                }
            }
            if steps.iter().all(|s| *s == 0.0) {
                break;
            }
        }
    }
    for p in SHABAL_FIT_PARAMS {
        let v = c.get_mut(p.name).expect("exists");
        *v = round_sig(*v, 4);
    }
}

/// `x` rounded to `digits` significant digits.
pub fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// The fitted constants, one per line, for the calibration output.
pub fn describe_fitted(c: &Constants) -> String {
    let mut s = String::new();
    for p in FIT_PARAMS.iter().chain(&SHABAL_FIT_PARAMS) {
        let _ = writeln!(s, "  {:<24} = {}", p.name, c.get(p.name).expect("exists"));
    }
    s
}

// ---- throughput arithmetic ---------------------------------------------------------------

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
