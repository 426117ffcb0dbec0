//! `skeinhw.events`: the architectural events of a golden run, exactly the list
//! `skeinhw diff --align event` (and the checker's `align="event"`) matches the RTL against,
//! built by the diff crate ([`Expected`]), never recomputed here.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use skeinhw_diff::event::{Expected, Kind};
use skeinhw_diff::map::Ring;

use crate::hash::value_error;
use crate::model::{bits_arg, event_schedule, messages_arg, run_args, schedule_arg, skein_golden};

/// One architectural event: `kind` ("before_subkey", "after_subkey", "feed_forward", "key",
/// "tweak" or "digest") of UBI block `block` (the `index`-th block of its `type`) of
/// `stream`, with `subkey` where it has one, the `register` family it is seen in and its
/// `words`.
#[pyclass(name = "Event", module = "skeinhw", frozen)]
pub struct PyEvent {
    #[pyo3(get)]
    stream: u32,
    #[pyo3(get)]
    block: u64,
    #[pyo3(get, name = "type")]
    block_type: &'static str,
    #[pyo3(get)]
    index: u64,
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    subkey: Option<u32>,
    #[pyo3(get)]
    register: &'static str,
    words: Vec<u64>,
}

#[pymethods]
impl PyEvent {
    /// The event's 64-bit words (a tuple): Nw state words, Nw + 1 key words (k_0..k_Nw as
    /// the ring holds them), 3 tweak words, or the digest block's Nw words.
    #[getter]
    fn words<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.words)
    }

    fn __repr__(&self) -> String {
        let subkey = self.subkey.map(|s| format!(" {s}")).unwrap_or_default();
        format!(
            "<Event stream {} {} block {} {}{subkey} in {}>",
            self.stream, self.block_type, self.index, self.kind, self.register
        )
    }
}

fn kind_parts(k: Kind) -> (&'static str, Option<u32>) {
    match k {
        Kind::BeforeSubkey(s) => ("before_subkey", Some(s)),
        Kind::AfterSubkey(s) => ("after_subkey", Some(s)),
        Kind::FeedForward => ("feed_forward", None),
        Kind::Key(s) => ("key", Some(s)),
        Kind::Tweak(s) => ("tweak", Some(s)),
    }
}

fn ring_arg(text: &str, what: &str) -> PyResult<Ring> {
    match text {
        "fixed" => Ok(Ring::Fixed),
        "rotating" => Ok(Ring::Rotating),
        other => Err(value_error(format!(
            "{what}: '{other}' is neither \"fixed\" nor \"rotating\""
        ))),
    }
}

/// The architectural events of the golden run of `messages` on `schedule`, stream by
/// stream and block by block, each Output block's digest after its events; `key_ring` and
/// `tweak_ring` as a signal map's (\"rotating\": the words as a turning ring holds them at
/// every subkey).
#[pyfunction]
#[pyo3(signature = (schedule, messages, *, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None, bits=None, digest_bits=None, key_ring="fixed", tweak_ring="fixed"))]
#[allow(clippy::too_many_arguments)]
pub fn events(
    schedule: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    pers: Option<&Bound<'_, PyAny>>,
    public_key: Option<&Bound<'_, PyAny>>,
    key_id: Option<&Bound<'_, PyAny>>,
    nonce: Option<&Bound<'_, PyAny>>,
    tree: Option<(u8, u8, u8)>,
    bits: Option<&Bound<'_, PyAny>>,
    digest_bits: Option<i128>,
    key_ring: &str,
    tweak_ring: &str,
) -> PyResult<Vec<PyEvent>> {
    let schedule = schedule_arg(schedule)?;
    let s = event_schedule(&schedule)?;
    let messages = messages_arg(messages)?;
    let bits = bits_arg(bits, &messages)?;
    let args = run_args(key, pers, public_key, key_id, nonce, tree, digest_bits)?;
    let (key_ring, tweak_ring) = (
        ring_arg(key_ring, "key_ring")?,
        ring_arg(tweak_ring, "tweak_ring")?,
    );
    let golden = skein_golden(s, messages, bits, &args)?;
    let (ex, _) = Expected::from_records(&golden.header, golden.records, key_ring, tweak_ring)
        .map_err(value_error)?;
    let mut digests = ex.digests().into_iter().peekable();
    let events = ex.events();
    let mut out = Vec::with_capacity(events.len() + 1);
    for (i, e) in events.iter().enumerate() {
        let (kind, subkey) = kind_parts(e.kind);
        out.push(PyEvent {
            stream: e.stream,
            block: e.block.block,
            block_type: e.block.ubi.as_str(),
            index: e.block.of_type,
            kind,
            subkey,
            register: e.register,
            words: e.words.clone(),
        });
        // After the last event of an Output block: its digest.
        let block_ends = events
            .get(i + 1)
            .is_none_or(|n| n.stream != e.stream || n.block != e.block);
        if block_ends
            && e.block.ubi == skeinhw_sched::sim::Phase::Output
            && let Some(d) = digests.next_if(|d| d.stream == e.stream && d.index == e.block.of_type)
        {
            out.push(PyEvent {
                stream: d.stream,
                block: e.block.block,
                block_type: e.block.ubi.as_str(),
                index: d.index,
                kind: "digest",
                subkey: None,
                register: "out_data",
                words: d.words,
            });
        }
    }
    // Digests without their block's events (none in a whole run; kept rather than lost).
    out.extend(digests.map(|d| PyEvent {
        stream: d.stream,
        block: 0,
        block_type: "output",
        index: d.index,
        kind: "digest",
        subkey: None,
        register: "out_data",
        words: d.words,
    }));
    Ok(out)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEvent>()?;
    m.add_function(wrap_pyfunction!(events, m)?)?;
    Ok(())
}
