//! The arguments a golden run takes from Python: messages, their bit lengths, and Skein's
//! optional arguments (MAC key, personalization, public key, key id, nonce, tree, output length).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use skeinhw_skein::TreeParams;

use crate::buffer::Data;
use crate::hash::value_error;

/// The messages argument: one bytes-like object or a sequence of them.
pub(crate) fn messages_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "messages: bytes-like objects are required, not 'str' (encode it first)",
        ));
    }
    if let Ok(d) = Data::borrow(obj, "messages") {
        return Ok(vec![d.as_slice().to_vec()]);
    }
    let mut out = Vec::new();
    for (i, item) in obj
        .try_iter()
        .map_err(|_| PyTypeError::new_err("messages: a list of bytes-like objects is required"))?
        .enumerate()
    {
        let item = item?;
        out.push(
            Data::borrow(&item, &format!("messages[{i}]"))?
                .as_slice()
                .to_vec(),
        );
    }
    if out.is_empty() {
        return Err(value_error("no input: give at least one message"));
    }
    Ok(out)
}

/// The bits argument: None, one integer (one message) or one entry (int or None) per message.
pub(crate) fn bits_arg(obj: Option<&Bound<'_, PyAny>>, messages: &[Vec<u8>]) -> PyResult<Vec<u64>> {
    let whole: Vec<u64> = messages.iter().map(|m| m.len() as u64 * 8).collect();
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(whole);
    };
    let given: Vec<Option<i128>> = if let Ok(v) = obj.extract::<i128>() {
        vec![Some(v)]
    } else {
        obj.extract().map_err(|_| {
            PyTypeError::new_err(
                "bits: an integer or a list of integers (one per message) is required",
            )
        })?
    };
    if given.len() != messages.len() {
        return Err(value_error(format!(
            "bits: {} entries for {} messages",
            given.len(),
            messages.len()
        )));
    }
    given
        .iter()
        .zip(&whole)
        .enumerate()
        .map(|(i, (b, &available))| match b {
            None => Ok(available),
            Some(b) if *b < 0 || *b > i128::from(available) => Err(value_error(format!(
                "message {i}: {b} message bits requested but only {available} given"
            ))),
            Some(b) => Ok(*b as u64),
        })
        .collect()
}

pub(crate) fn bytes_opt(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u8>>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(Data::borrow(o, what)?.as_slice().to_vec())),
        _ => Ok(None),
    }
}

/// The optional arguments of a run, as the keyword arguments give them.
#[derive(Default)]
pub(crate) struct RunArgs {
    pub key: Vec<u8>,
    pub pers: Option<Vec<u8>>,
    pub public_key: Option<Vec<u8>>,
    pub key_id: Option<Vec<u8>>,
    pub nonce: Option<Vec<u8>>,
    pub tree: Option<TreeParams>,
    pub digest_bits: Option<u64>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn run_args(
    key: Option<&Bound<'_, PyAny>>,
    pers: Option<&Bound<'_, PyAny>>,
    public_key: Option<&Bound<'_, PyAny>>,
    key_id: Option<&Bound<'_, PyAny>>,
    nonce: Option<&Bound<'_, PyAny>>,
    tree: Option<(u8, u8, u8)>,
    digest_bits: Option<i128>,
) -> PyResult<RunArgs> {
    let tree = tree
        .map(|(l, f, m)| TreeParams::new(l, f, m).map_err(value_error))
        .transpose()?;
    let digest_bits = match digest_bits {
        None => None,
        Some(b) if b < 1 => return Err(value_error(skeinhw_skein::Error::ZeroOutputLength)),
        Some(b) if b > 1 << 20 => {
            return Err(value_error(format!(
                "digest_bits {b} is too long for the simulator: at most {} bits",
                1 << 20
            )));
        }
        Some(b) => Some(b as u64),
    };
    Ok(RunArgs {
        key: bytes_opt(key, "key")?.unwrap_or_default(),
        pers: bytes_opt(pers, "pers")?,
        public_key: bytes_opt(public_key, "public_key")?,
        key_id: bytes_opt(key_id, "key_id")?,
        nonce: bytes_opt(nonce, "nonce")?,
        tree,
        digest_bits,
    })
}
