//! The SVG plot of a sweep, for a paper: throughput against slices (log axes when they span
//! more than a decade, 1-2-5 ticks), one Pareto front per state size with its points named
//! beside them, the published results of the plotted sizes, the device's size as a line and
//! the designs beyond it hollow. Every point names itself on hover (an SVG `<title>`).
//!
//! Written by hand rather than through a chart library: hover titles, label placement and
//! tick choice are what make the plot readable, and none is a library's default.

mod axis;
mod labels;
mod legend;

use std::fmt::Write as _;

pub use axis::{Axis, number};
pub use labels::{Placed, Placer, Rect};

use legend::{draw_legend, legend_entries};

use crate::calibrate::seed_rows;
use crate::sweep::{Sweep, SweepPoint};

/// A published result to overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct PaperPoint {
    /// Design and source.
    pub label: String,
    /// The design's name alone (the label beside the point).
    pub design: String,
    /// State size, when the table gives it.
    pub size: Option<u32>,
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
                design: r.design.clone(),
                size: r.size,
                slices,
                throughput_mbps: tp,
                from_pairs,
            })
        })
        .collect()
}

/// What is drawn besides the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotOptions {
    /// The device family, for the title ("Virtex-5").
    pub device: String,
    /// Published results (only those of the plotted state sizes are drawn).
    pub papers: Vec<PaperPoint>,
    /// The device's size as a vertical line: its label and slices.
    pub device_capacity: Option<(String, f64)>,
}

impl PlotOptions {
    /// Virtex-5, the seed papers' points, and the sweep's own device size.
    pub fn virtex5(sweep: &Sweep) -> PlotOptions {
        PlotOptions::for_device(sweep, crate::DeviceId::Virtex5)
    }

    /// `device`'s family and the sweep's device size; the seed papers' points only on
    /// Virtex-5, the device they were measured on.
    pub fn for_device(sweep: &Sweep, device: crate::DeviceId) -> PlotOptions {
        PlotOptions {
            device: device.info().family.to_owned(),
            papers: if device == crate::DeviceId::Virtex5 {
                paper_points()
            } else {
                Vec::new()
            },
            device_capacity: sweep
                .device_capacity
                .as_ref()
                .map(|c| (c.part.clone(), f64::from(c.slices))),
        }
    }
}

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 680.0;
/// The plot area: left, top, right, bottom.
pub(crate) const AREA: Rect = Rect {
    x0: 92.0,
    y0: 58.0,
    x1: 972.0,
    y1: 608.0,
};
const TICK_FONT: f64 = 12.0;
const LABEL_FONT: f64 = 10.5;
pub(crate) const LEGEND_FONT: f64 = 12.0;

/// Width of `text` in a sans-serif font of `size` px: DejaVu Sans's advance widths, rounded
/// up (no fonts are read; a narrower font only leaves more room).
pub(crate) fn text_px(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| match c {
            ',' | '.' | ' ' | ':' | 'i' | 'j' | 'l' | '\'' => 0.33,
            '-' | '(' | ')' | '/' | 'f' | 't' | 'r' => 0.42,
            'm' => 0.98,
            'w' | 'M' | 'W' => 0.85,
            'c' | 's' | 'z' | 'k' | 'v' | 'x' | 'y' => 0.6,
            c if c.is_ascii_uppercase() => 0.72,
            _ => 0.65,
        })
        .sum::<f64>()
        * size
}

/// The colour of a state size's points.
pub(crate) fn size_colour(size: u32) -> &'static str {
    match size {
        256 => "#1f62b0",
        512 => "#d9730d",
        1024 => "#2b8a3e",
        _ => "#6b6b6b",
    }
}

pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The hover text of a sweep point.
fn point_title(p: &SweepPoint) -> String {
    let e = &p.estimate;
    let mut t = format!(
        "{}: {} slices, {} Mbit/s at {:.1} MHz, {} block(s) in flight",
        p.spec.name,
        number(f64::from(e.slices)),
        number(e.throughput_mbps.round()),
        e.freq_mhz,
        e.blocks_in_flight
    );
    if p.pareto {
        t.push_str("; on the Pareto front");
    }
    if p.exceeds_device {
        t.push_str("; larger than the device");
    }
    escape(&t)
}

/// The plot being drawn: its text, its axes and the labels' placer.
struct Drawing {
    s: String,
    x: Axis,
    y: Axis,
    placer: Placer,
}

impl Drawing {
    /// The pixel of a sweep point.
    fn at(&self, p: &SweepPoint) -> (f64, f64) {
        (
            self.x.px(f64::from(p.estimate.slices)),
            self.y.px(p.estimate.throughput_mbps),
        )
    }

    /// The device's size: a dashed vertical line, its label at the foot (the fronts end at
    /// the top right, near the device).
    fn device_line(&mut self, part: &str, slices: f64) {
        let px = self.x.px(slices);
        let raw = format!("{part}: {} slices", number(slices));
        let text = escape(&raw);
        let _ = writeln!(
            self.s,
            r##"<line x1="{px:.1}" y1="{}" x2="{px:.1}" y2="{}" stroke="#b00020" stroke-width="1.5" stroke-dasharray="7 5"><title>{text}</title></line>"##,
            AREA.y0, AREA.y1,
        );
        let _ = writeln!(
            self.s,
            r##"<text x="{:.1}" y="{:.1}" font-size="{LABEL_FONT}" fill="#b00020" text-anchor="end">{text}</text>"##,
            px - 4.0,
            AREA.y1 - 6.0,
        );
        self.placer.block(Rect {
            x0: px - 6.0 - text_px(&raw, LABEL_FONT),
            y0: AREA.y1 - 20.0,
            x1: px + 2.0,
            y1: AREA.y1,
        });
    }

    /// The swept schedules off the fronts, small and faint (hollow beyond the device).
    fn other_points(&mut self, sweep: &Sweep) {
        self.s.push_str("<g>\n");
        for p in sweep.points.iter().filter(|p| !p.pareto) {
            let (px, py) = self.at(p);
            let c = size_colour(p.spec.size);
            let fill = if p.exceeds_device { "none" } else { c };
            let _ = writeln!(
                self.s,
                r#"<circle cx="{px:.1}" cy="{py:.1}" r="2.2" fill="{fill}" stroke="{c}" stroke-width="0.8" opacity="0.35"><title>{}</title></circle>"#,
                point_title(p)
            );
        }
        self.s.push_str("</g>\n");
    }

    /// One size's front, sorted by area: a line through its points, then the points (hollow
    /// beyond the device), kept clear of labels.
    fn front(&mut self, size: u32, front: &[&SweepPoint]) {
        let c = size_colour(size);
        let path: Vec<String> = front
            .iter()
            .map(|p| {
                let (px, py) = self.at(p);
                format!("{px:.1},{py:.1}")
            })
            .collect();
        let _ = writeln!(
            self.s,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
            path.join(" ")
        );
        for p in front {
            let (px, py) = self.at(p);
            self.placer.block(Rect::around(px, py, 4.5));
            let fill = if p.exceeds_device { "white" } else { c };
            let _ = writeln!(
                self.s,
                r#"<circle cx="{px:.1}" cy="{py:.1}" r="4.5" fill="{fill}" stroke="{c}" stroke-width="1.8"><title>{}</title></circle>"#,
                point_title(p)
            );
        }
    }

    /// A published result: a triangle in its size's colour, filled for slices, hollow for
    /// Long's LUT-FF pairs / 4.
    fn paper(&mut self, p: &PaperPoint) {
        let (px, py) = (self.x.px(p.slices), self.y.px(p.throughput_mbps));
        self.placer.block(Rect::around(px, py, 6.0));
        let c = size_colour(p.size.unwrap_or(0));
        let fill = if p.from_pairs { "white" } else { c };
        let area = if p.from_pairs {
            "slices (LUT-FF pairs / 4)"
        } else {
            "slices"
        };
        let title = format!(
            "{}: {} {area}, {} Mbit/s",
            p.label,
            number(p.slices.round()),
            number(p.throughput_mbps.round())
        );
        let _ = writeln!(
            self.s,
            r##"<path d="{}" fill="{fill}" stroke="#222" stroke-width="1"><title>{}</title></path>"##,
            triangle(px, py, 6.5),
            escape(&title)
        );
    }

    /// A name beside its point where there is room for it.
    fn label(&mut self, (px, py): (f64, f64), text: &str, colour: &str) {
        let h = LABEL_FONT + 2.0;
        if let Some(placed) = self.placer.place((px, py), text_px(text, LABEL_FONT), h) {
            draw_label(&mut self.s, (px, py), &placed, text, colour);
        }
    }
}

/// Renders the plot as SVG text.
pub fn svg(sweep: &Sweep, options: &PlotOptions) -> String {
    let mut sizes: Vec<u32> = sweep.points.iter().map(|p| p.spec.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let papers: Vec<&PaperPoint> = options
        .papers
        .iter()
        .filter(|p| p.size.is_some_and(|s| sizes.contains(&s)))
        .collect();
    let xs = sweep
        .points
        .iter()
        .map(|p| f64::from(p.estimate.slices))
        .chain(papers.iter().map(|p| p.slices))
        .chain(options.device_capacity.iter().map(|c| c.1));
    let ys = sweep
        .points
        .iter()
        .map(|p| p.estimate.throughput_mbps)
        .chain(papers.iter().map(|p| p.throughput_mbps));
    let (x0, x1) = bounds(xs);
    let (y0, y1) = bounds(ys);
    let mut d = Drawing {
        s: String::new(),
        x: Axis::new(x0, x1, AREA.x0, AREA.x1),
        y: Axis::new(y0, y1, AREA.y1, AREA.y0),
        placer: Placer::new(AREA),
    };
    let _ = writeln!(
        d.s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(
        d.s,
        r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );
    let names: Vec<String> = sizes.iter().map(|n| format!("Skein-{n}")).collect();
    let _ = writeln!(
        d.s,
        r#"<text x="{}" y="32" font-size="18" text-anchor="middle">{} on {}: estimated throughput against area</text>"#,
        (AREA.x0 + AREA.x1) / 2.0,
        escape(&names.join(", ")),
        escape(&options.device)
    );
    draw_axes(&mut d.s, &d.x, &d.y);
    // The legend first: the labels keep off it.
    let legend = legend_entries(sweep, &sizes, &papers, options);
    let legend_box = draw_legend(&mut d.s, &legend);
    d.placer.block(legend_box);
    if let Some((part, slices)) = &options.device_capacity {
        d.device_line(part, *slices);
    }
    d.other_points(sweep);
    let fronts: Vec<Vec<&SweepPoint>> = sizes
        .iter()
        .map(|&size| {
            let mut front: Vec<&SweepPoint> = sweep
                .points
                .iter()
                .filter(|p| p.pareto && p.spec.size == size)
                .collect();
            front.sort_by_key(|p| p.estimate.slices);
            d.front(size, &front);
            front
        })
        .collect();
    for p in &papers {
        d.paper(p);
    }
    // Names beside the front points (the smallest design of each front first, the fronts in
    // turn), then beside the published points where room is left.
    d.s.push_str("<g>\n");
    let longest = fronts.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for p in fronts.iter().filter_map(|f| f.get(i)) {
            d.label(d.at(p), &p.spec.name, size_colour(p.spec.size));
        }
    }
    for p in &papers {
        d.label(
            (d.x.px(p.slices), d.y.px(p.throughput_mbps)),
            &p.design,
            "#222",
        );
    }
    d.s.push_str("</g>\n</svg>\n");
    d.s
}

/// A triangle marker's path around `(x, y)`.
pub(crate) fn triangle(x: f64, y: f64, r: f64) -> String {
    format!(
        "M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z",
        x,
        y - r,
        x + r * 0.87,
        y + r * 0.5,
        x - r * 0.87,
        y + r * 0.5
    )
}

fn draw_label(s: &mut String, (px, py): (f64, f64), placed: &Placed, text: &str, colour: &str) {
    let r = placed.rect;
    if placed.leader {
        // To the label's nearest point.
        let (lx, ly) = (px.clamp(r.x0, r.x1), py.clamp(r.y0, r.y1));
        let _ = writeln!(
            s,
            r#"<line x1="{px:.1}" y1="{py:.1}" x2="{lx:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="0.6" opacity="0.7"/>"#
        );
    }
    let (tx, anchor) = if placed.left {
        (r.x1, "end")
    } else {
        (r.x0, "start")
    };
    let _ = writeln!(
        s,
        r#"<text x="{tx:.1}" y="{:.1}" font-size="{LABEL_FONT}" fill="{colour}" text-anchor="{anchor}" stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke">{}</text>"#,
        r.y1 - 3.0,
        escape(text)
    );
}

fn draw_axes(s: &mut String, x: &Axis, y: &Axis) {
    let width = |t: &str| text_px(t, TICK_FONT);
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333" stroke-width="1"/>"##,
        AREA.x0,
        AREA.y0,
        AREA.x1 - AREA.x0,
        AREA.y1 - AREA.y0
    );
    for t in x.ticks(&width, 14.0) {
        let px = x.px(t);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{}" x2="{px:.1}" y2="{}" stroke="#e3e3e3"/><line x1="{px:.1}" y1="{}" x2="{px:.1}" y2="{}" stroke="#333"/><text x="{px:.1}" y="{}" font-size="{TICK_FONT}" text-anchor="middle">{}</text>"##,
            AREA.y0,
            AREA.y1,
            AREA.y1,
            AREA.y1 + 5.0,
            AREA.y1 + 19.0,
            number(t)
        );
    }
    // The y labels stand one above another: their height is what must not collide.
    for t in y.ticks(&|_| TICK_FONT, 8.0) {
        let py = y.px(t);
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{py:.1}" x2="{}" y2="{py:.1}" stroke="#e3e3e3"/><line x1="{}" y1="{py:.1}" x2="{}" y2="{py:.1}" stroke="#333"/><text x="{}" y="{:.1}" font-size="{TICK_FONT}" text-anchor="end">{}</text>"##,
            AREA.x0,
            AREA.x1,
            AREA.x0 - 5.0,
            AREA.x0,
            AREA.x0 - 8.0,
            py + 4.0,
            number(t)
        );
    }
    let scale = |a: &Axis| if a.is_log() { ", log scale" } else { "" };
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-size="14" text-anchor="middle">area (slices{})</text>"#,
        (AREA.x0 + AREA.x1) / 2.0,
        AREA.y1 + 42.0,
        scale(x)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(24 {}) rotate(-90)" font-size="14" text-anchor="middle">throughput (Mbit/s{})</text>"#,
        (AREA.y0 + AREA.y1) / 2.0,
        scale(y)
    );
}

/// The smallest and largest positive finite values (`(1, 10)` when there are none).
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo.is_finite() {
        (lo, hi)
    } else {
        (1.0, 10.0)
    }
}
