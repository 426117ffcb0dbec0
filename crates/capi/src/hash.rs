//! Skein (one-shot and streaming) and Threefish block encryption, over `skeinhw-skein`.

use std::ffi::{CString, c_char, c_int};

use skeinhw_skein::threefish::{
    threefish256_decrypt_block, threefish256_encrypt_block, threefish512_decrypt_block,
    threefish512_encrypt_block, threefish1024_decrypt_block, threefish1024_encrypt_block,
};
use skeinhw_skein::{DynSkein, Params, TreeParams};

use crate::error::{
    CError, HasError, SKEINHW_OK, bytes, c_message, free_handle, guard, guard_handle, handle_error,
    message, out, put_handle, slice_mut, string,
};

/// The optional arguments of Skein (Skein 1.3, section 3.5). Each string is a pointer and a
/// length; a NULL pointer with length 0 means "absent", a non-NULL pointer with length 0 an
/// empty string that is still hashed (except `key`: an empty key is no key, as in the
/// reference code). Tree hashing is off when all three tree fields are 0; otherwise they are
/// Yl >= 1, Yf >= 1, Ym >= 2.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct skeinhw_params {
    /// MAC / KDF key (type 0).
    pub key: *const u8,
    /// Bytes of `key`.
    pub key_len: usize,
    /// Personalization string (type 8).
    pub pers: *const u8,
    /// Bytes of `pers`.
    pub pers_len: usize,
    /// Public key (type 12).
    pub public_key: *const u8,
    /// Bytes of `public_key`.
    pub public_key_len: usize,
    /// Key identifier (type 16).
    pub key_id: *const u8,
    /// Bytes of `key_id`.
    pub key_id_len: usize,
    /// Nonce (type 20).
    pub nonce: *const u8,
    /// Bytes of `nonce`.
    pub nonce_len: usize,
    /// Yl: leaf size 2^Yl blocks.
    pub tree_leaf: u8,
    /// Yf: fan-out 2^Yf.
    pub tree_fanout: u8,
    /// Ym: maximum tree height.
    pub tree_max_height: u8,
}

unsafe fn optional<'a>(
    p: *const u8,
    len: usize,
    what: &'static str,
) -> Result<Option<&'a [u8]>, CError> {
    if p.is_null() && len == 0 {
        return Ok(None);
    }
    unsafe { bytes(p, len, what) }.map(Some)
}

/// The library's parameters of a C `params` (NULL: none).
pub(crate) unsafe fn params<'a>(p: *const skeinhw_params) -> Result<Params<'a>, CError> {
    let Some(p) = (unsafe { p.as_ref() }) else {
        return Ok(Params::default());
    };
    let tree = if (p.tree_leaf, p.tree_fanout, p.tree_max_height) == (0, 0, 0) {
        None
    } else {
        Some(TreeParams::new(
            p.tree_leaf,
            p.tree_fanout,
            p.tree_max_height,
        )?)
    };
    unsafe {
        Ok(Params {
            key: bytes(p.key, p.key_len, "params.key")?,
            personalization: optional(p.pers, p.pers_len, "params.pers")?,
            public_key: optional(p.public_key, p.public_key_len, "params.public_key")?,
            key_id: optional(p.key_id, p.key_id_len, "params.key_id")?,
            nonce: optional(p.nonce, p.nonce_len, "params.nonce")?,
            tree,
        })
    }
}

fn out_bytes(out_bits: u64) -> Result<usize, CError> {
    if out_bits == 0 {
        return Err(skeinhw_skein::Error::ZeroOutputLength.into());
    }
    usize::try_from(out_bits.div_ceil(8))
        .map_err(|_| CError::Argument(format!("{out_bits} output bits do not fit in memory")))
}

/// The first `out_bytes(out_bits)` bytes of `out`, or an error naming both lengths.
fn output_slice(out_bits: u64, out: &mut [u8]) -> Result<&mut [u8], CError> {
    let need = out_bytes(out_bits)?;
    let got = out.len();
    out.get_mut(..need).ok_or_else(|| {
        CError::Buffer(format!(
            "out_len is {got} bytes; {out_bits} output bits need {need}"
        ))
    })
}

fn finalize_into(h: &mut DynSkein, out: &mut [u8]) -> Result<(), skeinhw_skein::Error> {
    match h {
        DynSkein::Skein256(h) => h.finalize_into_reset(out),
        DynSkein::Skein512(h) => h.finalize_into_reset(out),
        DynSkein::Skein1024(h) => h.finalize_into_reset(out),
    }
}

fn state_size(state_bits: u32) -> Result<usize, CError> {
    match state_bits {
        256 | 512 | 1024 => Ok(state_bits as usize),
        other => Err(skeinhw_skein::Error::UnknownSize(other as usize).into()),
    }
}

/// One-shot Skein: the first `msg_bits` bits of `msg` (ceil(msg_bits / 8) bytes, most
/// significant bit of each byte first) hashed with a `state_bits` state (256, 512, 1024) into
/// `out_bits` output bits, written to the first ceil(out_bits / 8) bytes of `out` (`out_len`
/// must be at least that; unused low bits of a partial last byte are zero). `params` may be
/// NULL for none. Returns 0 on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_hash(
    state_bits: u32,
    out_bits: u64,
    msg: *const u8,
    msg_bits: u64,
    params: *const skeinhw_params,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard(|| unsafe {
        let size = state_size(state_bits)?;
        let message = message(msg, msg_bits, "msg")?;
        let params = self::params(params)?;
        let out = slice_mut(out, out_len, "out")?;
        let out = output_slice(out_bits, out)?;
        let mut h = DynSkein::new(size, out_bits, &params)?;
        h.update_bits(message, msg_bits)?;
        finalize_into(&mut h, out)?;
        Ok(SKEINHW_OK)
    })
}

/// A streaming Skein computation (opaque).
pub struct SkeinhwSkein {
    hasher: DynSkein,
    out_bits: u64,
    /// The digest of the last `skeinhw_skein_final` without a buffer, for word reads.
    digest: Vec<u8>,
    /// `digest` as hex text, for `skeinhw_skein_digest_hex`.
    digest_hex: CString,
    error: CString,
}

impl HasError for SkeinhwSkein {
    fn error_slot(&mut self) -> &mut CString {
        &mut self.error
    }
}

/// The most a digest kept inside a handle may take (final with no buffer); a longer output
/// needs a buffer of the caller's.
pub const SKEINHW_MAX_KEPT_DIGEST_BYTES: usize = 1 << 20;

/// Starts a streaming Skein computation; `*out` receives the handle (free it with
/// `skeinhw_skein_free`). `params` may be NULL; its strings are copied into the handle's state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_new(
    state_bits: u32,
    out_bits: u64,
    params: *const skeinhw_params,
    out: *mut *mut SkeinhwSkein,
) -> c_int {
    guard(|| unsafe {
        let size = state_size(state_bits)?;
        let params = self::params(params)?;
        let hasher = DynSkein::new(size, out_bits, &params)?;
        put_handle(
            out,
            SkeinhwSkein {
                hasher,
                out_bits,
                digest: Vec::new(),
                digest_hex: CString::default(),
                error: CString::default(),
            },
        )
    })
}

/// Appends `len` whole bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_update(
    h: *mut SkeinhwSkein,
    data: *const u8,
    len: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let data = bytes(data, len, "data")?;
        h.hasher.try_update(data)?;
        Ok(SKEINHW_OK)
    })
}

/// Appends the first `bits` bits of the `len` bytes at `data` (`bits` <= 8 len). A bit length
/// that is not a multiple of 8 ends the message: only `skeinhw_skein_final` may follow.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_update_bits(
    h: *mut SkeinhwSkein,
    data: *const u8,
    len: usize,
    bits: u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let data = bytes(data, len, "data")?;
        h.hasher.update_bits(data, bits)?;
        Ok(SKEINHW_OK)
    })
}

/// Appends the first `bits` bits (0..=64) of `word`'s little-endian bytes: a 64-bit bus word
/// as a DPI-C caller has it (Skein reads bytes little-endian into words).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_update_u64(
    h: *mut SkeinhwSkein,
    word: u64,
    bits: u32,
) -> c_int {
    guard_handle(h, |h| {
        if bits > 64 {
            return Err(CError::Argument(format!(
                "bits is {bits}; a 64-bit word holds at most 64"
            )));
        }
        h.hasher.update_bits(&word.to_le_bytes(), u64::from(bits))?;
        Ok(SKEINHW_OK)
    })
}

/// Finishes the hash into the first ceil(out_bits / 8) bytes of `out` and starts over with the
/// same parameters. With `out` NULL and `out_len` 0 the digest is kept in the handle instead
/// (at most `SKEINHW_MAX_KEPT_DIGEST_BYTES`), for `skeinhw_skein_digest_u64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_final(
    h: *mut SkeinhwSkein,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        if out.is_null() && out_len == 0 {
            let need = out_bytes(h.out_bits)?;
            if need > SKEINHW_MAX_KEPT_DIGEST_BYTES {
                return Err(CError::Buffer(format!(
                    "{} output bits are more than the handle keeps \
                     ({SKEINHW_MAX_KEPT_DIGEST_BYTES} bytes); give a buffer",
                    h.out_bits
                )));
            }
            let mut digest = vec![0u8; need];
            finalize_into(&mut h.hasher, &mut digest)?;
            h.digest = digest;
        } else {
            let out = slice_mut(out, out_len, "out")?;
            let out = output_slice(h.out_bits, out)?;
            finalize_into(&mut h.hasher, out)?;
        }
        Ok(SKEINHW_OK)
    })
}

/// Word `index` of the digest kept by `skeinhw_skein_final(h, NULL, 0)`: its bytes 8 index ..
/// 8 index + 7, little-endian (missing bytes past the end read as 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_digest_u64(
    h: *mut SkeinhwSkein,
    index: u32,
    word: *mut u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let word = out(word, "word")?;
        if h.digest.is_empty() {
            return Err(CError::State(
                "no digest kept: call skeinhw_skein_final(h, NULL, 0) first".into(),
            ));
        }
        *word = le_word(&h.digest, index as usize).ok_or_else(|| {
            CError::Argument(format!(
                "word {index} is past the {}-byte digest",
                h.digest.len()
            ))
        })?;
        Ok(SKEINHW_OK)
    })
}

/// Appends the bytes of `hex` (hex digits; for DPI-C callers, which pass strings).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_update_hex(
    h: *mut SkeinhwSkein,
    hex: *const c_char,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let text = string(hex, "hex")?;
        let data = hex::decode(text.trim())
            .map_err(|e| CError::Argument(format!("hex data {text:?}: {e}")))?;
        h.hasher.try_update(&data)?;
        Ok(SKEINHW_OK)
    })
}

/// The digest kept by `skeinhw_skein_final(h, NULL, 0)` as lowercase hex, ceil(out_bits / 8)
/// bytes ("" before the first such final, or on error). Valid until the next call on `h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_digest_hex(h: *mut SkeinhwSkein) -> *const c_char {
    static EMPTY: &std::ffi::CStr = c"";
    match unsafe { h.as_mut() } {
        Some(h) => {
            h.digest_hex = c_message(&hex::encode(&h.digest));
            h.digest_hex.as_ptr()
        }
        None => EMPTY.as_ptr(),
    }
}

/// Word `index` of `bytes` read little-endian, zero-padded; None past the end.
pub(crate) fn le_word(bytes: &[u8], index: usize) -> Option<u64> {
    let start = index.checked_mul(8)?;
    let chunk = bytes.get(start..)?;
    if chunk.is_empty() {
        return None;
    }
    let mut w = [0u8; 8];
    let n = chunk.len().min(8);
    w[..n].copy_from_slice(&chunk[..n]);
    Some(u64::from_le_bytes(w))
}

/// The message of the handle's last failed call ("" if none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_error(h: *mut SkeinhwSkein) -> *const c_char {
    handle_error(h)
}

/// Frees the handle (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_skein_free(h: *mut SkeinhwSkein) {
    free_handle(h)
}

fn threefish_block(
    state_bits: u32,
    key: &[u8],
    tweak: &[u8],
    block: &mut [u8],
    decrypt: bool,
) -> Result<(), CError> {
    let nb = state_size(state_bits)? / 8;
    for (what, len, need) in [
        ("key_len", key.len(), nb),
        ("tweak_len", tweak.len(), 16),
        ("block_len", block.len(), nb),
    ] {
        if len != need {
            return Err(CError::Buffer(format!(
                "{what} is {len}; Threefish-{state_bits} needs {need} bytes"
            )));
        }
    }
    let tweak: &[u8; 16] = tweak.try_into().expect("checked length");
    macro_rules! go {
        ($n:literal, $enc:ident, $dec:ident) => {{
            let key: &[u8; $n] = key.try_into().expect("checked length");
            let block: &mut [u8; $n] = block.try_into().expect("checked length");
            if decrypt {
                $dec(key, tweak, block)
            } else {
                $enc(key, tweak, block)
            }
        }};
    }
    match nb {
        32 => go!(32, threefish256_encrypt_block, threefish256_decrypt_block),
        64 => go!(64, threefish512_encrypt_block, threefish512_decrypt_block),
        _ => go!(
            128,
            threefish1024_encrypt_block,
            threefish1024_decrypt_block
        ),
    }
    Ok(())
}

/// Threefish-`state_bits` encryption of one block in place: key and block state_bits / 8
/// bytes, tweak 16 bytes, all little-endian words as in the spec.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_encrypt(
    state_bits: u32,
    key: *const u8,
    key_len: usize,
    tweak: *const u8,
    tweak_len: usize,
    block: *mut u8,
    block_len: usize,
) -> c_int {
    guard(|| unsafe {
        let key = bytes(key, key_len, "key")?;
        let tweak = bytes(tweak, tweak_len, "tweak")?;
        let block = slice_mut(block, block_len, "block")?;
        threefish_block(state_bits, key, tweak, block, false)?;
        Ok(SKEINHW_OK)
    })
}

/// Threefish-`state_bits` decryption of one block in place (see `skeinhw_threefish_encrypt`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_threefish_decrypt(
    state_bits: u32,
    key: *const u8,
    key_len: usize,
    tweak: *const u8,
    tweak_len: usize,
    block: *mut u8,
    block_len: usize,
) -> c_int {
    guard(|| unsafe {
        let key = bytes(key, key_len, "key")?;
        let tweak = bytes(tweak, tweak_len, "tweak")?;
        let block = slice_mut(block, block_len, "block")?;
        threefish_block(state_bits, key, tweak, block, true)?;
        Ok(SKEINHW_OK)
    })
}
