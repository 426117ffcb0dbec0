//! Skein, Threefish and Shabal for Python, with pyskein 1.0's names and arguments. Every
//! object holds its state in a Mutex (thread-safe); inputs of [`DETACH_BYTES`] and more are
//! hashed with the GIL released, taking the lock only inside the released region so that no
//! thread ever waits for the lock while holding the GIL that the lock's holder needs.

use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use skeinhw_skein::{DynSkein, Params, TreeParams};

use crate::buffer::{DETACH_BYTES, Data};

/// The largest digest we hand out: 2^33 bits (1 GiB); longer outputs would make memory grow
/// with a number the user typed.
const MAX_DIGEST_BITS: u64 = 1 << 33;

pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `bits` of `update`: None (whole bytes) or 0..=8*len.
fn bit_count(bits: Option<&Bound<'_, PyAny>>, len: usize) -> PyResult<Option<u64>> {
    let Some(b) = bits else { return Ok(None) };
    if b.is_none() {
        return Ok(None);
    }
    if b.is_instance_of::<pyo3::types::PyBool>() || !b.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "bits: an integer is required, not '{}'",
            b.get_type().name()?
        )));
    }
    let v: i128 = b.extract().map_err(|_| {
        value_error(format!(
            "{b} message bits requested but only {} given",
            len as u64 * 8
        ))
    })?;
    if v < 0 {
        return Err(value_error(format!("bits must not be negative, got {v}")));
    }
    Ok(Some(u64::try_from(v).unwrap_or(u64::MAX)))
}

/// Runs `f` on the data, with the GIL released when there is enough of it.
fn with_data<R: Send>(py: Python<'_>, data: &[u8], f: impl FnOnce(&[u8]) -> R + Send) -> R {
    if data.len() >= DETACH_BYTES {
        py.detach(|| f(data))
    } else {
        f(data)
    }
}

struct SkeinState {
    /// Boxed: a Skein-1024 hasher with its tree state is some 600 bytes, which the object's
    /// construction would otherwise copy at each move.
    hasher: Box<DynSkein>,
    hashed_bits: u64,
}

/// What the three Skein classes share.
struct SkeinCore {
    state: Mutex<SkeinState>,
    state_bits: usize,
    digest_bits: u64,
}

fn optional_bytes(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u8>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => {
            let data = Data::borrow(o, what)?;
            let bytes = data.as_slice();
            // pyskein's rule: an empty argument is no argument.
            Ok((!bytes.is_empty()).then(|| bytes.to_vec()))
        }
    }
}

fn tree_params(tree: Option<&Bound<'_, PyAny>>) -> PyResult<Option<TreeParams>> {
    let Some(t) = tree else { return Ok(None) };
    if t.is_none() {
        return Ok(None);
    }
    let (leaf, fan_out, max_height): (i64, i64, i64) = t.extract().map_err(|_| {
        PyTypeError::new_err("tree: a tuple (leaf, fan_out, max_height) of integers is required")
    })?;
    let byte = |v: i64| u8::try_from(v).unwrap_or(if v < 0 { 0 } else { 255 });
    if [leaf, fan_out, max_height]
        .iter()
        .any(|v| !(0..=255).contains(v))
    {
        return Err(value_error(format!(
            "tree parameters ({leaf}, {fan_out}, {max_height}) must each be 0..255 (leaf >= 1, fan-out >= 1, max height >= 2)"
        )));
    }
    TreeParams::new(byte(leaf), byte(fan_out), byte(max_height))
        .map(Some)
        .map_err(value_error)
}

fn digest_bits_arg(obj: Option<&Bound<'_, PyAny>>, state_bits: usize) -> PyResult<u64> {
    let Some(o) = obj else {
        return Ok(state_bits as u64);
    };
    if o.is_none() {
        return Ok(state_bits as u64);
    }
    if o.is_instance_of::<pyo3::types::PyBool>() || !o.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "digest_bits: an integer is required, not '{}'",
            o.get_type().name()?
        )));
    }
    let v: i128 = o.extract().unwrap_or(i128::MAX);
    if v < 1 {
        return Err(value_error(skeinhw_skein::Error::ZeroOutputLength));
    }
    if v > i128::from(MAX_DIGEST_BITS) {
        return Err(value_error(format!(
            "digest_bits {v} is too long: at most {MAX_DIGEST_BITS} bits (1 GiB)"
        )));
    }
    Ok(v as u64)
}

impl SkeinCore {
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        state_bits: usize,
        init: Option<&Bound<'_, PyAny>>,
        digest_bits: Option<&Bound<'_, PyAny>>,
        key: Option<&Bound<'_, PyAny>>,
        pers: Option<&Bound<'_, PyAny>>,
        public_key: Option<&Bound<'_, PyAny>>,
        key_id: Option<&Bound<'_, PyAny>>,
        nonce: Option<&Bound<'_, PyAny>>,
        tree: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let digest_bits = digest_bits_arg(digest_bits, state_bits)?;
        let key = optional_bytes(key, "key")?.unwrap_or_default();
        let pers = optional_bytes(pers, "pers")?;
        let public_key = optional_bytes(public_key, "public_key")?;
        let key_id = optional_bytes(key_id, "key_id")?;
        let nonce = optional_bytes(nonce, "nonce")?;
        let tree = tree_params(tree)?;
        let params = Params {
            key: &key,
            personalization: pers.as_deref(),
            public_key: public_key.as_deref(),
            key_id: key_id.as_deref(),
            nonce: nonce.as_deref(),
            tree,
        };
        let hasher = DynSkein::new(state_bits, digest_bits, &params).map_err(value_error)?;
        let core = SkeinCore {
            state: Mutex::new(SkeinState {
                hasher: Box::new(hasher),
                hashed_bits: 0,
            }),
            state_bits,
            digest_bits,
        };
        if let Some(init) = init.filter(|i| !i.is_none()) {
            core.update(py, init, None)?;
        }
        Ok(core)
    }

    fn update(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        bits: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let data = Data::borrow(data, "data")?;
        let bytes = data.as_slice();
        let bits = bit_count(bits, bytes.len())?;
        let state = &self.state;
        with_data(py, bytes, |bytes| {
            let mut s = lock(state);
            let n = bits.unwrap_or(bytes.len() as u64 * 8);
            s.hasher.update_bits(bytes, n)?;
            s.hashed_bits += n;
            Ok::<(), skeinhw_skein::Error>(())
        })
        .map_err(value_error)
    }

    fn digest(&self) -> Vec<u8> {
        let hasher: DynSkein = (*lock(&self.state).hasher).clone();
        hasher.finalize()
    }

    fn copy(&self) -> SkeinCore {
        let s = lock(&self.state);
        SkeinCore {
            state: Mutex::new(SkeinState {
                hasher: s.hasher.clone(),
                hashed_bits: s.hashed_bits,
            }),
            state_bits: self.state_bits,
            digest_bits: self.digest_bits,
        }
    }
}

macro_rules! skein_class {
    ($class:ident, $pyname:literal, $bits:literal, $title:literal) => {
        #[doc = concat!($title, " (pyskein's `skein.", $pyname, "`): a streaming hash, MAC, KDF or tree hash.")]
        #[pyclass(name = $pyname, module = "skeinhw", frozen)]
        pub struct $class(SkeinCore);

        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(signature = (init=None, digest_bits=None, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None))]
            #[allow(clippy::too_many_arguments)]
            fn new(
                py: Python<'_>,
                init: Option<&Bound<'_, PyAny>>,
                digest_bits: Option<&Bound<'_, PyAny>>,
                key: Option<&Bound<'_, PyAny>>,
                pers: Option<&Bound<'_, PyAny>>,
                public_key: Option<&Bound<'_, PyAny>>,
                key_id: Option<&Bound<'_, PyAny>>,
                nonce: Option<&Bound<'_, PyAny>>,
                tree: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                SkeinCore::new(
                    py, $bits, init, digest_bits, key, pers, public_key, key_id, nonce, tree,
                )
                .map($class)
            }

            /// Appends `data`; with `bits`, only its first `bits` bits (the last byte's most
            /// significant bits first). Nothing can follow a partial byte.
            #[pyo3(signature = (data, bits=None))]
            fn update(
                &self,
                py: Python<'_>,
                data: &Bound<'_, PyAny>,
                bits: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<()> {
                self.0.update(py, data, bits)
            }

            /// The digest of what was hashed so far (the object can go on).
            fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, &self.0.digest())
            }

            /// The digest as lowercase hex.
            fn hexdigest(&self) -> String {
                hex::encode(self.0.digest())
            }

            /// An independent copy of the current state.
            fn copy(&self) -> Self {
                $class(self.0.copy())
            }

            #[getter]
            fn name(&self) -> &'static str {
                $title
            }

            #[getter]
            fn digest_bits(&self) -> u64 {
                self.0.digest_bits
            }

            #[getter]
            fn digest_size(&self) -> u64 {
                self.0.digest_bits.div_ceil(8)
            }

            #[getter]
            fn block_bits(&self) -> usize {
                self.0.state_bits
            }

            #[getter]
            fn block_size(&self) -> usize {
                self.0.state_bits / 8
            }

            #[getter]
            fn hashed_bits(&self) -> u64 {
                lock(&self.0.state).hashed_bits
            }
        }
    };
}

skein_class!(Skein256, "skein256", 256, "Skein-256");
skein_class!(Skein512, "skein512", 512, "Skein-512");
skein_class!(Skein1024, "skein1024", 1024, "Skein-1024");

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

struct ShabalCore {
    state: Mutex<skeinhw_shabal::Shabal>,
    bits: u64,
}

impl ShabalCore {
    fn new(py: Python<'_>, bits: u64, data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let core = ShabalCore {
            state: Mutex::new(skeinhw_shabal::Shabal::new(bits).map_err(value_error)?),
            bits,
        };
        if let Some(d) = data.filter(|d| !d.is_none()) {
            core.update(py, d, None)?;
        }
        Ok(core)
    }

    fn update(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        bits: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let data = Data::borrow(data, "data")?;
        let bytes = data.as_slice();
        let bits = bit_count(bits, bytes.len())?;
        let state = &self.state;
        with_data(py, bytes, |bytes| {
            let n = bits.unwrap_or(bytes.len() as u64 * 8);
            lock(state).update_bits(bytes, n)
        })
        .map_err(value_error)
    }
}

macro_rules! shabal_class {
    ($class:ident, $pyname:literal, $bits:literal) => {
        #[doc = concat!("Shabal-", stringify!($bits), ", hashlib-style.")]
        #[pyclass(name = $pyname, module = "skeinhw", frozen)]
        pub struct $class(ShabalCore);

        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(signature = (data=None))]
            fn new(py: Python<'_>, data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
                ShabalCore::new(py, $bits, data).map($class)
            }

            /// Appends `data` (with `bits`, only its first bits, MSB first).
            #[pyo3(signature = (data, bits=None))]
            fn update(
                &self,
                py: Python<'_>,
                data: &Bound<'_, PyAny>,
                bits: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<()> {
                self.0.update(py, data, bits)
            }

            fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                let h = lock(&self.0.state).clone();
                PyBytes::new(py, &h.finalize())
            }

            fn hexdigest(&self) -> String {
                let h = lock(&self.0.state).clone();
                hex::encode(h.finalize())
            }

            fn copy(&self) -> Self {
                $class(ShabalCore {
                    state: Mutex::new(lock(&self.0.state).clone()),
                    bits: self.0.bits,
                })
            }

            #[getter]
            fn name(&self) -> &'static str {
                $pyname
            }

            #[getter]
            fn digest_size(&self) -> u64 {
                self.0.bits / 8
            }

            #[getter]
            fn block_size(&self) -> usize {
                64
            }
        }
    };
}

shabal_class!(Shabal192, "shabal192", 192);
shabal_class!(Shabal224, "shabal224", 224);
shabal_class!(Shabal256, "shabal256", 256);
shabal_class!(Shabal384, "shabal384", 384);
shabal_class!(Shabal512, "shabal512", 512);

/// For the benchmark script: seconds the Rust library itself takes to hash `data` with
/// Skein-512 `reps` times (no Python in the loop), the reference the binding is measured
/// against.
#[pyfunction]
fn _bench_rust_skein512(py: Python<'_>, data: &Bound<'_, PyAny>, reps: u32) -> PyResult<f64> {
    let data = Data::borrow(data, "data")?;
    let bytes = data.as_slice();
    Ok(py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            let mut h = skeinhw_skein::Skein512::new(512).expect("512 output bits");
            h.update(std::hint::black_box(bytes));
            std::hint::black_box(h.finalize());
        }
        start.elapsed().as_secs_f64()
    }))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_bench_rust_skein512, m)?)?;
    m.add_class::<Skein256>()?;
    m.add_class::<Skein512>()?;
    m.add_class::<Skein1024>()?;
    m.add_class::<Threefish>()?;
    m.add_class::<Shabal192>()?;
    m.add_class::<Shabal224>()?;
    m.add_class::<Shabal256>()?;
    m.add_class::<Shabal384>()?;
    m.add_class::<Shabal512>()?;
    Ok(())
}
