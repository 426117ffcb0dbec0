//! The one error type of the estimator. Every message is one line that names what was wrong
//! (the file, the constant, the row) so the command line can print it as it is.

use std::path::PathBuf;

/// Why an estimate, a calibration, a sweep or a plot could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EstimatorError {
    /// The constants file is not TOML, or lacks a constant, or has a non-number where a
    /// number belongs.
    #[error("constants {origin}: {message}")]
    Constants {
        /// The file, or `built-in` for the embedded copy.
        origin: String,
        /// What is wrong.
        message: String,
    },

    /// The seed table could not be parsed.
    #[error("seed table line {line}: {message}")]
    SeedTable {
        /// 1-based line number in the CSV.
        line: usize,
        /// What is wrong.
        message: String,
    },

    /// A style or flow name on the command line or in a file is not known.
    #[error("unknown {what} `{name}`; allowed: {allowed}")]
    UnknownName {
        /// `style` or `flow`.
        what: &'static str,
        /// The name given.
        name: String,
        /// The accepted names.
        allowed: String,
    },

    /// A schedule could not be built (bad preset, override or file).
    #[error(transparent)]
    Schedule(#[from] skeinhw_sched::ScheduleError),

    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },

    /// A Yosys JSON netlist could not be read (truncated, malformed, no top module).
    #[error("netlist {origin}: {message}")]
    Netlist {
        /// The file.
        origin: String,
        /// What is wrong.
        message: String,
    },

    /// Yosys is missing or failed.
    #[error("yosys: {0}")]
    Yosys(String),

    /// The plotting library failed.
    #[error("plot: {0}")]
    Plot(String),
}

impl EstimatorError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EstimatorError::Io {
            path: path.into(),
            source,
        }
    }
}
