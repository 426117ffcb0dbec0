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
//! The tables come from [`crate::constants`]. Nothing here is `unsafe` or target specific:
//! compiled without a vector extension it is still correct (and tested that way), only not
//! faster than the scalar cipher.

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

/// The 4-lane cipher with AVX2 intrinsics, one `__m256i` per word.
///
/// The portable code above, inlined into an AVX2 function, is not vectorized: LLVM's cost
/// model prefers four scalar `rol` to the vector shift-shift-or and keeps every lane in
/// general registers (measured: slower than one scalar block at a time). Here the vector
/// operations are explicit. Same structure, same tables; every function is
/// `#[target_feature(enable = "avx2")]` so the intrinsics are safe to call, and `#[inline]`
/// so that the unrolled rounds end up in one body. The rotation is written with the
/// variable-count shifts, whose constant count LLVM folds into immediate shifts; an AVX-512
/// version would use `_mm512_rol_epi64` instead.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_extract_epi64, _mm256_or_si256, _mm256_set_epi64x,
        _mm256_set1_epi64x, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm256_xor_si256,
    };

    use super::slot;
    use crate::constants::{C240, rotation};

    #[target_feature(enable = "avx2")]
    #[inline]
    fn rotl(x: __m256i, r: u32) -> __m256i {
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
    fn four_rounds<const N: usize, const D: usize>(x: &mut [__m256i; N]) {
        macro_rules! round {
            ($r:literal) => {
                mix::<N, D, $r, 0>(x);
                mix::<N, D, $r, 1>(x);
                if N >= 8 {
                    mix::<N, D, $r, 2>(x);
                    mix::<N, D, $r, 3>(x);
                }
                if N >= 16 {
                    mix::<N, D, $r, 4>(x);
                    mix::<N, D, $r, 5>(x);
                    mix::<N, D, $r, 6>(x);
                    mix::<N, D, $r, 7>(x);
                }
            };
        }
        round!(0);
        round!(1);
        round!(2);
        round!(3);
    }

    /// Adds subkey `S`: word I gets k_{(S+I) mod (N+1)} (`ks[N]` is the parity word), plus
    /// t_{S mod 3}, t_{(S+1) mod 3} and S on the last three words.
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

    /// [`super::compress`] with `L = 4`: `H <- E(H, T, M) xor M` on four lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn compress<const N: usize>(
        chain: &mut [[u64; 4]; N],
        tweak: &[[u64; 4]; 2],
        block: &[[u64; 4]; N],
    ) {
        let zero = _mm256_set1_epi64x(0);
        let mut ks = [zero; 17];
        let mut parity = _mm256_set1_epi64x(C240 as i64);
        for i in 0..N {
            ks[i] = load(chain[i]);
            parity = _mm256_xor_si256(parity, ks[i]);
        }
        ks[N] = parity;
        let t0 = load(tweak[0]);
        let t1 = load(tweak[1]);
        let t = [t0, t1, _mm256_xor_si256(t0, t1)];
        let m: [__m256i; N] = core::array::from_fn(|i| load(block[i]));
        let mut x = m;
        macro_rules! eight_rounds {
            ($($s:literal)*) => {
                $(
                    four_rounds::<N, 0>(&mut x);
                    inject::<N, { 2 * $s - 1 }>(&mut x, &ks, &t);
                    four_rounds::<N, 4>(&mut x);
                    inject::<N, { 2 * $s }>(&mut x, &ks, &t);
                )*
            };
        }
        inject::<N, 0>(&mut x, &ks, &t);
        eight_rounds!(1 2 3 4 5 6 7 8 9);
        if N == 16 {
            eight_rounds!(10);
        }
        for i in 0..N {
            chain[i] = store(_mm256_xor_si256(x[i], m[i]));
        }
    }
}
