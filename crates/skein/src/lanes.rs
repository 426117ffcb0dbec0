//! Threefish over `L` independent blocks at once ("lanes"), for the batch and parallel tree
//! paths in [`crate::batch`] and [`crate::par_tree`].
//!
//! The state is word-major: `x[i][l]` is word i of the block in lane l, so that every
//! operation of the cipher (add, rotate, xor, subkey injection) is one loop over the lanes of
//! a word. Each such loop is an `[u64; L]` array operation that LLVM turns into one vector
//! instruction when the function it is inlined into enables a vector extension: with
//! `L = 4` under `#[target_feature(enable = "avx2")]` a word is one `ymm` register (a rotation
//! is two shifts and an OR, AVX2 has no 64-bit rotate). An 8-lane AVX-512 path is the same
//! code with `L = 8` inlined into a function with `#[target_feature(enable = "avx512f")]`,
//! where the rotation becomes the native `vprolq`; see [`crate::batch::Backend`].
//!
//! The code is the same shape as [`crate::fast`]: all rounds unrolled with every word index
//! and rotation constant a compile-time constant, and the word permutation done by renaming.
//! The tables come from [`crate::constants`]. The portable code is not `unsafe` or target
//! specific: compiled without a vector extension it is still correct (and tested that way),
//! only not faster than the scalar cipher. What the batch and tree paths run is a `Run`:
//! many consecutive blocks per lane with the chaining values kept in registers, in one lane
//! with the scalar cipher (`run_scalar`) or in four with AVX2 intrinsics (`avx2`, whose
//! entry point holds the crate's one `unsafe`: the call of a `#[target_feature]` function
//! after the CPU check).

use crate::constants::{C240, rotation};

// The renamed-slot table is the fast cipher's: the lanes run the same schedule of MIXes.
use crate::fast::slot;

/// MIX `J` of round `D + R` on all lanes: `a += b; b = (b <<< rot) ^ a`.
#[inline(always)]
fn mix<const N: usize, const L: usize, const D: usize, const R: usize, const J: usize>(
    x: &mut [[u64; L]; N],
) {
    let a = const { slot(N, R, 2 * J) };
    let b = const { slot(N, R, 2 * J + 1) };
    let rot = const { rotation(N, D + R, J % (N / 2)) };
    let mut xa = x[a];
    let mut xb = x[b];
    for l in 0..L {
        xa[l] = xa[l].wrapping_add(xb[l]);
        xb[l] = xb[l].rotate_left(rot) ^ xa[l];
    }
    x[a] = xa;
    x[b] = xb;
}

/// Round `D + R`: its N/2 MIXes.
#[inline(always)]
fn round<const N: usize, const L: usize, const D: usize, const R: usize>(x: &mut [[u64; L]; N]) {
    mix::<N, L, D, R, 0>(x);
    mix::<N, L, D, R, 1>(x);
    if N >= 8 {
        mix::<N, L, D, R, 2>(x);
        mix::<N, L, D, R, 3>(x);
    }
    if N >= 16 {
        mix::<N, L, D, R, 4>(x);
        mix::<N, L, D, R, 5>(x);
        mix::<N, L, D, R, 6>(x);
        mix::<N, L, D, R, 7>(x);
    }
}

/// Four rounds D..D+4, D being 0 or 4 modulo 8.
#[inline(always)]
fn four_rounds<const N: usize, const L: usize, const D: usize>(x: &mut [[u64; L]; N]) {
    round::<N, L, D, 0>(x);
    round::<N, L, D, 1>(x);
    round::<N, L, D, 2>(x);
    round::<N, L, D, 3>(x);
}

/// The extended key of every lane: the key words and the parity word, and the tweak words
/// t0, t1, t2 (Skein 1.3, section 3.3.2).
struct Schedule<'a, const N: usize, const L: usize> {
    key: &'a [[u64; L]; N],
    parity: [u64; L],
    t: [[u64; L]; 3],
}

/// Adds word `I` of subkey `S` on all lanes (the same formula as [`crate::fast`]).
#[inline(always)]
fn inject_word<const N: usize, const L: usize, const S: usize, const I: usize>(
    x: &mut [[u64; L]; N],
    ks: &Schedule<'_, N, L>,
) {
    let i = const { I % N };
    let k = const { (S + I) % (N + 1) };
    let mut w = if k == N {
        ks.parity
    } else {
        ks.key[const { (S + I) % (N + 1) % N }]
    };
    if I == N - 3 {
        let t = &ks.t[const { S % 3 }];
        for l in 0..L {
            w[l] = w[l].wrapping_add(t[l]);
        }
    } else if I == N - 2 {
        let t = &ks.t[const { (S + 1) % 3 }];
        for l in 0..L {
            w[l] = w[l].wrapping_add(t[l]);
        }
    } else if I == N - 1 {
        for w in &mut w {
            *w = w.wrapping_add(S as u64);
        }
    }
    for l in 0..L {
        x[i][l] = x[i][l].wrapping_add(w[l]);
    }
}

/// Injects subkey `S` on all lanes.
#[inline(always)]
fn inject<const N: usize, const L: usize, const S: usize>(
    x: &mut [[u64; L]; N],
    ks: &Schedule<'_, N, L>,
) {
    macro_rules! words {
        ($($i:literal)*) => {
            $( if $i < N { inject_word::<N, L, S, $i>(x, ks); } )*
        };
    }
    words!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// Eight rounds and the subkeys 2s-1 and 2s that follow their two halves, for each s given.
macro_rules! eight_rounds {
    ($n:ident, $l:ident, $x:ident, $ks:ident; $($s:literal)*) => {
        $(
            four_rounds::<$n, $l, 0>(&mut $x);
            inject::<$n, $l, { 2 * $s - 1 }>(&mut $x, &$ks);
            four_rounds::<$n, $l, 4>(&mut $x);
            inject::<$n, $l, { 2 * $s }>(&mut $x, &$ks);
        )*
    };
}

/// Threefish encryption of `L` blocks, each with its own key and tweak, word-major.
#[inline(always)]
pub fn encrypt<const N: usize, const L: usize>(
    key: &[[u64; L]; N],
    tweak: &[[u64; L]; 2],
    plaintext: &[[u64; L]; N],
) -> [[u64; L]; N] {
    const {
        assert!(
            N == 4 || N == 8 || N == 16,
            "Threefish has 4, 8 or 16 words"
        )
    };
    let mut parity = [C240; L];
    for k in key {
        for l in 0..L {
            parity[l] ^= k[l];
        }
    }
    let mut t2 = [0u64; L];
    for l in 0..L {
        t2[l] = tweak[0][l] ^ tweak[1][l];
    }
    let ks = Schedule {
        key,
        parity,
        t: [tweak[0], tweak[1], t2],
    };
    let mut x = *plaintext;
    inject::<N, L, 0>(&mut x, &ks);
    eight_rounds!(N, L, x, ks; 1 2 3 4 5 6 7 8 9);
    if N == 16 {
        // Threefish-1024 has 80 rounds: one more group of eight.
        eight_rounds!(N, L, x, ks; 10);
    }
    x
}

/// The UBI compression of `L` blocks: `H <- E(H, T, M) xor M` lane by lane.
#[inline(always)]
pub fn compress<const N: usize, const L: usize>(
    chain: &mut [[u64; L]; N],
    tweak: &[[u64; L]; 2],
    block: &[[u64; L]; N],
) {
    let out = encrypt(chain, tweak, block);
    for i in 0..N {
        for l in 0..L {
            chain[i][l] = out[i][l] ^ block[i][l];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lane equals the scalar cipher of [`crate::fast`] on its own key, tweak and block,
    /// with a different key, tweak and block in each lane.
    fn lanes_equal_scalar<const N: usize, const L: usize>() {
        let word = |i: usize, l: usize, salt: u64| {
            (i as u64 + 1)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add((l as u64 + 1).wrapping_mul(salt))
                .rotate_left((i + 3 * l) as u32)
        };
        let key: [[u64; L]; N] = core::array::from_fn(|i| core::array::from_fn(|l| word(i, l, 7)));
        let block: [[u64; L]; N] =
            core::array::from_fn(|i| core::array::from_fn(|l| word(i, l, 0xabcdef)));
        let tweak: [[u64; L]; 2] =
            core::array::from_fn(|i| core::array::from_fn(|l| word(i + 40, l, 99)));
        let out = encrypt(&key, &tweak, &block);
        for l in 0..L {
            let k: [u64; N] = core::array::from_fn(|i| key[i][l]);
            let p: [u64; N] = core::array::from_fn(|i| block[i][l]);
            let expected = crate::threefish::encrypt(&k, [tweak[0][l], tweak[1][l]], &p);
            let got: [u64; N] = core::array::from_fn(|i| out[i][l]);
            assert_eq!(got, expected, "N = {N}, lane {l} of {L}");
        }
    }

    #[test]
    fn lanes_equal_the_spec_cipher() {
        lanes_equal_scalar::<4, 1>();
        lanes_equal_scalar::<4, 4>();
        lanes_equal_scalar::<8, 4>();
        lanes_equal_scalar::<16, 4>();
        lanes_equal_scalar::<8, 8>();
        lanes_equal_scalar::<16, 3>();
    }
}

/// The First flag of the tweak (bit 126 of T, bit 62 of its second word t1).
pub(crate) const TWEAK_FIRST: u64 = 1 << 62;
/// The Final flag of the tweak (bit 127 of T, bit 63 of t1).
pub(crate) const TWEAK_FINAL: u64 = 1 << 63;

/// A run: `steps` consecutive UBI blocks on each of `L` lanes, the unit of work of the batch
/// and tree paths ([`run_scalar`], [`avx2::run`]).
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

/// A [`Run`] on one lane with the scalar cipher of [`crate::fast`] ([`crate::fast::compress_blocks`]
/// for the blocks before a Final one).
pub(crate) fn run_scalar<const N: usize>(
    chain: &mut [[u64; 1]; N],
    data: [&[u8]; 1],
    tweak: [[u64; 1]; 2],
    last: [u64; 1],
    steps: usize,
) {
    let nb = N * 8;
    assert!(steps > 0, "a run has at least one block");
    let data = &data[0][..steps * nb];
    let mut h: [u64; N] = core::array::from_fn(|i| chain[i][0]);
    let [t0, t1] = [tweak[0][0], tweak[1][0]];
    let bulk = if last[0] == 0 { steps } else { steps - 1 };
    if bulk > 0 {
        crate::fast::compress_blocks(&mut h, &data[..bulk * nb], [t0, t1]);
    }
    if bulk < steps {
        let t1 = if bulk > 0 { t1 & !TWEAK_FIRST } else { t1 };
        let t0 = t0.wrapping_add((bulk * nb) as u64);
        let m = crate::threefish::words_from_bytes::<N>(&data[bulk * nb..]);
        crate::fast::compress_words(&mut h, &m, [t0, t1 | last[0]]);
    }
    for (c, w) in chain.iter_mut().zip(h) {
        c[0] = w;
    }
}

/// The 4-lane cipher with AVX2 intrinsics, one `__m256i` per word, and its [`Run`].
///
/// The portable code above, inlined into an AVX2 function, is not vectorized: LLVM's cost
/// model prefers four scalar `rol` to the vector shift-shift-or and keeps every lane in
/// general registers (measured: slower than one scalar block at a time). Here the vector
/// operations are explicit. Same structure, same tables; every function is
/// `#[target_feature(enable = "avx2")]` so the intrinsics are safe to call, and `#[inline]`
/// so that the unrolled rounds end up in one body, [`run`]'s. The rotation is written with the
/// variable-count shifts, whose constant count LLVM folds into immediate shifts, except that a
/// rotation by a whole number of bytes is one byte shuffle (`vpshufb`) instead of two shifts
/// and an OR; an AVX-512 version would use `_mm512_rol_epi64` instead.
///
/// A block's words come in with whole-row loads (32 bytes of one lane, which LLVM makes one
/// `vmovdqu`) and a 4 x 4 transposition (`vpunpck[lh]qdq`, `vperm2i128`), 8 shuffles for 4
/// words of 4 lanes, instead of 16 scalar inserts.
///
/// Where the time goes (AMD Zen 3, Threefish-512; instruction counts from the object code,
/// cycles from `llvm-mca -mcpu=znver3` and from timing at the measured 3.19 GHz): a run step
/// (one block in each of 4 lanes) is 1,750 instructions, about 1,600 of them vector ALU
/// operations for the four vector pipes, 504 of those shifts (two per rotation) that only
/// two of the pipes execute: at best 400 cycles, 441 in `llvm-mca`, about 486 measured, that
/// is 122 cycles a block. The scalar cipher ([`crate::fast::compress_blocks`]) is 1,215
/// instructions a block, 1,064 for the four integer ALUs: 266 cycles at best, 269 in
/// `llvm-mca`, 285 measured. So four lanes are at most 2.4 times one (2.35 measured on
/// 4 x 64 KiB); the rest of the code (gather, scatter, tweaks, scheduling) costs under 3%.
///
/// Tried and left out, measured on the same machine:
/// - two groups of four lanes with their rounds interleaved, to hide the add-rotate-xor
///   latency: 30% slower; 16 words of state do not fit the 16 `ymm` registers, and the
///   spills cost more than the latency they hide (the single group is port bound already);
/// - a fifth lane in general registers (the scalar cipher) interleaved round by round with
///   the four vector lanes, to use the idle integer ALUs (`llvm-mca` promises 11%): LLVM's
///   register allocation doubles the scalar lane's instructions (2,400 instead of 1,215);
///   the tree ran at 670 MiB/s instead of 1,550;
/// - the key-plus-tweak sums of words N-3 and N-2 computed once per block (they repeat every
///   9 subkeys for Threefish-512): no change, LLVM already computes each distinct sum once.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_extract_epi64,
        _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set_epi64x, _mm256_set1_epi64x,
        _mm256_shuffle_epi8, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm256_unpackhi_epi64,
        _mm256_unpacklo_epi64, _mm256_xor_si256,
    };

    use super::{TWEAK_FIRST, slot};
    use crate::constants::{C240, rotation};

    /// The `vpshufb` control that rotates every 64-bit word left by `bytes` bytes: byte i of a
    /// word takes byte (i - bytes) mod 8 (indices are within a 128-bit half, so the second word
    /// of a half adds 8).
    const fn byte_rotation(bytes: u32, word: u64) -> u64 {
        let mut m = 0u64;
        let mut i = 0;
        while i < 8 {
            let from = (i + 8 - bytes as u64) % 8 + 8 * word;
            m |= from << (8 * i);
            i += 1;
        }
        m
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn rotl(x: __m256i, r: u32) -> __m256i {
        if r.is_multiple_of(8) {
            let lo = byte_rotation(r / 8, 0) as i64;
            let hi = byte_rotation(r / 8, 1) as i64;
            return _mm256_shuffle_epi8(x, _mm256_set_epi64x(hi, lo, hi, lo));
        }
        _mm256_or_si256(
            _mm256_sllv_epi64(x, _mm256_set1_epi64x(i64::from(r))),
            _mm256_srlv_epi64(x, _mm256_set1_epi64x(64 - i64::from(r))),
        )
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn mix<const N: usize, const D: usize, const R: usize, const J: usize>(x: &mut [__m256i; N]) {
        let a = const { slot(N, R, 2 * J) };
        let b = const { slot(N, R, 2 * J + 1) };
        let rot = const { rotation(N, D + R, J % (N / 2)) };
        x[a] = _mm256_add_epi64(x[a], x[b]);
        x[b] = _mm256_xor_si256(rotl(x[b], rot), x[a]);
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn round<const N: usize, const D: usize, const R: usize>(x: &mut [__m256i; N]) {
        mix::<N, D, R, 0>(x);
        mix::<N, D, R, 1>(x);
        if N >= 8 {
            mix::<N, D, R, 2>(x);
            mix::<N, D, R, 3>(x);
        }
        if N >= 16 {
            mix::<N, D, R, 4>(x);
            mix::<N, D, R, 5>(x);
            mix::<N, D, R, 6>(x);
            mix::<N, D, R, 7>(x);
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn four_rounds<const N: usize, const D: usize>(x: &mut [__m256i; N]) {
        round::<N, D, 0>(x);
        round::<N, D, 1>(x);
        round::<N, D, 2>(x);
        round::<N, D, 3>(x);
    }

    /// Adds subkey `S`: word I gets k_{(S+I) mod (N+1)} (`ks[N]` is the parity word), plus
    /// t_{S mod 3}, t_{(S+1) mod 3} and S on the last three words. (The key-plus-tweak sums
    /// repeat from subkey to subkey; LLVM computes each distinct one once.)
    #[target_feature(enable = "avx2")]
    #[inline]
    fn inject<const N: usize, const S: usize>(
        x: &mut [__m256i; N],
        ks: &[__m256i; 17],
        t: &[__m256i; 3],
    ) {
        for (i, w) in x.iter_mut().enumerate() {
            let mut k = ks[(S + i) % (N + 1)];
            if i == N - 3 {
                k = _mm256_add_epi64(k, t[S % 3]);
            } else if i == N - 2 {
                k = _mm256_add_epi64(k, t[(S + 1) % 3]);
            } else if i == N - 1 {
                k = _mm256_add_epi64(k, _mm256_set1_epi64x(S as i64));
            }
            *w = _mm256_add_epi64(*w, k);
        }
    }

    // The cipher and the block loads below are macros, not functions: they must end up in
    // the body of the run loop, and `#[inline]` is only a hint that LLVM declines for bodies
    // this large (`#[inline(always)]` is not allowed with
    // `#[target_feature]`). A call in the loop spills every vector register and costs a
    // `vzeroupper`.

    /// Eight rounds and the subkeys 2s-1 and 2s after their two halves, on the lanes `$x`.
    macro_rules! eight_rounds {
        ($n:ident, $x:ident, $ks:ident, $t:ident, $s:literal) => {
            four_rounds::<$n, 0>(&mut $x);
            inject::<$n, { 2 * $s - 1 }>(&mut $x, &$ks, &$t);
            four_rounds::<$n, 4>(&mut $x);
            inject::<$n, { 2 * $s }>(&mut $x, &$ks, &$t);
        };
    }

    /// Threefish on the four lanes, in place on `$x` (the plaintext words): `$ks` the key
    /// words and the parity word `$ks[N]`, `$t` the tweak words t0, t1, t2.
    macro_rules! encrypt {
        ($n:ident, $x:ident, $ks:ident, $t:ident) => {
            inject::<$n, 0>(&mut $x, &$ks, &$t);
            eight_rounds!($n, $x, $ks, $t, 1);
            eight_rounds!($n, $x, $ks, $t, 2);
            eight_rounds!($n, $x, $ks, $t, 3);
            eight_rounds!($n, $x, $ks, $t, 4);
            eight_rounds!($n, $x, $ks, $t, 5);
            eight_rounds!($n, $x, $ks, $t, 6);
            eight_rounds!($n, $x, $ks, $t, 7);
            eight_rounds!($n, $x, $ks, $t, 8);
            eight_rounds!($n, $x, $ks, $t, 9);
            if $n == 16 {
                // Threefish-1024 has 80 rounds: one more group of eight.
                eight_rounds!($n, $x, $ks, $t, 10);
            }
        };
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(w: [u64; 4]) -> __m256i {
        _mm256_set_epi64x(w[3] as i64, w[2] as i64, w[1] as i64, w[0] as i64)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store(v: __m256i) -> [u64; 4] {
        [
            _mm256_extract_epi64::<0>(v) as u64,
            _mm256_extract_epi64::<1>(v) as u64,
            _mm256_extract_epi64::<2>(v) as u64,
            _mm256_extract_epi64::<3>(v) as u64,
        ]
    }

    /// Four consecutive little-endian words of one lane as one vector (one unaligned load).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn row(bytes: &[u8; 32]) -> __m256i {
        let w = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[8 * i..8 * i + 8]);
            u64::from_le_bytes(b) as i64
        };
        _mm256_set_epi64x(w(3), w(2), w(1), w(0))
    }

    /// The message words of one block of each lane, word-major, into `$m`: `$blocks[l]` is
    /// lane l's block.
    macro_rules! load_block {
        ($n:ident, $m:ident, $blocks:expr) => {
            let blocks: [&[u8]; 4] = $blocks;
            let mut $m = [_mm256_set1_epi64x(0); $n];
            for g in 0..$n / 4 {
                // No `core::array::from_fn`: its closure is not inlined into a
                // `#[target_feature]` function.
                let row_of = |l: usize| -> &[u8; 32] {
                    blocks[l][32 * g..32 * g + 32].try_into().expect("32 bytes")
                };
                let r = [
                    row(row_of(0)),
                    row(row_of(1)),
                    row(row_of(2)),
                    row(row_of(3)),
                ];
                // r[l] = words 4g..4g+4 of lane l; transpose to words of lanes 0..4.
                let a = _mm256_unpacklo_epi64(r[0], r[1]); // w0 of l0, l1 | w2 of l0, l1
                let b = _mm256_unpackhi_epi64(r[0], r[1]); // w1 | w3
                let c = _mm256_unpacklo_epi64(r[2], r[3]);
                let d = _mm256_unpackhi_epi64(r[2], r[3]);
                $m[4 * g] = _mm256_permute2x128_si256::<0x20>(a, c);
                $m[4 * g + 1] = _mm256_permute2x128_si256::<0x20>(b, d);
                $m[4 * g + 2] = _mm256_permute2x128_si256::<0x31>(a, c);
                $m[4 * g + 3] = _mm256_permute2x128_si256::<0x31>(b, d);
            }
        };
    }

    /// The [`super::Run`] on four lanes.
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn run_avx2<const N: usize>(
        chain: &mut [[u64; 4]; N],
        data: [&[u8]; 4],
        tweak: [[u64; 4]; 2],
        last: [u64; 4],
        steps: usize,
    ) {
        let nb = N * 8;
        // No `core::array::from_fn` here: its closure is not inlined into a
        // `#[target_feature]` function.
        let data: [&[u8]; 4] = [
            &data[0][..steps * nb],
            &data[1][..steps * nb],
            &data[2][..steps * nb],
            &data[3][..steps * nb],
        ];
        let mut h = [_mm256_set1_epi64x(0); N];
        for (h, c) in h.iter_mut().zip(chain.iter()) {
            *h = load(*c);
        }
        let mut t0 = load(tweak[0]);
        let mut t1 = load(tweak[1]);
        let last = load(last);
        let first = _mm256_set1_epi64x(TWEAK_FIRST as i64);
        let block_bytes = _mm256_set1_epi64x(nb as i64);
        for s in 0..steps {
            let off = s * nb;
            load_block!(
                N,
                m,
                [
                    &data[0][off..off + nb],
                    &data[1][off..off + nb],
                    &data[2][off..off + nb],
                    &data[3][off..off + nb],
                ]
            );
            let is_last = _mm256_set1_epi64x(-i64::from(s + 1 == steps));
            let t1s = _mm256_or_si256(t1, _mm256_and_si256(last, is_last));
            let mut ks = [_mm256_set1_epi64x(0); 17];
            let mut parity = _mm256_set1_epi64x(C240 as i64);
            for i in 0..N {
                ks[i] = h[i];
                parity = _mm256_xor_si256(parity, h[i]);
            }
            ks[N] = parity;
            let t = [t0, t1s, _mm256_xor_si256(t0, t1s)];
            let mut x = m;
            encrypt!(N, x, ks, t);
            for i in 0..N {
                h[i] = _mm256_xor_si256(x[i], m[i]);
            }
            t0 = _mm256_add_epi64(t0, block_bytes);
            t1 = _mm256_andnot_si256(first, t1);
        }
        for i in 0..N {
            chain[i] = store(h[i]);
        }
    }

    /// The [`super::Run`] on four lanes, after checking that the CPU has AVX2. This is the
    /// crate's one `unsafe`: calling a `#[target_feature]` function is unsafe because on a CPU
    /// without the feature it would execute illegal instructions.
    #[allow(unsafe_code)]
    pub(crate) fn run<const N: usize>(
        chain: &mut [[u64; 4]; N],
        data: [&[u8]; 4],
        tweak: [[u64; 4]; 2],
        last: [u64; 4],
        steps: usize,
    ) {
        assert!(crate::batch::avx2_available(), "AVX2 is not available");
        assert!(steps > 0, "a run has at least one block");
        // SAFETY: `avx2_available()` just returned true: either run-time detection
        // (`is_x86_feature_detected!`) found AVX2 on this CPU, or (without `std`) the whole
        // build targets AVX2 statically. `run_avx2` has no other safety requirement (its
        // memory accesses are bounds-checked slices).
        unsafe { run_avx2::<N>(chain, data, tweak, last, steps) }
    }
}

#[cfg(all(test, feature = "std"))]
mod run_tests {
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

        /// Runs of 1 to 6 blocks on the scalar lane and (where the CPU has it) the four AVX2
        /// lanes, with random chains, data, tweaks (First set or not) and Final flags.
        #[test]
        fn runs_equal_the_scalar_cipher_block_by_block(steps in 1usize..7, seed in any::<u64>()) {
            check::<4, 1>(run_scalar::<4>, steps, seed);
            check::<8, 1>(run_scalar::<8>, steps, seed);
            check::<16, 1>(run_scalar::<16>, steps, seed);
            #[cfg(target_arch = "x86_64")]
            if crate::batch::avx2_available() {
                check::<4, 4>(avx2::run::<4>, steps, seed);
                check::<8, 4>(avx2::run::<8>, steps, seed);
                check::<16, 4>(avx2::run::<16>, steps, seed);
            }
        }
    }
}
