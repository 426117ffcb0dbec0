//! Threefish-256/512/1024 with pyskein 1.0's `threefish` API: one block per call, a writable
//! tweak (all three tweak words follow it: pyskein 1.0 leaves the third one stale).

use std::sync::Mutex;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::args::value_error;
use super::lock;
use crate::buffer::Data;

fn exact_bytes(obj: &Bound<'_, PyAny>, what: &str, len: usize) -> PyResult<Vec<u8>> {
    let data = Data::borrow(obj, what)?;
    let b = data.as_slice();
    if b.len() != len {
        return Err(value_error(format!(
            "{what} must be {len} bytes, got {}",
            b.len()
        )));
    }
    Ok(b.to_vec())
}

fn crypt<const N: usize>(key: &[u8], tweak: &[u8], block: &[u8], decrypt: bool) -> Vec<u8> {
    use skeinhw_skein::threefish::{
        decrypt as dec, encrypt as enc, words_from_bytes, words_to_bytes,
    };
    let k: [u64; N] = words_from_bytes(key);
    let t: [u64; 2] = words_from_bytes(tweak);
    let p: [u64; N] = words_from_bytes(block);
    let c = if decrypt {
        dec(&k, t, &p)
    } else {
        enc(&k, t, &p)
    };
    let mut out = vec![0u8; N * 8];
    words_to_bytes(&c, &mut out);
    out
}

/// Threefish-256/512/1024 (the key's length picks the size), with a writable tweak.
#[pyclass(name = "threefish", module = "skeinhw", frozen)]
pub struct Threefish {
    key: Vec<u8>,
    tweak: Mutex<Vec<u8>>,
}

#[pymethods]
impl Threefish {
    #[new]
    fn new(key: &Bound<'_, PyAny>, tweak: &Bound<'_, PyAny>) -> PyResult<Self> {
        let data = Data::borrow(key, "key")?;
        let key = data.as_slice().to_vec();
        if ![32, 64, 128].contains(&key.len()) {
            return Err(value_error(format!(
                "key must be 32, 64 or 128 bytes (Threefish-256/512/1024), got {}",
                key.len()
            )));
        }
        let tweak = exact_bytes(tweak, "tweak", 16)?;
        Ok(Threefish {
            key,
            tweak: Mutex::new(tweak),
        })
    }

    /// Encrypts one block of `block_size` bytes.
    fn encrypt_block<'py>(
        &self,
        py: Python<'py>,
        block: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.run(py, block, false)
    }

    /// Decrypts one block of `block_size` bytes.
    fn decrypt_block<'py>(
        &self,
        py: Python<'py>,
        block: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.run(py, block, true)
    }

    #[getter]
    fn get_tweak<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &lock(&self.tweak))
    }

    #[setter]
    fn set_tweak(&self, tweak: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let Some(tweak) = tweak else {
            return Err(PyTypeError::new_err("the tweak cannot be deleted"));
        };
        *lock(&self.tweak) = exact_bytes(tweak, "tweak", 16)?;
        Ok(())
    }

    #[getter]
    fn block_size(&self) -> usize {
        self.key.len()
    }

    #[getter]
    fn block_bits(&self) -> usize {
        self.key.len() * 8
    }
}

impl Threefish {
    fn run<'py>(
        &self,
        py: Python<'py>,
        block: &Bound<'py, PyAny>,
        decrypt: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let block = exact_bytes(block, "block", self.key.len())?;
        let tweak = lock(&self.tweak).clone();
        let out = match self.key.len() {
            32 => crypt::<4>(&self.key, &tweak, &block, decrypt),
            64 => crypt::<8>(&self.key, &tweak, &block, decrypt),
            _ => crypt::<16>(&self.key, &tweak, &block, decrypt),
        };
        Ok(PyBytes::new(py, &out))
    }
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Threefish>()
}
