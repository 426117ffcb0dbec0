//! Status codes, the error messages behind them, and the boundary every exported function goes
//! through: arguments checked into Rust values, panics caught, the message kept per handle and
//! per thread.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Success.
pub const SKEINHW_OK: c_int = 0;
/// Not an error: `skeinhw_golden_step` found no further cycle (the run is over).
pub const SKEINHW_END: c_int = 1;
/// A NULL pointer where a value is needed (a handle, an out-pointer, a string), or with a
/// non-zero length.
pub const SKEINHW_ERR_NULL: c_int = -1;
/// An argument out of range: a state or output size, tree parameters, a subkey or round
/// index, a message length beyond its buffer.
pub const SKEINHW_ERR_ARGUMENT: c_int = -2;
/// A buffer of the wrong length (an output buffer too short, a key of the wrong word count).
pub const SKEINHW_ERR_BUFFER: c_int = -3;
/// An unknown preset, an unreadable file, invalid schedule JSON, or a schedule the golden
/// model cannot run.
pub const SKEINHW_ERR_SCHEDULE: c_int = -4;
/// A trace field name that the golden model's trace does not have.
pub const SKEINHW_ERR_FIELD: c_int = -5;
/// A call out of order: no cycle yet, no digest yet, a message added after the first step.
pub const SKEINHW_ERR_STATE: c_int = -6;
/// A panic inside the library, caught at the boundary (a bug: please report it).
pub const SKEINHW_ERR_PANIC: c_int = -7;

/// Why a call failed; the message is what `skeinhw_last_error` and the handles' `_error`
/// functions return.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CError {
    #[error("{what} is NULL{}", if *len > 0 { format!(" with a length of {len}") } else { String::new() })]
    Null { what: &'static str, len: u64 },
    #[error("{0}")]
    Argument(String),
    #[error("{0}")]
    Buffer(String),
    #[error("{0}")]
    Schedule(String),
    #[error("{0}")]
    Field(String),
    #[error("{0}")]
    State(String),
    #[error("internal error (panic caught at the C boundary): {0}")]
    Panic(String),
}

impl CError {
    pub(crate) fn code(&self) -> c_int {
        match self {
            CError::Null { .. } => SKEINHW_ERR_NULL,
            CError::Argument(_) => SKEINHW_ERR_ARGUMENT,
            CError::Buffer(_) => SKEINHW_ERR_BUFFER,
            CError::Schedule(_) => SKEINHW_ERR_SCHEDULE,
            CError::Field(_) => SKEINHW_ERR_FIELD,
            CError::State(_) => SKEINHW_ERR_STATE,
            CError::Panic(_) => SKEINHW_ERR_PANIC,
        }
    }

    pub(crate) fn null(what: &'static str) -> CError {
        CError::Null { what, len: 0 }
    }
}

impl From<skeinhw_skein::Error> for CError {
    fn from(e: skeinhw_skein::Error) -> Self {
        match e {
            skeinhw_skein::Error::OutputBufferLength { .. } => CError::Buffer(e.to_string()),
            skeinhw_skein::Error::UpdateAfterPartialByte => CError::State(e.to_string()),
            _ => CError::Argument(e.to_string()),
        }
    }
}

impl From<skeinhw_shabal::Error> for CError {
    fn from(e: skeinhw_shabal::Error) -> Self {
        match e {
            skeinhw_shabal::Error::OutputBufferLength { .. } => CError::Buffer(e.to_string()),
            skeinhw_shabal::Error::UpdateAfterPartialByte => CError::State(e.to_string()),
            _ => CError::Argument(e.to_string()),
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A C string of `message` (an interior NUL, which our messages never hold, becomes '?').
pub(crate) fn c_message(message: &str) -> CString {
    CString::new(message.replace('\0', "?")).unwrap_or_default()
}

fn set_last_error(message: &CString) {
    LAST_ERROR.with(|e| *e.borrow_mut() = message.clone());
}

/// The message of the last failed call on this thread ("" if none failed yet). Every failing
/// call sets it, with or without a handle. The pointer is valid until the next failing call
/// on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn skeinhw_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

fn run(f: impl FnOnce() -> Result<c_int, CError>) -> Result<c_int, CError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(CError::Panic(panic_message(p))),
    }
}

/// The boundary of a call without a handle: the status, and the thread's last error set on
/// failure.
pub(crate) fn guard(f: impl FnOnce() -> Result<c_int, CError>) -> c_int {
    match run(f) {
        Ok(code) => code,
        Err(e) => {
            set_last_error(&c_message(&e.to_string()));
            e.code()
        }
    }
}

/// A handle that keeps the message of its last failed call.
pub(crate) trait HasError {
    fn error_slot(&mut self) -> &mut CString;
}

/// The boundary of a call on a handle: a NULL handle is an error; on failure the message is
/// kept in the handle and as the thread's last error.
pub(crate) fn guard_handle<H: HasError>(
    handle: *mut H,
    f: impl FnOnce(&mut H) -> Result<c_int, CError>,
) -> c_int {
    let Some(h) = (unsafe { handle.as_mut() }) else {
        return guard(|| Err(CError::null("handle")));
    };
    match run(|| f(&mut *h)) {
        Ok(code) => code,
        Err(e) => {
            let message = c_message(&e.to_string());
            set_last_error(&message);
            *h.error_slot() = message;
            e.code()
        }
    }
}

/// The message of a handle's last failed call, for the `_error` functions.
pub(crate) fn handle_error<H: HasError>(handle: *mut H) -> *const c_char {
    static NULL_HANDLE: &CStr = c"handle is NULL";
    match unsafe { handle.as_mut() } {
        Some(h) => h.error_slot().as_ptr(),
        None => NULL_HANDLE.as_ptr(),
    }
}

/// Stores a new handle through `out`.
pub(crate) fn put_handle<H>(out: *mut *mut H, handle: H) -> Result<c_int, CError> {
    if out.is_null() {
        return Err(CError::null("out (the handle pointer)"));
    }
    unsafe { *out = Box::into_raw(Box::new(handle)) };
    Ok(SKEINHW_OK)
}

/// Frees a handle made by [`put_handle`]; NULL is ignored. Never unwinds.
pub(crate) fn free_handle<H>(handle: *mut H) {
    if !handle.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(handle) })));
    }
}

/// `len` elements at `p`: an empty slice for length 0 (any pointer), an error for NULL otherwise.
pub(crate) unsafe fn slice<'a, T>(
    p: *const T,
    len: usize,
    what: &'static str,
) -> Result<&'a [T], CError> {
    if len == 0 {
        return Ok(&[]);
    }
    nonnull(p, len, what)?;
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// As [`slice`], writable.
pub(crate) unsafe fn slice_mut<'a, T>(
    p: *mut T,
    len: usize,
    what: &'static str,
) -> Result<&'a mut [T], CError> {
    if len == 0 {
        return Ok(&mut []);
    }
    nonnull(p, len, what)?;
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// The NULL check shared by [`slice`] and [`slice_mut`]: a NULL pointer with a non-zero length.
fn nonnull<T>(p: *const T, len: usize, what: &'static str) -> Result<(), CError> {
    if p.is_null() {
        return Err(CError::Null {
            what,
            len: len as u64,
        });
    }
    Ok(())
}

/// `len` bytes at `p`, as [`slice`].
pub(crate) unsafe fn bytes<'a>(
    p: *const u8,
    len: usize,
    what: &'static str,
) -> Result<&'a [u8], CError> {
    unsafe { slice(p, len, what) }
}

/// The ceil(bits / 8) bytes of a message of `bits` bits at `p`.
pub(crate) unsafe fn message<'a>(
    p: *const u8,
    bits: u64,
    what: &'static str,
) -> Result<&'a [u8], CError> {
    let len = usize::try_from(bits.div_ceil(8))
        .map_err(|_| CError::Argument(format!("{what}: {bits} bits do not fit in memory")))?;
    unsafe { bytes(p, len, what) }
}

/// A NUL-terminated UTF-8 string.
pub(crate) unsafe fn string<'a>(p: *const c_char, what: &'static str) -> Result<&'a str, CError> {
    if p.is_null() {
        return Err(CError::null(what));
    }
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| CError::Argument(format!("{what} is not UTF-8")))
}

/// A writable out-parameter.
pub(crate) unsafe fn out<'a, T>(p: *mut T, what: &'static str) -> Result<&'a mut T, CError> {
    unsafe { p.as_mut() }.ok_or(CError::null(what))
}
