//! `skeinhw.events`: the architectural events of a golden run, exactly the list
//! `skeinhw diff --align event` (and the checker's `align="event"`) matches the RTL against,
//! built by the diff crate ([`Expected`] for Skein, [`ShabalExpected`] for Shabal), never
//! recomputed here.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use skeinhw_diff::event::{Expected, Kind};
use skeinhw_diff::map::Ring;
use skeinhw_diff::shabal_event::ShabalExpected;
use skeinhw_sched::AnySchedule;
use skeinhw_sched::shabal::sim::ShabalPhase;

use crate::hash::value_error;
use crate::model::{
    RunArgs, bits_arg, messages_arg, run_args, schedule_arg, shabal_golden, skein_golden,
};

/// One architectural event: `kind` ("before_subkey", "after_subkey", "feed_forward", "key",
/// "tweak" or "digest") of UBI block `block` (the `index`-th block of its `type`) of
/// `stream`, with `subkey` where it has one, the `register` family it is seen in and its
/// `words`. `message` is the message's index in the list given: more messages than the
/// schedule has streams are queued as the hardware takes them (message i on stream i mod S,
/// a stream's messages back to back), so a stream's `index` counts on across its messages
/// while `block` starts again with each. Shabal: `kind` "after_round" (type "message") or "final_round" (type "final") of
/// pass `block`, register "a", "b" or "c" (32-bit words), then "digest" in register "out".
#[pyclass(name = "Event", module = "skeinhw", frozen)]
pub struct PyEvent {
    #[pyo3(get)]
    message: u64,
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
    /// The event's words (a tuple). Skein, 64-bit: Nw state words, Nw + 1 key words (k_0..k_Nw
    /// as the ring holds them), 3 tweak words, or the digest block's Nw words. Shabal, 32-bit:
    /// A (12), B or C (16), or the digest (the last words of C).
    #[getter]
    fn words<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.words)
    }

    fn __repr__(&self) -> String {
        let subkey = self.subkey.map(|s| format!(" {s}")).unwrap_or_default();
        format!(
            "<Event message {} stream {} {} block {} {}{subkey} in {}>",
            self.message, self.stream, self.block_type, self.index, self.kind, self.register
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
    let messages = messages_arg(messages)?;
    let bits = bits_arg(bits, &messages)?;
    let args = run_args(key, pers, public_key, key_id, nonce, tree, digest_bits)?;
    let (key_ring, tweak_ring) = (
        ring_arg(key_ring, "key_ring")?,
        ring_arg(tweak_ring, "tweak_ring")?,
    );
    match &schedule {
        AnySchedule::Skein(s) => skein_events(s, messages, bits, &args, key_ring, tweak_ring),
        AnySchedule::Shabal(s) => {
            for (ring, what) in [(key_ring, "key_ring"), (tweak_ring, "tweak_ring")] {
                if ring != Ring::Fixed {
                    return Err(value_error(format!(
                        "{what}: schedule {} is a Shabal schedule, which has no key or tweak \
                         ring (\"fixed\" only)",
                        s.name()
                    )));
                }
            }
            shabal_events(s, messages, bits, &args)
        }
    }
}

/// The Skein events (the diff crate's [`Expected`]), each Output block's digest after its
/// events.
fn skein_events(
    s: &skeinhw_sched::Schedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
    key_ring: Ring,
    tweak_ring: Ring,
) -> PyResult<Vec<PyEvent>> {
    let golden = skein_golden(s, messages, bits, args)?;
    let streams = golden.header.streams.max(1) as u64;
    let (ex, _) = Expected::from_records(&golden.header, golden.records, key_ring, tweak_ring)
        .map_err(value_error)?;
    let mut digests = ex.digests().into_iter().peekable();
    let events = ex.events();
    let mut out = Vec::with_capacity(events.len() + 1);
    // Per stream: its messages begun so far, and the trace block of its last event (a queued
    // message starts again at block 0).
    let mut begun: std::collections::HashMap<u32, (u64, u64)> = Default::default();
    for (i, e) in events.iter().enumerate() {
        let (kind, subkey) = kind_parts(e.kind);
        let (n, last) = begun.entry(e.stream).or_insert((0, u64::MAX));
        if e.block.block == 0 && *last != 0 {
            *n += 1;
        }
        *last = e.block.block;
        let message = (*n - 1) * streams + u64::from(e.stream);
        out.push(PyEvent {
            message,
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
            && let Some(d) = digests.next_if(|d| d.stream == e.stream)
        {
            // In output order: the Output counter starts again with each queued message.
            out.push(PyEvent {
                message,
                stream: d.stream,
                block: e.block.block,
                block_type: e.block.ubi.as_str(),
                index: e.block.of_type,
                kind: "digest",
                subkey: None,
                register: "out_data",
                words: d.words,
            });
        }
    }
    // Digests without their block's events (none in a whole run; kept rather than lost).
    out.extend(digests.map(|d| PyEvent {
        message: u64::from(d.stream),
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

/// The Shabal events (the diff crate's [`ShabalExpected`]): A, B, C after each pass, each
/// stream's digest after its last pass.
fn shabal_events(
    s: &skeinhw_sched::shabal::ShabalSchedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<Vec<PyEvent>> {
    let golden = shabal_golden(s, messages, bits, args)?;
    let (ex, _) =
        ShabalExpected::from_records(&golden.header, golden.records).map_err(value_error)?;
    let mut digests = ex.digests().peekable();
    let mut out = Vec::new();
    let mut events = ex.events().peekable();
    while let Some(e) = events.next() {
        let kind = match e.phase {
            ShabalPhase::Final => "final_round",
            _ => "after_round",
        };
        out.push(PyEvent {
            message: u64::from(e.stream),
            stream: e.stream,
            block: e.pass as u64,
            block_type: e.phase.as_str(),
            index: e.of_type,
            kind,
            subkey: None,
            register: e.part.prefix(),
            words: e.words.to_vec(),
        });
        // After the stream's last event: its digest.
        if events.peek().is_none_or(|n| n.stream != e.stream)
            && let Some((stream, words)) = digests.next_if(|d| d.0 == e.stream)
        {
            out.push(PyEvent {
                message: u64::from(stream),
                stream,
                block: e.pass as u64,
                block_type: e.phase.as_str(),
                index: e.of_type,
                kind: "digest",
                subkey: None,
                register: "out",
                words: words.to_vec(),
            });
        }
    }
    Ok(out)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEvent>()?;
    m.add_function(wrap_pyfunction!(events, m)?)?;
    Ok(())
}
