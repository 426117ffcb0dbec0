//! Model points per second in a sweep (issue 5's goal: at least 10,000 per second).
//!
//! `estimate_presets` times the model alone on every preset (throughput in elements =
//! estimates); `sweep_512` times a whole Skein-512 sweep, candidate enumeration, validation
//! and the Pareto front included, with one element per estimated schedule.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_estimator::sweep::{SweepConfig, sweep};
use skeinhw_estimator::{Constants, Flow, Options, estimate};
use skeinhw_sched::presets;

fn bench(c: &mut Criterion) {
    let constants = Constants::built_in();
    let schedules = presets();
    let mut group = c.benchmark_group("estimator");
    group.throughput(Throughput::Elements(schedules.len() as u64));
    group.bench_function("estimate_presets", |b| {
        b.iter(|| {
            for s in &schedules {
                black_box(estimate(black_box(s), Options::default(), &constants, None));
            }
        })
    });
    let config = SweepConfig {
        sizes: vec![512],
        flow: Flow::Ise13,
        ..SweepConfig::default()
    };
    let points = sweep(&config, &constants, &mut |_, _| {}).points.len();
    group.throughput(Throughput::Elements(points as u64));
    group.bench_function("sweep_512", |b| {
        b.iter(|| black_box(sweep(black_box(&config), &constants, &mut |_, _| {})))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
