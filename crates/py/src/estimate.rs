//! The estimator for Python (`skeinhw explore`): the model's estimate of a Skein schedule, the
//! lean or full design's Verilog, the Yosys script `estimate --synth` runs, and the netlist
//! reader. Results cross as JSON text (the estimator's serde output), so the Python side gets
//! the same fields as `skeinhw estimate --json`.

use std::path::PathBuf;

use pyo3::prelude::*;
use skeinhw_estimator::netlist::summary::{is_datapath_register, is_state_register};
use skeinhw_estimator::netlist::yosys;
use skeinhw_estimator::{Constants, CoreStyle, Flow, Netlist, Options, estimate};
use skeinhw_sched::{AnySchedule, Schedule};

use crate::hash::value_error;
use crate::model::schedule_arg;

/// The Skein schedule of `obj` (a Shabal schedule has no netlist path).
fn skein(obj: &Bound<'_, PyAny>) -> PyResult<Schedule> {
    match schedule_arg(obj)? {
        AnySchedule::Skein(s) => Ok(s),
        AnySchedule::Shabal(s) => Err(value_error(format!(
            "{}: the estimator's netlist path takes Skein schedules only",
            s.name()
        ))),
    }
}

fn flow(name: &str) -> PyResult<Flow> {
    name.parse().map_err(value_error)
}

fn constants(path: Option<PathBuf>) -> PyResult<Constants> {
    match path {
        Some(p) => Constants::from_file(&p).map_err(value_error),
        None => Ok(Constants::built_in()),
    }
}

/// The model's estimate of `schedule` as JSON (the `model` object of `estimate --json`).
#[pyfunction]
#[pyo3(signature = (schedule, *, flow="ise13", style=None, constants=None))]
fn model_estimate(
    schedule: &Bound<'_, PyAny>,
    flow: &str,
    style: Option<&str>,
    constants: Option<PathBuf>,
) -> PyResult<String> {
    let s = skein(schedule)?;
    let style: Option<CoreStyle> = style.map(str::parse).transpose().map_err(value_error)?;
    let options = Options {
        style,
        flow: self::flow(flow)?,
    };
    let e = estimate(&s, options, &self::constants(constants)?, None);
    serde_json::to_string(&e).map_err(value_error)
}

/// The design's Verilog (the file Yosys reads), full or lean (`skeinhw rtl --lean`).
#[pyfunction]
#[pyo3(signature = (schedule, *, lean=false))]
fn design_verilog(schedule: &Bound<'_, PyAny>, lean: bool) -> PyResult<String> {
    let s = skein(schedule)?;
    let design =
        skeinhw_rtl::generate_with(&s, skeinhw_rtl::Options { lean }).map_err(value_error)?;
    let files = design.files();
    Ok(files[0].1.clone())
}

/// The Yosys script of `estimate --synth` for `verilog` (top `top`), writing `out`.
#[pyfunction]
fn yosys_script(verilog: Vec<PathBuf>, top: &str, out: PathBuf) -> String {
    yosys::script(&verilog, top, &out)
}

/// Reads a Yosys JSON netlist and times it as `estimate --synth` does: JSON of the netlist's
/// estimate with `round_path` (the datapath's own path) and the schedule's throughput at the
/// netlist's clock when `schedule` is given.
#[pyfunction]
#[pyo3(signature = (path, *, schedule=None, top=None, flow="ise13", constants=None))]
fn netlist_estimate(
    path: PathBuf,
    schedule: Option<&Bound<'_, PyAny>>,
    top: Option<&str>,
    flow: &str,
    constants: Option<PathBuf>,
) -> PyResult<String> {
    let c = self::constants(constants)?;
    let n = Netlist::from_file(&path, top).map_err(value_error)?;
    let analysed = n.analyse(self::flow(flow)?, &c);
    let round = n.critical_path_between(&analysed, &c, &is_datapath_register, &is_state_register);
    let mut value = serde_json::to_value(&analysed).map_err(value_error)?;
    let object = value
        .as_object_mut()
        .ok_or_else(|| value_error("netlist estimate is not an object"))?;
    object.insert(
        "round_path".into(),
        serde_json::to_value(&round).map_err(value_error)?,
    );
    if let Some(obj) = schedule {
        let s = skein(obj)?;
        let clock = analysed.freq_mhz;
        let throughput = s.throughput_mbps(clock);
        object.insert("clock_mhz".into(), clock.into());
        object.insert("cycles_per_block".into(), s.cycles_per_block().into());
        object.insert("blocks_in_flight".into(), s.blocks_in_flight().into());
        object.insert("block_latency_cycles".into(), s.block_latency().into());
        object.insert("throughput_mbps".into(), throughput.into());
        object.insert(
            "mbps_per_slice".into(),
            (throughput / f64::from(analysed.slices.max(1))).into(),
        );
    }
    serde_json::to_string(&value).map_err(value_error)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(model_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(design_verilog, m)?)?;
    m.add_function(wrap_pyfunction!(yosys_script, m)?)?;
    m.add_function(wrap_pyfunction!(netlist_estimate, m)?)?;
    Ok(())
}
