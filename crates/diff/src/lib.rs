//! Cycle-by-cycle diff of a golden Skein trace against an RTL simulation's waveform.
//!
//! The golden side is a trace of `skeinhw_sched::sim` (records in memory, or a JSON-lines file
//! read with `skeinhw_trace::JsonlReader`); the RTL side a VCD or FST file, read once, streaming,
//! sampled at the rising edges of a named clock. Fields are matched by a [`SignalMap`]
//! (identity for the generated Verilog). The report names the first divergent cycle, every
//! field that differs there with both values, where the datapath was in the spec's words, and a
//! few cycles of context.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cycle;
mod error;
pub mod event;
pub mod golden;
pub mod map;
pub mod report;
pub mod wave;

pub use cycle::{CycleOptions, compare_cycles};
pub use error::DiffError;
pub use event::compare_events;
pub use golden::{Golden, OwnedJob};
pub use map::SignalMap;
pub use report::{DiffReport, Verdict};
