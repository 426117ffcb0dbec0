//! Skein, Threefish and Shabal for Python, with pyskein 1.0's names and arguments: the hash
//! objects ([`skein`]), their arguments ([`args`]), Threefish ([`threefish`]), Shabal
//! ([`shabal`]) and the Threefish step of pyskein's `Random` ([`random`]). Every object holds
//! its state in a Mutex (thread-safe); inputs of [`DETACH_BYTES`] and more are hashed with
//! the GIL released, taking the lock only inside the released region so that no thread ever
//! waits for the lock while holding the GIL that the lock's holder needs.

mod args;
mod random;
mod shabal;
mod skein;
mod threefish;

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

pub(crate) use args::value_error;

use crate::buffer::{DETACH_BYTES, Data};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the data, with the GIL released when there is enough of it.
fn with_data<R: Send>(py: Python<'_>, data: &[u8], f: impl FnOnce(&[u8]) -> R + Send) -> R {
    if data.len() >= DETACH_BYTES {
        py.detach(|| f(data))
    } else {
        f(data)
    }
}

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
    skein::register(m)?;
    threefish::register(m)?;
    shabal::register(m)?;
    random::register(m)?;
    Ok(())
}
