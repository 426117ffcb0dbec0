//! The SVG plot of a sweep: throughput against slices on log-log axes, the Pareto front
//! highlighted, the seed papers' Virtex-5 results overlaid.

use plotters::prelude::*;

use crate::calibrate::seed_rows;
use crate::error::EstimatorError;
use crate::sweep::Sweep;

/// A published result to overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct PaperPoint {
    /// Design and source.
    pub label: String,
    /// Slices (Long's LUT-FF pairs / 4 where no slices are given).
    pub slices: f64,
    /// Throughput, Mbit/s.
    pub throughput_mbps: f64,
    /// Whether the area is Long's pairs / 4 rather than slices.
    pub from_pairs: bool,
}

/// The papers' Virtex-5 points (Skein rows with an area and a throughput).
pub fn paper_points() -> Vec<PaperPoint> {
    seed_rows()
        .into_iter()
        .filter(|r| r.is_virtex5() && !r.source.starts_with("shabal"))
        .filter_map(|r| {
            let tp: f64 = r.throughput_mbps.as_deref()?.parse().ok()?;
            let slices = r.slices.as_deref().and_then(|s| s.parse::<f64>().ok());
            let pairs = r
                .lut_ff_pairs
                .as_deref()
                .and_then(|s| s.parse::<f64>().ok());
            let (slices, from_pairs) = match (slices, pairs) {
                (Some(s), _) => (s, false),
                (None, Some(p)) => (p / 4.0, true),
                _ => return None,
            };
            Some(PaperPoint {
                label: format!("{} ({})", r.design, r.source),
                slices,
                throughput_mbps: tp,
                from_pairs,
            })
        })
        .collect()
}

fn plot_err(e: impl std::fmt::Display) -> EstimatorError {
    EstimatorError::Plot(e.to_string())
}

/// Renders the plot as SVG text.
pub fn svg(sweep: &Sweep, papers: &[PaperPoint]) -> Result<String, EstimatorError> {
    let xs = sweep
        .points
        .iter()
        .map(|p| f64::from(p.estimate.slices))
        .chain(papers.iter().map(|p| p.slices));
    let ys = sweep
        .points
        .iter()
        .map(|p| p.estimate.throughput_mbps)
        .chain(papers.iter().map(|p| p.throughput_mbps));
    let (x0, x1) = bounds(xs);
    let (y0, y1) = bounds(ys);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (960, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Skein on Virtex-5: estimated throughput vs area",
                ("sans-serif", 22),
            )
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("area (slices)")
            .y_desc("throughput (Mbit/s)")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(plot_err)?;

        let grey = RGBColor(170, 170, 170);
        chart
            .draw_series(sweep.points.iter().filter(|p| !p.pareto).map(|p| {
                Circle::new(
                    (f64::from(p.estimate.slices), p.estimate.throughput_mbps),
                    2,
                    grey.filled(),
                )
            }))
            .map_err(plot_err)?
            .label("model: swept schedules")
            .legend(move |(x, y)| Circle::new((x, y), 3, grey.filled()));

        let mut front: Vec<(f64, f64)> = sweep
            .points
            .iter()
            .filter(|p| p.pareto)
            .map(|p| (f64::from(p.estimate.slices), p.estimate.throughput_mbps))
            .collect();
        front.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(front.iter().copied(), BLUE.stroke_width(2)))
            .map_err(plot_err)?
            .label("model: Pareto front")
            .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], BLUE.stroke_width(2)));
        chart
            .draw_series(
                front
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 4, BLUE.filled())),
            )
            .map_err(plot_err)?;

        for (from_pairs, color, label) in [
            (false, RED, "papers: slices"),
            (true, MAGENTA, "Long 2009: LUT-FF pairs / 4"),
        ] {
            let pts: Vec<&PaperPoint> = papers
                .iter()
                .filter(|p| p.from_pairs == from_pairs)
                .collect();
            if pts.is_empty() {
                continue;
            }
            chart
                .draw_series(
                    pts.iter().map(|p| {
                        TriangleMarker::new((p.slices, p.throughput_mbps), 6, color.filled())
                    }),
                )
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| TriangleMarker::new((x, y), 5, color.filled()));
        }

        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// Log-axis bounds around `values` with a margin; a fixed range when there are none.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    (lo / 1.3, hi * 1.3)
}
