//! The live diff the cocotb checker feeds one clock edge at a time: the golden model against
//! the values read from the DUT, by cycle or by architectural event, through the same Rust
//! comparators as `skeinhw diff`.

use std::sync::Mutex;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use skeinhw_diff::SignalMap;
use skeinhw_diff::live::{LiveDiff, Step};
use skeinhw_diff::live_event::LiveEventDiff;
use skeinhw_diff::wave::Bits;
use skeinhw_sched::AnySchedule;
use skeinhw_trace::names;

use super::args::{bits_arg, messages_arg, run_args};
use super::golden::{golden_frames, shabal_golden, skein_golden};
use super::schedule::schedule_arg;
use crate::hash::value_error;

/// One probe: (field, signal, bit slice).
type ProbeInfo = (String, String, Option<(u32, u32)>);

/// The comparison a [`PyLiveDiff`] drives.
enum Diff {
    Cycle(Box<LiveDiff>),
    Event(LiveEventDiff),
}

impl Diff {
    fn compared(&self) -> u64 {
        match self {
            Diff::Cycle(d) => d.compared(),
            Diff::Event(d) => d.compared(),
        }
    }

    fn diverged(&self) -> bool {
        match self {
            Diff::Cycle(d) => d.diverged(),
            // The event verdict is reached at the end, over all the edges.
            Diff::Event(_) => false,
        }
    }

    fn step(&mut self, edge: u64, time: u64, samples: &[Bits]) -> PyResult<bool> {
        match self {
            Diff::Cycle(d) => d.step(edge, time, samples),
            Diff::Event(d) => d.step(edge, time, samples),
        }
        .map(|s| s == Step::More)
        .map_err(value_error)
    }

    fn finish(self) -> PyResult<skeinhw_diff::DiffReport> {
        match self {
            Diff::Cycle(d) => d.finish(),
            Diff::Event(d) => d.finish(),
        }
        .map_err(value_error)
    }
}

/// The generated Verilog's registers that event alignment compares (what
/// `skeinhw diff --align event` uses without a map).
fn event_identity(signals: &[names::Signal]) -> SignalMap {
    let usable = signals.iter().map(|s| s.name.as_str()).filter(|n| {
        n.starts_with("out_data_")
            || *n == names::OUT_VALID
            || skeinhw_diff::map::slot_field(n)
                .is_some_and(|(_, r, _)| ["state", "key", "tweak"].contains(&r))
    });
    SignalMap::identity(usable, None)
}

/// The generated Shabal Verilog's registers that Shabal event alignment compares: A, B, C and
/// the digest port (what `skeinhw diff --align event` uses without a map).
fn shabal_event_identity(out_words: usize) -> SignalMap {
    let signals = skeinhw_trace::shabal::signals(out_words);
    let usable = signals.iter().map(|s| s.name.as_str()).filter(|n| {
        n.starts_with("out_data_")
            || *n == names::OUT_VALID
            || skeinhw_diff::shabal_event::Part::field(n).is_some()
    });
    SignalMap::identity(usable, None)
}

/// The live diff behind `skeinhw.cocotb.GoldenChecker`: the golden model of `messages` on
/// `schedule`, compared with the values read from the DUT after each rising edge, cycle by
/// cycle (`align="cycle"`) or at architectural events (`align="event"`: Threefish events on a
/// Skein schedule, the state after each round on a Shabal one), by the same Rust comparators
/// as `skeinhw diff`. `map` is the text of a signal map (as `skeinhw diff --map`
/// reads); without one, the generated Verilog's signals of the same names. The Skein options
/// (`key`, `pers`, `public_key`, `key_id`, `nonce`, `tree`, `digest_bits`) are those of
/// [`simulate`](super::records); more messages than streams run back to back, message i on
/// stream i mod S, as `host_blocks` feeds them.
#[pyclass(name = "LiveDiff", module = "skeinhw")]
pub struct PyLiveDiff {
    diff: Mutex<Option<Diff>>,
    clock: Option<String>,
    probes: Vec<ProbeInfo>,
    fields: usize,
    align: &'static str,
    golden_cycles: Option<u64>,
}

#[pymethods]
impl PyLiveDiff {
    #[new]
    #[pyo3(signature = (schedule, messages, *, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None, bits=None, digest_bits=None, map=None, map_name="map", context=3, align="cycle", partial=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
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
        map: Option<&str>,
        map_name: &str,
        context: usize,
        align: &str,
        partial: bool,
    ) -> PyResult<Self> {
        let schedule = schedule_arg(schedule)?;
        let messages = messages_arg(messages)?;
        let bits = bits_arg(bits, &messages)?;
        let args = run_args(key, pers, public_key, key_id, nonce, tree, digest_bits)?;
        let map = map
            .map(|text| SignalMap::from_json(text, map_name).map_err(value_error))
            .transpose()?;
        let (diff, map, align, golden_cycles) = match align {
            "cycle" => {
                if partial {
                    return Err(value_error(
                        "partial: the live cycle diff compares whole registers only",
                    ));
                }
                let frames = golden_frames(&schedule, messages, bits, &args)?;
                let map = map.unwrap_or_else(|| {
                    SignalMap::identity(
                        frames
                            .signals
                            .iter()
                            .filter(|s| s.name != names::CLK)
                            .map(|s| s.name.as_str()),
                        None,
                    )
                    .in_ready_on_port(None)
                });
                let diff = LiveDiff::new(frames, &map, context.min(1000)).map_err(value_error)?;
                (Diff::Cycle(Box::new(diff)), map, "cycle", None)
            }
            "event" => {
                let (diff, map) = match &schedule {
                    AnySchedule::Skein(s) => {
                        let golden = skein_golden(s, messages, bits, &args)?;
                        let map = map.unwrap_or_else(|| {
                            event_identity(&names::signals(
                                golden.header.words,
                                golden.header.slots,
                            ))
                        });
                        let diff =
                            LiveEventDiff::new(golden, &map, partial).map_err(value_error)?;
                        (diff, map)
                    }
                    AnySchedule::Shabal(s) => {
                        let golden = shabal_golden(s, messages, bits, &args)?;
                        let map = map
                            .unwrap_or_else(|| shabal_event_identity(golden.header.output_words()));
                        let diff =
                            LiveEventDiff::shabal(golden, &map, partial).map_err(value_error)?;
                        (diff, map)
                    }
                };
                let cycles = diff.golden_cycles();
                (Diff::Event(diff), map, "event", Some(cycles))
            }
            other => {
                return Err(value_error(format!(
                    "align: '{other}' is neither \"cycle\" nor \"event\""
                )));
            }
        };
        let probes: Vec<ProbeInfo> = match &diff {
            Diff::Cycle(d) => d
                .probes()
                .map(|(f, p)| (f.to_string(), p.signal.clone(), p.slice))
                .collect(),
            Diff::Event(d) => d
                .probes()
                .map(|(f, p)| (f.to_string(), p.signal.clone(), p.slice))
                .collect(),
        };
        let fields = match &diff {
            Diff::Cycle(d) => d.field_count(),
            Diff::Event(d) => d.field_count(),
        };
        Ok(PyLiveDiff {
            diff: Mutex::new(Some(diff)),
            clock: map.clock,
            probes,
            fields,
            align,
            golden_cycles,
        })
    }

    /// `(label, signal, (hi, lo) or None)` for each value `step` takes, in order: the label is
    /// the compared field (or `when` for a qualifier signal).
    #[getter]
    fn probes(&self) -> Vec<ProbeInfo> {
        self.probes.clone()
    }

    /// The clock the map names, if any.
    #[getter]
    fn clock(&self) -> Option<String> {
        self.clock.clone()
    }

    /// "cycle" or "event".
    #[getter]
    fn align(&self) -> &'static str {
        self.align
    }

    /// The golden run's length in cycles (known up front for event alignment only).
    #[getter]
    fn golden_cycles(&self) -> Option<u64> {
        self.golden_cycles
    }

    /// Cycles (RTL edges) compared so far.
    #[getter]
    fn compared(&self) -> u64 {
        self.with(|d| Ok(d.compared())).unwrap_or(0)
    }

    /// Fields compared per cycle.
    #[getter]
    fn fields(&self) -> usize {
        self.fields
    }

    /// Whether a divergence has been found (cycle alignment; event alignment decides at
    /// `finish`).
    #[getter]
    fn diverged(&self) -> bool {
        self.with(|d| Ok(d.diverged())).unwrap_or(false)
    }

    /// Compares one DUT cycle: one value per probe, each an int (the probe's bits), a list of
    /// 64-bit ints (least significant first) for wider values, or a one-character str naming
    /// the X/Z state that makes it unknown. True: call again; False: done (call `finish`).
    fn step(&self, edge: u64, time: u64, values: &Bound<'_, PyList>) -> PyResult<bool> {
        let mut samples = Vec::with_capacity(values.len());
        for v in values.iter() {
            samples.push(bits_of(&v)?);
        }
        self.with(|d| d.step(edge, time, &samples))
    }

    /// The report: `(verdict, text, compared_cycles, fields, golden_cycles)` with the verdict
    /// "identical", "divergent" or "length_mismatch"; ValueError when nothing was compared.
    fn finish(&self) -> PyResult<(String, String, u64, usize, u64)> {
        let diff = self
            .diff
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| PyValueError::new_err("the diff is already finished"))?;
        let report = diff.finish()?;
        let verdict = serde_json::to_value(report.verdict)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok((
            verdict,
            report.to_string(),
            report.compared_cycles,
            report.fields,
            report.golden_cycles,
        ))
    }
}

impl PyLiveDiff {
    fn with<R>(&self, f: impl FnOnce(&mut Diff) -> PyResult<R>) -> PyResult<R> {
        let mut g = self.diff.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_mut() {
            Some(d) => f(d),
            None => Err(PyValueError::new_err("the diff is already finished")),
        }
    }
}

fn bits_of(v: &Bound<'_, PyAny>) -> PyResult<Bits> {
    if let Ok(x) = v.extract::<u64>() {
        return Ok(Bits::known(vec![x], 64));
    }
    if let Ok(s) = v.cast::<PyString>() {
        let c = s.to_cow()?.chars().next().unwrap_or('x');
        return Ok(Bits {
            words: Vec::new(),
            width: 0,
            unknown: Some(c),
        });
    }
    if let Ok(words) = v.extract::<Vec<u64>>() {
        let width = (words.len() * 64) as u32;
        return Ok(Bits::known(words, width));
    }
    Err(PyTypeError::new_err(format!(
        "a DUT value must be an int >= 0, a list of 64-bit ints or an X/Z character, not '{}'",
        v.get_type().name()?
    )))
}
