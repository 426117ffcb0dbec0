//! Threefish over `L` independent blocks at once ("lanes"), for the batch and parallel tree
//! paths in [`crate::batch`] and [`crate::par_tree`].
//!
//! The cipher and the UBI run loop are written once, in [`run_lanes`], generic over a
//! [`Lanes`] implementation: a vector of `L` 64-bit words with add, xor, rotate, load and
//! store. The state is word-major: vector i holds word i of the block of every lane, so every
//! operation of the cipher (add, rotate, xor, subkey injection) is one vector operation. The
//! instantiations are:
//!
//! | backend                       | `Lanes`       | L | a word is                         |
//! |-------------------------------|---------------|---|-----------------------------------|
//! | [`crate::batch::Backend::Avx2`]     | `x86::Avx2`   | 4 | one `ymm` register (rotate: two shifts and an OR, or one byte shuffle) |
//! | [`crate::batch::Backend::Avx512`]   | `x86::Avx512` | 8 | one `zmm` register (rotate: native `vprolq`) |
//! | [`crate::batch::Backend::Portable8`]| [`Portable`](portable::Portable)  | 8 | a `[u64; 8]` array (plain Rust, any CPU) |
//!
//! so the 8-lane logic the AVX-512 machine runs is exercised on every machine through
//! [`Portable`](portable::Portable), and the AVX2 instantiation runs the very same source. The one-lane scalar
//! path stays [`crate::fast`] ([`run_scalar`]): a single block gains nothing from vectors.
//!
//! Every function of the engine is `#[inline(always)]` and without target features; each
//! backend has one entry point with `#[target_feature(enable = ...)]` into which the whole
//! engine (and the intrinsics the `Lanes` methods call) is inlined, so the unrolled rounds end
//! up in one body with the state in registers. The `Lanes` values of the x86 backends are
//! tokens that exist only after the CPU check, which is what makes their intrinsic calls
//! sound.

mod engine;
mod portable;
mod scalar;
#[cfg(feature = "std")]
pub mod speed;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86;

#[cfg(all(test, feature = "std"))]
mod run_tests;

pub(crate) use engine::run_lanes;
pub(crate) use portable::run_portable8;
pub(crate) use scalar::run_scalar;

/// A vector of `L` 64-bit lanes and the operations Threefish and UBI need on it.
///
/// Implementations are zero-sized tokens; `self` is passed to every operation so that an
/// implementation that needs a CPU feature can only be used once a token proves it present.
pub(crate) trait Lanes<const L: usize>: Copy {
    /// One word of every lane.
    type V: Copy;
    /// `w` in every lane.
    fn splat(self, w: u64) -> Self::V;
    /// Lane l gets `w[l]`.
    fn load(self, w: [u64; L]) -> Self::V;
    /// The lanes as an array.
    fn store(self, v: Self::V) -> [u64; L];
    /// Lane-wise wrapping addition.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise xor.
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise or.
    fn or(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise `a & b`.
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise `!a & b`.
    fn andnot(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise rotation left by `r` (a constant after inlining, 1..=63).
    fn rotl(self, v: Self::V, r: u32) -> Self::V;

    /// The `N` little-endian message words of one block of each lane, word-major:
    /// `blocks[l]` is lane l's block (at least `N * 8` bytes). The default gathers word by
    /// word; a backend may transpose whole rows instead.
    #[inline(always)]
    fn load_block<const N: usize>(self, blocks: [&[u8]; L]) -> [Self::V; N] {
        gather_block::<Self, L, N>(self, blocks)
    }
}

/// [`Lanes::load_block`] word by word: word i of every lane, then the next word.
#[inline(always)]
fn gather_block<S: Lanes<L>, const L: usize, const N: usize>(
    s: S,
    blocks: [&[u8]; L],
) -> [S::V; N] {
    let mut m = [s.splat(0); N];
    let mut i = 0;
    while i < N {
        let mut w = [0u64; L];
        let mut l = 0;
        while l < L {
            let mut b = [0u8; 8];
            b.copy_from_slice(&blocks[l][8 * i..8 * i + 8]);
            w[l] = u64::from_le_bytes(b);
            l += 1;
        }
        m[i] = s.load(w);
        i += 1;
    }
    m
}

/// The First flag of the tweak (bit 126 of T, bit 62 of its second word t1).
pub(crate) const TWEAK_FIRST: u64 = 1 << 62;
/// The Final flag of the tweak (bit 127 of T, bit 63 of t1).
pub(crate) const TWEAK_FINAL: u64 = 1 << 63;

/// A run: `steps` consecutive UBI blocks on each of `L` lanes, the unit of work of the batch
/// and tree paths ([`run_scalar`], [`run_lanes`]).
///
/// Lane l hashes the first `steps` whole blocks of `data[l]` (which has at least that many),
/// from the chaining value `chain[.][l]`, with the tweak words `tweak[.][l]` of its first
/// block. Each later block adds the block size to the Position (t0) and clears the First flag,
/// as [`crate::fast::compress_blocks`] does; the last block of the run also gets `last[l]`
/// ORed into t1: the Final flag when the lane's UBI call ends with the run, 0 when it goes on.
/// The Position must not carry out of t0 within the run (the callers check). On return `chain`
/// holds every lane's chaining value after its last block.
///
/// The chaining values stay in registers from block to block, and the tweak is advanced with
/// two vector operations instead of being rebuilt, so that a run of many blocks costs little
/// more than its Threefish calls.
pub(crate) type Run<const N: usize, const L: usize> =
    fn(&mut [[u64; L]; N], [&[u8]; L], [[u64; L]; 2], [u64; L], usize);
