//! Why a design could not be generated, written or simulated.

use std::path::PathBuf;

/// Errors of the generator and the simulator runners.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RtlError {
    /// The schedule or an option is valid but the generator cannot build it (yet).
    #[error("schedule {schedule}: {what} not supported by the generator yet")]
    Unsupported {
        /// Schedule name.
        schedule: String,
        /// What is not supported.
        what: String,
    },
    /// The input cannot be expressed by the design (too many streams, a MAC key on a design
    /// without a key phase, ...).
    #[error("{0}")]
    Input(String),
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An output file or directory could not be written (its message names it).
    #[error(transparent)]
    Write(#[from] skeinhw_outfile::OutFileError),
    /// A simulator is missing, failed to build or failed to run.
    #[error("{tool}: {message}")]
    Tool {
        /// The program (iverilog, vvp, verilator, the model binary).
        tool: String,
        /// What went wrong (the first lines of its output).
        message: String,
    },
    /// The simulation's output could not be understood.
    #[error("simulation output: {0}")]
    Output(String),
}

impl RtlError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        RtlError::Io {
            path: path.into(),
            source,
        }
    }
}
