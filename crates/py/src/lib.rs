//! `skeinhw` for Python: a thin layer over the Rust crates. Skein, Threefish and Shabal with
//! pyskein 1.0's API ([`hash`]), and the golden model: schedules, the lazy cycle simulator, the
//! Verilog generator and the live diff of the cocotb checker ([`model`]); [`stream`] makes the
//! batches of cycle values `simulate` hands to Python (public for the benches).

mod buffer;
mod estimate;
mod events;
mod hash;
mod model;
pub mod stream;

use pyo3::prelude::*;

/// The native module, `skeinhw._native`; the `skeinhw` package re-exports it.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    hash::register(m)?;
    model::register(m)?;
    events::register(m)?;
    estimate::register(m)?;
    Ok(())
}
