//! The generator under pyskein 1.0's `skein.Random` (the Python class in `skeinhw/__init__.py`
//! keeps pyskein's seeding and bit buffering and calls this for bytes). With the state S as a
//! Threefish key and the tweak of the Out type (63) with neither First nor Final set, each step
//! emits E_S(1) and moves to S' = E_S(0): counter blocks as in Skein's output transform, but
//! without UBI's feed-forward, position or flags.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use skeinhw_skein::BlockType;
use skeinhw_skein::fast::encrypt;
use skeinhw_skein::threefish::{words_from_bytes, words_to_bytes};

use super::args::value_error;
use crate::buffer::{DETACH_BYTES, Data};

/// The tweak of every step: type Out in bits 120..125, position 0, no flags.
const TWEAK: [u64; 2] = [0, (BlockType::Output as u64) << 56];

/// Runs `blocks` steps from `state`: the next state and the `blocks * N * 8` bytes emitted.
fn steps<const N: usize>(state: &[u8], blocks: usize, out: &mut [u8]) -> Vec<u8> {
    let mut key: [u64; N] = words_from_bytes(state);
    let zero = [0u64; N];
    let mut one = [0u64; N];
    one[0] = 1;
    for chunk in out.chunks_exact_mut(N * 8).take(blocks) {
        words_to_bytes(&encrypt(&key, TWEAK, &one), chunk);
        key = encrypt(&key, TWEAK, &zero);
    }
    let mut next = vec![0u8; N * 8];
    words_to_bytes(&key, &mut next);
    next
}

/// `_random_blocks(state, blocks) -> (next_state, output)`: `blocks` steps of the generator
/// from `state` (32, 64 or 128 bytes: Skein-256/512/1024).
#[pyfunction]
fn _random_blocks<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
    blocks: usize,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let data = Data::borrow(state, "state")?;
    let state = data.as_slice().to_vec();
    let n = state.len();
    if ![32, 64, 128].contains(&n) {
        return Err(value_error(format!(
            "state must be 32, 64 or 128 bytes (Skein-256/512/1024), got {n}"
        )));
    }
    let len = blocks
        .checked_mul(n)
        .ok_or_else(|| value_error(format!("{blocks} blocks of {n} bytes are too many")))?;
    let mut next = Vec::new();
    let output = PyBytes::new_with(py, len, |out| {
        let mut run = || match n {
            32 => steps::<4>(&state, blocks, out),
            64 => steps::<8>(&state, blocks, out),
            _ => steps::<16>(&state, blocks, out),
        };
        next = if len >= DETACH_BYTES {
            py.detach(run)
        } else {
            run()
        };
        Ok(())
    })?;
    Ok((PyBytes::new(py, &next), output))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_random_blocks, m)?)
}
