//! A quick probe of the fast path, quicker than the criterion benchmark: ns per block of the
//! compression functions in a dependent chain (as UBI runs them), and MB/s of whole Skein
//! hashes against RustCrypto's `skein` in the same run.
//!
//! The machines are shared and noisy, so every figure is the best of many short runs, and the
//! runs of the things compared are interleaved: a run that another process interrupted is
//! slower, never faster, so the minimum is the undisturbed speed of each.
//!
//! Run: `cargo run --release -p skeinhw-skein --example probe` (add `-- short` for short
//! messages only).

use rustcrypto_skein::Digest;
use skeinhw_skein::fast;
use std::hint::black_box;
use std::time::Instant;

/// Interleaved runs of each of `fs`; returns the best seconds of each.
fn best_of(runs: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; fs.len()];
    for _ in 0..runs {
        for (f, b) in fs.iter_mut().zip(best.iter_mut()) {
            let t0 = Instant::now();
            f();
            *b = b.min(t0.elapsed().as_secs_f64());
        }
    }
    best
}

/// ns per block of a compression function fed its own output.
fn chain<const N: usize>(name: &str, compress: fn(&mut [u64; N], &[u64; N], [u64; 2])) {
    let blocks = 2000u64;
    let mut c = [1u64; N];
    let b = [2u64; N];
    let s = best_of(
        300,
        &mut [&mut || {
            for i in 0..blocks {
                compress(&mut c, black_box(&b), [i, 0]);
            }
        }],
    )[0];
    let ns = s / blocks as f64 * 1e9;
    let mbs = (N * 8) as f64 / ns * 1e3;
    println!("{name}: {ns:6.1} ns/block {mbs:6.0} MB/s");
}

/// MB/s of skeinhw and RustCrypto hashing the same message of `len` bytes.
fn hash<const N: usize, R: Digest>(name: &str, len: usize) {
    let data = vec![0xa5u8; len];
    let reps = (1 << 16) / len + 1;
    let best = best_of(
        if len > 1 << 16 { 40 } else { 300 },
        &mut [
            &mut || {
                for _ in 0..reps {
                    let mut h = skeinhw_skein::Skein::<N>::new(N as u64 * 64).unwrap();
                    h.update(black_box(&data));
                    black_box(h.finalize());
                }
            },
            &mut || {
                for _ in 0..reps {
                    black_box(R::digest(black_box(&data)));
                }
            },
        ],
    );
    let mb = (len * reps) as f64 / 1e6;
    println!(
        "{name} {len:>7} B: skeinhw {:6.0} MB/s, rustcrypto {:6.0} MB/s, ratio {:.2}",
        mb / best[0],
        mb / best[1],
        best[1] / best[0]
    );
}

/// ns per hash of a message of `len` bytes: skeinhw through `finalize` (a `Vec`), through
/// `finalize_into` (a stack buffer), through its RustCrypto `digest` wrapper, and RustCrypto.
fn short<const N: usize, S: Digest, R: Digest>(name: &str, len: usize) {
    let data = vec![0xa5u8; len];
    let reps = 2000;
    let best = best_of(
        300,
        &mut [
            &mut || {
                for _ in 0..reps {
                    let mut h = skeinhw_skein::Skein::<N>::new(N as u64 * 64).unwrap();
                    h.update(black_box(&data));
                    black_box(h.finalize());
                }
            },
            &mut || {
                for _ in 0..reps {
                    let mut out = [0u8; 128];
                    let mut h = skeinhw_skein::Skein::<N>::new(N as u64 * 64).unwrap();
                    h.update(black_box(&data));
                    h.finalize_into(&mut out[..N * 8]).unwrap();
                    black_box(out);
                }
            },
            &mut || {
                for _ in 0..reps {
                    black_box(S::digest(black_box(&data)));
                }
            },
            &mut || {
                for _ in 0..reps {
                    black_box(R::digest(black_box(&data)));
                }
            },
        ],
    );
    let ns: Vec<f64> = best.iter().map(|s| s / reps as f64 * 1e9).collect();
    println!(
        "{name} {len:>4} B ns/hash: finalize {:5.0}, finalize_into {:5.0}, digest wrapper {:5.0}, rustcrypto {:5.0}; ratio (rustcrypto / finalize_into) {:.2}",
        ns[0],
        ns[1],
        ns[2],
        ns[3],
        ns[3] / ns[1]
    );
}

/// MB/s of UBI over `len` bytes: through the hasher, and through `fast::compress_blocks`.
fn ubi<const N: usize>(name: &str, len: usize) {
    let data = vec![0xa5u8; len];
    let mut chain = [0u64; N];
    let best = best_of(
        40,
        &mut [
            &mut || {
                let mut h = skeinhw_skein::Skein::<N>::new(N as u64 * 64).unwrap();
                h.update(black_box(&data));
                black_box(h.finalize());
            },
            &mut || fast::compress_blocks(&mut chain, black_box(&data), [64, 48 << 56]),
        ],
    );
    let mb = len as f64 / 1e6;
    println!(
        "{name} {len:>7} B: hasher {:6.0} MB/s, compress_blocks {:6.0} MB/s",
        mb / best[0],
        mb / best[1],
    );
}

fn main() {
    use skeinhw_skein::rustcrypto as ours;
    if std::env::args().any(|a| a == "short") {
        for len in [0, 32, 64] {
            short::<4, ours::Skein256_256, rustcrypto_skein::Skein256_256>("skein256 ", len);
            short::<8, ours::Skein512_512, rustcrypto_skein::Skein512_512>("skein512 ", len);
            short::<16, ours::Skein1024_1024, rustcrypto_skein::Skein1024_1024>("skein1024", len);
        }
        return;
    }
    ubi::<4>("ubi256 ", 1 << 20);
    ubi::<8>("ubi512 ", 1 << 20);
    ubi::<16>("ubi1024", 1 << 20);
    chain::<4>("compress256 ", fast::compress256);
    chain::<8>("compress512 ", fast::compress512);
    chain::<16>("compress1024", fast::compress1024);
    for len in [64, 1 << 20] {
        hash::<4, rustcrypto_skein::Skein256_256>("skein256 ", len);
        hash::<8, rustcrypto_skein::Skein512_512>("skein512 ", len);
        hash::<16, rustcrypto_skein::Skein1024_1024>("skein1024", len);
    }
}
