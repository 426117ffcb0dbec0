//! The plot's legend: one line per kind of mark, in the plot's empty upper left.

use std::fmt::Write as _;

use super::{
    AREA, LEGEND_FONT, PaperPoint, PlotOptions, Rect, escape, size_colour, text_px, triangle,
};
use crate::sweep::Sweep;

/// A legend line: its marker and text.
pub(super) enum Marker {
    Front(&'static str),
    Dot(&'static str),
    Hollow,
    Paper { filled: bool },
    DeviceLine,
}

pub(super) fn legend_entries(
    sweep: &Sweep,
    sizes: &[u32],
    papers: &[&PaperPoint],
    options: &PlotOptions,
) -> Vec<(Marker, String)> {
    let mut out = Vec::new();
    for &n in sizes {
        out.push((
            Marker::Front(size_colour(n)),
            format!("Skein-{n}: Pareto front (model)"),
        ));
        out.push((
            Marker::Dot(size_colour(n)),
            format!("Skein-{n}: other schedules"),
        ));
    }
    if papers.iter().any(|p| !p.from_pairs) {
        out.push((
            Marker::Paper { filled: true },
            "published: slices".to_owned(),
        ));
    }
    if papers.iter().any(|p| p.from_pairs) {
        out.push((
            Marker::Paper { filled: false },
            "published: LUT-FF pairs / 4 (Long 2009)".to_owned(),
        ));
    }
    if let Some((part, _)) = &options.device_capacity {
        out.push((
            Marker::DeviceLine,
            format!("largest {}: {part}", options.device),
        ));
        if sweep.points.iter().any(|p| p.exceeds_device) {
            out.push((Marker::Hollow, format!("hollow: larger than {part}")));
        }
    }
    out
}

/// Draws the legend in the plot's upper left, where a throughput-against-area plot has no
/// points (small and fast is what no design reaches); returns its box.
pub(super) fn draw_legend(s: &mut String, entries: &[(Marker, String)]) -> Rect {
    let line = LEGEND_FONT + 6.0;
    let w = entries
        .iter()
        .map(|(_, t)| text_px(t, LEGEND_FONT))
        .fold(0.0, f64::max)
        + 44.0;
    let h = line * entries.len() as f64 + 10.0;
    let (x0, y0) = (AREA.x0 + 10.0, AREA.y0 + 10.0);
    let _ = writeln!(
        s,
        r##"<rect x="{x0}" y="{y0}" width="{w:.1}" height="{h:.1}" fill="white" fill-opacity="0.9" stroke="#999"/>"##
    );
    for (i, (marker, text)) in entries.iter().enumerate() {
        let cy = y0 + 5.0 + line * (i as f64 + 0.5);
        let mx = x0 + 18.0;
        let m = match marker {
            Marker::Front(c) => format!(
                r#"<line x1="{:.1}" y1="{cy:.1}" x2="{:.1}" y2="{cy:.1}" stroke="{c}" stroke-width="2"/><circle cx="{mx:.1}" cy="{cy:.1}" r="4.5" fill="{c}"/>"#,
                mx - 11.0,
                mx + 11.0
            ),
            Marker::Dot(c) => {
                format!(r#"<circle cx="{mx:.1}" cy="{cy:.1}" r="2.5" fill="{c}" opacity="0.5"/>"#)
            }
            Marker::Hollow => format!(
                r##"<circle cx="{mx:.1}" cy="{cy:.1}" r="4.5" fill="white" stroke="#555" stroke-width="1.8"/>"##
            ),
            Marker::Paper { filled } => format!(
                r##"<path d="{}" fill="{}" stroke="#222"/>"##,
                triangle(mx, cy, 6.5),
                if *filled { "#777" } else { "white" }
            ),
            Marker::DeviceLine => format!(
                r##"<line x1="{mx:.1}" y1="{:.1}" x2="{mx:.1}" y2="{:.1}" stroke="#b00020" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
                cy - 7.0,
                cy + 7.0
            ),
        };
        let _ = writeln!(
            s,
            r#"{m}<text x="{:.1}" y="{:.1}" font-size="{LEGEND_FONT}">{}</text>"#,
            x0 + 36.0,
            cy + 4.0,
            escape(text)
        );
    }
    Rect {
        x0,
        y0,
        x1: x0 + w,
        y1: y0 + h,
    }
}
