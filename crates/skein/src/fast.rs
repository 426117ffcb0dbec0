//! The fast Threefish: all rounds unrolled, the permutation done by renaming registers instead
//! of moving words (as the optimized reference C code does), and subkeys added straight from
//! the key and tweak words. It reads the same rotation and permutation tables as
//! [`crate::threefish`], and is tested against it.
//!
//! Every word index and rotation constant below is an inline `const` block, not a table lookup
//! in a loop: the compiler keeps the state in registers only when every index is known at
//! compile time, and it does not fully unroll a loop nest as big as a Threefish-1024 round
//! group, which then ran table-driven with the state in memory, half as fast.
//!
//! Tried on AMD Zen 3 (the machines the speed targets are set on) and left out, because they
//! measured slower or no faster:
//! - a loop of eight rounds instead of full unrolling: 1.8x slower for Threefish-512, 1.35x for
//!   Threefish-1024;
//! - BMI2 `rorx` through a `#[target_feature]` copy picked at run time: 17% slower for
//!   Threefish-256, 7% slower for Threefish-512, 2% faster for Threefish-1024; not worth an
//!   `unsafe` call;
//! - precomputed key+tweak sums (9 instead of 38 additions a block for Threefish-512): no
//!   gain, the wide ciphers are bound by the four ALUs, not by those few additions;
//! - AVX2, the four MIXes of a Threefish-512 round in one vector: a rotation is two shifts
//!   and an OR there, and a round takes 4 cycles instead of about 3.2 for the scalar rounds.

use crate::constants::{C240, permutation, rotation};

/// `placement(words)[r][i]`: the array slot that holds logical word i after r rounds of a
/// four-round group, when the permutation is done by renaming. Since pi^4 is the identity for
/// all three sizes, every group starts and ends with the words in place, which is also where
/// the subkey is injected.
const fn placement(words: usize) -> [[usize; 16]; 5] {
    let pi = permutation(words);
    let mut p = [[0usize; 16]; 5];
    let mut i = 0;
    while i < words {
        p[0][i] = i;
        i += 1;
    }
    let mut r = 0;
    while r < 4 {
        let mut i = 0;
        while i < words {
            p[r + 1][i] = p[r][pi[i]];
            i += 1;
        }
        r += 1;
    }
    let mut i = 0;
    while i < words {
        assert!(p[4][i] == i, "pi^4 must be the identity");
        i += 1;
    }
    p
}

/// The slot of logical word `i` after `r` rounds of a group. Total (the word index wraps), so
/// that the MIXes a smaller state does not have, which [`round`] instantiates but never runs,
/// still evaluate (and likewise `I % N` in [`inject_word`]).
pub(crate) const fn slot(words: usize, r: usize, i: usize) -> usize {
    placement(words)[r][i % words]
}

/// MIX number `J` of round `D + R` on the renamed slots: `a += b; b = (b <<< rot) ^ a`.
/// `D` is 0 or 4 (which half of the eight rotation rows), `R` the round within the group of
/// four (which renaming).
///
/// The two orders compute the same; they only lead the compiler to different schedules.
/// Threefish-256 is bound by its dependency chain (two MIXes a round cannot fill four ALUs)
/// and runs 5% faster with the rotation written first; the two wider ciphers are bound by
/// their ALUs and run 3% (512) and 9% (1024) faster the other way round.
#[inline(always)]
fn mix<const N: usize, const D: usize, const R: usize, const J: usize>(x: &mut [u64; N]) {
    let a = const { slot(N, R, 2 * J) };
    let b = const { slot(N, R, 2 * J + 1) };
    let rot = const { rotation(N, D + R, J % (N / 2)) };
    if N == 4 {
        let rotated = x[b].rotate_left(rot);
        x[a] = x[a].wrapping_add(x[b]);
        x[b] = rotated ^ x[a];
    } else {
        x[a] = x[a].wrapping_add(x[b]);
        x[b] = x[b].rotate_left(rot) ^ x[a];
    }
}

/// Round `D + R`: its N/2 MIXes.
#[inline(always)]
fn round<const N: usize, const D: usize, const R: usize>(x: &mut [u64; N]) {
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

/// Four rounds D..D+4, D being 0 or 4 modulo 8.
#[inline(always)]
fn four_rounds<const N: usize, const D: usize>(x: &mut [u64; N]) {
    round::<N, D, 0>(x);
    round::<N, D, 1>(x);
    round::<N, D, 2>(x);
    round::<N, D, 3>(x);
}

/// Adds word `I` of subkey `S` (Skein 1.3, section 3.3.2): k_{(S+I) mod (Nw+1)}, where
/// k_Nw is the parity word, plus t_{S mod 3} on word Nw-3, t_{(S+1) mod 3} on word Nw-2 and S
/// on word Nw-1.
#[inline(always)]
fn inject_word<const N: usize, const S: usize, const I: usize>(
    x: &mut [u64; N],
    key: &[u64; N],
    parity: u64,
    t: &[u64; 3],
) {
    let i = const { I % N };
    let k = const { (S + I) % (N + 1) };
    let mut w = if k == N {
        parity
    } else {
        key[const { (S + I) % (N + 1) % N }]
    };
    if I == N - 3 {
        w = w.wrapping_add(t[const { S % 3 }]);
    } else if I == N - 2 {
        w = w.wrapping_add(t[const { (S + 1) % 3 }]);
    } else if I == N - 1 {
        w = w.wrapping_add(S as u64);
    }
    if N == 4 && I >= N - 3 {
        // Threefish-256 is bound by its dependency chain, and these words' subkey is a sum of
        // two terms: left alone, the compiler adds them to the state one after the other
        // (`lea` then `inc`/`add` on the chain, one cycle more per subkey on a word that feeds
        // the next rotation). `black_box` makes it add the finished sum, computed off the
        // chain: 10-12% faster Threefish-256 on Zen 4 (`compress_blocks::<4>` on 1 MiB, best
        // of 40, 662 -> 727..743 MiB/s). On the wider ciphers, bound by their ALUs, the extra
        // store and load cost 5-8%, so they keep the compiler's order.
        x[i] = x[i].wrapping_add(core::hint::black_box(w));
    } else {
        x[i] = x[i].wrapping_add(w);
    }
}

/// Injects subkey `S`.
#[inline(always)]
fn inject<const N: usize, const S: usize>(
    x: &mut [u64; N],
    key: &[u64; N],
    parity: u64,
    t: &[u64; 3],
) {
    macro_rules! words {
        ($($i:literal)*) => {
            $( if $i < N { inject_word::<N, S, $i>(x, key, parity, t); } )*
        };
    }
    words!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// Eight rounds and the subkeys 2s-1 and 2s that follow their two halves, for each s given.
macro_rules! eight_rounds {
    ($n:ident, $x:ident, $key:ident, $parity:ident, $t:ident; $($s:literal)*) => {
        $(
            four_rounds::<$n, 0>(&mut $x);
            inject::<$n, { 2 * $s - 1 }>(&mut $x, $key, $parity, &$t);
            four_rounds::<$n, 4>(&mut $x);
            inject::<$n, { 2 * $s }>(&mut $x, $key, $parity, &$t);
        )*
    };
}

/// Threefish encryption of one block, fully unrolled. `N` is 4, 8 or 16.
#[inline(always)]
pub fn encrypt<const N: usize>(key: &[u64; N], tweak: [u64; 2], plaintext: &[u64; N]) -> [u64; N] {
    const {
        assert!(
            N == 4 || N == 8 || N == 16,
            "Threefish has 4, 8 or 16 words"
        )
    };
    let parity = key.iter().fold(C240, |acc, k| acc ^ k);
    let t = [tweak[0], tweak[1], tweak[0] ^ tweak[1]];
    let mut x = *plaintext;
    inject::<N, 0>(&mut x, key, parity, &t);
    eight_rounds!(N, x, key, parity, t; 1 2 3 4 5 6 7 8 9);
    if N == 16 {
        // Threefish-1024 has 80 rounds: one more group of eight.
        eight_rounds!(N, x, key, parity, t; 10);
    }
    x
}

/// The UBI compression of one block (Skein 1.3, section 3.4):
/// `H <- E(H, T, M) xor M`.
#[inline(always)]
pub fn compress<const N: usize>(chain: &mut [u64; N], block: &[u64; N], tweak: [u64; 2]) {
    let out = encrypt(chain, tweak, block);
    for i in 0..N {
        chain[i] = out[i] ^ block[i];
    }
}

/// [`compress`] for Threefish-256, not inlined, so that the unrolled body exists once.
#[inline(never)]
pub fn compress256(chain: &mut [u64; 4], block: &[u64; 4], tweak: [u64; 2]) {
    compress(chain, block, tweak)
}

/// [`compress`] for Threefish-512, not inlined, so that the unrolled body exists once.
#[inline(never)]
pub fn compress512(chain: &mut [u64; 8], block: &[u64; 8], tweak: [u64; 2]) {
    compress(chain, block, tweak)
}

/// [`compress`] for Threefish-1024, not inlined, so that the unrolled body exists once.
#[inline(never)]
pub fn compress1024(chain: &mut [u64; 16], block: &[u64; 16], tweak: [u64; 2]) {
    compress(chain, block, tweak)
}

/// Dispatches to the size's compression function.
#[inline(always)]
pub fn compress_words<const N: usize>(chain: &mut [u64; N], block: &[u64; N], tweak: [u64; 2]) {
    match N {
        4 => compress256(cast_mut(chain), cast(block), tweak),
        8 => compress512(cast_mut(chain), cast(block), tweak),
        16 => compress1024(cast_mut(chain), cast(block), tweak),
        _ => compress(chain, block, tweak),
    }
}

/// The First flag of the tweak (bit 126 of T, bit 62 of its second word).
const TWEAK_FIRST: u64 = 1 << 62;

/// The body of [`compress_blocks`].
#[inline(always)]
fn compress_blocks_inline<const N: usize>(chain: &mut [u64; N], blocks: &[u8], tweak: [u64; 2]) {
    debug_assert!(!blocks.is_empty() && blocks.len().is_multiple_of(8 * N));
    let mut h = *chain;
    let [mut t0, mut t1] = tweak;
    for (n, bytes) in blocks.chunks_exact(8 * N).enumerate() {
        if n > 0 {
            // Position is 96 bits: T0 and the low 32 bits of T1, which never carry further.
            let (sum, carry) = t0.overflowing_add(8 * N as u64);
            t0 = sum;
            t1 = (t1 + carry as u64) & !TWEAK_FIRST;
        }
        let m: [u64; N] = core::array::from_fn(|i| {
            u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        });
        let out = encrypt(&h, [t0, t1], &m);
        h = core::array::from_fn(|i| out[i] ^ m[i]);
    }
    *chain = h;
}

/// [`compress_blocks`] for Threefish-256, not inlined, so that the unrolled body exists once.
#[inline(never)]
pub fn compress_blocks256(chain: &mut [u64; 4], blocks: &[u8], tweak: [u64; 2]) {
    compress_blocks_inline(chain, blocks, tweak)
}

/// [`compress_blocks`] for Threefish-512, not inlined, so that the unrolled body exists once.
#[inline(never)]
pub fn compress_blocks512(chain: &mut [u64; 8], blocks: &[u8], tweak: [u64; 2]) {
    compress_blocks_inline(chain, blocks, tweak)
}

/// [`compress_blocks`] for Threefish-1024, not inlined, so that the unrolled body exists once.
#[inline(never)]
pub fn compress_blocks1024(chain: &mut [u64; 16], blocks: &[u8], tweak: [u64; 2]) {
    compress_blocks_inline(chain, blocks, tweak)
}

/// UBI compression of consecutive whole blocks read straight from `blocks` (a multiple of the
/// block size, at least one block): the same as [`compress_words`] once per block, faster,
/// because the chaining value stays in registers from block to block and the tweak is
/// advanced with two additions instead of being rebuilt (5% for Skein-512, 10% for
/// Skein-1024 on 1 MiB). `tweak` is the tweak of the first block (its Position already counts
/// that block); each later block adds the block size to the 96-bit Position and clears the
/// First flag.
#[inline(always)]
pub fn compress_blocks<const N: usize>(chain: &mut [u64; N], blocks: &[u8], tweak: [u64; 2]) {
    match N {
        4 => compress_blocks256(cast_mut(chain), blocks, tweak),
        8 => compress_blocks512(cast_mut(chain), blocks, tweak),
        16 => compress_blocks1024(cast_mut(chain), blocks, tweak),
        _ => compress_blocks_inline(chain, blocks, tweak),
    }
}

#[inline(always)]
fn cast_mut<const N: usize, const M: usize>(a: &mut [u64; N]) -> &mut [u64; M] {
    a.as_mut_slice().try_into().expect("dispatch on N == M")
}

#[inline(always)]
fn cast<const N: usize, const M: usize>(a: &[u64; N]) -> &[u64; M] {
    a.as_slice().try_into().expect("dispatch on N == M")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `compress_blocks` equals `compress_words` block by block, including a Position that
    /// carries from T0 into T1 and a first block with and without the First flag.
    fn blocks_equal_one_by_one<const N: usize>() {
        let bytes: [u8; 8 * 16 * 5] = core::array::from_fn(|i| (i * 37 + 11) as u8);
        let blocks = &bytes[..8 * N * 5];
        for (t0, first) in [(8 * N as u64, true), (u64::MAX - 8 * N as u64 + 1, false)] {
            let t1 = (48u64 << 56) | if first { TWEAK_FIRST } else { 0 } | 0xffff_fffe;
            let start: [u64; N] = core::array::from_fn(|i| i as u64 * 0x0123_4567_89ab_cdef);
            let mut fast = start;
            compress_blocks(&mut fast, blocks, [t0, t1]);
            let mut slow = start;
            let position = (t0 as u128) | (((t1 & 0xffff_ffff) as u128) << 64);
            for (n, b) in blocks.chunks_exact(8 * N).enumerate() {
                let p = position + (n * 8 * N) as u128;
                let flags = t1 & !0xffff_ffff & if n == 0 { !0 } else { !TWEAK_FIRST };
                let m: [u64; N] = core::array::from_fn(|i| {
                    u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
                });
                compress_words(&mut slow, &m, [p as u64, flags | (p >> 64) as u64]);
            }
            assert_eq!(fast, slow);
        }
    }

    #[test]
    fn compress_blocks_equals_compress_words() {
        blocks_equal_one_by_one::<4>();
        blocks_equal_one_by_one::<8>();
        blocks_equal_one_by_one::<16>();
    }
}
