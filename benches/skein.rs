//! Skein-256/512/1024 at 64 B, 1 KiB, 64 KiB and 1 MiB: skeinhw against RustCrypto's `skein`,
//! measured in the same run. Run: `cargo bench -p skeinhw-benches --bench skein`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rustcrypto_skein::Digest;
use std::hint::black_box;

const SIZES: [usize; 4] = [64, 1024, 64 * 1024, 1024 * 1024];

fn bench_size<const N: usize, R: Digest>(c: &mut Criterion, name: &str) {
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
        group.bench_with_input(BenchmarkId::new("rustcrypto", len), &data, |b, d| {
            b.iter(|| R::digest(black_box(d)))
        });
    }
    group.finish();
}

fn skein(c: &mut Criterion) {
    bench_size::<4, rustcrypto_skein::Skein256_256>(c, "skein256");
    bench_size::<8, rustcrypto_skein::Skein512_512>(c, "skein512");
    bench_size::<16, rustcrypto_skein::Skein1024_1024>(c, "skein1024");
}

criterion_group!(benches, skein);
criterion_main!(benches);
