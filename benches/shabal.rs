//! Shabal-512 at 64 B, 1 KiB, 64 KiB and 1 MiB: skeinhw against RustCrypto's `shabal`, measured
//! in the same run. Run: `cargo bench -p skeinhw-benches --bench shabal`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [usize; 4] = [64, 1024, 64 * 1024, 1024 * 1024];

fn shabal512(c: &mut Criterion) {
    use rustcrypto_shabal::Digest as _;
    let mut group = c.benchmark_group("shabal512");
    for &len in &SIZES {
        let data = vec![0xa5u8; len];
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::new("skeinhw", len), &data, |b, d| {
            b.iter(|| <skeinhw_shabal::Shabal512 as skeinhw_shabal::Digest>::digest(black_box(d)))
        });
        group.bench_with_input(BenchmarkId::new("rustcrypto", len), &data, |b, d| {
            b.iter(|| rustcrypto_shabal::Shabal512::digest(black_box(d)))
        });
    }
    group.finish();
}

criterion_group!(benches, shabal512);
criterion_main!(benches);
