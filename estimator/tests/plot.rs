//! The sweep's SVG plot: what a paper needs is in it (hover names, labels, one front per
//! size, the plotted sizes' published points only, the device line, distinct 1-2-5 ticks),
//! and it renders to PNG (rsvg-convert, Debian's librsvg2-bin) for a person to look at.

use skeinhw_estimator::Constants;
use skeinhw_estimator::plot::{self, PlotOptions};
use skeinhw_estimator::sweep::{self, Sweep, SweepConfig};

fn sweep_of(sizes: &[u32]) -> Sweep {
    let config = SweepConfig {
        sizes: sizes.to_vec(),
        ..SweepConfig::default()
    };
    sweep::sweep(&config, &Constants::built_in(), &mut |_, _| {})
}

/// The attributes and text of every `<text>` element.
fn text_elements(svg: &str) -> Vec<(&str, &str)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let (attrs, rest) = t.split_once('>')?;
            Some((attrs, rest.split_once("</text>")?.0))
        })
        .collect()
}

/// The text of every `<text>` element.
fn texts(svg: &str) -> Vec<&str> {
    text_elements(svg).into_iter().map(|(_, t)| t).collect()
}

/// The text of every `<title>` element.
fn titles(svg: &str) -> Vec<&str> {
    svg.split("<title>")
        .skip(1)
        .filter_map(|t| t.split_once("</title>").map(|(t, _)| t))
        .collect()
}

#[test]
fn every_point_names_itself_and_front_points_are_labelled() {
    let s = sweep_of(&[256]);
    let options = PlotOptions::virtex5(&s);
    let svg = plot::svg(&s, &options);
    let titles = titles(&svg);
    for p in &s.points {
        let name = format!("{}: ", p.spec.name);
        assert!(
            titles.iter().any(|t| t.starts_with(&name)),
            "{}",
            p.spec.name
        );
    }
    let texts = texts(&svg);
    let front: Vec<&str> = s
        .points
        .iter()
        .filter(|p| p.pareto)
        .map(|p| p.spec.name.as_str())
        .collect();
    let labelled = front.iter().filter(|n| texts.contains(n)).count();
    // Most front points get a name beside them (the rest where labels would collide).
    assert!(
        labelled * 4 >= front.len() * 3,
        "{labelled} of {}",
        front.len()
    );
    assert!(svg.contains("Skein-256: Pareto front"));
}

#[test]
fn one_front_per_size_and_only_their_published_points() {
    let s = sweep_of(&[256, 1024]);
    let svg = plot::svg(&s, &PlotOptions::virtex5(&s));
    assert_eq!(svg.matches("<polyline").count(), 2);
    let small = sweep_of(&[256]);
    let svg = plot::svg(&small, &PlotOptions::virtex5(&small));
    assert_eq!(svg.matches("<polyline").count(), 1);
    let papers = plot::paper_points();
    let of_256: Vec<&str> = papers
        .iter()
        .filter(|p| p.size == Some(256))
        .map(|p| p.label.as_str())
        .collect();
    let others: Vec<_> = papers
        .iter()
        .filter(|p| p.size != Some(256) && !of_256.contains(&p.label.as_str()))
        .collect();
    assert!(!others.is_empty() && !of_256.is_empty());
    let titles = titles(&svg);
    for label in &of_256 {
        assert!(
            titles.iter().any(|t| t.starts_with(label)),
            "{label} missing"
        );
    }
    for p in others {
        assert!(
            !titles.iter().any(|t| t.starts_with(&p.label)),
            "{} drawn on a Skein-256 plot",
            p.label
        );
    }
    assert!(!svg.contains("Skein-512"));
}

#[test]
fn the_device_size_is_a_line_and_larger_designs_are_hollow() {
    let s = sweep_of(&[1024]);
    let over = s.points.iter().filter(|p| p.exceeds_device).count();
    assert!(over > 0);
    let svg = plot::svg(&s, &PlotOptions::virtex5(&s));
    assert!(svg.contains("xc5vlx330: 51,840 slices"));
    assert!(svg.contains("hollow: larger than xc5vlx330"));
    let hovered = titles(&svg)
        .iter()
        .filter(|t| t.contains("larger than the device"))
        .count();
    assert_eq!(hovered, over);
    let none = PlotOptions {
        device_capacity: None,
        ..PlotOptions::virtex5(&s)
    };
    assert!(!plot::svg(&s, &none).contains("xc5vlx330"));
}

#[test]
fn tick_labels_are_distinct_1_2_5_values_with_separators() {
    let s = sweep_of(&[256, 512, 1024]);
    let svg = plot::svg(&s, &PlotOptions::virtex5(&s));
    // Tick labels: the numbers, centred under the x axis, right-aligned left of the y axis.
    let numeric = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b',');
    for anchor in ["middle", "end"] {
        let ticks: Vec<&str> = text_elements(&svg)
            .into_iter()
            .filter(|(a, t)| a.contains(&format!("text-anchor=\"{anchor}\"")) && numeric(t))
            .map(|(_, t)| t)
            .collect();
        assert!(ticks.len() >= 4, "{anchor}: {ticks:?}");
        let mut distinct = ticks.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            ticks.len(),
            "{anchor}: a label twice: {ticks:?}"
        );
        for t in &ticks {
            // 1, 2 or 5 (3 on a crowded axis) times a power of ten.
            let lead = t.as_bytes()[0] - b'0';
            let rest_zero = t[1..].bytes().all(|b| b == b'0' || b == b',');
            assert!([1, 2, 3, 5].contains(&lead) && rest_zero, "{anchor}: {t}");
            if t.len() > 4 {
                assert!(t.contains(','), "{t}: no thousands separator");
            }
        }
    }
}

#[test]
fn renders_to_png() {
    let rsvg = std::process::Command::new("rsvg-convert")
        .arg("--version")
        .output();
    if !rsvg.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "SKIPPED: rsvg-convert not installed (apt-get install librsvg2-bin, or \
             ./scripts/install-deps.sh): the plot is not rendered to PNG"
        );
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("plot");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, sizes) in [("skein256", vec![256]), ("all", vec![256, 512, 1024])] {
        let s = sweep_of(&sizes);
        let svg_path = dir.join(format!("pareto-{name}.svg"));
        let png_path = dir.join(format!("pareto-{name}.png"));
        std::fs::write(&svg_path, plot::svg(&s, &PlotOptions::virtex5(&s))).unwrap();
        let _ = std::fs::remove_file(&png_path);
        let out = std::process::Command::new("rsvg-convert")
            .arg("-o")
            .arg(&png_path)
            .arg(&svg_path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let png = std::fs::read(&png_path).unwrap();
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{}",
            png_path.display()
        );
        // The width and height in the IHDR chunk: the SVG's 1000 x 680.
        let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((w, h), (1000, 680));
        eprintln!("rendered {}", png_path.display());
    }
}
