//! The fast Threefish: all rounds unrolled at compile time, the permutation done by renaming
//! registers instead of moving words (as the optimized reference C code does), and subkeys added
//! straight from the key and tweak words. It reads the same rotation and permutation tables as
//! [`crate::threefish`], and is tested against it.

use crate::constants::{permutation, rotation};
use crate::threefish::{extend_tweak, key_parity};

/// `PLACEMENT[r][i]`: the array slot that holds logical word i after r rounds of a four-round
/// group, when the permutation is done by renaming. Since pi^4 is the identity for all three
/// sizes, every group starts and ends with the words in place, which is also where the subkey
/// is injected.
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

const LOOPED: bool = false;

const PLACEMENT_256: [[usize; 16]; 5] = placement(4);
const PLACEMENT_512: [[usize; 16]; 5] = placement(8);
const PLACEMENT_1024: [[usize; 16]; 5] = placement(16);

const fn placement_table(words: usize) -> &'static [[usize; 16]; 5] {
    match words {
        4 => &PLACEMENT_256,
        8 => &PLACEMENT_512,
        _ => &PLACEMENT_1024,
    }
}

/// Four rounds d = D..D+4 (D is 0 or 4 modulo 8), MIX on renamed slots.
#[inline(always)]
fn four_rounds<const N: usize, const D: usize>(x: &mut [u64; N]) {
    let p = placement_table(N);
    let mut r = 0;
    while r < 4 {
        let mut j = 0;
        while j < N / 2 {
            let a = p[r][2 * j];
            let b = p[r][2 * j + 1];
            x[a] = x[a].wrapping_add(x[b]);
            x[b] = x[b].rotate_left(rotation(N, D + r, j)) ^ x[a];
            j += 1;
        }
        r += 1;
    }
}

/// Injects subkey S.
#[inline(always)]
fn inject<const N: usize, const S: usize>(x: &mut [u64; N], k: &[u64; N], parity: u64, t: &[u64; 3]) {
    let mut i = 0;
    while i < N {
        let ki = (S + i) % (N + 1);
        let mut w = if ki == N { parity } else { k[ki] };
        if i == N - 3 {
            w = w.wrapping_add(t[S % 3]);
        } else if i == N - 2 {
            w = w.wrapping_add(t[(S + 1) % 3]);
        } else if i == N - 1 {
            w = w.wrapping_add(S as u64);
        }
        x[i] = x[i].wrapping_add(w);
        i += 1;
    }
}

macro_rules! eight_rounds {
    ($n:ident, $x:ident, $k:ident, $parity:ident, $t:ident, $s1:literal, $s2:literal) => {
        four_rounds::<$n, 0>(&mut $x);
        inject::<$n, $s1>(&mut $x, $k, $parity, &$t);
        four_rounds::<$n, 4>(&mut $x);
        inject::<$n, $s2>(&mut $x, $k, $parity, &$t);
    };
}

/// Threefish encryption of one block, fully unrolled. `N` is 4, 8 or 16.
#[inline(always)]
pub fn encrypt<const N: usize>(key: &[u64; N], tweak: [u64; 2], plaintext: &[u64; N]) -> [u64; N] {
    let parity = key_parity(key);
    let t = extend_tweak(tweak);
    let mut x = *plaintext;
    inject::<N, 0>(&mut x, key, parity, &t);
    eight_rounds!(N, x, key, parity, t, 1, 2);
    eight_rounds!(N, x, key, parity, t, 3, 4);
    eight_rounds!(N, x, key, parity, t, 5, 6);
    eight_rounds!(N, x, key, parity, t, 7, 8);
    eight_rounds!(N, x, key, parity, t, 9, 10);
    eight_rounds!(N, x, key, parity, t, 11, 12);
    eight_rounds!(N, x, key, parity, t, 13, 14);
    eight_rounds!(N, x, key, parity, t, 15, 16);
    eight_rounds!(N, x, key, parity, t, 17, 18);
    if N == 16 {
        // Threefish-1024 has 80 rounds: one more group of eight.
        eight_rounds!(N, x, key, parity, t, 19, 20);
    }
    x
}

/// Adds subkey s from the key words `ks` (the extended key from index s mod (Nw+1) on) and the
/// tweak words `ts` (the extended tweak from index s mod 3 on).
#[inline(always)]
fn inject_from<const N: usize>(x: &mut [u64; N], ks: &[u64], ts: &[u64], s: u64) {
    let ks = &ks[..N];
    let ts = &ts[..2];
    let mut i = 0;
    while i < N - 3 {
        x[i] = x[i].wrapping_add(ks[i]);
        i += 1;
    }
    x[N - 3] = x[N - 3].wrapping_add(ks[N - 3].wrapping_add(ts[0]));
    x[N - 2] = x[N - 2].wrapping_add(ks[N - 2].wrapping_add(ts[1]));
    x[N - 1] = x[N - 1].wrapping_add(ks[N - 1].wrapping_add(s));
}

/// Threefish encryption with eight rounds unrolled in a loop: the whole cipher would not fit the
/// instruction cache of the front end, and this small loop runs faster (Skein 1.3, section 6.1
/// makes the same observation). The key is stored twice over and the tweak as t0 t1 t2 t0 t1 so
/// that subkey s reads contiguous words without a modulo.
#[inline(always)]
pub fn encrypt_looped<const N: usize>(
    key: &[u64; N],
    tweak: [u64; 2],
    plaintext: &[u64; N],
) -> [u64; N] {
    let parity = key_parity(key);
    let mut ks = [0u64; 34];
    for i in 0..2 * (N + 1) {
        let j = i % (N + 1);
        ks[i] = if j == N { parity } else { key[j] };
    }
    let t = extend_tweak(tweak);
    let ts = [t[0], t[1], t[2], t[0], t[1]];
    let mut x = *plaintext;
    inject_from(&mut x, &ks, &ts, 0);
    let (mut k, mut t) = (0usize, 0usize);
    let mut s = 0u64;
    for _ in 0..crate::constants::rounds(N) / 8 {
        four_rounds::<N, 0>(&mut x);
        k = if k == N { 0 } else { k + 1 };
        t = if t == 2 { 0 } else { t + 1 };
        s += 1;
        inject_from(&mut x, &ks[k..], &ts[t..], s);
        four_rounds::<N, 4>(&mut x);
        k = if k == N { 0 } else { k + 1 };
        t = if t == 2 { 0 } else { t + 1 };
        s += 1;
        inject_from(&mut x, &ks[k..], &ts[t..], s);
    }
    x
}

/// The UBI compression of one block (Skein 1.3, section 3.4):
/// `H <- E(H, T, M) xor M`.
#[inline(always)]
pub fn compress<const N: usize>(chain: &mut [u64; N], block: &[u64; N], tweak: [u64; 2]) {
    let out = if LOOPED { encrypt_looped(chain, tweak, block) } else { encrypt(chain, tweak, block) };
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

#[inline(always)]
fn cast_mut<const N: usize, const M: usize>(a: &mut [u64; N]) -> &mut [u64; M] {
    a.as_mut_slice().try_into().expect("dispatch on N == M")
}

#[inline(always)]
fn cast<const N: usize, const M: usize>(a: &[u64; N]) -> &[u64; M] {
    a.as_slice().try_into().expect("dispatch on N == M")
}
