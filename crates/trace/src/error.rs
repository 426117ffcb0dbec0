//! The one error type of the crate: every message names the file (when there is one), the
//! line or place, and what was expected, on one line.

use std::path::PathBuf;

/// Why a trace could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The output file could not be written (its message names it).
    #[error(transparent)]
    Output(#[from] skeinhw_outfile::OutFileError),
    /// An I/O error on an unnamed stream.
    #[error("{0}")]
    Stream(#[from] std::io::Error),
    /// A line of a JSONL trace is not what the schema says.
    #[error("line {line}: {message}")]
    Jsonl {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A VCD trace is not one this crate wrote (or is malformed).
    #[error("VCD: {0}")]
    Vcd(String),
    /// A waveform could not be read or merged (its message names the file).
    #[error("waveform {0}")]
    Wave(String),
    /// The trace format name is unknown.
    #[error("unknown trace format `{0}`; allowed: jsonl, vcd, fst")]
    UnknownFormat(String),
}

impl TraceError {
    /// Names the file an error happened in.
    pub fn in_file(self, path: impl Into<PathBuf>) -> TraceError {
        match self {
            TraceError::Stream(source) => TraceError::Io {
                path: path.into(),
                source,
            },
            other => other,
        }
    }
}
