//! Errors of the diff: every one a single line naming the file and what was expected.

/// What went wrong reading or matching the inputs of a diff.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// A file could not be read.
    #[error("{file}: {message}")]
    Io {
        /// The file.
        file: String,
        /// What happened.
        message: String,
    },
    /// The waveform is truncated, corrupt or of an unknown format.
    #[error("{file}: not a readable VCD or FST waveform: {message}")]
    Wave {
        /// The file.
        file: String,
        /// The reader's message.
        message: String,
    },
    /// A signal named by the clock option or the map is not in the waveform.
    #[error("{file}: no signal '{signal}' ({hint})")]
    MissingSignal {
        /// The waveform file.
        file: String,
        /// The signal asked for.
        signal: String,
        /// Similar names.
        hint: String,
    },
    /// A malformed golden trace or mapping file.
    #[error("{file}:{line}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What was expected.
        message: String,
    },
    /// Nothing could be compared, or the two sides cannot be aligned.
    #[error("{0}")]
    Invalid(String),
}
