//! The batch and parallel tree paths of `skeinhw_skein` (issue 7): 8 x 1 MiB Skein-512
//! messages batched vs one at a time; a 64 MiB Skein-512 tree hash, sequential vs parallel on
//! 1 and 2 threads; 1000 messages of 64 B batched vs one at a time. Each batch is run on every
//! backend this machine has (the instruction set is in the benchmark name and printed first).
//! Run: `cargo bench -p skeinhw-benches --bench batch`.
//!
//! On a machine shared with other jobs criterion's means mostly measure the other jobs. With
//! `SKEINHW_BENCH_QUICK=1` in the environment the benchmark first prints figures that hold up
//! there: the same comparisons on smaller inputs (a few milliseconds each), each side the
//! fastest of hundreds of alternating repetitions, that is a repetition that had the core(s)
//! to itself. (The two-thread figure still needs moments when both cores are free.)

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_skein::batch::{self, Backend, Request};
use skeinhw_skein::{Params, Skein512, TreeParams, par_tree};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn backends() -> Vec<Backend> {
    Backend::ALL
        .into_iter()
        .filter(|b| {
            let ok = b.is_available();
            if !ok {
                eprintln!("skipping backend {b}: not available on this machine");
            }
            ok
        })
        .collect()
}

fn one_at_a_time(messages: &[Vec<u8>]) -> Vec<Vec<u8>> {
    messages
        .iter()
        .map(|m| {
            let mut h = Skein512::new(512).unwrap();
            h.update(m);
            h.finalize()
        })
        .collect()
}

fn many(c: &mut Criterion, name: &str, count: usize, len: usize) {
    let messages: Vec<Vec<u8>> = (0..count)
        .map(|i| (0..len).map(|j| (i * 31 + j * 7) as u8).collect())
        .collect();
    let requests: Vec<Request> = messages.iter().map(|m| Request::new(512, 512, m)).collect();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes((count * len) as u64));
    if len >= 1 << 20 {
        group.sample_size(20);
    }
    group.bench_function("one_at_a_time", |b| {
        b.iter(|| one_at_a_time(black_box(&messages)))
    });
    for backend in backends() {
        group.bench_with_input(
            BenchmarkId::new("batch", backend.name()),
            &requests,
            |b, r| b.iter(|| batch::hash_batch_with(backend, black_box(r)).unwrap()),
        );
    }
    group.finish();
}

/// The fastest of `reps` runs of `f` and of `g`, alternating, in seconds of wall-clock time.
fn fastest_pair(reps: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let time = |h: &mut dyn FnMut()| {
        let t = Instant::now();
        h();
        t.elapsed().as_secs_f64()
    };
    let (mut a, mut b) = (f64::MAX, f64::MAX);
    for _ in 0..reps {
        a = a.min(time(&mut f));
        b = b.min(time(&mut g));
    }
    (a, b)
}

/// The figures of `SKEINHW_BENCH_QUICK=1` (see the module documentation).
fn quick_report() {
    let backend = batch::detected();
    let mib = |bytes: usize, secs: f64| bytes as f64 / secs / f64::from(1 << 20);
    let ratio = |what: &str, bytes: usize, (a, b): (f64, f64), names: [&str; 2]| {
        eprintln!(
            "quick {what}: {} {:.0} MiB/s, {} {:.0} MiB/s: {:.2}x",
            names[0],
            mib(bytes, a),
            names[1],
            mib(bytes, b),
            a / b
        );
    };
    for (count, len, reps) in [(8usize, 128usize << 10, 400), (1000, 64, 1000)] {
        let messages: Vec<Vec<u8>> = (0..count)
            .map(|i| (0..len).map(|j| (i * 31 + j * 7) as u8).collect())
            .collect();
        let requests: Vec<Request> = messages.iter().map(|m| Request::new(512, 512, m)).collect();
        let times = fastest_pair(
            reps,
            || {
                black_box(one_at_a_time(black_box(&messages)));
            },
            || {
                black_box(batch::hash_batch_with(backend, black_box(&requests)).unwrap());
            },
        );
        let what = format!("{count} x {len} B Skein-512");
        let batch = format!("batch {backend}");
        ratio(&what, count * len, times, ["one at a time", &batch]);
    }
    let data: Vec<u8> = (0..4u32 << 20).map(|i| (i ^ (i >> 11)) as u8).collect();
    let params = Params {
        tree: Some(TREE),
        ..Params::default()
    };
    let request = Request {
        params,
        ..Request::new(512, 512, &data)
    };
    let pools = [1, 2].map(|n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    });
    let times = fastest_pair(
        200,
        || {
            let mut h = Skein512::with_params(512, &params).unwrap();
            h.update(black_box(&data));
            black_box(h.finalize());
        },
        || {
            pools[0].install(|| par_tree::hash_with(backend, true, black_box(&request)).unwrap());
        },
    );
    ratio(
        "tree 4 MiB",
        data.len(),
        times,
        ["sequential", "parallel, 1 thread"],
    );
    let times = fastest_pair(
        400,
        || {
            pools[0].install(|| par_tree::hash_with(backend, true, black_box(&request)).unwrap());
        },
        || {
            pools[1].install(|| par_tree::hash_with(backend, true, black_box(&request)).unwrap());
        },
    );
    ratio("tree 4 MiB", data.len(), times, ["1 thread", "2 threads"]);
}

fn batches(c: &mut Criterion) {
    eprintln!(
        "detected backend: {} ({} lanes)",
        batch::detected(),
        batch::detected().lanes()
    );
    if std::env::var_os("SKEINHW_BENCH_QUICK").is_some() {
        quick_report();
    }
    many(c, "batch_8x1MiB_skein512", 8, 1 << 20);
    many(c, "batch_1000x64B_skein512", 1000, 64);
}

/// Leaves of Nb * 2^6 = 4 KiB (16384 leaves in 64 MiB: plenty for 4 lanes on 2 threads, the
/// upper levels 1/64 of the work), nodes of 2^8 values, unlimited height.
const TREE: TreeParams = TreeParams {
    leaf: 6,
    fan_out: 8,
    max_height: 255,
};

fn tree(c: &mut Criterion) {
    let data: Vec<u8> = (0..64u32 << 20).map(|i| (i ^ (i >> 11)) as u8).collect();
    let params = Params {
        tree: Some(TREE),
        ..Params::default()
    };
    let request = Request {
        params,
        ..Request::new(512, 512, &data)
    };
    let mut group = c.benchmark_group("tree_64MiB_skein512_6_8_255");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("sequential", |b| {
        b.iter(|| {
            let mut h = Skein512::with_params(512, &params).unwrap();
            h.update(black_box(&data));
            h.finalize()
        })
    });
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for backend in backends() {
            group.bench_function(
                BenchmarkId::new(format!("parallel_{threads}_threads"), backend.name()),
                |b| {
                    b.iter(|| {
                        pool.install(|| par_tree::hash_with(backend, true, black_box(&request)))
                            .unwrap()
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, batches, tree);
criterion_main!(benches);
