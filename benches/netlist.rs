//! The netlist path against Yosys (issue 5: the model at least 100x faster than one Yosys run
//! of the same design).
//!
//! Criterion times reading + analysing a Yosys JSON netlist and the model's estimate. One
//! Yosys run takes seconds, too slow for Criterion's sampling, so it is timed once with
//! `std::time` before the Criterion groups (skipped, with a note, where Yosys is not
//! installed). Two designs: the one-round Threefish-256 fixture of `estimator/tests/data`
//! (Verilog and checked-in netlist; Yosys takes seconds), and the generated Verilog of `ath-1r`
//! (`skeinhw-rtl`; Yosys takes about a minute), which the model estimates in microseconds.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use skeinhw_estimator::netlist::yosys;
use skeinhw_estimator::{Constants, Flow, Netlist, Options, estimate};
use skeinhw_sched::preset;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../estimator/tests/data")
        .join(name)
}

/// Mean seconds per call of `f` over about `budget` seconds.
fn mean_secs(budget: f64, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0u64;
    while n < 3 || start.elapsed().as_secs_f64() < budget {
        f();
        n += 1;
    }
    start.elapsed().as_secs_f64() / n as f64
}

fn bench(c: &mut Criterion) {
    let constants = Constants::built_in();
    let json = data("tf256_round.json");
    let text = std::fs::read_to_string(&json).expect("fixture netlist");
    let schedule = preset("ath-1r").expect("preset");

    // One Yosys run of each design, timed once outside Criterion.
    let dir = std::env::temp_dir().join(format!("skeinhw-bench-netlist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let have_yosys = yosys::version().is_some();
    if !have_yosys {
        eprintln!(
            "yosys not installed: the Yosys runs are not timed ({})",
            yosys::INSTALL_HINT
        );
    }
    let run = |verilog: PathBuf, top: &str| -> Option<(f64, String)> {
        let out = dir.join(format!("{top}.json"));
        let secs = yosys::synthesize(&[verilog], top, &out).ok()?.as_secs_f64();
        Some((secs, std::fs::read_to_string(&out).ok()?))
    };
    let fixture_yosys = have_yosys
        .then(|| run(data("tf256_round.v"), "tf256_round"))
        .flatten();
    let generated = skeinhw_rtl::generate(&schedule).ok().and_then(|d| {
        let v = dir.join(skeinhw_rtl::DESIGN_FILE);
        std::fs::write(&v, &d.verilog).ok()?;
        have_yosys.then(|| run(v, "skeinhw")).flatten()
    });
    let _ = std::fs::remove_dir_all(&dir);

    let analyse = |text: &str| {
        let n = Netlist::parse(black_box(text), "bench", None).expect("netlist");
        black_box(n.analyse(Flow::Ise13, &constants));
    };
    let read = mean_secs(1.0, || analyse(&text));
    let model = mean_secs(0.5, || {
        black_box(estimate(
            black_box(&schedule),
            Options::default(),
            &constants,
            None,
        ));
    });
    eprintln!("netlist bench (std::time means):");
    eprintln!(
        "  model estimate ath-1r                : {:>10.3} us",
        model * 1e6
    );
    eprintln!(
        "  read + analyse tf256_round.json      : {:>10.3} ms",
        read * 1e3
    );
    if let Some((y, _)) = &fixture_yosys {
        eprintln!("  one Yosys run of tf256_round.v       : {y:>10.3} s");
    }
    if let Some((y, json)) = &generated {
        let read_gen = mean_secs(2.0, || analyse(json));
        eprintln!(
            "  read + analyse ath-1r netlist ({:.1} MB): {:>10.3} ms",
            json.len() as f64 / 1e6,
            read_gen * 1e3
        );
        eprintln!("  one Yosys run of ath-1r's Verilog    : {y:>10.3} s");
        eprintln!(
            "  ath-1r: Yosys / model = {:.0}x (goal >= 100x), Yosys / netlist read = {:.0}x",
            y / model,
            y / read_gen
        );
    }

    let mut group = c.benchmark_group("netlist");
    group.bench_function("read_analyse_tf256_round", |b| {
        b.iter(|| {
            let n = Netlist::parse(black_box(&text), "bench", None).expect("netlist");
            black_box(n.analyse(Flow::Ise13, &constants))
        })
    });
    let parsed = Netlist::parse(&text, "bench", None).expect("netlist");
    group.bench_function("analyse_tf256_round", |b| {
        b.iter(|| black_box(black_box(&parsed).analyse(Flow::Ise13, &constants)))
    });
    group.bench_function("model_ath_1r", |b| {
        b.iter(|| {
            black_box(estimate(
                black_box(&schedule),
                Options::default(),
                &constants,
                None,
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
