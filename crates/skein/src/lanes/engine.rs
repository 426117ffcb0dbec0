//! The cipher and the UBI run loop, written once for every [`Lanes`] implementation.

use super::{Lanes, TWEAK_FIRST};

use crate::constants::{C240, rotation};

// The renamed-slot table is the fast cipher's: the lanes run the same schedule of MIXes.
use crate::fast::slot;

/// MIX `J` of round `D + R` on all lanes: `a += b; b = (b <<< rot) ^ a`.
#[inline(always)]
fn mix<
    S: Lanes<L>,
    const L: usize,
    const N: usize,
    const D: usize,
    const R: usize,
    const J: usize,
>(
    s: S,
    x: &mut [S::V; N],
) {
    let a = const { slot(N, R, 2 * J) };
    let b = const { slot(N, R, 2 * J + 1) };
    let rot = const { rotation(N, D + R, J % (N / 2)) };
    x[a] = s.add(x[a], x[b]);
    x[b] = s.xor(s.rotl(x[b], rot), x[a]);
}

/// Round `D + R`: its N/2 MIXes.
#[inline(always)]
fn round<S: Lanes<L>, const L: usize, const N: usize, const D: usize, const R: usize>(
    s: S,
    x: &mut [S::V; N],
) {
    mix::<S, L, N, D, R, 0>(s, x);
    mix::<S, L, N, D, R, 1>(s, x);
    if N >= 8 {
        mix::<S, L, N, D, R, 2>(s, x);
        mix::<S, L, N, D, R, 3>(s, x);
    }
    if N >= 16 {
        mix::<S, L, N, D, R, 4>(s, x);
        mix::<S, L, N, D, R, 5>(s, x);
        mix::<S, L, N, D, R, 6>(s, x);
        mix::<S, L, N, D, R, 7>(s, x);
    }
}

/// Four rounds D..D+4, D being 0 or 4 modulo 8.
#[inline(always)]
fn four_rounds<S: Lanes<L>, const L: usize, const N: usize, const D: usize>(
    s: S,
    x: &mut [S::V; N],
) {
    round::<S, L, N, D, 0>(s, x);
    round::<S, L, N, D, 1>(s, x);
    round::<S, L, N, D, 2>(s, x);
    round::<S, L, N, D, 3>(s, x);
}

/// Adds subkey `SK` (Skein 1.3, section 3.3.2): word I gets k_{(SK+I) mod (N+1)} (`ks[N]` is
/// the parity word), plus t_{SK mod 3}, t_{(SK+1) mod 3} and SK on the last three words.
/// (The key-plus-tweak sums repeat from subkey to subkey; LLVM computes each distinct one
/// once.)
#[inline(always)]
fn inject<S: Lanes<L>, const L: usize, const N: usize, const SK: usize>(
    s: S,
    x: &mut [S::V; N],
    ks: &[S::V; 17],
    t: &[S::V; 3],
) {
    for (i, w) in x.iter_mut().enumerate() {
        let mut k = ks[(SK + i) % (N + 1)];
        if i == N - 3 {
            k = s.add(k, t[SK % 3]);
        } else if i == N - 2 {
            k = s.add(k, t[(SK + 1) % 3]);
        } else if i == N - 1 {
            k = s.add(k, s.splat(SK as u64));
        }
        *w = s.add(*w, k);
    }
}

/// Eight rounds and the subkeys 2s-1 and 2s that follow their two halves, for each s given.
macro_rules! eight_rounds {
    ($s:ident, $l:ident, $n:ident, $x:ident, $ks:ident, $t:ident; $($k:literal)*) => {
        $(
            four_rounds::<S, $l, $n, 0>($s, &mut $x);
            inject::<S, $l, $n, { 2 * $k - 1 }>($s, &mut $x, &$ks, &$t);
            four_rounds::<S, $l, $n, 4>($s, &mut $x);
            inject::<S, $l, $n, { 2 * $k }>($s, &mut $x, &$ks, &$t);
        )*
    };
}

/// Threefish of every lane in place on `x` (the plaintext words): `ks` the key words and the
/// parity word `ks[N]`, `t` the tweak words t0, t1, t2.
#[inline(always)]
fn encrypt<S: Lanes<L>, const L: usize, const N: usize>(
    s: S,
    x: &mut [S::V; N],
    ks: &[S::V; 17],
    t: &[S::V; 3],
) {
    const {
        assert!(
            N == 4 || N == 8 || N == 16,
            "Threefish has 4, 8 or 16 words"
        )
    };
    let mut y = *x;
    inject::<S, L, N, 0>(s, &mut y, ks, t);
    eight_rounds!(s, L, N, y, ks, t; 1 2 3 4 5 6 7 8 9);
    if N == 16 {
        // Threefish-1024 has 80 rounds: one more group of eight.
        eight_rounds!(s, L, N, y, ks, t; 10);
    }
    *x = y;
}

/// The [`Run`](super::Run) written once for every [`Lanes`] implementation: see [`Run`](super::Run) for the contract.
/// The chaining values stay in vectors from block to block and the tweak advances with two
/// vector operations.
#[inline(always)]
pub(crate) fn run_lanes<S: Lanes<L>, const L: usize, const N: usize>(
    s: S,
    chain: &mut [[u64; L]; N],
    data: [&[u8]; L],
    tweak: [[u64; L]; 2],
    last: [u64; L],
    steps: usize,
) {
    let nb = N * 8;
    assert!(steps > 0, "a run has at least one block");
    for d in &data {
        assert!(
            d.len() >= steps * nb,
            "a lane has fewer blocks than the run"
        );
    }
    let mut h = [s.splat(0); N];
    for i in 0..N {
        h[i] = s.load(chain[i]);
    }
    let mut t0 = s.load(tweak[0]);
    let mut t1 = s.load(tweak[1]);
    let last = s.load(last);
    let first = s.splat(TWEAK_FIRST);
    let block_bytes = s.splat(nb as u64);
    let mut blocks = data;
    for step in 0..steps {
        let off = step * nb;
        for l in 0..L {
            blocks[l] = &data[l][off..off + nb];
        }
        let m: [S::V; N] = s.load_block::<N>(blocks);
        let is_last = s.splat(0u64.wrapping_sub(u64::from(step + 1 == steps)));
        let t1s = s.or(t1, s.and(last, is_last));
        let mut ks = [s.splat(0); 17];
        let mut parity = s.splat(C240);
        for i in 0..N {
            ks[i] = h[i];
            parity = s.xor(parity, h[i]);
        }
        ks[N] = parity;
        let t = [t0, t1s, s.xor(t0, t1s)];
        let mut x = m;
        encrypt::<S, L, N>(s, &mut x, &ks, &t);
        for i in 0..N {
            h[i] = s.xor(x[i], m[i]);
        }
        t0 = s.add(t0, block_bytes);
        t1 = s.andnot(first, t1);
    }
    for i in 0..N {
        chain[i] = s.store(h[i]);
    }
}
