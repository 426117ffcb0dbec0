//! Shabal, one-shot and streaming, over `skeinhw-shabal`.

use std::ffi::{CString, c_char, c_int};

use skeinhw_shabal::Shabal;

use crate::error::{
    CError, HasError, SKEINHW_OK, bytes, free_handle, guard, guard_handle, handle_error, message,
    put_handle, slice_mut,
};

/// The first out_bits / 8 bytes of `out`.
fn output_slice(out_bits: u64, out: &mut [u8]) -> Result<&mut [u8], CError> {
    let need = (out_bits / 8) as usize;
    let got = out.len();
    out.get_mut(..need).ok_or_else(|| {
        CError::Buffer(format!(
            "out_len is {got} bytes; {out_bits} output bits need {need}"
        ))
    })
}

/// One-shot Shabal-`out_bits` (192, 224, 256, 384, 512) of the first `msg_bits` bits of `msg`
/// into the first out_bits / 8 bytes of `out`. Returns 0 on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_hash(
    out_bits: u64,
    msg: *const u8,
    msg_bits: u64,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard(|| unsafe {
        let message = message(msg, msg_bits, "msg")?;
        let mut h = Shabal::new(out_bits)?;
        let out = slice_mut(out, out_len, "out")?;
        let out = output_slice(out_bits, out)?;
        h.update_bits(message, msg_bits)?;
        h.finalize_into(out)?;
        Ok(SKEINHW_OK)
    })
}

/// A streaming Shabal computation (opaque).
pub struct SkeinhwShabal {
    hasher: Shabal,
    error: CString,
}

impl HasError for SkeinhwShabal {
    fn error_slot(&mut self) -> &mut CString {
        &mut self.error
    }
}

/// Starts a streaming Shabal-`out_bits` computation; `*out` receives the handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_new(out_bits: u64, out: *mut *mut SkeinhwShabal) -> c_int {
    guard(|| {
        let hasher = Shabal::new(out_bits)?;
        put_handle(
            out,
            SkeinhwShabal {
                hasher,
                error: CString::default(),
            },
        )
    })
}

/// Appends the first `bits` bits of the `len` bytes at `data` (`bits` <= 8 len); a partial
/// last byte ends the message.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_update_bits(
    h: *mut SkeinhwShabal,
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

/// Appends `len` whole bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_update(
    h: *mut SkeinhwShabal,
    data: *const u8,
    len: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let data = bytes(data, len, "data")?;
        h.hasher.try_update(data)?;
        Ok(SKEINHW_OK)
    })
}

/// Finishes into the first out_bits / 8 bytes of `out` and starts over.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_final(
    h: *mut SkeinhwShabal,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let out = slice_mut(out, out_len, "out")?;
        let out = output_slice(h.hasher.out_bits(), out)?;
        h.hasher.finalize_into_reset(out)?;
        Ok(SKEINHW_OK)
    })
}

/// The message of the handle's last failed call ("" if none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_error(h: *mut SkeinhwShabal) -> *const c_char {
    handle_error(h)
}

/// Frees the handle (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_shabal_free(h: *mut SkeinhwShabal) {
    free_handle(h)
}
