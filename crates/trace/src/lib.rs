#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod args;
mod error;
mod fst;
pub mod hex;
mod jsonl;
mod merge;
pub mod names;
mod output;
pub mod shabal;
mod vcd;
mod vcd_read;
pub mod viewer;
mod wave;

use std::fmt;
use std::str::FromStr;

pub use error::TraceError;
pub use fst::FstWriter;
pub use jsonl::{JsonlReader, JsonlWriter, MAX_LINE_BYTES, read_line_bounded};
pub use merge::{
    Divergence, VIEW_FST, VIEW_GTKW, VIEW_SUCL, ViewerFiles, check_viewer_dir, write_viewer_dir,
    write_viewer_files,
};
pub use output::AtomicFile;
/// The options of [`AtomicFile::create_with`] (`--force`, `-` for standard output).
pub use skeinhw_outfile::Options as OutputOptions;
pub use vcd::VcdWriter;
pub use vcd_read::read_vcd;
pub use wave::{PERIOD, wave_signals};

/// The file formats of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// JSON lines: a header line, then one object per cycle.
    Jsonl,
    /// Value Change Dump, for waveform viewers and the RTL diff.
    Vcd,
    /// Fast Signal Trace (GTKWave's compressed format): the VCD's signals and values.
    Fst,
}

impl TraceFormat {
    /// The name on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            TraceFormat::Jsonl => "jsonl",
            TraceFormat::Vcd => "vcd",
            TraceFormat::Fst => "fst",
        }
    }
}

impl TraceFormat {
    /// The format a file name's extension names (`.jsonl`, `.vcd`, `.fst`), if any.
    pub fn from_extension(path: &std::path::Path) -> Option<TraceFormat> {
        match path.extension()?.to_str()? {
            "jsonl" => Some(TraceFormat::Jsonl),
            "vcd" => Some(TraceFormat::Vcd),
            "fst" => Some(TraceFormat::Fst),
            _ => None,
        }
    }

    /// Whether the format is a waveform (VCD, FST) rather than JSON lines.
    pub const fn is_waveform(self) -> bool {
        !matches!(self, TraceFormat::Jsonl)
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
            "fst" => Ok(TraceFormat::Fst),
            other => Err(TraceError::UnknownFormat(other.to_owned())),
        }
    }
}
