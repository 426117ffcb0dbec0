#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod dir;
mod error;
mod file;

pub use dir::{MANIFEST, OutDir};
pub use error::OutFileError;
pub use file::{Options, OutFile, TEMP_PREFIX, TEMP_SUFFIX, write_file};
