//! How fast each backend's lanes run on this CPU, measured once per process: which backend a
//! worker with few streams should take depends on it, and machines of one architecture differ.
//! AMD Zen 4 runs a 512-bit operation as two 256-bit halves (AVX-512 about 1.4 times AVX2 with
//! every lane busy), Zen 5 and Intel's server cores at full width (about 2.5 times on Zen 5), so
//! a fixed table picks the wrong backend on one or the other.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::{Run, TWEAK_FINAL, TWEAK_FIRST};
use crate::batch::Backend;

/// Threefish-512 blocks per second of each backend with every lane busy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaneSpeeds {
    /// One lane, the scalar cipher.
    pub scalar: f64,
    /// Four AVX2 lanes together (0 where the CPU lacks AVX2).
    pub avx2: f64,
    /// Eight AVX-512 lanes together (0 where the CPU lacks AVX-512F).
    pub avx512: f64,
}

impl LaneSpeeds {
    /// AMD EPYC Zen 4 (family 25, model 17), millions of blocks per CPU-second: scalar 13.4,
    /// AVX2 36.5, AVX-512 51.3 (`cargo test --release -p skeinhw-skein --lib lane_speed --
    /// --ignored`, an idle machine).
    pub const ZEN4: LaneSpeeds = LaneSpeeds {
        scalar: 13.4e6,
        avx2: 36.5e6,
        avx512: 51.3e6,
    };

    /// AMD EPYC Zen 5 (family 26, model 2), millions of blocks per CPU-second of whole
    /// `skeinhw hash` processes (8 files of 256 MiB, `--jobs 1`, user time; one file for the
    /// scalar chain): scalar 19.0, AVX2 29.2, AVX-512 76.9.
    pub const ZEN5: LaneSpeeds = LaneSpeeds {
        scalar: 19.0e6,
        avx2: 29.2e6,
        avx512: 76.9e6,
    };

    /// This CPU's speeds, measured on the first call (about half a millisecond: a few short
    /// runs of each backend on blocks in the L1 cache, the best of five after a warm-up, so
    /// that a vector unit's power-up and an interrupt do not count).
    pub fn measured() -> LaneSpeeds {
        static SPEEDS: OnceLock<LaneSpeeds> = OnceLock::new();
        *SPEEDS.get_or_init(|| LaneSpeeds {
            scalar: blocks_per_second::<1>(super::scalar::run_scalar::<8>),
            avx2: if Backend::Avx2.is_available() {
                blocks_per_second_avx2()
            } else {
                0.0
            },
            avx512: if Backend::Avx512.is_available() {
                blocks_per_second_avx512()
            } else {
                0.0
            },
        })
    }

    /// The speed of `backend` with every lane busy (the portable lanes count as the scalar
    /// cipher: they are its logic eight times, no faster).
    pub fn of(&self, backend: Backend) -> f64 {
        match backend {
            Backend::Scalar | Backend::Portable8 => self.scalar,
            Backend::Avx2 => self.avx2,
            Backend::Avx512 => self.avx512,
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn blocks_per_second_avx2() -> f64 {
    blocks_per_second::<4>(super::x86::run_avx2::<8>)
}

#[cfg(not(target_arch = "x86_64"))]
fn blocks_per_second_avx2() -> f64 {
    0.0
}

#[cfg(target_arch = "x86_64")]
fn blocks_per_second_avx512() -> f64 {
    blocks_per_second::<8>(super::x86::run_avx512::<8>)
}

#[cfg(not(target_arch = "x86_64"))]
fn blocks_per_second_avx512() -> f64 {
    0.0
}

/// Blocks a measurement runs per lane: one 2 KiB leaf (32 blocks), eight times.
const BLOCKS_PER_LANE: usize = 32;
const RUNS_PER_TRY: usize = 8;

/// Threefish-512 blocks per second of `run` on `L` busy lanes: the best of five tries, after
/// one that is thrown away.
fn blocks_per_second<const L: usize>(run: Run<8, L>) -> f64 {
    let bytes = [0x5au8; BLOCKS_PER_LANE * 64];
    let blocks = (L * BLOCKS_PER_LANE * RUNS_PER_TRY) as f64;
    let mut best = Duration::MAX;
    for attempt in 0..6 {
        let start = Instant::now();
        for r in 0..RUNS_PER_TRY {
            let mut chain = [[r as u64; L]; 8];
            run(
                &mut chain,
                [&bytes[..]; L],
                [[64; L], [TWEAK_FIRST; L]],
                [TWEAK_FINAL; L],
                BLOCKS_PER_LANE,
            );
            core::hint::black_box(chain);
        }
        if attempt > 0 {
            best = best.min(start.elapsed());
        }
    }
    blocks / best.as_secs_f64().max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The measurement on this machine: every backend it has runs, each at a plausible speed
    /// (a Threefish-512 block costs at least tens of cycles a lane); printed for the notes.
    #[test]
    fn every_backend_this_cpu_has_is_measured() {
        let start = Instant::now();
        let s = LaneSpeeds::measured();
        std::println!(
            "lane speeds here, M blocks/s: scalar {:.1}, avx2 {:.1}, avx512 {:.1} (measured in \
             {:?})",
            s.scalar * 1e-6,
            s.avx2 * 1e-6,
            s.avx512 * 1e-6,
            start.elapsed()
        );
        assert!(s.scalar > 1e5 && s.scalar < 1e9, "{s:?}");
        assert_eq!(s.avx2 > 0.0, Backend::Avx2.is_available(), "{s:?}");
        assert_eq!(s.avx512 > 0.0, Backend::Avx512.is_available(), "{s:?}");
        assert_eq!(LaneSpeeds::measured(), s, "measured once");
    }
}
