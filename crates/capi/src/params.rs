//! Skein's optional arguments as a handle, for callers that cannot build a C struct
//! (SystemVerilog through DPI-C, whose `chandle` can only be `null` or a pointer the library
//! made). `skeinhw_params_new` returns a `skeinhw_params *` that owns its strings: each setter
//! takes plain scalars (a type code, a byte, a hex string, the tree's three numbers) and
//! re-points the struct at the owned bytes, so the handle goes wherever a `skeinhw_params *`
//! goes (`skeinhw_skein_new`, `skeinhw_skein_hash`, `skeinhw_golden_add_message*`).

use std::collections::BTreeSet;
use std::ffi::{CString, c_char, c_int};
use std::sync::Mutex;

use skeinhw_skein::TreeParams;

use crate::error::{CError, HasError, SKEINHW_OK, guard, guard_handle, string};
use crate::hash::skeinhw_params;

/// Type code of the MAC / KDF key (its Skein 1.3 type value, Table 6).
pub const SKEINHW_PARAM_KEY: u32 = 0;
/// Type code of the personalization string.
pub const SKEINHW_PARAM_PERS: u32 = 8;
/// Type code of the public key.
pub const SKEINHW_PARAM_PUBLIC_KEY: u32 = 12;
/// Type code of the key identifier.
pub const SKEINHW_PARAM_KEY_ID: u32 = 16;
/// Type code of the nonce.
pub const SKEINHW_PARAM_NONCE: u32 = 20;

/// The handle behind a `skeinhw_params *` from `skeinhw_params_new`: the C struct first (so
/// the two pointers are one), then the bytes it points into. `None` is an absent string.
#[repr(C)]
struct Owned {
    params: skeinhw_params,
    strings: [Option<Vec<u8>>; 5],
    error: CString,
}

impl HasError for Owned {
    fn error_slot(&mut self) -> &mut CString {
        &mut self.error
    }
}

/// The addresses of the live handles: a setter given a caller's own struct (not one of ours)
/// is an error instead of a write past its end.
static LIVE: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<usize>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The slot of a type code in `Owned::strings`.
fn slot(kind: u32) -> Result<usize, CError> {
    match kind {
        SKEINHW_PARAM_KEY => Ok(0),
        SKEINHW_PARAM_PERS => Ok(1),
        SKEINHW_PARAM_PUBLIC_KEY => Ok(2),
        SKEINHW_PARAM_KEY_ID => Ok(3),
        SKEINHW_PARAM_NONCE => Ok(4),
        other => Err(CError::Argument(format!(
            "parameter type {other} is none of key (0), personalization (8), public key (12), \
             key id (16), nonce (20)"
        ))),
    }
}

impl Owned {
    /// Points the C struct's strings at the owned bytes (NULL, 0 where absent).
    fn repoint(&mut self) {
        let view = |s: &Option<Vec<u8>>| match s {
            // A present empty string needs a non-NULL pointer: a dangling one is fine, no
            // byte is read.
            Some(v) => (v.as_ptr(), v.len()),
            None => (std::ptr::null(), 0),
        };
        let p = &mut self.params;
        (p.key, p.key_len) = view(&self.strings[0]);
        (p.pers, p.pers_len) = view(&self.strings[1]);
        (p.public_key, p.public_key_len) = view(&self.strings[2]);
        (p.key_id, p.key_id_len) = view(&self.strings[3]);
        (p.nonce, p.nonce_len) = view(&self.strings[4]);
    }

    fn edit(&mut self, kind: u32, f: impl FnOnce(&mut Option<Vec<u8>>)) -> Result<c_int, CError> {
        f(&mut self.strings[slot(kind)?]);
        self.repoint();
        Ok(SKEINHW_OK)
    }
}

/// The handle behind `p`, if `skeinhw_params_new` made it and it is not freed.
fn owned(p: *mut skeinhw_params) -> *mut Owned {
    if live().contains(&(p as usize)) {
        p.cast()
    } else {
        std::ptr::null_mut()
    }
}

/// A call on a params handle: NULL or a struct the library did not make is an error.
fn with_owned(
    p: *mut skeinhw_params,
    f: impl FnOnce(&mut Owned) -> Result<c_int, CError>,
) -> c_int {
    let h = owned(p);
    if h.is_null() && !p.is_null() {
        return guard(|| {
            Err(CError::Argument(
                "params was not made by skeinhw_params_new (or is freed)".into(),
            ))
        });
    }
    guard_handle(h, f)
}

/// Makes an empty parameter set (no key, no strings, no tree) owned by the library; `*out`
/// receives it. It is a valid `skeinhw_params *` for every call that takes one, and changes
/// only through the `skeinhw_params_*` calls (free it with `skeinhw_params_free`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_new(out: *mut *mut skeinhw_params) -> c_int {
    guard(|| {
        let mut h = Owned {
            params: skeinhw_params {
                key: std::ptr::null(),
                key_len: 0,
                pers: std::ptr::null(),
                pers_len: 0,
                public_key: std::ptr::null(),
                public_key_len: 0,
                key_id: std::ptr::null(),
                key_id_len: 0,
                nonce: std::ptr::null(),
                nonce_len: 0,
                tree_leaf: 0,
                tree_fanout: 0,
                tree_max_height: 0,
            },
            strings: Default::default(),
            error: CString::default(),
        };
        h.repoint();
        if out.is_null() {
            return Err(CError::null("out (the handle pointer)"));
        }
        let raw = Box::into_raw(Box::new(h));
        live().insert(raw as usize);
        unsafe { *out = raw.cast() };
        Ok(SKEINHW_OK)
    })
}

/// Appends one byte to the string of type `kind` (`SKEINHW_PARAM_*`), making it present: a
/// byte-at-a-time feeder for DPI-C callers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_add_byte(
    p: *mut skeinhw_params,
    kind: u32,
    byte: u8,
) -> c_int {
    with_owned(p, |h| {
        h.edit(kind, |s| s.get_or_insert_with(Vec::new).push(byte))
    })
}

/// Sets the string of type `kind` to the bytes of `hex` (hex digits, "" for a present empty
/// string; an empty key is no key).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_set_hex(
    p: *mut skeinhw_params,
    kind: u32,
    hex: *const c_char,
) -> c_int {
    with_owned(p, |h| unsafe {
        let text = string(hex, "hex")?;
        let bytes = hex::decode(text.trim())
            .map_err(|e| CError::Argument(format!("hex string {text:?}: {e}")))?;
        h.edit(kind, |s| *s = Some(bytes))
    })
}

/// Makes the string of type `kind` absent again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_clear(p: *mut skeinhw_params, kind: u32) -> c_int {
    with_owned(p, |h| h.edit(kind, |s| *s = None))
}

/// Tree hashing with leaves of 2^`leaf` blocks, fan-out 2^`fanout` and at most `max_height`
/// levels (Yl >= 1, Yf >= 1, 2 <= Ym <= 255); all three 0 turn it off.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_set_tree(
    p: *mut skeinhw_params,
    leaf: u32,
    fanout: u32,
    max_height: u32,
) -> c_int {
    with_owned(p, |h| {
        let narrow = |v: u32, what: &str| {
            u8::try_from(v).map_err(|_| CError::Argument(format!("tree {what} {v} is over 255")))
        };
        let (yl, yf, ym) = (
            narrow(leaf, "leaf")?,
            narrow(fanout, "fan-out")?,
            narrow(max_height, "max height")?,
        );
        if (yl, yf, ym) != (0, 0, 0) {
            TreeParams::new(yl, yf, ym)?;
        }
        (
            h.params.tree_leaf,
            h.params.tree_fanout,
            h.params.tree_max_height,
        ) = (yl, yf, ym);
        Ok(SKEINHW_OK)
    })
}

/// The message of the handle's last failed call ("" if none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_error(p: *mut skeinhw_params) -> *const c_char {
    static NOT_OURS: &std::ffi::CStr = c"params is NULL or not made by skeinhw_params_new";
    match unsafe { owned(p).as_mut() } {
        Some(h) => h.error.as_ptr(),
        None => NOT_OURS.as_ptr(),
    }
}

/// Frees a parameter set made by `skeinhw_params_new` (NULL, and a struct the library did not
/// make, are ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_params_free(p: *mut skeinhw_params) {
    if live().remove(&(p as usize)) {
        crate::error::free_handle(p.cast::<Owned>());
    }
}
