//! The streaming parallel tree and many files (issue 17), each against plain Skein-512 and
//! RustCrypto `skein` in the same run: `--tree 5,2,255` (leaves of 2 KiB, nodes of 4 values)
//! over 64 MiB through `stream_tree::hash_reader` (a reader thread ahead, the leaves in the
//! detected backend's lanes) on 1 and 2 threads, and the same bytes as a cached file through
//! `stream_tree::hash_file` (windows read by the hashing threads) and
//! `stream_tree::hash_file_mapped` (the same windows mapped, as `skeinhw hash --tree` does
//! unless `--no-mmap`), each also with the scalar
//! backend on 1 thread, vs one plain Skein-512 hash of the same bytes;
//! 8 messages of 8 MiB batched in lanes, and streamed through the lanes (`stream_lanes`, as
//! `hash` does with files over 1 MiB; the scalar path through the same code beside it), vs one
//! at a time. The instruction set that ran is
//! printed first and named in each benchmark.
//! Run: `cargo bench -p skeinhw-benches --bench tree`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rustcrypto_skein::Digest;
use skeinhw_skein::batch::{self, Backend, Request};
use skeinhw_skein::stream_lanes;
use skeinhw_skein::stream_tree::{TreeHasher, hash_file, hash_file_mapped, hash_reader};
use skeinhw_skein::{Params, Skein512, TreeParams};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

const TREE_BYTES: usize = 64 << 20;

fn plain(data: &[u8]) -> Vec<u8> {
    let mut h = Skein512::new(512).unwrap();
    h.update(data);
    h.finalize()
}

fn tree(c: &mut Criterion) {
    let backend = batch::detected();
    eprintln!("instruction set: {backend}");
    let data: Vec<u8> = (0..TREE_BYTES).map(|i| (i * 7 + i / 4096) as u8).collect();
    let params = Params {
        tree: Some(TreeParams::new(5, 2, 255).unwrap()),
        ..Params::default()
    };
    let mut group = c.benchmark_group("tree_64MiB");
    group.throughput(Throughput::Bytes(TREE_BYTES as u64));
    group.sample_size(10);
    group.bench_function("plain_skein512", |b| b.iter(|| plain(black_box(&data))));
    group.bench_function("rustcrypto_skein512", |b| {
        b.iter(|| rustcrypto_skein::Skein512_512::digest(black_box(&data)))
    });
    // The same bytes as a (cached) file, read window by window by the hashing threads.
    let path = std::env::temp_dir().join(format!("skeinhw-bench-tree-{}", std::process::id()));
    std::fs::write(&path, &data).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    for (lanes, threads) in [(backend, 1usize), (backend, 2), (Backend::Scalar, 1)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(
            BenchmarkId::new(format!("stream_tree_{lanes}"), threads),
            |b| {
                b.iter(|| {
                    pool.install(|| {
                        let t = TreeHasher::new(lanes, true, 512, 512, &params).unwrap();
                        hash_reader(t, black_box(&data[..])).unwrap()
                    })
                })
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("file_tree_{lanes}"), threads),
            |b| {
                b.iter(|| {
                    pool.install(|| {
                        let t = TreeHasher::new(lanes, true, 512, 512, &params).unwrap();
                        hash_file(t, black_box(&file)).unwrap()
                    })
                })
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("mapped_file_tree_{lanes}"), threads),
            |b| {
                b.iter(|| {
                    pool.install(|| {
                        let t = TreeHasher::new(lanes, true, 512, 512, &params).unwrap();
                        // SAFETY: nothing else writes or shrinks the benchmark's file.
                        #[allow(unsafe_code)]
                        unsafe { hash_file_mapped(t, black_box(&file)) }.unwrap()
                    })
                })
            },
        );
    }
    group.finish();
    std::fs::remove_file(&path).unwrap();
}

fn files(c: &mut Criterion) {
    let backend = batch::detected();
    let messages: Vec<Vec<u8>> = (0..8)
        .map(|i| {
            (0..8 << 20)
                .map(|j: usize| (i * 31 + j * 7) as u8)
                .collect()
        })
        .collect();
    let requests: Vec<Request> = messages.iter().map(|m| Request::new(512, 512, m)).collect();
    let mut group = c.benchmark_group("files_8x8MiB");
    group.throughput(Throughput::Bytes(8 * (8 << 20)));
    group.sample_size(10);
    group.bench_function("one_at_a_time", |b| {
        b.iter(|| {
            messages
                .iter()
                .map(|m| plain(black_box(m)))
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("rustcrypto_one_at_a_time", |b| {
        b.iter(|| {
            messages
                .iter()
                .map(|m| rustcrypto_skein::Skein512_512::digest(black_box(m)))
                .collect::<Vec<_>>()
        })
    });
    group.bench_function(BenchmarkId::new("batch", backend.name()), |b| {
        b.iter(|| batch::hash_batch_with(backend, black_box(&requests)).unwrap())
    });
    // The files as streams (what `hash` does with files over 1 MiB): read through each lane's
    // buffer, on this thread, with the detected lanes and with the scalar path.
    for streamed in [backend, Backend::Scalar] {
        group.bench_function(BenchmarkId::new("stream_lanes", streamed.name()), |b| {
            b.iter(|| {
                let count = AtomicUsize::new(0);
                stream_lanes::hash_streams(
                    streamed,
                    false,
                    512,
                    512,
                    &Params::default(),
                    messages.len(),
                    |i| Ok(black_box(&messages[i][..])),
                    |_, r| {
                        black_box(r.unwrap());
                        count.fetch_add(1, Ordering::Relaxed);
                        true
                    },
                )
                .unwrap();
                assert_eq!(count.into_inner(), messages.len());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tree, files);
criterion_main!(benches);
