//! The Python package's `simulate()` path in Rust: the golden simulator's cycles as the flat
//! batches of values Python reads its records from (crates/py's `stream`), against the diff
//! crate's frames (owned record, then a frame per cycle: the path `simulate` took before) and
//! the simulator into a null sink (the floor). Same 100-block message on `ath-1r` as
//! `benches/sim.rs`; the Python side is timed by `crates/py/bench/bench.py`.
//! Run: `cargo bench -p skeinhw-benches --bench pysim`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_diff::{Golden, OwnedJob};
use skeinhw_py::stream::Stream;
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, NullSink, simulate};

const BLOCKS: usize = 100;

fn job(message: &[u8]) -> OwnedJob {
    OwnedJob {
        message: message.to_vec(),
        msg_bits: message.len() as u64 * 8,
        out_bits: 512,
        ..Default::default()
    }
}

fn pysim(c: &mut Criterion) {
    let schedule = preset("ath-1r").unwrap();
    let message = vec![0xA5u8; BLOCKS * 64];
    let cycles = simulate(
        &schedule,
        &[Job::bytes(&message, 512, Default::default())],
        &mut NullSink,
    )
    .unwrap()
    .cycles;

    let mut group = c.benchmark_group("pysim");
    group.throughput(Throughput::Elements(cycles));
    group.bench_function("ath-1r/flat-batches", |b| {
        b.iter(|| {
            let mut stream = Stream::skein(schedule.clone(), vec![job(&message)]).unwrap();
            let recycler = stream.recycler();
            let mut rows = 0;
            while let Some(batch) = stream.next_batch() {
                let batch = batch.unwrap();
                rows += batch.len();
                // As the Python records do once read: the buffer goes back to the simulator.
                recycler.recycle(batch);
            }
            assert_eq!(rows as u64, cycles);
            black_box(rows)
        })
    });
    group.bench_function("ath-1r/diff-frames", |b| {
        b.iter(|| {
            let frames = Golden::simulate(schedule.clone(), vec![job(&message)])
                .unwrap()
                .into_frames();
            let mut rows = 0u64;
            for f in frames.frames {
                rows += black_box(f.unwrap()).values.len().min(1) as u64;
            }
            assert_eq!(rows, cycles);
            black_box(rows)
        })
    });
    group.bench_function("ath-1r/null-sink", |b| {
        b.iter(|| {
            simulate(
                &schedule,
                black_box(&[Job::bytes(&message, 512, Default::default())]),
                &mut NullSink,
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, pysim);
criterion_main!(benches);
