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
//! | [`crate::batch::Backend::Portable8`]| [`Portable`]  | 8 | a `[u64; 8]` array (plain Rust, any CPU) |
//!
//! so the 8-lane logic the AVX-512 machine runs is exercised on every machine through
//! [`Portable`], and the AVX2 instantiation runs the very same source. The one-lane scalar
//! path stays [`crate::fast`] ([`run_scalar`]): a single block gains nothing from vectors.
//!
//! Every function of the engine is `#[inline(always)]` and without target features; each
//! backend has one entry point with `#[target_feature(enable = ...)]` into which the whole
//! engine (and the intrinsics the `Lanes` methods call) is inlined, so the unrolled rounds end
//! up in one body with the state in registers. The `Lanes` values of the x86 backends are
//! tokens that exist only after the CPU check, which is what makes their intrinsic calls
//! sound.

use crate::constants::{C240, rotation};

// The renamed-slot table is the fast cipher's: the lanes run the same schedule of MIXes.
use crate::fast::slot;

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

/// The plain-Rust lanes: `[u64; L]` arrays, on any CPU. Used for the 8-lane backend
/// [`crate::batch::Backend::Portable8`], which tests the 8-lane logic everywhere.
#[derive(Clone, Copy)]
pub(crate) struct Portable;

impl<const L: usize> Lanes<L> for Portable {
    type V = [u64; L];
    #[inline(always)]
    fn splat(self, w: u64) -> [u64; L] {
        [w; L]
    }
    #[inline(always)]
    fn load(self, w: [u64; L]) -> [u64; L] {
        w
    }
    #[inline(always)]
    fn store(self, v: [u64; L]) -> [u64; L] {
        v
    }
    #[inline(always)]
    fn add(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] = a[l].wrapping_add(b[l]);
        }
        a
    }
    #[inline(always)]
    fn xor(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] ^= b[l];
        }
        a
    }
    #[inline(always)]
    fn or(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] |= b[l];
        }
        a
    }
    #[inline(always)]
    fn and(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] &= b[l];
        }
        a
    }
    #[inline(always)]
    fn andnot(self, a: [u64; L], mut b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            b[l] &= !a[l];
        }
        b
    }
    #[inline(always)]
    fn rotl(self, mut v: [u64; L], r: u32) -> [u64; L] {
        for w in &mut v {
            *w = w.rotate_left(r);
        }
        v
    }
}

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

/// The [`Run`] written once for every [`Lanes`] implementation: see [`Run`] for the contract.
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

/// The [`Run`] on eight portable lanes ([`Portable`]).
pub(crate) fn run_portable8<const N: usize>(
    chain: &mut [[u64; 8]; N],
    data: [&[u8]; 8],
    tweak: [[u64; 8]; 2],
    last: [u64; 8],
    steps: usize,
) {
    run_lanes::<Portable, 8, N>(Portable, chain, data, tweak, last, steps);
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

/// The x86-64 vector backends: AVX2 (4 lanes in a `__m256i`) and AVX-512 (8 lanes in a
/// `__m512i`), each a token that exists only when the CPU has the instruction set.
///
/// The AVX2 rotation is two variable-count shifts (LLVM folds the constant count into
/// immediate shifts) and an OR, except that a rotation by a whole number of bytes is one byte
/// shuffle (`vpshufb`); AVX-512 has the 64-bit rotate `vprolq`. AVX2 loads a block's words
/// with whole-row loads and a 4 x 4 transposition (8 shuffles for 4 words of 4 lanes instead
/// of 16 inserts); AVX-512 does the same with whole 64-byte rows and an 8 x 8 transposition
/// (24 shuffles), Threefish-256 excepted.
///
/// Where the AVX2 time goes (AMD Zen 3, Threefish-512; instruction counts from the object
/// code, cycles from `llvm-mca -mcpu=znver3` and from timing): a run step (one block in each
/// of 4 lanes) is about 1,750 instructions, 1,600 of them vector ALU operations, 504 of those
/// shifts that only two of the four vector pipes execute: at best 400 cycles, about 486
/// measured, 122 cycles a block, against 285 for the scalar cipher: four lanes are at most
/// about 2.4 times one. With `vprolq` a rotation is one operation on any pipe, and a
/// `zmm` holds 8 lanes, so the AVX-512 step does twice the blocks in fewer instructions.
///
/// Tried and left out for AVX2 (measured on Zen 3): two groups of four lanes interleaved
/// (30% slower: 16 state words do not fit 16 `ymm` registers); a fifth, scalar lane
/// interleaved with the vector lanes (LLVM doubled its instructions; slower).
///
/// Where the AVX-512 time goes (the test machine's "AMD EPYC" is family 25 model 17, Zen 4,
/// which runs a 512-bit operation as two halves on its 256-bit pipes; Threefish-512, CPU time,
/// the ignored test `lane_speed`): a step (one block in each of 8 lanes) is about 1,050 vector
/// operations (467 `vpaddq`, 297 `vpxorq`, 288 `vprolq`, no spills), 2,100 halves for four
/// pipes: at least 526 cycles. Measured: 51.4 M blocks/s, about 570 cycles a step at the
/// 3.66 GHz the core runs: 92% of that bound, so this core has little left for interleaved
/// lane groups or other scheduling (a core with full-width 512-bit pipes, as Zen 5, doubles
/// the bound). The scalar cipher does 12.9 M blocks/s on data in L2 or memory, as plain
/// `hash` does (824 MB/s): the lanes are at most 4.0 times it on this core, 4.3 at the bound.
///
/// Tried and left out for AVX-512 (Zen 4): a ninth, scalar lane beside the eight in the same
/// instruction stream (the integer ALUs are not the vector pipes): 28.9 M blocks/s against
/// 51.3, LLVM spilling the scalar lane's key and tweak words; the placement of the 8 lanes'
/// leaves (blocks 32 KiB apart as in a file window, neighbouring leaves, one leaf for all)
/// changes nothing (51.5, 51.4, 52.4 M blocks/s).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86 {
    use core::arch::x86_64::{
        __m256i, __m512i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_loadu_si256, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set_epi64x,
        _mm256_set1_epi64x, _mm256_shuffle_epi8, _mm256_sllv_epi64, _mm256_srlv_epi64,
        _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm256_xor_si256, _mm512_add_epi64,
        _mm512_and_si512, _mm512_andnot_si512, _mm512_loadu_si512, _mm512_or_si512,
        _mm512_rolv_epi64, _mm512_set1_epi64, _mm512_shuffle_i64x2, _mm512_unpackhi_epi64,
        _mm512_unpacklo_epi64, _mm512_xor_si512,
    };

    use super::{Lanes, gather_block, run_lanes};

    /// Proof that the CPU has AVX2: made only by [`Avx2::new`].
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// The token, if this CPU has AVX2.
        pub(crate) fn new() -> Option<Self> {
            crate::batch::avx2_available().then_some(Avx2(()))
        }
    }

    /// Proof that the CPU has AVX-512 Foundation: made only by [`Avx512::new`].
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512(());

    impl Avx512 {
        /// The token, if this CPU has AVX-512F.
        pub(crate) fn new() -> Option<Self> {
            crate::batch::avx512_available().then_some(Avx512(()))
        }
    }

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

    // SAFETY (every `unsafe` block in the two impls): the intrinsics need AVX2 (AVX-512F) and
    // have no other requirement; `self` is an `Avx2` (`Avx512`) token, which exists only when
    // run-time detection found the feature (or the build enables it statically). Loads read
    // from references to arrays of exactly the vector's size.
    impl Lanes<4> for Avx2 {
        type V = __m256i;
        #[inline(always)]
        fn splat(self, w: u64) -> __m256i {
            unsafe { _mm256_set1_epi64x(w as i64) }
        }
        #[inline(always)]
        fn load(self, w: [u64; 4]) -> __m256i {
            unsafe { _mm256_loadu_si256(w.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store(self, v: __m256i) -> [u64; 4] {
            // SAFETY: both are 32 bytes of plain integers.
            unsafe { core::mem::transmute::<__m256i, [u64; 4]>(v) }
        }
        #[inline(always)]
        fn add(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_add_epi64(a, b) }
        }
        #[inline(always)]
        fn xor(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_xor_si256(a, b) }
        }
        #[inline(always)]
        fn or(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_or_si256(a, b) }
        }
        #[inline(always)]
        fn and(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_and_si256(a, b) }
        }
        #[inline(always)]
        fn andnot(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_andnot_si256(a, b) }
        }
        #[inline(always)]
        fn rotl(self, v: __m256i, r: u32) -> __m256i {
            unsafe {
                if r.is_multiple_of(8) {
                    let lo = byte_rotation(r / 8, 0) as i64;
                    let hi = byte_rotation(r / 8, 1) as i64;
                    return _mm256_shuffle_epi8(v, _mm256_set_epi64x(hi, lo, hi, lo));
                }
                _mm256_or_si256(
                    _mm256_sllv_epi64(v, _mm256_set1_epi64x(i64::from(r))),
                    _mm256_srlv_epi64(v, _mm256_set1_epi64x(64 - i64::from(r))),
                )
            }
        }
        #[inline(always)]
        fn load_block<const N: usize>(self, blocks: [&[u8]; 4]) -> [__m256i; N] {
            let mut m = [self.splat(0); N];
            let mut g = 0;
            while g < N / 4 {
                let mut r = [self.splat(0); 4];
                for (r, block) in r.iter_mut().zip(blocks) {
                    let row: &[u8; 32] = block[32 * g..32 * g + 32].try_into().expect("32 bytes");
                    *r = unsafe { _mm256_loadu_si256(row.as_ptr().cast()) };
                }
                // r[l] = words 4g..4g+4 of lane l; transpose to words of lanes 0..4.
                unsafe {
                    let a = _mm256_unpacklo_epi64(r[0], r[1]); // w0 of l0, l1 | w2 of l0, l1
                    let b = _mm256_unpackhi_epi64(r[0], r[1]); // w1 | w3
                    let c = _mm256_unpacklo_epi64(r[2], r[3]);
                    let d = _mm256_unpackhi_epi64(r[2], r[3]);
                    m[4 * g] = _mm256_permute2x128_si256::<0x20>(a, c);
                    m[4 * g + 1] = _mm256_permute2x128_si256::<0x20>(b, d);
                    m[4 * g + 2] = _mm256_permute2x128_si256::<0x31>(a, c);
                    m[4 * g + 3] = _mm256_permute2x128_si256::<0x31>(b, d);
                }
                g += 1;
            }
            m
        }
    }

    impl Lanes<8> for Avx512 {
        type V = __m512i;
        #[inline(always)]
        fn splat(self, w: u64) -> __m512i {
            unsafe { _mm512_set1_epi64(w as i64) }
        }
        #[inline(always)]
        fn load(self, w: [u64; 8]) -> __m512i {
            unsafe { _mm512_loadu_si512(w.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store(self, v: __m512i) -> [u64; 8] {
            // SAFETY: both are 64 bytes of plain integers.
            unsafe { core::mem::transmute::<__m512i, [u64; 8]>(v) }
        }
        #[inline(always)]
        fn add(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_add_epi64(a, b) }
        }
        #[inline(always)]
        fn xor(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_xor_si512(a, b) }
        }
        #[inline(always)]
        fn or(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_or_si512(a, b) }
        }
        #[inline(always)]
        fn and(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_and_si512(a, b) }
        }
        #[inline(always)]
        fn andnot(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_andnot_si512(a, b) }
        }
        #[inline(always)]
        fn rotl(self, v: __m512i, r: u32) -> __m512i {
            // A constant count after inlining: LLVM emits `vprolq` with an immediate.
            unsafe { _mm512_rolv_epi64(v, _mm512_set1_epi64(i64::from(r))) }
        }
        /// Whole 64-byte rows (8 words of one lane) and an 8 x 8 transposition in registers:
        /// 8 loads and 24 shuffles for 8 words, against 64 word loads and 56 inserts for the
        /// gather (Threefish-256's 32-byte blocks keep the gather).
        #[inline(always)]
        fn load_block<const N: usize>(self, blocks: [&[u8]; 8]) -> [__m512i; N] {
            if !N.is_multiple_of(8) {
                return gather_block::<Self, 8, N>(self, blocks);
            }
            let mut m = [self.splat(0); N];
            let mut g = 0;
            while g < N / 8 {
                let mut r = [self.splat(0); 8];
                for (r, block) in r.iter_mut().zip(blocks) {
                    let row: &[u8; 64] = block[64 * g..64 * g + 64].try_into().expect("64 bytes");
                    *r = unsafe { _mm512_loadu_si512(row.as_ptr().cast()) };
                }
                // r[l] = words 8g..8g+8 of lane l.
                let t = transpose8(self, r);
                m[8 * g..8 * g + 8].copy_from_slice(&t);
                g += 1;
            }
            m
        }
    }

    /// The 8 x 8 transposition of 64-bit words: `r[l]` is row l, the result's vector i holds
    /// word i of every row. Unpacking pairs rows word by word (chunk k of `a[j]` is word 2k of
    /// rows 2j and 2j + 1, `b[j]` word 2k + 1), then two rounds of 128-bit chunk shuffles
    /// (`vshufi64x2`: 0x88 takes chunks 0, 2 of each source, 0xDD chunks 1, 3) gather the
    /// four pairs of one word.
    #[inline(always)]
    fn transpose8(_: Avx512, r: [__m512i; 8]) -> [__m512i; 8] {
        // SAFETY: as in the impls above; the token proves AVX-512F.
        unsafe {
            let a: [__m512i; 4] =
                core::array::from_fn(|j| _mm512_unpacklo_epi64(r[2 * j], r[2 * j + 1]));
            let b: [__m512i; 4] =
                core::array::from_fn(|j| _mm512_unpackhi_epi64(r[2 * j], r[2 * j + 1]));
            // Rows 0..4 and 4..8: words (0, 4) and (2, 6) from `a`, (1, 5) and (3, 7) from `b`.
            let c0 = _mm512_shuffle_i64x2::<0x88>(a[0], a[1]);
            let c1 = _mm512_shuffle_i64x2::<0xDD>(a[0], a[1]);
            let c2 = _mm512_shuffle_i64x2::<0x88>(a[2], a[3]);
            let c3 = _mm512_shuffle_i64x2::<0xDD>(a[2], a[3]);
            let d0 = _mm512_shuffle_i64x2::<0x88>(b[0], b[1]);
            let d1 = _mm512_shuffle_i64x2::<0xDD>(b[0], b[1]);
            let d2 = _mm512_shuffle_i64x2::<0x88>(b[2], b[3]);
            let d3 = _mm512_shuffle_i64x2::<0xDD>(b[2], b[3]);
            [
                _mm512_shuffle_i64x2::<0x88>(c0, c2),
                _mm512_shuffle_i64x2::<0x88>(d0, d2),
                _mm512_shuffle_i64x2::<0x88>(c1, c3),
                _mm512_shuffle_i64x2::<0x88>(d1, d3),
                _mm512_shuffle_i64x2::<0xDD>(c0, c2),
                _mm512_shuffle_i64x2::<0xDD>(d0, d2),
                _mm512_shuffle_i64x2::<0xDD>(c1, c3),
                _mm512_shuffle_i64x2::<0xDD>(d1, d3),
            ]
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn run_avx2_tf<const N: usize>(
        s: Avx2,
        chain: &mut [[u64; 4]; N],
        data: [&[u8]; 4],
        tweak: [[u64; 4]; 2],
        last: [u64; 4],
        steps: usize,
    ) {
        run_lanes::<Avx2, 4, N>(s, chain, data, tweak, last, steps);
    }

    #[target_feature(enable = "avx512f")]
    #[inline(never)]
    fn run_avx512_tf<const N: usize>(
        s: Avx512,
        chain: &mut [[u64; 8]; N],
        data: [&[u8]; 8],
        tweak: [[u64; 8]; 2],
        last: [u64; 8],
        steps: usize,
    ) {
        run_lanes::<Avx512, 8, N>(s, chain, data, tweak, last, steps);
    }

    /// The [`super::Run`] on four AVX2 lanes.
    ///
    /// # Panics
    /// If the CPU lacks AVX2.
    pub(crate) fn run_avx2<const N: usize>(
        chain: &mut [[u64; 4]; N],
        data: [&[u8]; 4],
        tweak: [[u64; 4]; 2],
        last: [u64; 4],
        steps: usize,
    ) {
        let s = Avx2::new().expect("AVX2 is not available");
        // SAFETY: the token exists, so the CPU has AVX2, the function's only requirement.
        unsafe { run_avx2_tf::<N>(s, chain, data, tweak, last, steps) }
    }

    /// The [`super::Run`] on eight AVX-512 lanes.
    ///
    /// # Panics
    /// If the CPU lacks AVX-512F.
    pub(crate) fn run_avx512<const N: usize>(
        chain: &mut [[u64; 8]; N],
        data: [&[u8]; 8],
        tweak: [[u64; 8]; 2],
        last: [u64; 8],
        steps: usize,
    ) {
        let s = Avx512::new().expect("AVX-512F is not available");
        // SAFETY: the token exists, so the CPU has AVX-512F, the function's only requirement.
        unsafe { run_avx512_tf::<N>(s, chain, data, tweak, last, steps) }
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
            let mut t =
                crate::stream_tree::TreeHasher::new(backend, false, 512, 512, &params).unwrap();
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
}
