//! The golden model for Python: schedules of either algorithm, the cycle-accurate simulator as
//! a lazy iterator of cycle records (the diff crate's simulator thread and frames, never the
//! whole run in memory), the Verilog generator, and the live cycle diff the cocotb checker
//! feeds one clock edge at a time.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use skeinhw_diff::live::{LiveDiff, Step};
use skeinhw_diff::live_event::LiveEventDiff;
use skeinhw_diff::wave::Bits;
use skeinhw_diff::{Golden, GoldenFrames, OwnedJob, OwnedShabalJob, ShabalGolden, SignalMap};
use skeinhw_sched::AnySchedule;
use skeinhw_skein::TreeParams;
use skeinhw_trace::names;

use crate::buffer::Data;
use crate::hash::value_error;
use crate::stream::{Batch, OwnedRun, Recycler, Stream};

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
pub(crate) fn schedule_arg(obj: &Bound<'_, PyAny>) -> PyResult<AnySchedule> {
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

/// The Skein jobs of `messages` (one stream each) with the run's parameters.
fn skein_jobs(
    s: &skeinhw_sched::Schedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> Vec<OwnedJob> {
    let out_bits = args.digest_bits.unwrap_or(u64::from(s.size().bits()));
    messages
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
        .collect()
}

/// The Skein golden run of `messages` (one stream each), simulated in its thread.
pub(crate) fn skein_golden(
    s: &skeinhw_sched::Schedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<Golden> {
    Golden::simulate(s.clone(), skein_jobs(s, messages, bits, args)).map_err(value_error)
}

/// Shabal takes none of Skein's parameters, and only its own digest length; the refusal names
/// the options given.
fn shabal_args(s: &skeinhw_sched::shabal::ShabalSchedule, args: &RunArgs) -> PyResult<()> {
    let given: Vec<&str> = [
        ("key", !args.key.is_empty()),
        ("pers", args.pers.is_some()),
        ("public_key", args.public_key.is_some()),
        ("key_id", args.key_id.is_some()),
        ("nonce", args.nonce.is_some()),
        ("tree", args.tree.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect();
    if !given.is_empty() {
        return Err(value_error(format!(
            "schedule {} is a Shabal schedule: Shabal has no {}",
            s.name(),
            given.join(", ")
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
    Ok(())
}

/// The Shabal golden run of `messages` (one stream each), simulated in its thread, after
/// refusing Skein's parameters.
pub(crate) fn shabal_golden(
    s: &skeinhw_sched::shabal::ShabalSchedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<ShabalGolden> {
    shabal_args(s, args)?;
    let jobs = messages
        .into_iter()
        .zip(bits)
        .map(|(message, msg_bits)| OwnedShabalJob { message, msg_bits })
        .collect();
    ShabalGolden::simulate(s.clone(), jobs).map_err(value_error)
}

/// Runs the golden simulator in its thread; frames arrive as they are asked for.
fn golden_frames(
    schedule: &AnySchedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<GoldenFrames> {
    match schedule {
        AnySchedule::Skein(s) => skein_golden(s, messages, bits, args).map(Golden::into_frames),
        AnySchedule::Shabal(s) => {
            shabal_golden(s, messages, bits, args).map(ShabalGolden::into_frames)
        }
    }
}

/// The trace's signal names and their positions, made once per run and shared by every
/// record. The names are interned Python strings, and `index` is a Python dict from each to
/// its position: `record["slot0_state_0"]` is then one dict probe on the string's cached hash
/// (an identity compare for a literal), instead of a UTF-8 copy and a Rust string hash per read.
struct Names {
    keys: Vec<Py<PyString>>,
    index: Py<PyDict>,
}

impl Names {
    fn new(py: Python<'_>, list: &[String]) -> PyResult<Names> {
        let keys: Vec<Py<PyString>> = list
            .iter()
            .map(|n| PyString::intern(py, n).unbind())
            .collect();
        let index = PyDict::new(py);
        for (i, k) in keys.iter().enumerate() {
            index.set_item(k.bind(py), i)?;
        }
        Ok(Names {
            keys,
            index: index.unbind(),
        })
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The position of field `name`: a KeyError naming it when the trace has no such field,
    /// a TypeError when it is no string.
    fn position(&self, name: &Bound<'_, PyAny>) -> PyResult<usize> {
        let py = name.py();
        if !name.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "a field name (str) is required, not '{}'",
                name.get_type().name()?
            )));
        }
        match self.index.bind(py).get_item(name)? {
            Some(i) => i.extract(),
            None => Err(PyKeyError::new_err(format!(
                "no field '{}' in the trace",
                name.str()?
            ))),
        }
    }

    /// The names as a new list of the interned strings.
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.keys.iter().map(|k| k.bind(py)))
    }
}

/// A batch of cycles and the names of its values; handed back to the simulator once no
/// record of it is left.
struct Rows {
    names: Arc<Names>,
    batch: Batch,
    recycler: Recycler,
}

impl Drop for Rows {
    fn drop(&mut self) {
        self.recycler.recycle(std::mem::take(&mut self.batch));
    }
}

/// One clock cycle of the golden model: every register after the rising edge. A view into
/// its batch of the run (values are read when asked for).
#[pyclass(name = "CycleRecord", module = "skeinhw", frozen)]
pub struct Record {
    rows: Arc<Rows>,
    row: usize,
}

impl Record {
    fn values(&self) -> &[u64] {
        let n = self.rows.names.len();
        &self.rows.batch.values[self.row * n..][..n]
    }
}

#[pymethods]
impl Record {
    /// Clock cycle, from 1 (the first rising edge).
    #[getter]
    fn cycle(&self) -> u64 {
        self.rows.batch.cycles[self.row]
    }

    /// The controller phase.
    #[getter]
    fn phase(&self) -> &'static str {
        self.rows.batch.phases[self.row]
    }

    fn __getitem__(&self, name: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self.values()[self.rows.names.position(name)?])
    }

    fn __contains__(&self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        if !name.is_instance_of::<PyString>() {
            return Ok(false);
        }
        self.rows.names.index.bind(name.py()).contains(name)
    }

    /// Every field name -> value (a dict, in trace order).
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.rows.names.keys.iter().zip(self.values()) {
            d.set_item(k.bind(py), v)?;
        }
        Ok(d)
    }

    /// The field names, in trace order.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.rows.names.list(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<CycleRecord cycle {} phase {}>",
            self.cycle(),
            self.phase()
        )
    }
}

/// Where a [`Simulation`] is: the batch being read and the next row.
struct Cursor {
    stream: Stream,
    rows: Option<Arc<Rows>>,
    next: usize,
    done: bool,
}

/// The records of a simulation, computed as they are read.
#[pyclass(name = "Simulation", module = "skeinhw", frozen)]
pub struct Simulation {
    names: Arc<Names>,
    cursor: Mutex<Cursor>,
}

#[pymethods]
impl Simulation {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> PyResult<Option<Record>> {
        let mut c = self.cursor.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(rows) = &c.rows
                && c.next < rows.batch.len()
            {
                let record = Record {
                    rows: rows.clone(),
                    row: c.next,
                };
                c.next += 1;
                return Ok(Some(record));
            }
            if c.done {
                return Ok(None);
            }
            // The wait keeps the GIL: releasing it while holding the cursor's lock would
            // deadlock with a second Python thread reading the same simulation (it would hold
            // the GIL, waiting for the lock). The simulator's thread never needs the GIL.
            let next = c.stream.next_batch();
            match next {
                None => {
                    c.done = true;
                    c.rows = None;
                }
                Some(Err(e)) => {
                    c.done = true;
                    c.rows = None;
                    return Err(value_error(e));
                }
                Some(Ok(batch)) => {
                    c.rows = Some(Arc::new(Rows {
                        names: self.names.clone(),
                        batch,
                        recycler: c.stream.recycler(),
                    }));
                    c.next = 0;
                }
            }
        }
    }

    /// The field names of every record, in trace order.
    #[getter]
    fn field_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.names.list(py)
    }
}

/// Runs the golden model on `messages` (one stream each) and returns an iterator of cycle
/// records, computed lazily.
#[pyfunction]
#[pyo3(signature = (schedule, messages, *, key=None, pers=None, public_key=None, key_id=None, nonce=None, tree=None, bits=None, digest_bits=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
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
    let stream = match &schedule {
        AnySchedule::Skein(s) => Stream::skein(s.clone(), skein_jobs(s, messages, bits, &args)),
        AnySchedule::Shabal(s) => {
            shabal_args(s, &args)?;
            let jobs = messages
                .into_iter()
                .zip(bits)
                .map(|(message, msg_bits)| OwnedRun { message, msg_bits })
                .collect();
            Stream::shabal(s.clone(), jobs)
        }
    }
    .map_err(value_error)?;
    let list: Vec<String> = stream.signals.iter().map(|s| s.name.clone()).collect();
    Ok(Simulation {
        names: Arc::new(Names::new(py, &list)?),
        cursor: Mutex::new(Cursor {
            stream,
            rows: None,
            next: 0,
            done: false,
        }),
    })
}

/// For the benchmark script: seconds to drain the simulation of `message` on `schedule` in
/// Rust alone (the batches `simulate` hands to Python, no Python object made).
#[pyfunction]
fn _bench_rust_simulate(
    py: Python<'_>,
    schedule: &Bound<'_, PyAny>,
    message: Vec<u8>,
) -> PyResult<f64> {
    let schedule = schedule_arg(schedule)?;
    let bits = vec![message.len() as u64 * 8];
    let args = RunArgs::default();
    let AnySchedule::Skein(s) = &schedule else {
        return Err(value_error("a Skein schedule is required"));
    };
    let jobs = skein_jobs(s, vec![message], bits, &args);
    let s = s.clone();
    py.detach(move || {
        let start = std::time::Instant::now();
        let mut stream = Stream::skein(s, jobs)?;
        let recycler = stream.recycler();
        let mut rows = 0usize;
        while let Some(b) = stream.next_batch() {
            let b = b?;
            rows += std::hint::black_box(b.len());
            recycler.recycle(b);
        }
        std::hint::black_box(rows);
        Ok::<f64, String>(start.elapsed().as_secs_f64())
    })
    .map_err(value_error)
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
/// reads); without one, the generated Verilog's signals of the same names.
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
    #[pyo3(signature = (schedule, messages, *, key=None, bits=None, map=None, map_name="map", context=3, align="cycle", partial=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        schedule: &Bound<'_, PyAny>,
        messages: &Bound<'_, PyAny>,
        key: Option<&Bound<'_, PyAny>>,
        bits: Option<&Bound<'_, PyAny>>,
        map: Option<&str>,
        map_name: &str,
        context: usize,
        align: &str,
        partial: bool,
    ) -> PyResult<Self> {
        let schedule = schedule_arg(schedule)?;
        let messages = messages_arg(messages)?;
        let bits = bits_arg(bits, &messages)?;
        let args = run_args(key, None, None, None, None, None, None)?;
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySchedule>()?;
    m.add_class::<Record>()?;
    m.add_class::<Simulation>()?;
    m.add_class::<PyLiveDiff>()?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_rust_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(generate_verilog, m)?)?;
    m.add_function(wrap_pyfunction!(input_blocks, m)?)?;
    let _ = PyBytes::new(m.py(), b"");
    Ok(())
}
