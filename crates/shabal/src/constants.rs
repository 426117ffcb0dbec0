//! Every number of Shabal, named, with where it comes from.
//!
//! The source is the Shabal specification (E. Bresson et al., "Shabal, a Submission to NIST's
//! Cryptographic Hash Algorithm Competition", SAPHIR project, 2008): the parameters of the keyed
//! permutation P (p, r, o1, o2, o3 and the rotation amounts), the mode of operation (counter,
//! prefix, final rounds, output) and the padding. Section numbers are not given because the
//! specification text was not at hand to check them; the names below are the specification's,
//! and each value was checked against the SAPHIR reference code `shabal.c` of the submission
//! (macros `O1`, `O2`, `O3`, `SHABAL_PARAM_P`, `SHABAL_PARAM_E`, `nR`, `sM`) and against the
//! hardware paper (`shabal-unfolding-virtex5`, section II.B and Figs. 3 and 4).

/// Words in the A part of the state: the specification's parameter r = 12.
pub const A_WORDS: usize = 12;

/// Words in B, C and a message block: the specification's block size 16 words = 512 bits.
pub const BLOCK_WORDS: usize = 16;

/// Bytes in a message block (512 bits).
pub const BLOCK_BYTES: usize = BLOCK_WORDS * 4;

/// Loops of P over the 16 B words: the specification's parameter p = 3.
pub const P_LOOPS: usize = 3;

/// NLFSR iterations of P per block: p * 16 = 48 (the paper's "48 iterations per block").
pub const ITERATIONS: usize = P_LOOPS * BLOCK_WORDS;

/// Additions of C words into A at the end of P: 3 * r = 36 (paper Fig. 3, `for j = 0..35`).
pub const FINAL_ADDITIONS: usize = 3 * A_WORDS;

/// Extra rounds on the last (padded) block, with the counter frozen: the specification's e = 3.
pub const FINAL_ROUNDS: usize = 3;

/// Rotation of every B word at the start of P: B\[i\] <- B\[i\] <<< 17.
pub const B_ROTATION: u32 = 17;

/// Rotation of the previous A word inside COMBINE: V(A\[i - 1 + 16j mod 12\] <<< 15).
pub const A_ROTATION: u32 = 15;

/// Rotation of the B word in the feedback: B\[i\] <- (B\[i\] <<< 1) xor not A\[new\].
pub const B_FEEDBACK_ROTATION: u32 = 1;

/// First tap of NL: B\[i + o1 mod 16\], o1 = 13.
pub const O1: usize = 13;

/// Second tap of NL (the AND operand): B\[i + o2 mod 16\], o2 = 9.
pub const O2: usize = 9;

/// Third tap of NL (the complemented AND operand): B\[i + o3 mod 16\], o3 = 6.
pub const O3: usize = 6;

/// The C word read by iteration i is C\[8 - i mod 16\]: this is the 8.
pub const C_INDEX_BASE: usize = 8;

/// Final addition j adds C\[j + 3 mod 16\] into A\[j mod 12\]: this is the 3.
pub const FINAL_ADD_C_OFFSET: usize = 3;

/// U(x) = 3x mod 2^32, the outer multiplication of COMBINE.
pub const U_FACTOR: u32 = 3;

/// V(x) = 5x mod 2^32, the inner multiplication of COMBINE.
pub const V_FACTOR: u32 = 5;

/// The counter W of the first prefix block: -1 mod 2^64 (the prefix blocks use W = -1 and 0,
/// so the first message block is numbered 1).
pub const PREFIX_FIRST_COUNTER: u64 = u64::MAX;

/// Blocks of the prefix that derives the initial value from the all-zero state.
pub const PREFIX_BLOCKS: usize = 2;

/// The padding bit: a single 1 right after the message (the most significant free bit of the
/// byte, bits being taken most significant first), then zeros to the end of the block.
pub const PAD_BIT: u8 = 0x80;

/// The output lengths the specification defines, in bits.
pub const OUTPUT_BITS: [u64; 5] = [192, 224, 256, 384, 512];
