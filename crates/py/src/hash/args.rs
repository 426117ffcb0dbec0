//! The Skein classes' arguments, checked as pyskein 1.0 checks them: the same exception types
//! for the same bad values, with messages that say what is allowed.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyTuple};
use skeinhw_skein::TreeParams;

use crate::buffer::Data;

pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// `bits` of `update`: None (all of the data) or 0..=8*len. pyskein parses it as a C
/// `ssize_t`: an OverflowError from 2^63 on.
pub(super) fn bit_count(bits: Option<&Bound<'_, PyAny>>, len: usize) -> PyResult<Option<u64>> {
    let Some(b) = bits.filter(|b| !b.is_none()) else {
        return Ok(None);
    };
    if !b.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "bits: an integer is required, not '{}'",
            type_name(b)
        )));
    }
    let v: i128 = b
        .extract()
        .map_err(|_| PyOverflowError::new_err(format!("bits {b} is too large")))?;
    if v < 0 {
        return Err(value_error(format!("bits must not be negative, got {v}")));
    }
    if v > i128::from(i64::MAX) {
        return Err(PyOverflowError::new_err(format!("bits {v} is too large")));
    }
    let available = len as u64 * 8;
    if v as u64 > available {
        return Err(value_error(skeinhw_skein::Error::NotEnoughBits {
            bits: v as u64,
            available,
        }));
    }
    Ok(Some(v as u64))
}

/// `digest_bits`: 1..=2^64-1, the output length field of the configuration. pyskein answers
/// every bad value, of any type, with a ValueError.
pub(super) fn digest_bits(obj: Option<&Bound<'_, PyAny>>, state_bits: usize) -> PyResult<u64> {
    let Some(o) = obj.filter(|o| !o.is_none()) else {
        return Ok(state_bits as u64);
    };
    match o.extract::<u64>() {
        Ok(v) if v >= 1 && !o.is_instance_of::<PyFloat>() => Ok(v),
        _ => {
            let got = o.repr().map(|r| r.to_string()).unwrap_or_default();
            let too_small = o.is_instance_of::<PyInt>() && o.extract::<i128>().is_ok_and(|v| v < 1);
            let why = if too_small {
                format!(" ({})", skeinhw_skein::Error::ZeroOutputLength)
            } else {
                String::new()
            };
            Err(value_error(format!(
                "digest_bits must be between 1 and 2**64-1, got {got}{why}"
            )))
        }
    }
}

/// An optional bytes-like argument; pyskein's rule: an empty argument is no argument.
pub(super) fn optional_bytes(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Option<Vec<u8>>> {
    let Some(o) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let data = Data::borrow(o, what)?;
    let bytes = data.as_slice();
    Ok((!bytes.is_empty()).then(|| bytes.to_vec()))
}

const TREE_SHAPE: &str = "tree: a tuple (leaf, fan_out, max_height) of integers is required";

/// `tree`: any iterable of three integers (pyskein takes tuples, lists, iterators), each a
/// configuration byte with leaf >= 1, fan-out >= 1, max height >= 2 (Skein 1.3, 3.5.6).
pub(super) fn tree_params(tree: Option<&Bound<'_, PyAny>>) -> PyResult<Option<TreeParams>> {
    let Some(t) = tree.filter(|t| !t.is_none()) else {
        return Ok(None);
    };
    let items: Vec<Bound<'_, PyAny>> = t
        .try_iter()
        .map_err(|_| PyTypeError::new_err(TREE_SHAPE))?
        .collect::<PyResult<_>>()?;
    if items.len() != 3 {
        return Err(PyTypeError::new_err(TREE_SHAPE));
    }
    let mut v = [0i64; 3];
    for (slot, item) in v.iter_mut().zip(&items) {
        if item.is_instance_of::<PyFloat>() {
            return Err(PyTypeError::new_err(TREE_SHAPE));
        }
        let index = item
            .call_method0("__index__")
            .map_err(|_| PyTypeError::new_err(TREE_SHAPE))?;
        // Too large for 64 bits: out of range like any value over 255.
        *slot = index.extract().unwrap_or(i64::MAX);
    }
    let [leaf, fan_out, max_height] = v;
    let in_range = (1..=255).contains(&leaf)
        && (1..=255).contains(&fan_out)
        && (2..=255).contains(&max_height);
    if !in_range {
        return Err(value_error(format!(
            "tree parameters ({leaf}, {fan_out}, {max_height}) must be between (1, 1, 2) and (255, 255, 255)"
        )));
    }
    TreeParams::new(leaf as u8, fan_out as u8, max_height as u8)
        .map(Some)
        .map_err(value_error)
}

/// `digest`'s arguments: none (the whole digest) or `start, stop` with
/// 0 <= start <= stop <= digest_size, positional as in pyskein.
pub(super) fn digest_range(args: &Bound<'_, PyTuple>, size: u64) -> PyResult<(u64, u64)> {
    match args.len() {
        0 => return Ok((0, size)),
        2 => {}
        _ => {
            return Err(PyTypeError::new_err(
                "digest() takes either 0 or 2 arguments (start, stop)",
            ));
        }
    }
    let mut v = [0i128; 2];
    for (slot, (item, what)) in v.iter_mut().zip(args.iter().zip(["start", "stop"])) {
        if !item.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "digest() {what}: an integer is required, not '{}'",
                type_name(&item)
            )));
        }
        *slot = item.extract().unwrap_or(i128::MAX);
    }
    let [start, stop] = v;
    if start < 0 || start > stop || stop > i128::from(size) {
        return Err(value_error(format!(
            "digest(start, stop) needs 0 <= start <= stop <= digest_size ({size}), got ({start}, {stop})"
        )));
    }
    Ok((start as u64, stop as u64))
}
