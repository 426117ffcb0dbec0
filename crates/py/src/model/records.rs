//! The cycle simulator as a lazy iterator of cycle records for Python: the batches of
//! [`crate::stream`], each record a view into its batch.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use skeinhw_sched::AnySchedule;

use super::args::{RunArgs, bits_arg, messages_arg, run_args};
use super::golden::{shabal_args, skein_jobs};
use super::schedule::schedule_arg;
use crate::hash::value_error;
use crate::stream::{Batch, OwnedRun, Recycler, Stream};

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

/// Runs the golden model on `messages` and returns an iterator of cycle records, computed
/// lazily. More messages than the schedule has streams are queued as the hardware (and
/// `LiveDiff`, the cocotb checker, `skeinhw.events`) takes them: message i on stream i mod S,
/// a stream's messages back to back.
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
pub(crate) fn _bench_rust_simulate(
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
