//! The round level, for round-by-round scoreboards: a Threefish state driven one subkey
//! injection and one round at a time by `skeinhw_skein::threefish` (the pieces the golden
//! simulator runs), for each state size.

use std::ffi::{CString, c_char, c_int};

use skeinhw_skein::constants::{ROUNDS_PER_SUBKEY, rounds};
use skeinhw_skein::threefish::{KeySchedule, inject_subkey, round};

use crate::error::{
    CError, HasError, SKEINHW_OK, free_handle, guard, guard_handle, handle_error, out, put_handle,
    slice, slice_mut,
};

#[derive(Clone, Debug)]
struct Cipher<const N: usize> {
    schedule: KeySchedule<N>,
    state: [u64; N],
}

impl<const N: usize> Cipher<N> {
    fn new() -> Self {
        Cipher {
            schedule: KeySchedule::new(&[0; N], [0; 2]),
            state: [0; N],
        }
    }
}

#[derive(Clone, Debug)]
enum AnyCipher {
    W4(Cipher<4>),
    W8(Cipher<8>),
    W16(Cipher<16>),
}

/// Runs `$body` with `$c` bound to the cipher of whichever size.
macro_rules! with_cipher {
    ($any:expr, $c:ident => $body:expr) => {
        match $any {
            AnyCipher::W4($c) => $body,
            AnyCipher::W8($c) => $body,
            AnyCipher::W16($c) => $body,
        }
    };
}

/// A Threefish state with its key schedule (opaque).
pub struct SkeinhwThreefish {
    cipher: AnyCipher,
    words: usize,
    error: CString,
}

impl HasError for SkeinhwThreefish {
    fn error_slot(&mut self) -> &mut CString {
        &mut self.error
    }
}

impl SkeinhwThreefish {
    fn check_word(&self, what: &str, i: u32, count: usize) -> Result<usize, CError> {
        let i = i as usize;
        if i >= count {
            return Err(CError::Argument(format!(
                "{what} {i} does not exist: Threefish-{} has {count}",
                self.words * 64
            )));
        }
        Ok(i)
    }

    fn check_len(&self, what: &str, len: usize, need: usize) -> Result<(), CError> {
        if len != need {
            return Err(CError::Buffer(format!(
                "{what} is {len} words; Threefish-{} needs {need}",
                self.words * 64
            )));
        }
        Ok(())
    }

    fn subkeys(&self) -> usize {
        rounds(self.words) / ROUNDS_PER_SUBKEY + 1
    }
}

/// A Threefish state of `state_bits` (256, 512, 1024), all words, key and tweak zero; `*out`
/// receives the handle (free it with `skeinhw_threefish_free`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_new(
    state_bits: u32,
    out: *mut *mut SkeinhwThreefish,
) -> c_int {
    guard(|| {
        let (cipher, words) = match state_bits {
            256 => (AnyCipher::W4(Cipher::new()), 4),
            512 => (AnyCipher::W8(Cipher::new()), 8),
            1024 => (AnyCipher::W16(Cipher::new()), 16),
            other => return Err(skeinhw_skein::Error::UnknownSize(other as usize).into()),
        };
        put_handle(
            out,
            SkeinhwThreefish {
                cipher,
                words,
                error: CString::default(),
            },
        )
    })
}

/// Sets the key (`key_words` = Nw words k_0..k_{Nw-1}) and the tweak (t0, t1); the key
/// schedule extends them with k_Nw and t2 (Skein 1.3, 3.3.2). The state is left as it is.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_set_key_tweak(
    h: *mut SkeinhwThreefish,
    key: *const u64,
    key_words: usize,
    t0: u64,
    t1: u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let key = slice(key, key_words, "key")?;
        h.check_len("key_words", key.len(), h.words)?;
        with_cipher!(&mut h.cipher, c => {
            c.schedule = KeySchedule::new(key.try_into().expect("checked length"), [t0, t1]);
        });
        Ok(SKEINHW_OK)
    })
}

/// Sets key word `i` (0..Nw) alone, keeping the other words and the tweak: for DPI-C callers
/// that pass scalars.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_set_key_word(
    h: *mut SkeinhwThreefish,
    i: u32,
    word: u64,
) -> c_int {
    guard_handle(h, |h| {
        let i = h.check_word("key word", i, h.words)?;
        with_cipher!(&mut h.cipher, c => {
            let mut key = c.schedule.key;
            key[i] = word;
            c.schedule = KeySchedule::new(&key, [c.schedule.tweak[0], c.schedule.tweak[1]]);
        });
        Ok(SKEINHW_OK)
    })
}

/// Sets the tweak (t0, t1) alone, keeping the key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_set_tweak(
    h: *mut SkeinhwThreefish,
    t0: u64,
    t1: u64,
) -> c_int {
    guard_handle(h, |h| {
        with_cipher!(&mut h.cipher, c => {
            c.schedule = KeySchedule::new(&c.schedule.key, [t0, t1]);
        });
        Ok(SKEINHW_OK)
    })
}

/// Sets the whole state (`n_words` = Nw).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_set_state(
    h: *mut SkeinhwThreefish,
    state: *const u64,
    n_words: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let state = slice(state, n_words, "state")?;
        h.check_len("n_words", state.len(), h.words)?;
        with_cipher!(&mut h.cipher, c => c.state.copy_from_slice(state));
        Ok(SKEINHW_OK)
    })
}

/// Sets state word `i` (0..Nw).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_set_state_word(
    h: *mut SkeinhwThreefish,
    i: u32,
    word: u64,
) -> c_int {
    guard_handle(h, |h| {
        let i = h.check_word("state word", i, h.words)?;
        with_cipher!(&mut h.cipher, c => c.state[i] = word);
        Ok(SKEINHW_OK)
    })
}

/// Adds subkey `s` (0..=Nr/4) to the state: the key injection before round 4s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_inject_subkey(
    h: *mut SkeinhwThreefish,
    s: u32,
) -> c_int {
    guard_handle(h, |h| {
        let s = h.check_word("subkey", s, h.subkeys())?;
        with_cipher!(&mut h.cipher, c => inject_subkey(&mut c.state, &c.schedule, s));
        Ok(SKEINHW_OK)
    })
}

/// Runs round `d` (0..Nr): the MIX layer with round d's rotation constants, then the
/// permutation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_round(h: *mut SkeinhwThreefish, d: u32) -> c_int {
    guard_handle(h, |h| {
        let d = h.check_word("round", d, rounds(h.words))?;
        with_cipher!(&mut h.cipher, c => round(&mut c.state, d));
        Ok(SKEINHW_OK)
    })
}

/// Copies the state (`n_words` = Nw) to `state`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_get_state(
    h: *mut SkeinhwThreefish,
    state: *mut u64,
    n_words: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let dst = slice_mut(state, n_words, "state")?;
        h.check_len("n_words", dst.len(), h.words)?;
        with_cipher!(&h.cipher, c => dst.copy_from_slice(&c.state));
        Ok(SKEINHW_OK)
    })
}

/// State word `i` (0..Nw).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_get_state_word(
    h: *mut SkeinhwThreefish,
    i: u32,
    word: *mut u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let word = out(word, "word")?;
        let i = h.check_word("state word", i, h.words)?;
        *word = with_cipher!(&h.cipher, c => c.state[i]);
        Ok(SKEINHW_OK)
    })
}

/// Word `i` (0..Nw) of subkey `s` (0..=Nr/4), as the key schedule forms it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_subkey_word(
    h: *mut SkeinhwThreefish,
    s: u32,
    i: u32,
    word: *mut u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let word = out(word, "word")?;
        let s = h.check_word("subkey", s, h.subkeys())?;
        let i = h.check_word("subkey word", i, h.words)?;
        *word = with_cipher!(&h.cipher, c => c.schedule.subkey_word(s, i));
        Ok(SKEINHW_OK)
    })
}

/// The message of the handle's last failed call ("" if none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_error(h: *mut SkeinhwThreefish) -> *const c_char {
    handle_error(h)
}

/// Frees the handle (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_free(h: *mut SkeinhwThreefish) {
    free_handle(h)
}
