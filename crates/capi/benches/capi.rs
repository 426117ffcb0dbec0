//! One-shot Skein-512-512 of 64 bytes and of 1 MiB through the C ABI (`skeinhw_skein_hash`,
//! called through a function pointer the optimiser cannot see through, as a C caller calls
//! the shared library) against the Rust library's one-shot `skeinhw_skein::hash`, in the same
//! run. Goal: the C API within 5% of the Rust library.
//! Run: `cargo bench -p skeinhw-capi --bench capi`.

use std::ffi::c_int;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skeinhw::hash::{skeinhw_params, skeinhw_skein_hash};

type HashFn =
    unsafe extern "C" fn(u32, u64, *const u8, u64, *const skeinhw_params, *mut u8, usize) -> c_int;

fn one_shot(c: &mut Criterion) {
    let mut group = c.benchmark_group("skein512_one_shot");
    for len in [64usize, 1024 * 1024] {
        let data = vec![0xa5u8; len];
        let bits = 8 * len as u64;
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::new("c_api", len), &data, |b, d| {
            let f: HashFn = black_box(skeinhw_skein_hash);
            let mut out = [0u8; 64];
            b.iter(|| {
                let s = unsafe {
                    f(
                        512,
                        512,
                        black_box(d.as_ptr()),
                        bits,
                        std::ptr::null(),
                        out.as_mut_ptr(),
                        64,
                    )
                };
                assert_eq!(s, 0);
                black_box(out)
            })
        });
        group.bench_with_input(BenchmarkId::new("rust", len), &data, |b, d| {
            b.iter(|| {
                skeinhw_skein::hash(512, 512, black_box(d), bits, &Default::default()).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, one_shot);
criterion_main!(benches);
