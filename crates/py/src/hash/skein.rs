//! `skein256`, `skein512`, `skein1024`: pyskein 1.0's hash objects over [`DynSkein`]. The output
//! is read through a seekable [`DynOutputReader`], so `digest(start, stop)` of an output of up
//! to 2^64 - 1 bits costs the blocks of the slice, never the whole output.

use std::sync::Mutex;

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use skeinhw_skein::{DynOutputReader, DynSkein, Params};

use super::args::{bit_count, digest_bits, digest_range, optional_bytes, tree_params, value_error};
use super::{lock, with_data};
use crate::buffer::{DETACH_BYTES, Data};

/// The longest digest `digest()` and `hexdigest()` build whole: 2^33 bits (1 GiB). Longer
/// outputs are read in slices with `digest(start, stop)`.
const MAX_WHOLE_DIGEST_BYTES: u64 = 1 << 30;

/// Bits of a message's last byte not yet complete: pyskein lets later updates of at most the
/// missing bits fill it up, and whole bytes follow once it is full.
#[derive(Clone, Copy)]
struct PartialByte {
    /// The bits so far, most significant first; the rest zero.
    byte: u8,
    /// How many, 1..=7.
    bits: u32,
}

impl PartialByte {
    fn missing(self) -> u32 {
        8 - self.bits
    }

    /// Appends the first `bits` bits of `next` (at most [`PartialByte::missing`]).
    fn append(self, next: u8, bits: u32) -> PartialByte {
        let keep = |b: u8, n: u32| if n == 0 { 0 } else { b & (0xFF << (8 - n)) };
        PartialByte {
            byte: self.byte | (keep(next, bits) >> self.bits),
            bits: self.bits + bits,
        }
    }
}

#[derive(Clone)]
struct SkeinState {
    /// Boxed: a Skein-1024 hasher with its tree state is some 600 bytes, which the object's
    /// construction would otherwise copy at each move.
    hasher: Box<DynSkein>,
    partial: Option<PartialByte>,
    /// Message bits hashed (u128: 2^64 - 1 bytes are 2^67 bits).
    hashed_bits: u128,
    /// The finished output of the message so far, until the next update: a keystream read
    /// by `digest(start, stop)` calls finishes the message once.
    output: Option<DynOutputReader>,
}

impl SkeinState {
    fn update(&mut self, data: &[u8], bits: u64) -> Result<(), String> {
        if let Some(p) = self.partial {
            if bits > u64::from(p.missing()) {
                return Err(format!(
                    "after a partial byte, at most {} more bits (<={} bits required for byte alignment) can be hashed, got {bits}",
                    p.missing(),
                    p.missing()
                ));
            }
            if bits > 0 {
                let p = p.append(data[0], bits as u32);
                self.partial = (p.bits < 8).then_some(p);
                if p.bits == 8 {
                    self.hasher.update(&[p.byte]);
                }
            }
        } else {
            let whole = (bits / 8) as usize;
            self.hasher.update(&data[..whole]);
            let rest = (bits % 8) as u32;
            self.partial =
                (rest != 0).then(|| PartialByte { byte: 0, bits: 0 }.append(data[whole], rest));
        }
        self.hashed_bits += u128::from(bits);
        self.output = None;
        Ok(())
    }

    /// The output reader of the message so far (the object can go on).
    fn output(&mut self) -> DynOutputReader {
        if self.output.is_none() {
            let mut h = (*self.hasher).clone();
            if let Some(p) = self.partial {
                h.update_bits(&[p.byte], u64::from(p.bits))
                    .expect("one partial byte ends the message");
            }
            self.output = Some(h.finalize_reader());
        }
        self.output.clone().expect("set above")
    }
}

/// What the three Skein classes share.
pub(super) struct SkeinCore {
    state: Mutex<SkeinState>,
    state_bits: usize,
    digest_bits: u64,
}

impl SkeinCore {
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        state_bits: usize,
        init: Option<&Bound<'_, PyAny>>,
        digest_bits_arg: Option<&Bound<'_, PyAny>>,
        key: Option<&Bound<'_, PyAny>>,
        pers: Option<&Bound<'_, PyAny>>,
        public_key: Option<&Bound<'_, PyAny>>,
        key_id: Option<&Bound<'_, PyAny>>,
        nonce: Option<&Bound<'_, PyAny>>,
        tree: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let digest_bits = digest_bits(digest_bits_arg, state_bits)?;
        let key = optional_bytes(key, "key")?.unwrap_or_default();
        let pers = optional_bytes(pers, "pers")?;
        let public_key = optional_bytes(public_key, "public_key")?;
        let key_id = optional_bytes(key_id, "key_id")?;
        let nonce = optional_bytes(nonce, "nonce")?;
        let params = Params {
            key: &key,
            personalization: pers.as_deref(),
            public_key: public_key.as_deref(),
            key_id: key_id.as_deref(),
            nonce: nonce.as_deref(),
            tree: tree_params(tree)?,
        };
        let hasher = DynSkein::new(state_bits, digest_bits, &params).map_err(value_error)?;
        let core = SkeinCore {
            state: Mutex::new(SkeinState {
                hasher: Box::new(hasher),
                partial: None,
                hashed_bits: 0,
                output: None,
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
        let data = Data::borrow(data, "message")?;
        let bytes = data.as_slice();
        let bits = bit_count(bits, bytes.len())?.unwrap_or(bytes.len() as u64 * 8);
        let state = &self.state;
        with_data(py, bytes, |bytes| lock(state).update(bytes, bits)).map_err(PyValueError::new_err)
    }

    fn digest_size(&self) -> u64 {
        self.digest_bits.div_ceil(8)
    }

    /// Output bytes `start..stop`, written straight into the new bytes object (with the GIL
    /// released for long slices: nobody else can see the object yet).
    fn digest_slice<'py>(
        &self,
        py: Python<'py>,
        start: u64,
        stop: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let len = usize::try_from(stop - start).map_err(|_| {
            PyMemoryError::new_err(format!("a digest slice of {} bytes", stop - start))
        })?;
        let mut reader = lock(&self.state).output();
        reader.seek(start);
        PyBytes::new_with(py, len, |buf| {
            if len >= DETACH_BYTES {
                py.detach(|| reader.fill(buf));
            } else {
                reader.fill(buf);
            }
            Ok(())
        })
    }

    fn whole_digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let size = self.digest_size();
        if size > MAX_WHOLE_DIGEST_BYTES {
            return Err(PyMemoryError::new_err(format!(
                "a digest of {size} bytes is longer than the {MAX_WHOLE_DIGEST_BYTES} bytes digest() builds whole: read it in slices with digest(start, stop)"
            )));
        }
        self.digest_slice(py, 0, size)
    }

    fn copy(&self) -> SkeinCore {
        SkeinCore {
            state: Mutex::new(lock(&self.state).clone()),
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
            #[pyo3(signature = (init=None, digest_bits=None, *, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None))]
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

            /// Appends `message`; with `bits`, only its first `bits` bits (the last byte's most
            /// significant bits first). After a partial byte, only updates of at most the
            /// missing bits are allowed until the byte is complete.
            #[pyo3(signature = (message, bits=None))]
            fn update(
                &self,
                py: Python<'_>,
                message: &Bound<'_, PyAny>,
                bits: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<()> {
                self.0.update(py, message, bits)
            }

            /// The digest of what was hashed so far (the object can go on); `digest(start,
            /// stop)` is `digest()[start:stop]`, computed from the blocks of the slice only.
            #[pyo3(signature = (*args))]
            fn digest<'py>(
                &self,
                py: Python<'py>,
                args: &Bound<'py, PyTuple>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                if args.is_empty() {
                    return self.0.whole_digest(py);
                }
                let (start, stop) = digest_range(args, self.0.digest_size())?;
                self.0.digest_slice(py, start, stop)
            }

            /// The digest as lowercase hex.
            fn hexdigest(&self, py: Python<'_>) -> PyResult<String> {
                Ok(hex::encode(self.0.whole_digest(py)?.as_bytes()))
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
                self.0.digest_size()
            }

            #[getter]
            fn block_bits(&self) -> usize {
                self.0.state_bits
            }

            #[getter]
            fn block_size(&self) -> usize {
                self.0.state_bits / 8
            }

            /// Message bits hashed so far (the optional arguments are not message).
            #[getter]
            fn hashed_bits(&self) -> u128 {
                lock(&self.0.state).hashed_bits
            }

            fn __repr__(&self) -> String {
                format!("<{} hash object, {} output bits>", $title, self.0.digest_bits)
            }
        }
    };
}

skein_class!(Skein256, "skein256", 256, "Skein-256");
skein_class!(Skein512, "skein512", 512, "Skein-512");
skein_class!(Skein1024, "skein1024", 1024, "Skein-1024");

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Skein256>()?;
    m.add_class::<Skein512>()?;
    m.add_class::<Skein1024>()?;
    Ok(())
}
