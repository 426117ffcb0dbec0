//! The golden model for Python: schedules of either algorithm ([`schedule`]), the arguments of
//! a run ([`args`]), the golden simulator in its thread ([`golden`]; more messages than streams
//! go back to back: [`queue`]), the cycle-accurate simulator as a lazy iterator of cycle records
//! ([`records`], never the whole run in memory), the Verilog generator and the blocks its port
//! takes ([`verilog`]), and the live diff the cocotb checker feeds one clock edge at a time
//! ([`live`]).

mod args;
mod golden;
mod live;
mod queue;
mod records;
mod schedule;
mod verilog;

use pyo3::prelude::*;

pub(crate) use args::{RunArgs, bits_arg, messages_arg, run_args};
pub(crate) use golden::{shabal_golden, skein_golden};
pub(crate) use schedule::schedule_arg;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<schedule::PySchedule>()?;
    m.add_class::<records::Record>()?;
    m.add_class::<records::Simulation>()?;
    m.add_class::<live::PyLiveDiff>()?;
    m.add_function(wrap_pyfunction!(schedule::presets, m)?)?;
    m.add_function(wrap_pyfunction!(records::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(records::_bench_rust_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(verilog::generate_verilog, m)?)?;
    m.add_function(wrap_pyfunction!(verilog::input_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(verilog::host_blocks, m)?)?;
    Ok(())
}
