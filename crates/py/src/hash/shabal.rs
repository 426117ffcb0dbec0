//! Shabal-192/224/256/384/512, hashlib-style, over `skeinhw_shabal`.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::args::{bit_count, value_error};
use super::{lock, with_data};
use crate::buffer::Data;

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

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Shabal192>()?;
    m.add_class::<Shabal224>()?;
    m.add_class::<Shabal256>()?;
    m.add_class::<Shabal384>()?;
    m.add_class::<Shabal512>()?;
    Ok(())
}
