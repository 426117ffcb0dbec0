#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cycle;
pub mod discover;
pub mod first_cycle;
/// `skeinhw map` for Shabal (the search itself is in [`discover`], shared with Skein).
pub mod discover_shabal {
    pub use crate::discover::shabal::discover_shabal;
}
mod bits;
pub(crate) mod engine;
mod error;
pub mod event;
pub mod frame;
pub mod golden;
pub mod live;
pub mod live_event;
pub mod map;
pub mod options;
pub mod report;
pub mod shabal_event;
mod vcd;
pub mod viewer;
pub mod wave;

pub use cycle::{CycleComparator, CycleOptions, compare_cycles};
pub use error::DiffError;
pub use event::{EventComparator, EventLayout, Expected, compare_events};
pub use first_cycle::first_cycle_edges;
pub use frame::Frame;
pub use golden::{AnyGolden, Golden, GoldenFrames, OwnedJob, OwnedShabalJob, ShabalGolden};
pub use map::{Alignment, SignalMap};
pub use report::{DiffReport, Verdict};
pub use shabal_event::compare_shabal_events;
/// How a VCD's body is parsed (threads, chunk size), forced for one thread's reads: the tests
/// hold the parallel reader to the one-thread one on any machine.
#[doc(hidden)]
pub use vcd::parallel::{Plan as VcdPlan, with_plan as with_vcd_plan};
