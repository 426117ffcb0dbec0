//! The golden model for Python: schedules of either algorithm, the cycle-accurate simulator as
//! a lazy iterator of cycle records (the diff crate's simulator thread and frames, never the
//! whole run in memory), the Verilog generator, and the live cycle diff the cocotb checker
//! feeds one clock edge at a time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use skeinhw_diff::live::{LiveDiff, Step};
use skeinhw_diff::wave::Bits;
use skeinhw_diff::{
    Frame, Golden, GoldenFrames, OwnedJob, OwnedShabalJob, ShabalGolden, SignalMap,
};
use skeinhw_sched::AnySchedule;
use skeinhw_skein::TreeParams;
use skeinhw_trace::names;

use crate::buffer::Data;
use crate::hash::value_error;

/// A validated Skein or Shabal schedule.
#[pyclass(name = "Schedule", module = "skeinhw", frozen)]
#[derive(Clone)]
pub struct PySchedule {
    pub(crate) inner: AnySchedule,
}

#[pymethods]
impl PySchedule {
    /// The preset of either algorithm with this name.
    #[staticmethod]
    fn preset(name: &str) -> PyResult<Self> {
        AnySchedule::preset(name)
            .map(|inner| PySchedule { inner })
            .map_err(value_error)
    }

    /// Parses and validates schedule JSON (the format of `skeinhw schedules show --json`).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        AnySchedule::from_json_str(text)
            .map(|inner| PySchedule { inner })
            .map_err(value_error)
    }

    /// Every preset of both algorithms.
    #[staticmethod]
    fn presets() -> Vec<PySchedule> {
        AnySchedule::presets()
            .into_iter()
            .map(|inner| PySchedule { inner })
            .collect()
    }

    /// A new schedule with some JSON fields changed, validated again.
    #[pyo3(signature = (**fields))]
    fn replace(&self, py: Python<'_>, fields: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut value: serde_json::Value =
            serde_json::from_str(&self.inner.to_json_pretty()).map_err(value_error)?;
        if let Some(fields) = fields {
            let json = py.import("json")?;
            let object = value
                .as_object_mut()
                .ok_or_else(|| PyValueError::new_err("schedule JSON is not an object"))?;
            for (k, v) in fields.iter() {
                let key: String = k.extract()?;
                let text: String = json.call_method1("dumps", (v,))?.extract()?;
                let parsed: serde_json::Value = serde_json::from_str(&text).map_err(value_error)?;
                object.insert(key, parsed);
            }
        }
        Self::from_json(&value.to_string())
    }

    /// Pretty JSON.
    fn to_json(&self) -> String {
        self.inner.to_json_pretty()
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// "skein" or "shabal".
    #[getter]
    fn algorithm(&self) -> &'static str {
        match self.inner {
            AnySchedule::Skein(_) => "skein",
            AnySchedule::Shabal(_) => "shabal",
        }
    }

    /// Skein: the state size in bits (256, 512, 1024); Shabal: the digest size in bits.
    #[getter]
    fn size(&self) -> u32 {
        match &self.inner {
            AnySchedule::Skein(s) => s.size().bits(),
            AnySchedule::Shabal(s) => s.output_bits(),
        }
    }

    #[getter]
    fn cycles_per_block(&self) -> u32 {
        self.inner.cycles_per_block()
    }

    #[getter]
    fn blocks_in_flight(&self) -> u32 {
        self.inner.blocks_in_flight()
    }

    #[getter]
    fn block_bits(&self) -> u32 {
        self.inner.block_bits()
    }

    fn __repr__(&self) -> String {
        format!("Schedule.preset({:?})", self.inner.name())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PySchedule>()
            .map(|o| o.get().inner == self.inner)
            .unwrap_or(false)
    }
}

/// Every preset name of both algorithms.
#[pyfunction]
pub fn presets() -> Vec<String> {
    skeinhw_sched::all_preset_names()
}

/// `schedule` as a Schedule: a Schedule object, a preset name or a JSON file name.
fn schedule_arg(obj: &Bound<'_, PyAny>) -> PyResult<AnySchedule> {
    if let Ok(s) = obj.cast::<PySchedule>() {
        return Ok(s.get().inner.clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return AnySchedule::from_name_or_file(&s.to_cow()?).map_err(value_error);
    }
    Err(PyTypeError::new_err(format!(
        "schedule: a skeinhw.Schedule or a preset name is required, not '{}'",
        obj.get_type().name()?
    )))
}

/// The messages argument: one bytes-like object or a sequence of them.
fn messages_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
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
fn bits_arg(obj: Option<&Bound<'_, PyAny>>, messages: &[Vec<u8>]) -> PyResult<Vec<u64>> {
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

fn bytes_opt(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u8>>> {
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
fn run_args(
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

/// Runs the golden simulator in its thread; frames arrive as they are asked for.
fn golden_frames(
    schedule: &AnySchedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<GoldenFrames> {
    match schedule {
        AnySchedule::Skein(s) => {
            let out_bits = args.digest_bits.unwrap_or(u64::from(s.size().bits()));
            let jobs = messages
                .into_iter()
                .zip(bits)
                .map(|(message, msg_bits)| OwnedJob {
                    message,
                    msg_bits,
                    out_bits,
                    key: args.key.clone(),
                    personalization: args.pers.clone(),
                    public_key: args.public_key.clone(),
                    key_id: args.key_id.clone(),
                    nonce: args.nonce.clone(),
                    tree: args.tree,
                })
                .collect();
            Golden::simulate(s.clone(), jobs)
                .map(Golden::into_frames)
                .map_err(value_error)
        }
        AnySchedule::Shabal(s) => {
            let keyed = !args.key.is_empty()
                || args.pers.is_some()
                || args.public_key.is_some()
                || args.key_id.is_some()
                || args.nonce.is_some()
                || args.tree.is_some();
            if keyed {
                return Err(value_error(format!(
                    "schedule {} is a Shabal schedule: Shabal has no key, pers, public_key, key_id, nonce or tree",
                    s.name()
                )));
            }
            if args
                .digest_bits
                .is_some_and(|b| b != u64::from(s.output_bits()))
            {
                return Err(value_error(format!(
                    "schedule {} computes Shabal-{}: digest_bits must be {} or None",
                    s.name(),
                    s.output_bits(),
                    s.output_bits()
                )));
            }
            let jobs = messages
                .into_iter()
                .zip(bits)
                .map(|(message, msg_bits)| OwnedShabalJob { message, msg_bits })
                .collect();
            ShabalGolden::simulate(s.clone(), jobs)
                .map(ShabalGolden::into_frames)
                .map_err(value_error)
        }
    }
}

/// The trace's signal names and their positions, shared by every record of a run.
struct Names {
    list: Vec<String>,
    index: HashMap<String, usize>,
}

/// One clock cycle of the golden model: every register after the rising edge.
#[pyclass(name = "CycleRecord", module = "skeinhw", frozen)]
pub struct Record {
    names: Arc<Names>,
    #[pyo3(get)]
    cycle: u64,
    #[pyo3(get)]
    phase: &'static str,
    values: Vec<u64>,
}

#[pymethods]
impl Record {
    fn __getitem__(&self, name: &str) -> PyResult<u64> {
        self.names
            .index
            .get(name)
            .map(|&i| self.values[i])
            .ok_or_else(|| PyKeyError::new_err(format!("no field '{name}' in the trace")))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.names.index.contains_key(name)
    }

    /// Every field name -> value (a dict, in trace order).
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in self.names.list.iter().zip(&self.values) {
            d.set_item(n, v)?;
        }
        Ok(d)
    }

    /// The field names, in trace order.
    fn keys(&self) -> Vec<String> {
        self.names.list.clone()
    }

    fn __repr__(&self) -> String {
        format!("<CycleRecord cycle {} phase {}>", self.cycle, self.phase)
    }
}

/// The records of a simulation, computed as they are read.
#[pyclass(name = "Simulation", module = "skeinhw")]
pub struct Simulation {
    names: Arc<Names>,
    frames: Mutex<Box<dyn Iterator<Item = Result<Frame, String>> + Send>>,
}

#[pymethods]
impl Simulation {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> PyResult<Option<Record>> {
        let next = self.frames.lock().unwrap_or_else(|e| e.into_inner()).next();
        match next {
            None => Ok(None),
            Some(Err(e)) => Err(value_error(e)),
            Some(Ok(f)) => Ok(Some(Record {
                names: self.names.clone(),
                cycle: f.cycle,
                phase: f.phase,
                values: f.values,
            })),
        }
    }

    /// The field names of every record, in trace order.
    #[getter]
    fn field_names(&self) -> Vec<String> {
        self.names.list.clone()
    }
}

/// Runs the golden model on `messages` (one stream each) and returns an iterator of cycle
/// records, computed lazily.
#[pyfunction]
#[pyo3(signature = (schedule, messages, *, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None, bits=None, digest_bits=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
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
) -> PyResult<Simulation> {
    let schedule = schedule_arg(schedule)?;
    let messages = messages_arg(messages)?;
    let bits = bits_arg(bits, &messages)?;
    let args = run_args(key, pers, public_key, key_id, nonce, tree, digest_bits)?;
    let frames = golden_frames(&schedule, messages, bits, &args)?;
    let list: Vec<String> = frames.signals.iter().map(|s| s.name.clone()).collect();
    let index = list
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i))
        .collect();
    Ok(Simulation {
        names: Arc::new(Names { list, index }),
        frames: Mutex::new(frames.frames),
    })
}

/// Writes the generated Verilog of `schedule` (design, test bench, signal map, schedule) into
/// `dir` (created if missing) and returns the paths. Existing files are kept unless `force`.
#[pyfunction]
#[pyo3(signature = (schedule, dir, *, force=false))]
pub fn generate_verilog(
    schedule: &Bound<'_, PyAny>,
    dir: PathBuf,
    force: bool,
) -> PyResult<Vec<PathBuf>> {
    let schedule = schedule_arg(schedule)?;
    let design = skeinhw_rtl::generate_any(&schedule).map_err(value_error)?;
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

/// One probe: (field, signal, bit slice).
type ProbeInfo = (String, String, Option<(u32, u32)>);

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

/// The live cycle diff behind `skeinhw.cocotb.GoldenChecker`: the golden model of `messages`
/// on `schedule`, compared field by field with the values read from the DUT after each rising
/// edge. `map` is the text of a signal map (as `skeinhw diff --map` reads); without one, every
/// trace field maps to the DUT signal of the same name (the generated Verilog).
#[pyclass(name = "LiveDiff", module = "skeinhw")]
pub struct PyLiveDiff {
    diff: Mutex<Option<LiveDiff>>,
    clock: Option<String>,
    probes: Vec<ProbeInfo>,
}

#[pymethods]
impl PyLiveDiff {
    #[new]
    #[pyo3(signature = (schedule, messages, *, key=None, bits=None, map=None, map_name="map", context=3))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        schedule: &Bound<'_, PyAny>,
        messages: &Bound<'_, PyAny>,
        key: Option<&Bound<'_, PyAny>>,
        bits: Option<&Bound<'_, PyAny>>,
        map: Option<&str>,
        map_name: &str,
        context: usize,
    ) -> PyResult<Self> {
        let schedule = schedule_arg(schedule)?;
        let messages = messages_arg(messages)?;
        let bits = bits_arg(bits, &messages)?;
        let args = run_args(key, None, None, None, None, None, None)?;
        let frames = golden_frames(&schedule, messages, bits, &args)?;
        let map = match map {
            Some(text) => SignalMap::from_json(text, map_name).map_err(value_error)?,
            None => SignalMap::identity(
                frames
                    .signals
                    .iter()
                    .filter(|s| s.name != names::CLK)
                    .map(|s| s.name.as_str()),
                None,
            ),
        };
        let diff = LiveDiff::new(frames, &map, context.min(1000)).map_err(value_error)?;
        let probes = diff
            .probes()
            .map(|(f, p)| (f.to_string(), p.signal.clone(), p.slice))
            .collect();
        Ok(PyLiveDiff {
            diff: Mutex::new(Some(diff)),
            clock: map.clock,
            probes,
        })
    }

    /// `(field, signal, (hi, lo) or None)` for each compared field, in the order `step` takes
    /// the values.
    #[getter]
    fn probes(&self) -> Vec<ProbeInfo> {
        self.probes.clone()
    }

    /// The clock the map names, if any.
    #[getter]
    fn clock(&self) -> Option<String> {
        self.clock.clone()
    }

    /// Cycles compared so far.
    #[getter]
    fn compared(&self) -> u64 {
        self.with(|d| Ok(d.compared())).unwrap_or(0)
    }

    /// Fields compared per cycle.
    #[getter]
    fn fields(&self) -> usize {
        self.probes.len()
    }

    /// Whether a divergence has been found.
    #[getter]
    fn diverged(&self) -> bool {
        self.with(|d| Ok(d.diverged())).unwrap_or(false)
    }

    /// Compares the next golden cycle with one DUT cycle: one value per probe, each an int
    /// (the probe's bits), a list of 64-bit ints (least significant first) for wider values,
    /// or a one-character str naming the X/Z state that makes it unknown. True: call again;
    /// False: done (call `finish`).
    fn step(&self, edge: u64, time: u64, values: &Bound<'_, PyList>) -> PyResult<bool> {
        let mut samples = Vec::with_capacity(values.len());
        for v in values.iter() {
            samples.push(bits_of(&v)?);
        }
        self.with(|d| {
            d.step(edge, time, &samples)
                .map(|s| s == Step::More)
                .map_err(value_error)
        })
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
        let report = diff.finish().map_err(value_error)?;
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
    fn with<R>(&self, f: impl FnOnce(&mut LiveDiff) -> PyResult<R>) -> PyResult<R> {
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySchedule>()?;
    m.add_class::<Record>()?;
    m.add_class::<Simulation>()?;
    m.add_class::<PyLiveDiff>()?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(generate_verilog, m)?)?;
    m.add_function(wrap_pyfunction!(input_blocks, m)?)?;
    let _ = PyBytes::new(m.py(), b"");
    Ok(())
}
