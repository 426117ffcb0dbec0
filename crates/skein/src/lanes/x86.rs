//! The x86-64 vector backends: AVX2 (4 lanes in a `__m256i`) and AVX-512 (8 lanes in a
//! `__m512i`), each a token that exists only when the CPU has the instruction set.
//!
//! The AVX2 rotation is two variable-count shifts (LLVM folds the constant count into
//! immediate shifts) and an OR, except that a rotation by a whole number of bytes is one byte
//! shuffle (`vpshufb`); AVX-512 has the 64-bit rotate `vprolq`. AVX2 loads a block's words
//! with whole-row loads and a 4 x 4 transposition (8 shuffles for 4 words of 4 lanes instead
//! of 16 inserts); AVX-512 does the same with whole 64-byte rows and an 8 x 8 transposition
//! (24 shuffles), Threefish-256 excepted.
//!
//! Where the AVX2 time goes (AMD Zen 3, Threefish-512; instruction counts from the object
//! code, cycles from `llvm-mca -mcpu=znver3` and from timing): a run step (one block in each
//! of 4 lanes) is about 1,750 instructions, 1,600 of them vector ALU operations, 504 of those
//! shifts that only two of the four vector pipes execute: at best 400 cycles, about 486
//! measured, 122 cycles a block, against 285 for the scalar cipher: four lanes are at most
//! about 2.4 times one. With `vprolq` a rotation is one operation on any pipe, and a
//! `zmm` holds 8 lanes, so the AVX-512 step does twice the blocks in fewer instructions.
//!
//! Tried and left out for AVX2 (measured on Zen 3): two groups of four lanes interleaved
//! (30% slower: 16 state words do not fit 16 `ymm` registers); a fifth, scalar lane
//! interleaved with the vector lanes (LLVM doubled its instructions; slower).
//!
//! Where the AVX-512 time goes (the test machine's "AMD EPYC" is family 25 model 17, Zen 4,
//! which runs a 512-bit operation as two halves on its 256-bit pipes; Threefish-512, CPU time,
//! the ignored test `lane_speed`): a step (one block in each of 8 lanes) is about 1,050 vector
//! operations (467 `vpaddq`, 297 `vpxorq`, 288 `vprolq`, no spills), 2,100 halves for four
//! pipes: at least 526 cycles. Measured: 51.4 M blocks/s, about 570 cycles a step at the
//! 3.66 GHz the core runs: 92% of that bound, so this core has little left for interleaved
//! lane groups or other scheduling (a core with full-width 512-bit pipes, as Zen 5, doubles
//! the bound). The scalar cipher does 12.9 M blocks/s on data in L2 or memory, as plain
//! `hash` does (824 MB/s): the lanes are at most 4.0 times it on this core, 4.3 at the bound.
//!
//! Tried and left out for AVX-512 (Zen 4): a ninth, scalar lane beside the eight in the same
//! instruction stream (the integer ALUs are not the vector pipes): 28.9 M blocks/s against
//! 51.3, LLVM spilling the scalar lane's key and tweak words; the placement of the 8 lanes'
//! leaves (blocks 32 KiB apart as in a file window, neighbouring leaves, one leaf for all)
//! changes nothing (51.5, 51.4, 52.4 M blocks/s).

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_loadu_si256,
    _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set_epi64x, _mm256_set1_epi64x,
    _mm256_shuffle_epi8, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi64, _mm256_xor_si256, _mm512_add_epi64, _mm512_and_si512,
    _mm512_andnot_si512, _mm512_loadu_si512, _mm512_or_si512, _mm512_rolv_epi64, _mm512_set1_epi64,
    _mm512_shuffle_i64x2, _mm512_unpackhi_epi64, _mm512_unpacklo_epi64, _mm512_xor_si512,
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
