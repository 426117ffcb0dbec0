//! Bytes-like arguments without a copy. `bytes` are read in place; every other object that
//! exports a buffer (bytearray, memoryview, array, numpy) is borrowed through
//! `PyObject_GetBuffer`, which CPython has exported with this `Py_buffer` layout since 3.3
//! (the limited API names it only from 3.11, hence the local declaration for abi3-py39).
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void};

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

#[repr(C)]
pub struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// PyBUF_SIMPLE: one contiguous run of bytes.
const PYBUF_SIMPLE: c_int = 0;

/// Inputs of this many bytes and more are hashed with the GIL released.
pub const DETACH_BYTES: usize = 2048;

/// A borrowed bytes-like argument; the exporter keeps the memory (and its size: a bytearray
/// cannot be resized while exported) until this is dropped.
pub enum Data<'py> {
    /// A `bytes` object (immutable).
    Bytes(Bound<'py, PyBytes>),
    /// Any other buffer exporter.
    View(Box<RawBuffer>),
}

impl<'py> Data<'py> {
    /// Borrows `obj`'s bytes, or a TypeError naming the argument.
    pub fn borrow(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Data<'py>> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Data::Bytes(b.clone()));
        }
        if obj.is_instance_of::<pyo3::types::PyString>() {
            return Err(PyTypeError::new_err(format!(
                "{what}: a bytes-like object is required, not 'str' (encode it first)"
            )));
        }
        let mut view = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        // SAFETY: obj is a live object (GIL held); view is a writable Py_buffer.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, PYBUF_SIMPLE) };
        if rc != 0 {
            // Drop the Python error set by the exporter: ours names the argument.
            let _ = PyErr::take(obj.py());
            let type_name = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "?".into());
            return Err(PyTypeError::new_err(format!(
                "{what}: a bytes-like object is required, not '{type_name}'"
            )));
        }
        Ok(Data::View(view))
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Data::Bytes(b) => b.as_bytes(),
            Data::View(v) => {
                if v.len == 0 || v.buf.is_null() {
                    &[]
                } else {
                    // SAFETY: a PyBUF_SIMPLE view is `len` contiguous bytes at `buf`, valid
                    // until released.
                    unsafe { std::slice::from_raw_parts(v.buf as *const u8, v.len as usize) }
                }
            }
        }
    }
}

impl Drop for Data<'_> {
    fn drop(&mut self) {
        if let Data::View(v) = self {
            // Releasing needs the GIL; Data is only dropped where it was made, with the GIL.
            // SAFETY: the view was filled by a successful PyObject_GetBuffer.
            unsafe { PyBuffer_Release(&mut **v) };
        }
    }
}
