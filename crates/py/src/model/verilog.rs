//! The Verilog generator for Python, and the blocks its input port takes: a Skein core is built
//! for an output length and a tree shape (the Config string carries both), everything else
//! (MAC key, personalization, public key, key id, nonce) goes through the port as UBI blocks.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use skeinhw_rtl::{AnyDesign, Features};
use skeinhw_sched::AnySchedule;
use skeinhw_sched::sim::Job;
use skeinhw_skein::Params;

use super::args::{RunArgs, bits_arg, bytes_opt, messages_arg, run_args};
use super::golden::shabal_args;
use super::schedule::schedule_arg;
use crate::hash::value_error;

/// What a Skein core is built for: `digest_bits` (default the state size) and `tree`.
fn features(s: &skeinhw_sched::Schedule, args: &RunArgs) -> Features {
    Features {
        out_bits: args.digest_bits.unwrap_or(u64::from(s.words()) * 64),
        tree: args.tree,
    }
}

/// The design of `schedule` built for `args`' output length and tree (Shabal takes neither).
fn design(schedule: &AnySchedule, args: &RunArgs) -> PyResult<AnyDesign> {
    match schedule {
        AnySchedule::Skein(s) => skeinhw_rtl::generate_for(s, features(s, args))
            .map(AnyDesign::Skein)
            .map_err(value_error),
        AnySchedule::Shabal(s) => {
            shabal_args(s, args)?;
            skeinhw_rtl::generate_any(schedule).map_err(value_error)
        }
    }
}

/// Writes the generated Verilog of `schedule` (design, test bench, signal map, schedule,
/// `core.json`) into `dir` (created if missing) and returns the paths. Existing files are kept unless `force`.
/// A Skein core is built for `digest_bits` output bits (default the state size) and `tree`
/// (Yl, Yf, Ym), as `skeinhw rtl --out-bits N --tree Yl,Yf,Ym`.
#[pyfunction]
#[pyo3(signature = (schedule, dir, *, force=false, digest_bits=None, tree=None))]
pub fn generate_verilog(
    schedule: &Bound<'_, PyAny>,
    dir: PathBuf,
    force: bool,
    digest_bits: Option<i128>,
    tree: Option<(u8, u8, u8)>,
) -> PyResult<Vec<PathBuf>> {
    let schedule = schedule_arg(schedule)?;
    let args = run_args(None, None, None, None, None, tree, digest_bits)?;
    let design = design(&schedule, &args)?;
    std::fs::create_dir_all(&dir).map_err(|e| value_error(format!("{}: {e}", dir.display())))?;
    let files = design.files();
    let paths: Vec<PathBuf> = files.iter().map(|(n, _)| dir.join(n)).collect();
    if let Some(p) = paths
        .iter()
        .find(|p| !force && (p.exists() || p.is_symlink()))
    {
        return Err(value_error(format!(
            "{}: exists; pass force=True to replace the generated files",
            p.display()
        )));
    }
    for p in &paths {
        if p.is_symlink() || p.exists() && !p.is_file() {
            return Err(value_error(format!(
                "{}: not a regular file; not replaced",
                p.display()
            )));
        }
    }
    design.write_into(&dir).map_err(value_error)?;
    Ok(paths)
}

/// One input block: (stream, key, first, last, bitpad, bytes, data).
type InputBlock = (u32, bool, bool, bool, bool, u32, Py<PyAny>);

/// The blocks the generated design's input port takes for `messages`, in order: tuples
/// `(stream, key, first, last, bitpad, bytes, data)` with `data` the packed block as an int
/// (byte i at bits 8i+7..8i), from the generator's own stimulus code.
#[pyfunction]
#[pyo3(signature = (schedule, messages, *, key=None, bits=None))]
pub fn input_blocks(
    py: Python<'_>,
    schedule: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    bits: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<InputBlock>> {
    let schedule = schedule_arg(schedule)?;
    let messages = messages_arg(messages)?;
    let bits = bits_arg(bits, &messages)?;
    let key = bytes_opt(key, "key")?.unwrap_or_default();
    let msgs: Vec<skeinhw_rtl::Message<'_>> = messages
        .iter()
        .zip(&bits)
        .map(|(m, &b)| skeinhw_rtl::Message {
            data: m,
            bits: b,
            key: &key,
        })
        .collect();
    let text = match &schedule {
        AnySchedule::Skein(s) => skeinhw_rtl::stimulus(s, &msgs),
        AnySchedule::Shabal(_) => skeinhw_rtl::shabal::stimulus(&msgs),
    }
    .map_err(value_error)?;
    let int = py.import("builtins")?.getattr("int")?;
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(' ').collect();
        let num = |i: usize| u32::from_str_radix(f[i], 16).unwrap_or(0);
        // The data is the last field (a Skein core's lines carry the UBI type, tree level,
        // root, offset and result index before it; this API's messages use none of them).
        let data = int.call1((f[f.len() - 1], 16))?.unbind();
        out.push((
            num(0),
            num(1) == 1,
            num(2) == 1,
            num(3) == 1,
            num(4) == 1,
            num(5),
            data,
        ));
    }
    Ok(out)
}

/// The names of [`host_blocks`]' fields, in the order of the input file's line.
const HOST_FIELDS: [&str; 12] = [
    "stream", "key", "first", "last", "bitpad", "bytes", "type", "level", "root", "offset", "src",
    "data",
];

/// Every block the host sends the generated core for `messages`, in each stream's order, as
/// dicts: `stream`, `key`, `first`, `last`, `bitpad`, `bytes`, `type` (the UBI type of a block
/// with `key` 0: 8 personalization, 12 public key, 16 key id, 20 nonce, 48 message), `level`,
/// `root`, `offset` (tree cores), `src` (> 0: the block is the stream's (src-1)-th result
/// returned on `res_data`, a tree node's child) and `data` (the packed block as an int, byte i
/// at bits 8i+7..8i). Message i goes to stream i mod S, a stream's messages back to back (the
/// golden model of [`LiveDiff`](super::live) runs the same). A Skein core must be built for the
/// same `digest_bits` and `tree` ([`generate_verilog`]). From the generator's own stimulus
/// code.
#[pyfunction]
#[pyo3(signature = (schedule, messages, *, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None, bits=None, digest_bits=None))]
#[allow(clippy::too_many_arguments)]
pub fn host_blocks<'py>(
    py: Python<'py>,
    schedule: &Bound<'py, PyAny>,
    messages: &Bound<'py, PyAny>,
    key: Option<&Bound<'py, PyAny>>,
    pers: Option<&Bound<'py, PyAny>>,
    public_key: Option<&Bound<'py, PyAny>>,
    key_id: Option<&Bound<'py, PyAny>>,
    nonce: Option<&Bound<'py, PyAny>>,
    tree: Option<(u8, u8, u8)>,
    bits: Option<&Bound<'py, PyAny>>,
    digest_bits: Option<i128>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let schedule = schedule_arg(schedule)?;
    let messages = messages_arg(messages)?;
    let bits = bits_arg(bits, &messages)?;
    let args = run_args(key, pers, public_key, key_id, nonce, tree, digest_bits)?;
    let text = match &schedule {
        AnySchedule::Skein(s) => {
            let jobs: Vec<Job<'_>> = messages
                .iter()
                .zip(&bits)
                .map(|(m, &b)| Job {
                    message: m,
                    msg_bits: b,
                    out_bits: features(s, &args).out_bits,
                    params: Params {
                        key: &args.key,
                        personalization: args.pers.as_deref(),
                        public_key: args.public_key.as_deref(),
                        key_id: args.key_id.as_deref(),
                        nonce: args.nonce.as_deref(),
                        tree: args.tree,
                    },
                })
                .collect();
            skeinhw_rtl::stimulus_jobs(s, features(s, &args), &jobs)
        }
        AnySchedule::Shabal(s) => {
            shabal_args(s, &args)?;
            let msgs: Vec<skeinhw_rtl::Message<'_>> = messages
                .iter()
                .zip(&bits)
                .map(|(m, &b)| skeinhw_rtl::Message {
                    data: m,
                    bits: b,
                    key: &[],
                })
                .collect();
            skeinhw_rtl::shabal::stimulus(&msgs)
        }
    }
    .map_err(value_error)?;
    let int = py.import("builtins")?.getattr("int")?;
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(' ').collect();
        let d = PyDict::new(py);
        // A Shabal core's line has no type, tree or src fields: 0 for each.
        let skein = f.len() == HOST_FIELDS.len();
        for (i, name) in HOST_FIELDS.iter().enumerate() {
            let field = match (skein, i) {
                (_, 11) => f[f.len() - 1],
                (true, _) => f[i],
                (false, 0..=5) => f[i],
                (false, _) => "0",
            };
            d.set_item(*name, int.call1((field, 16))?)?;
        }
        out.push(d);
    }
    Ok(out)
}
