//! The benchmark's comparison (`benches/capi.rs`: one-shot Skein-512-512 through the C ABI
//! against `skeinhw_skein::hash`) for a loaded machine: the two calls alternate 200 times and
//! each keeps its fastest time, so other processes' load cancels out of the ratio.
//! Run: `cargo run --profile bench -p skeinhw-capi --example alternating_speed`.

use skeinhw::hash::{skeinhw_params, skeinhw_skein_hash};
use std::hint::black_box;
use std::time::Instant;
type HashFn = unsafe extern "C" fn(
    u32,
    u64,
    *const u8,
    u64,
    *const skeinhw_params,
    *mut u8,
    usize,
) -> std::ffi::c_int;
fn main() {
    for len in [64usize, 1 << 20] {
        let d = vec![0xa5u8; len];
        let bits = 8 * len as u64;
        let reps = if len == 64 { 20000 } else { 4 };
        let f: HashFn = black_box(skeinhw_skein_hash);
        let (mut c_min, mut r_min) = (f64::MAX, f64::MAX);
        for _ in 0..200 {
            let t = Instant::now();
            for _ in 0..reps {
                let mut o = [0u8; 64];
                unsafe {
                    f(
                        512,
                        512,
                        black_box(d.as_ptr()),
                        bits,
                        std::ptr::null(),
                        o.as_mut_ptr(),
                        64,
                    )
                };
                black_box(o);
            }
            c_min = c_min.min(t.elapsed().as_secs_f64() / reps as f64);
            let t = Instant::now();
            for _ in 0..reps {
                black_box(
                    skeinhw_skein::hash(512, 512, black_box(&d), bits, &Default::default())
                        .unwrap(),
                );
            }
            r_min = r_min.min(t.elapsed().as_secs_f64() / reps as f64);
        }
        println!(
            "{len} bytes: c_api {:.3e} s, rust {:.3e} s, c_api/rust = {:.3}",
            c_min,
            r_min,
            c_min / r_min
        );
    }
}
