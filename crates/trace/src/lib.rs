#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod args;
mod error;
pub mod hex;
mod jsonl;
pub mod names;
mod output;
pub mod shabal;
mod vcd;

use std::fmt;
use std::str::FromStr;

pub use error::TraceError;
pub use jsonl::{JsonlReader, JsonlWriter, MAX_LINE_BYTES, read_line_bounded};
pub use output::AtomicFile;
/// The options of [`AtomicFile::create_with`] (`--force`, `-` for standard output).
pub use skeinhw_outfile::Options as OutputOptions;
pub use vcd::{PERIOD, VcdWriter, read_vcd};

/// The file formats of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// JSON lines: a header line, then one object per cycle.
    Jsonl,
    /// Value Change Dump, for waveform viewers and the RTL diff.
    Vcd,
}

impl TraceFormat {
    /// The name on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            TraceFormat::Jsonl => "jsonl",
            TraceFormat::Vcd => "vcd",
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TraceFormat {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "jsonl" => Ok(TraceFormat::Jsonl),
            "vcd" => Ok(TraceFormat::Vcd),
            other => Err(TraceError::UnknownFormat(other.to_owned())),
        }
    }
}
