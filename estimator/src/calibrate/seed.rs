//! The seed tables: the published rows, parsed, and the schedule each row is.

use super::*;

/// The seed tables, embedded.
pub const SEED_TABLES: &str = include_str!("../../data/seed-tables.csv");

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

pub(super) fn num(cell: &Option<String>) -> Option<f64> {
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
    // The size column is honoured: [32] of Fig. 11 is GMU's Skein-256 (CHES 2010).
    let size = row.size.unwrap_or(512);
    let other = |base: &str, p: u32, note: &str| {
        let mut spec = preset_spec(base).expect("known preset");
        spec.functional_stages = p;
        spec.size = size;
        spec.name = format!("{base}-like-{size}");
        match spec.build() {
            Ok(schedule) => RowModel::Modelled {
                schedule: Box::new(schedule),
                options,
                note: format!("{note}, Skein-{size}"),
            },
            Err(e) => RowModel::NotModelled(format!("{base} at {size} bits: {e}")),
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
