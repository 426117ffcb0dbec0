//! Skein-256/512/1024 on 64-byte messages and on 1 MiB: skeinhw against RustCrypto's `skein`,
//! measured in the same run. The short messages are hashed three ways by skeinhw: `finalize`
//! (a new `Vec`), `finalize_into` (a stack buffer, no allocation) and its RustCrypto `digest`
//! wrapper (`skeinhw_skein::rustcrypto`, the same call as RustCrypto's). A plain hasher of a
//! standard output size starts from the precomputed IV (`skeinhw_skein::iv`), so a one-block
//! message costs two Threefish blocks.
//!
//! Run: `cargo bench -p skeinhw-benches --bench skein` (filter e.g. `-- skein512/`).
//! The whole-process comparison against pyskein (the optimized reference C) is
//! `scripts/bench-pyskein.sh`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rustcrypto_skein::Digest;
use std::hint::black_box;

const SIZES: [usize; 2] = [64, 1024 * 1024];

fn bench_size<const N: usize, S: Digest, R: Digest>(c: &mut Criterion, name: &str) {
    let mut group = c.benchmark_group(name);
    for &len in &SIZES {
        let data = vec![0xa5u8; len];
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::new("skeinhw", len), &data, |b, d| {
            b.iter(|| {
                let mut h = skeinhw_skein::Skein::<N>::new(N as u64 * 64).unwrap();
                h.update(black_box(d));
                h.finalize()
            })
        });
        if len <= 64 {
            group.bench_with_input(BenchmarkId::new("skeinhw_into", len), &data, |b, d| {
                b.iter(|| {
                    let mut out = [0u8; 128];
                    let mut h = skeinhw_skein::Skein::<N>::new(N as u64 * 64).unwrap();
                    h.update(black_box(d));
                    h.finalize_into(&mut out[..N * 8]).unwrap();
                    out
                })
            });
            group.bench_with_input(BenchmarkId::new("skeinhw_digest", len), &data, |b, d| {
                b.iter(|| S::digest(black_box(d)))
            });
        }
        group.bench_with_input(BenchmarkId::new("rustcrypto", len), &data, |b, d| {
            b.iter(|| R::digest(black_box(d)))
        });
    }
    group.finish();
}

fn skein(c: &mut Criterion) {
    use skeinhw_skein::rustcrypto as ours;
    bench_size::<4, ours::Skein256_256, rustcrypto_skein::Skein256_256>(c, "skein256");
    bench_size::<8, ours::Skein512_512, rustcrypto_skein::Skein512_512>(c, "skein512");
    bench_size::<16, ours::Skein1024_1024, rustcrypto_skein::Skein1024_1024>(c, "skein1024");
}

criterion_group!(benches, skein);
criterion_main!(benches);
