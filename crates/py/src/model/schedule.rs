//! Schedules of either algorithm for Python: presets, JSON, and the `schedule` argument every
//! function takes.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use skeinhw_sched::AnySchedule;

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

    /// A new schedule with `FIELD=VALUE` overrides (strings, as the CLI's `--set`: the same
    /// parser, the same validation), named `<name>+field=value,...` unless a `name=` is given.
    /// On a Shabal schedule `size` sets `output_bits` and `rounds_per_cycle` `unfolding`.
    fn with_set(&self, settings: Vec<String>) -> PyResult<Self> {
        let mut pairs = Vec::new();
        for s in &settings {
            let (field, value) = s.split_once('=').ok_or_else(|| {
                value_error(format!(
                    "--set {s}: expected FIELD=VALUE, e.g. first_subkey_cycle=false"
                ))
            })?;
            pairs.push((field.trim().to_owned(), value.trim().to_owned()));
        }
        if pairs.is_empty() {
            return Ok(self.clone());
        }
        let name = renamed(self.inner.name(), &pairs);
        let inner = match self.inner.clone() {
            AnySchedule::Skein(base) => {
                let mut spec = base.into_spec();
                for (field, value) in &pairs {
                    spec.set(field, value).map_err(value_error)?;
                }
                if !pairs.iter().any(|(f, _)| f == "name") {
                    spec.name = name;
                }
                AnySchedule::Skein(spec.build().map_err(value_error)?)
            }
            AnySchedule::Shabal(base) => {
                let mut spec = base.into_spec();
                for (field, value) in &pairs {
                    let field = match field.as_str() {
                        "size" => "output_bits",
                        "rounds_per_cycle" => "unfolding",
                        other => other,
                    };
                    spec.set(field, value).map_err(value_error)?;
                }
                if !pairs.iter().any(|(f, _)| f == "name") {
                    spec.name = name;
                }
                AnySchedule::Shabal(spec.build().map_err(value_error)?)
            }
        };
        Ok(PySchedule { inner })
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

/// `<original>+field=value,...` (the CLI's name for an overridden schedule).
fn renamed(current: &str, overrides: &[(String, String)]) -> String {
    let changed: Vec<String> = overrides
        .iter()
        .filter(|(f, _)| f != "source")
        .map(|(f, v)| format!("{f}={v}"))
        .collect();
    format!("{current}+{}", changed.join(","))
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
