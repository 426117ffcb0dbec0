#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod calibrate;
pub mod constants;
pub mod count;
pub mod device;
pub mod devices;
mod error;
mod estimate;
pub mod generated;
pub mod interval;
pub mod netlist;
pub mod plot;
pub mod shabal;
pub mod style;
pub mod sweep;
pub mod timing;

pub use constants::Constants;
pub use devices::{Capacity, DeviceId, DeviceInfo};
pub use error::EstimatorError;
pub use estimate::{Estimate, estimate, estimate_on, model};
pub use interval::Interval;
pub use netlist::{Netlist, NetlistEstimate};
pub use style::{CoreStyle, Flow, Options};
