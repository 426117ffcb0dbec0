//! Threefish, written like the specification (Skein 1.3, section 3.3): one MIX, one
//! permutation, one key schedule. These round-level pieces are public because the hardware
//! schedule simulator drives them round by round; the fast unrolled code in [`crate::fast`] is
//! cross-tested against them.

use crate::constants::{C240, ROUNDS_PER_SUBKEY, permutation, rotation, rounds};

/// The MIX function (Skein 1.3, section 3.3.1): `y0 = x0 + x1`, `y1 = (x1 <<< r) ^ y0`.
#[inline(always)]
pub const fn mix(x0: u64, x1: u64, r: u32) -> (u64, u64) {
    let y0 = x0.wrapping_add(x1);
    (y0, x1.rotate_left(r) ^ y0)
}

/// The inverse of [`mix`]: `x1 = (y1 ^ y0) >>> r`, `x0 = y0 - x1`.
#[inline(always)]
pub const fn mix_inverse(y0: u64, y1: u64, r: u32) -> (u64, u64) {
    let x1 = (y1 ^ y0).rotate_right(r);
    (y0.wrapping_sub(x1), x1)
}

/// Applies the Nw/2 MIX functions of round `d` to the state, without the permutation.
pub fn mix_round<const N: usize>(state: &mut [u64; N], d: usize) {
    for j in 0..N / 2 {
        let (y0, y1) = mix(state[2 * j], state[2 * j + 1], rotation(N, d, j));
        state[2 * j] = y0;
        state[2 * j + 1] = y1;
    }
}

/// The word permutation: word i of the result is word pi(i) of the input (Skein 1.3, Table 3).
pub fn permute<const N: usize>(state: &[u64; N]) -> [u64; N] {
    let pi = permutation(N);
    core::array::from_fn(|i| state[pi[i]])
}

/// The inverse word permutation.
pub fn permute_inverse<const N: usize>(state: &[u64; N]) -> [u64; N] {
    let pi = permutation(N);
    let mut out = [0u64; N];
    for i in 0..N {
        out[pi[i]] = state[i];
    }
    out
}

/// One full Threefish round `d`: the MIX layer, then the permutation.
pub fn round<const N: usize>(state: &mut [u64; N], d: usize) {
    mix_round(state, d);
    *state = permute(state);
}

/// The inverse of [`round`].
pub fn round_inverse<const N: usize>(state: &mut [u64; N], d: usize) {
    *state = permute_inverse(state);
    for j in 0..N / 2 {
        let (x0, x1) = mix_inverse(state[2 * j], state[2 * j + 1], rotation(N, d, j));
        state[2 * j] = x0;
        state[2 * j + 1] = x1;
    }
}

/// The Threefish key schedule (Skein 1.3, section 3.3.2): the key extended with its parity word
/// k_Nw = C240 ^ k_0 ^ ... ^ k_{Nw-1}, and the tweak extended with t2 = t0 ^ t1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySchedule<const N: usize> {
    /// The key words k_0 .. k_{Nw-1}.
    pub key: [u64; N],
    /// The key parity word k_Nw.
    pub key_parity: u64,
    /// The extended tweak t0, t1, t2.
    pub tweak: [u64; 3],
}

impl<const N: usize> KeySchedule<N> {
    /// Extends a key and a tweak.
    pub fn new(key: &[u64; N], tweak: [u64; 2]) -> Self {
        KeySchedule {
            key: *key,
            key_parity: key_parity(key),
            tweak: extend_tweak(tweak),
        }
    }

    /// Extended key word k_i for i in 0..=Nw.
    #[inline]
    pub fn key_word(&self, i: usize) -> u64 {
        if i == N { self.key_parity } else { self.key[i] }
    }

    /// Subkey word i of subkey s (Skein 1.3, section 3.3.2):
    /// k_{(s+i) mod (Nw+1)}, plus t_{s mod 3} for i = Nw-3, t_{(s+1) mod 3} for i = Nw-2, and s
    /// for i = Nw-1.
    #[inline]
    pub fn subkey_word(&self, s: usize, i: usize) -> u64 {
        let k = self.key_word((s + i) % (N + 1));
        match N - i {
            3 => k.wrapping_add(self.tweak[s % 3]),
            2 => k.wrapping_add(self.tweak[(s + 1) % 3]),
            1 => k.wrapping_add(s as u64),
            _ => k,
        }
    }

    /// The whole subkey k_s.
    pub fn subkey(&self, s: usize) -> [u64; N] {
        core::array::from_fn(|i| self.subkey_word(s, i))
    }
}

/// The key parity word k_Nw = C240 ^ k_0 ^ ... ^ k_{Nw-1}.
pub fn key_parity<const N: usize>(key: &[u64; N]) -> u64 {
    key.iter().fold(C240, |acc, k| acc ^ k)
}

/// The extended tweak t0, t1, t2 = t0 ^ t1.
pub const fn extend_tweak(tweak: [u64; 2]) -> [u64; 3] {
    [tweak[0], tweak[1], tweak[0] ^ tweak[1]]
}

/// Adds subkey `s` to the state (the key injection before round 4s).
pub fn inject_subkey<const N: usize>(state: &mut [u64; N], schedule: &KeySchedule<N>, s: usize) {
    for (i, word) in state.iter_mut().enumerate() {
        *word = word.wrapping_add(schedule.subkey_word(s, i));
    }
}

/// Subtracts subkey `s` from the state (the inverse of [`inject_subkey`]).
pub fn remove_subkey<const N: usize>(state: &mut [u64; N], schedule: &KeySchedule<N>, s: usize) {
    for (i, word) in state.iter_mut().enumerate() {
        *word = word.wrapping_sub(schedule.subkey_word(s, i));
    }
}

/// Threefish encryption of one block, written like the spec. `N` is 4, 8 or 16.
pub fn encrypt<const N: usize>(key: &[u64; N], tweak: [u64; 2], plaintext: &[u64; N]) -> [u64; N] {
    let schedule = KeySchedule::new(key, tweak);
    let mut state = *plaintext;
    for d in 0..rounds(N) {
        if d % ROUNDS_PER_SUBKEY == 0 {
            inject_subkey(&mut state, &schedule, d / ROUNDS_PER_SUBKEY);
        }
        round(&mut state, d);
    }
    inject_subkey(&mut state, &schedule, rounds(N) / ROUNDS_PER_SUBKEY);
    state
}

/// Threefish decryption of one block: the rounds of [`encrypt`] undone in reverse order.
pub fn decrypt<const N: usize>(key: &[u64; N], tweak: [u64; 2], ciphertext: &[u64; N]) -> [u64; N] {
    let schedule = KeySchedule::new(key, tweak);
    let mut state = *ciphertext;
    remove_subkey(&mut state, &schedule, rounds(N) / ROUNDS_PER_SUBKEY);
    for d in (0..rounds(N)).rev() {
        round_inverse(&mut state, d);
        if d % ROUNDS_PER_SUBKEY == 0 {
            remove_subkey(&mut state, &schedule, d / ROUNDS_PER_SUBKEY);
        }
    }
    state
}

/// Reads little-endian 64-bit words from bytes (Skein 1.3, section 3.2: BytesToWords).
pub fn words_from_bytes<const N: usize>(bytes: &[u8]) -> [u64; N] {
    debug_assert_eq!(bytes.len(), N * 8);
    core::array::from_fn(|i| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
        u64::from_le_bytes(w)
    })
}

/// Writes 64-bit words as little-endian bytes (Skein 1.3, section 3.2: WordsToBytes).
pub fn words_to_bytes(words: &[u64], out: &mut [u8]) {
    debug_assert_eq!(out.len(), words.len() * 8);
    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

/// Threefish-256 block cipher: key, tweak and block as little-endian bytes.
pub fn threefish256_encrypt_block(key: &[u8; 32], tweak: &[u8; 16], block: &mut [u8; 32]) {
    byte_encrypt::<4>(key, tweak, block, false)
}
/// Threefish-256 decryption of one block.
pub fn threefish256_decrypt_block(key: &[u8; 32], tweak: &[u8; 16], block: &mut [u8; 32]) {
    byte_encrypt::<4>(key, tweak, block, true)
}
/// Threefish-512 block cipher: key, tweak and block as little-endian bytes.
pub fn threefish512_encrypt_block(key: &[u8; 64], tweak: &[u8; 16], block: &mut [u8; 64]) {
    byte_encrypt::<8>(key, tweak, block, false)
}
/// Threefish-512 decryption of one block.
pub fn threefish512_decrypt_block(key: &[u8; 64], tweak: &[u8; 16], block: &mut [u8; 64]) {
    byte_encrypt::<8>(key, tweak, block, true)
}
/// Threefish-1024 block cipher: key, tweak and block as little-endian bytes.
pub fn threefish1024_encrypt_block(key: &[u8; 128], tweak: &[u8; 16], block: &mut [u8; 128]) {
    byte_encrypt::<16>(key, tweak, block, false)
}
/// Threefish-1024 decryption of one block.
pub fn threefish1024_decrypt_block(key: &[u8; 128], tweak: &[u8; 16], block: &mut [u8; 128]) {
    byte_encrypt::<16>(key, tweak, block, true)
}

fn byte_encrypt<const N: usize>(key: &[u8], tweak: &[u8; 16], block: &mut [u8], decrypt_: bool) {
    let key = words_from_bytes::<N>(key);
    let tweak: [u64; 2] = words_from_bytes::<2>(tweak);
    let input = words_from_bytes::<N>(block);
    let output = if decrypt_ {
        decrypt(&key, tweak, &input)
    } else {
        crate::fast::encrypt(&key, tweak, &input)
    };
    words_to_bytes(&output, block);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_inverse_undoes_mix() {
        let (y0, y1) = mix(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210, 37);
        assert_eq!(
            mix_inverse(y0, y1, 37),
            (0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210)
        );
    }

    #[test]
    fn permutation_inverse() {
        let s: [u64; 16] = core::array::from_fn(|i| i as u64);
        assert_eq!(permute_inverse(&permute(&s)), s);
    }
}
