use super::portable::Portable;
use super::*;
use alloc::vec::Vec;
use proptest::prelude::*;

/// One lane's expected chaining value after a run: the scalar cipher block by block, with
/// the tweaks the spec gives each block.
fn one_by_one<const N: usize>(
    mut h: [u64; N],
    data: &[u8],
    [t0, t1]: [u64; 2],
    last: u64,
    steps: usize,
) -> [u64; N] {
    let nb = N * 8;
    for s in 0..steps {
        let m = crate::threefish::words_from_bytes::<N>(&data[s * nb..(s + 1) * nb]);
        let mut tw1 = if s == 0 { t1 } else { t1 & !TWEAK_FIRST };
        if s + 1 == steps {
            tw1 |= last;
        }
        crate::fast::compress_words(&mut h, &m, [t0 + (s * nb) as u64, tw1]);
    }
    h
}

/// `run` on `L` lanes with different chains, data, tweaks and Final flags in each lane
/// equals [`one_by_one`] in every lane.
fn check<const N: usize, const L: usize>(run: Run<N, L>, steps: usize, seed: u64) {
    let nb = N * 8;
    let word = |k: u64| {
        (k ^ seed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(23)
    };
    let bytes: Vec<Vec<u8>> = (0..L)
        .map(|l| {
            (0..steps * nb + 5)
                .map(|i| (word((l * 100_000 + i) as u64) >> 56) as u8)
                .collect()
        })
        .collect();
    let mut chain: [[u64; L]; N] =
        core::array::from_fn(|i| core::array::from_fn(|l| word((i * L + l) as u64)));
    let start = chain;
    let t0: [u64; L] = core::array::from_fn(|l| word(l as u64 + 77) >> 1);
    let t1: [u64; L] = core::array::from_fn(|l| word(l as u64 + 99) & !TWEAK_FINAL);
    let last: [u64; L] = core::array::from_fn(|l| {
        if word(l as u64 + 5) & 1 == 1 {
            TWEAK_FINAL
        } else {
            0
        }
    });
    let data: [&[u8]; L] = core::array::from_fn(|l| &bytes[l][..]);
    run(&mut chain, data, [t0, t1], last, steps);
    for l in 0..L {
        let h: [u64; N] = core::array::from_fn(|i| start[i][l]);
        let expected = one_by_one(h, &bytes[l], [t0[l], t1[l]], last[l], steps);
        let got: [u64; N] = core::array::from_fn(|i| chain[i][l]);
        assert_eq!(got, expected, "N = {N}, lane {l} of {L}, {steps} steps");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Runs of 1 to 6 blocks on the scalar lane, the eight portable lanes and (where the
    /// CPU has them; skipped otherwise, see `tests/batch.rs` for the printed skips) the
    /// four AVX2 and eight AVX-512 lanes, with random chains, data, tweaks (First set or
    /// not) and Final flags.
    #[test]
    fn runs_equal_the_scalar_cipher_block_by_block(steps in 1usize..7, seed in any::<u64>()) {
        check::<4, 1>(run_scalar::<4>, steps, seed);
        check::<8, 1>(run_scalar::<8>, steps, seed);
        check::<16, 1>(run_scalar::<16>, steps, seed);
        check::<4, 8>(run_portable8::<4>, steps, seed);
        check::<8, 8>(run_portable8::<8>, steps, seed);
        check::<16, 8>(run_portable8::<16>, steps, seed);
        #[cfg(target_arch = "x86_64")]
        if crate::batch::avx2_available() {
            check::<4, 4>(x86::run_avx2::<4>, steps, seed);
            check::<8, 4>(x86::run_avx2::<8>, steps, seed);
            check::<16, 4>(x86::run_avx2::<16>, steps, seed);
        }
        #[cfg(target_arch = "x86_64")]
        if crate::batch::avx512_available() {
            check::<4, 8>(x86::run_avx512::<4>, steps, seed);
            check::<8, 8>(x86::run_avx512::<8>, steps, seed);
            check::<16, 8>(x86::run_avx512::<16>, steps, seed);
        }
    }
}

/// One block on every lane against the spec cipher of [`crate::threefish`] (not the fast
/// one the other test compares with), for every lane width of the portable code.
fn one_block_equals_spec<const N: usize, const L: usize>(run: Run<N, L>) {
    let word = |i: usize, l: usize, salt: u64| {
        (i as u64 + 1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((l as u64 + 1).wrapping_mul(salt))
            .rotate_left((i + 3 * l) as u32)
    };
    let bytes: Vec<Vec<u8>> = (0..L)
        .map(|l| {
            (0..N)
                .flat_map(|i| word(i, l, 0xabcdef).to_le_bytes())
                .collect()
        })
        .collect();
    let key: [[u64; L]; N] = core::array::from_fn(|i| core::array::from_fn(|l| word(i, l, 7)));
    let t0: [u64; L] = core::array::from_fn(|l| word(40, l, 99));
    let t1: [u64; L] = core::array::from_fn(|l| word(41, l, 99) & !TWEAK_FIRST & !TWEAK_FINAL);
    let mut chain = key;
    let data: [&[u8]; L] = core::array::from_fn(|l| &bytes[l][..]);
    run(&mut chain, data, [t0, t1], [0; L], 1);
    for l in 0..L {
        let k: [u64; N] = core::array::from_fn(|i| key[i][l]);
        let p = crate::threefish::words_from_bytes::<N>(&bytes[l]);
        let mut expected = crate::threefish::encrypt(&k, [t0[l], t1[l]], &p);
        for (e, p) in expected.iter_mut().zip(p) {
            *e ^= p;
        }
        let got: [u64; N] = core::array::from_fn(|i| chain[i][l]);
        assert_eq!(got, expected, "N = {N}, lane {l} of {L}");
    }
}

#[test]
fn portable_lanes_equal_the_spec_cipher() {
    one_block_equals_spec::<4, 8>(run_portable8::<4>);
    one_block_equals_spec::<8, 8>(run_portable8::<8>);
    one_block_equals_spec::<16, 8>(run_portable8::<16>);
    one_block_equals_spec::<8, 3>(|c, d, t, l, s| {
        run_lanes::<Portable, 3, 8>(Portable, c, d, t, l, s)
    });
    one_block_equals_spec::<8, 1>(run_scalar::<8>);
}

/// Seconds this thread has been on a CPU (the machine is shared).
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split_whitespace().next().unwrap().parse::<u64>().unwrap() as f64 * 1e-9
}

/// Blocks per CPU-second of runs of 32 Skein-512 blocks (2 KiB leaves) on every lane, the
/// leaves of a 256 KiB window (the file tree's) taken as [`crate::par_tree`] does with
/// `stride` 16 (lane l walks leaves 16 l, 16 l + 1, ...: the lanes' blocks 32 KiB apart),
/// or 1 (neighbouring leaves), or 0 (every lane the same leaf: all in L1).
fn blocks_per_s<const L: usize>(run: Run<8, L>, stride: usize) -> f64 {
    let bytes = alloc::vec![0x5au8; 256 << 10];
    let rows = 128 / L;
    let reps = 100;
    (0..5)
        .map(|_| {
            let t = cpu();
            for r in 0..reps {
                for n in 0..rows {
                    let data: [&[u8]; L] = core::array::from_fn(|l| {
                        let j = if stride == 1 {
                            n * L + l
                        } else {
                            l * stride * rows / 16 + n
                        };
                        &bytes[2048 * j..2048 * (j + 1)]
                    });
                    let mut chain = [[r as u64; L]; 8];
                    run(
                        &mut chain,
                        data,
                        [[64; L], [TWEAK_FIRST; L]],
                        [TWEAK_FINAL; L],
                        32,
                    );
                    core::hint::black_box(chain);
                }
            }
            (reps * rows * 32 * L) as f64 / (cpu() - t)
        })
        .fold(0.0, f64::max)
}

/// Blocks per CPU-second of the leaves of one 256 KiB window of `--tree 5,2,255`, hot in
/// cache: the kernel called as [`blocks_per_s`] does, then through
/// [`crate::par_tree::Level::values`], then through the streaming tree (upper levels
/// included, counted as leaf blocks only): what the tree adds to the kernel (`cargo test
/// --release -p skeinhw-skein --lib window_speed -- --ignored --nocapture`).
#[test]
#[ignore = "a measurement"]
fn window_speed() {
    use crate::batch::{Backend, Runner};
    let backend = crate::batch::detected();
    if backend != Backend::Avx512 {
        std::println!("window_speed: skipped (backend {backend}, not avx512)");
        return;
    }
    let bytes: Vec<u8> = (0..256usize << 10)
        .map(|i| (i * 7 + i / 4096) as u8)
        .collect();
    let g = [3u64; 8];
    let reps = 400;
    let blocks = (reps * (256 << 10) / 64) as f64;
    let best = |f: &dyn Fn()| {
        (0..5)
            .map(|_| {
                let t = cpu();
                f();
                blocks / (cpu() - t)
            })
            .fold(0.0, f64::max)
    };
    let level = best(&|| {
        for r in 0..reps {
            let level = crate::par_tree::Level {
                data: &bytes,
                tail: None,
                piece: 2048,
                level: 1,
                offset: (r << 18) as u64,
            };
            core::hint::black_box(level.values::<8>(backend, Runner::Here, &g));
        }
    });
    let params = crate::Params {
        tree: Some(crate::TreeParams::new(5, 2, 255).unwrap()),
        ..crate::Params::default()
    };
    let tree = best(&|| {
        let mut t = crate::stream_tree::TreeHasher::new(backend, false, 512, 512, &params).unwrap();
        for _ in 0..reps {
            t.update(&bytes);
        }
        core::hint::black_box(t.finish());
    });
    let kernel = blocks_per_s::<8>(x86::run_avx512::<8>, 16);
    std::println!(
        "kernel {:.2}, Level::values {:.2}, stream tree {:.2} M leaf blocks/s",
        kernel * 1e-6,
        level * 1e-6,
        tree * 1e-6
    );
}

/// Kernel throughput of every backend on this machine (`cargo test --release -p
/// skeinhw-skein --lib lane_speed -- --ignored --nocapture`).
#[test]
#[ignore = "a measurement"]
fn lane_speed() {
    for stride in [16, 1, 0] {
        let one = blocks_per_s::<1>(run_scalar::<8>, stride);
        std::println!("lane stride {stride}: scalar: {:.2} M blocks/s", one * 1e-6);
        #[cfg(target_arch = "x86_64")]
        {
            let mut runs: Vec<(&str, f64)> = Vec::new();
            if crate::batch::avx2_available() {
                runs.push(("avx2 (4)", blocks_per_s::<4>(x86::run_avx2::<8>, stride)));
            }
            if crate::batch::avx512_available() {
                runs.push((
                    "avx512 (8)",
                    blocks_per_s::<8>(x86::run_avx512::<8>, stride),
                ));
            }
            for (name, b) in runs {
                std::println!(
                    "  {name}: {:.2} M blocks/s, {:.2}x scalar",
                    b * 1e-6,
                    b / one
                );
            }
        }
    }
}
