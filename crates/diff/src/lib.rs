#![doc = "Cycle-by-cycle diff of a golden trace against an RTL waveform."]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod error;
pub mod wave;

pub use error::DiffError;
