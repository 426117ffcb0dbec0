//! The Shabal round, step by step, in the words of the hardware paper: the state (A, B, C, M,
//! W), the message injection (B += M, A xor W), the keyed permutation P as an NLFSR (the B
//! rotation, 48 iterations of COMBINE and NL, the 36 final additions of C into A), C -= M, the
//! B/C swap and the counter increment.
//!
//! This is also the fast implementation: [`permute`] is the 48 calls of [`iteration`] written
//! out, so that every index is a constant once inlined, and the hasher runs [`message_round`] on
//! a local copy of the state. A cycle simulator that does f iterations per clock calls
//! [`iteration`] f times per cycle and sees exactly the words the hasher sees.
//!
//! Everything is a `const fn`: the initial values are derived at compile time by the same code
//! (see [`prefix_state`]), not copied from tables.
//!
//! ```
//! use skeinhw_shabal::perm::{self, State};
//! let mut s = *perm::initial_state(256).unwrap();
//! s.m = [0; 16];
//! perm::add_message(&mut s);
//! perm::xor_counter(&mut s);
//! perm::rotate_b(&mut s);
//! for i in 0..48 {
//!     perm::iteration(&mut s, i);
//! }
//! perm::final_additions(&mut s);
//! perm::sub_message(&mut s);
//! perm::swap_bc(&mut s);
//! perm::increment_counter(&mut s);
//!
//! let mut t = *perm::initial_state(256).unwrap();
//! t.m = [0; 16];
//! perm::message_round(&mut t);
//! assert_eq!(s, t);
//! ```

use crate::constants::{
    A_ROTATION, A_WORDS, B_FEEDBACK_ROTATION, B_ROTATION, BLOCK_BYTES, BLOCK_WORDS, C_INDEX_BASE,
    FINAL_ADD_C_OFFSET, FINAL_ADDITIONS, FINAL_ROUNDS, ITERATIONS, O1, O2, O3,
    PREFIX_FIRST_COUNTER, U_FACTOR, V_FACTOR,
};

/// The Shabal state between steps: A (12 words), B and C (16 words each), the message block M
/// being processed (the key material of P beside C) and the 64-bit block counter W.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct State {
    /// A: the 12-word part that P updates with COMBINE.
    pub a: [u32; A_WORDS],
    /// B: the 16-word shift register of the NLFSR.
    pub b: [u32; BLOCK_WORDS],
    /// C: 16 words, read-only key material during P.
    pub c: [u32; BLOCK_WORDS],
    /// M: the current message block as 16 little-endian words.
    pub m: [u32; BLOCK_WORDS],
    /// W: the block counter; its low word is XORed into A\[0\], its high word into A\[1\].
    pub w: u64,
}

impl State {
    /// The all-zero state with W = -1, from which the prefix derives the initial value.
    pub const PREFIX_START: State = State {
        a: [0; A_WORDS],
        b: [0; BLOCK_WORDS],
        c: [0; BLOCK_WORDS],
        m: [0; BLOCK_WORDS],
        w: PREFIX_FIRST_COUNTER,
    };
}

/// U(x) = 3x mod 2^32: the outer multiplication of COMBINE (the paper implements it as
/// shift-then-add, (x << 1) + x).
#[inline(always)]
pub const fn u(x: u32) -> u32 {
    x.wrapping_mul(U_FACTOR)
}

/// V(x) = 5x mod 2^32: the inner multiplication of COMBINE ((x << 2) + x in hardware).
#[inline(always)]
pub const fn v(x: u32) -> u32 {
    x.wrapping_mul(V_FACTOR)
}

/// NL, the nonlinear part of an iteration: B\[i+13\] xor (B\[i+9\] and not B\[i+6\]).
///
/// The paper's extracted text lost the complement bar on the third tap; the specification and
/// the reference code (`B[O2] & ~B[O3]`) have it.
#[inline(always)]
pub const fn nl(b_o1: u32, b_o2: u32, b_o3: u32) -> u32 {
    b_o1 ^ (b_o2 & !b_o3)
}

/// COMBINE, the new A word: U(A\[i\] xor V(A\[i-1\] <<< 15) xor C\[8-i\]) xor NL xor M\[i\].
///
/// `a_prev_rotated` is A\[i-1\] already rotated by [`A_ROTATION`], as the paper draws it.
#[inline(always)]
pub const fn combine(a: u32, a_prev_rotated: u32, c: u32, nl: u32, m: u32) -> u32 {
    u(a ^ v(a_prev_rotated) ^ c) ^ nl ^ m
}

/// The feedback into the shift register: B\[i\] <- (B\[i\] <<< 1) xor not A\[new\].
#[inline(always)]
pub const fn b_feedback(b: u32, a_new: u32) -> u32 {
    b.rotate_left(B_FEEDBACK_ROTATION) ^ !a_new
}

/// Which words iteration `n` (0..48) reads and writes. With i = n mod 16 and j = n div 16 (the
/// specification's double loop), the A index i + 16j mod 12 is simply n mod 12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IterationIndices {
    /// A word written (and read): n mod 12.
    pub a: usize,
    /// A word read rotated by 15: n - 1 mod 12.
    pub a_prev: usize,
    /// B word fed back (and read): i.
    pub b: usize,
    /// NL tap i + 13 mod 16.
    pub b_o1: usize,
    /// NL tap i + 9 mod 16.
    pub b_o2: usize,
    /// NL tap i + 6 mod 16 (complemented).
    pub b_o3: usize,
    /// C word: 8 - i mod 16.
    pub c: usize,
    /// Message word: i.
    pub m: usize,
}

/// The indices of iteration `n` (0..48; taken mod 48).
#[inline(always)]
pub const fn indices(n: usize) -> IterationIndices {
    let n = n % ITERATIONS;
    let i = n % BLOCK_WORDS;
    IterationIndices {
        a: n % A_WORDS,
        a_prev: (n + A_WORDS - 1) % A_WORDS,
        b: i,
        b_o1: (i + O1) % BLOCK_WORDS,
        b_o2: (i + O2) % BLOCK_WORDS,
        b_o3: (i + O3) % BLOCK_WORDS,
        c: (C_INDEX_BASE + BLOCK_WORDS - i) % BLOCK_WORDS,
        m: i,
    }
}

/// One NLFSR iteration of P, number `n` in 0..48: A\[n mod 12\] <- COMBINE(...), then
/// B\[n mod 16\] <- feedback. The hardware shifts the register instead of moving the index; the
/// words computed are the same.
#[inline(always)]
pub const fn iteration(s: &mut State, n: usize) {
    let ix = indices(n);
    let nl = nl(s.b[ix.b_o1], s.b[ix.b_o2], s.b[ix.b_o3]);
    let a_new = combine(
        s.a[ix.a],
        s.a[ix.a_prev].rotate_left(A_ROTATION),
        s.c[ix.c],
        nl,
        s.m[ix.m],
    );
    s.a[ix.a] = a_new;
    s.b[ix.b] = b_feedback(s.b[ix.b], a_new);
}

/// Message injection, first half: B\[i\] += M\[i\].
#[inline(always)]
pub const fn add_message(s: &mut State) {
    let mut i = 0;
    while i < BLOCK_WORDS {
        s.b[i] = s.b[i].wrapping_add(s.m[i]);
        i += 1;
    }
}

/// Message injection, second half: A\[0\] ^= low word of W, A\[1\] ^= high word of W.
#[inline(always)]
pub const fn xor_counter(s: &mut State) {
    s.a[0] ^= s.w as u32;
    s.a[1] ^= (s.w >> 32) as u32;
}

/// The start of P: every B word rotated left by 17.
#[inline(always)]
pub const fn rotate_b(s: &mut State) {
    let mut i = 0;
    while i < BLOCK_WORDS {
        s.b[i] = s.b[i].rotate_left(B_ROTATION);
        i += 1;
    }
}

/// The A and C words of final addition `j` (0..36): A\[j mod 12\] += C\[j + 3 mod 16\].
#[inline(always)]
pub const fn final_addition_indices(j: usize) -> (usize, usize) {
    (j % A_WORDS, (j + FINAL_ADD_C_OFFSET) % BLOCK_WORDS)
}

/// Final addition `j` (0..36) of P, as in the paper's Fig. 3: A\[j mod 12\] += C\[j + 3 mod 16\].
#[inline(always)]
pub const fn final_addition(s: &mut State, j: usize) {
    let (a, c) = final_addition_indices(j);
    s.a[a] = s.a[a].wrapping_add(s.c[c]);
}

/// The 36 final additions of P, one by one (j = 0..35). C does not change during them, so the
/// order does not matter; [`final_additions_per_word`] is the same sum grouped per A word.
#[inline(always)]
pub const fn final_additions(s: &mut State) {
    let mut j = 0;
    while j < FINAL_ADDITIONS {
        final_addition(s, j);
        j += 1;
    }
}

/// The three C words added into A\[`word`\] (0..12) by the final additions: C\[word + 3\],
/// C\[word + 15\] and C\[word + 27\], all mod 16 (the paper's Fig. 4; additions j = word,
/// word + 12 and word + 24 of Fig. 3).
#[inline(always)]
pub const fn final_addition_operands(word: usize) -> [usize; 3] {
    [
        final_addition_indices(word).1,
        final_addition_indices(word + A_WORDS).1,
        final_addition_indices(word + 2 * A_WORDS).1,
    ]
}

/// The final additions of one A word as the unrolled hardware does them, one multi-operand add:
/// A\[word\] += C\[word + 3\] + C\[word + 15\] + C\[word + 27\] (indices mod 16).
#[inline(always)]
pub const fn final_addition_word(s: &mut State, word: usize) {
    let [c0, c1, c2] = final_addition_operands(word);
    s.a[word] = s.a[word]
        .wrapping_add(s.c[c0])
        .wrapping_add(s.c[c1])
        .wrapping_add(s.c[c2]);
}

/// All final additions, grouped per A word: the 12 words are independent, so hardware does
/// them in parallel. Equal to [`final_additions`].
#[inline(always)]
pub const fn final_additions_per_word(s: &mut State) {
    let mut word = 0;
    while word < A_WORDS {
        final_addition_word(s, word);
        word += 1;
    }
}

/// Calls `$f($s, n)` for n = 0..48 written out, so that the indices are constants.
macro_rules! unroll48 {
    ($f:ident, $s:expr) => {
        unroll48!(@ $f, $s, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
            19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
            40, 41, 42, 43, 44, 45, 46, 47)
    };
    (@ $f:ident, $s:expr, $($n:literal),*) => {
        $( $f($s, $n); )*
    };
}

/// The 48 NLFSR iterations of P (without the B rotation before them and the final additions
/// after them).
#[inline(always)]
pub const fn iterations(s: &mut State) {
    unroll48!(iteration, s);
}

/// The keyed permutation P: rotate B, 48 iterations, 36 final additions. Only A and B change;
/// C and M are the key.
#[inline(always)]
pub const fn permute(s: &mut State) {
    rotate_b(s);
    iterations(s);
    final_additions_per_word(s);
}

/// After P: C\[i\] -= M\[i\].
#[inline(always)]
pub const fn sub_message(s: &mut State) {
    let mut i = 0;
    while i < BLOCK_WORDS {
        s.c[i] = s.c[i].wrapping_sub(s.m[i]);
        i += 1;
    }
}

/// The last step of a round: B and C exchange places.
#[inline(always)]
pub const fn swap_bc(s: &mut State) {
    let b = s.b;
    s.b = s.c;
    s.c = b;
}

/// W += 1 (mod 2^64), after each message round (not after the final rounds).
#[inline(always)]
pub const fn increment_counter(s: &mut State) {
    s.w = s.w.wrapping_add(1);
}

/// Everything a round does before P: B += M, then A xor W.
#[inline(always)]
pub const fn inject_message(s: &mut State) {
    add_message(s);
    xor_counter(s);
}

/// Everything a round does after P, except the counter: C -= M, then swap B and C.
#[inline(always)]
pub const fn extract_message(s: &mut State) {
    sub_message(s);
    swap_bc(s);
}

/// One round on the block in `s.m`: B += M, A xor W, P, C -= M, swap B/C, W += 1.
#[inline(always)]
pub const fn message_round(s: &mut State) {
    inject_message(s);
    permute(s);
    extract_message(s);
    increment_counter(s);
}

/// One of the [`FINAL_ROUNDS`] rounds after the last (padded) block: the same round on the same
/// block, but W stays.
#[inline(always)]
pub const fn final_round(s: &mut State) {
    inject_message(s);
    permute(s);
    extract_message(s);
}

/// The last block of a message (already padded, in `s.m`): its message round without the
/// counter increment, then the [`FINAL_ROUNDS`] final rounds. Afterwards the digest is in C
/// (see [`output`]).
pub const fn finish(s: &mut State) {
    // On a local copy, so that the compiler may keep words in registers rather than behind `s`.
    // One loop of FINAL_ROUNDS + 1 rather than a round and a loop: one copy of the unrolled P.
    let mut t = *s;
    let mut k = 0;
    while k < FINAL_ROUNDS + 1 {
        final_round(&mut t);
        k += 1;
    }
    *s = t;
}

/// Decodes a 64-byte block into M (16 little-endian words).
#[inline(always)]
pub fn load_block(s: &mut State, block: &[u8; BLOCK_BYTES]) {
    for (w, chunk) in s.m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
}

/// The digest after [`finish`]: the last `out.len() / 4` words of C, little-endian. `out.len()`
/// is out_bits / 8 and a multiple of 4 for every Shabal size.
///
/// # Panics
/// If `out` is longer than 64 bytes or not a multiple of 4.
pub fn output(s: &State, out: &mut [u8]) {
    assert!(out.len() <= BLOCK_BYTES && out.len().is_multiple_of(4));
    let first = BLOCK_WORDS - out.len() / 4;
    for (chunk, w) in out.chunks_exact_mut(4).zip(&s.c[first..]) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

/// The initial value of Shabal-`out_bits`, as the specification defines it: from
/// [`State::PREFIX_START`] (all zero, W = -1), two message rounds on the prefix blocks
/// M = (out_bits, out_bits + 1, ..., out_bits + 15) and (out_bits + 16, ..., out_bits + 31),
/// with W = -1 and then 0. The result has W = 1 (the first message block); M is cleared.
pub const fn prefix_state(out_bits: u32) -> State {
    let mut s = State::PREFIX_START;
    let mut block = 0;
    while block < crate::constants::PREFIX_BLOCKS {
        let mut i = 0;
        while i < BLOCK_WORDS {
            s.m[i] = out_bits + (block * BLOCK_WORDS + i) as u32;
            i += 1;
        }
        message_round(&mut s);
        block += 1;
    }
    s.m = [0; BLOCK_WORDS];
    s
}

/// Initial value of Shabal-192, computed at compile time.
pub const IV_192: State = prefix_state(192);
/// Initial value of Shabal-224, computed at compile time.
pub const IV_224: State = prefix_state(224);
/// Initial value of Shabal-256, computed at compile time.
pub const IV_256: State = prefix_state(256);
/// Initial value of Shabal-384, computed at compile time.
pub const IV_384: State = prefix_state(384);
/// Initial value of Shabal-512, computed at compile time.
pub const IV_512: State = prefix_state(512);

/// The initial value for one of the five output sizes, `None` for any other.
pub const fn initial_state(out_bits: u64) -> Option<&'static State> {
    match out_bits {
        192 => Some(&IV_192),
        224 => Some(&IV_224),
        256 => Some(&IV_256),
        384 => Some(&IV_384),
        512 => Some(&IV_512),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_the_specification_loops() {
        for j in 0..3 {
            for i in 0..16 {
                let ix = indices(16 * j + i);
                assert_eq!(ix.a, (i + 16 * j) % 12);
                assert_eq!(ix.a_prev, (i + 16 * j + 11) % 12);
                assert_eq!(ix.c, (8 + 16 - i) % 16);
                assert_eq!(
                    (ix.b, ix.b_o1, ix.b_o2, ix.b_o3, ix.m),
                    (i, (i + 13) % 16, (i + 9) % 16, (i + 6) % 16, i)
                );
            }
        }
    }

    #[test]
    fn final_addition_operands_match_fig4() {
        // A[0] <- A[0] + C[3] + C[15] + C[11] (the paper's worked example).
        assert_eq!(final_addition_operands(0), [3, 15, 11]);
        for w in 0..12 {
            assert_eq!(
                final_addition_operands(w),
                [(w + 3) % 16, (w + 15) % 16, (w + 27) % 16]
            );
        }
    }

    #[test]
    fn multiplications_are_shift_then_add() {
        for x in [0u32, 1, 0x8000_0000, 0xFFFF_FFFF, 0x1234_5678] {
            assert_eq!(u(x), (x << 1).wrapping_add(x));
            assert_eq!(v(x), (x << 2).wrapping_add(x));
        }
    }
}
