//! The one error type of the crate. Every message is one line that names the field (or the
//! file, or the preset) and says what is allowed, so the CLI can print it as is.

use std::fmt::Display;
use std::path::PathBuf;

/// Why a schedule could not be built, parsed, loaded or looked up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// A field has a value that is impossible on its own or together with other fields.
    /// Displayed as `FIELD = VALUE PROBLEM; allowed: ALLOWED`.
    #[error("{field} = {value} {problem}; allowed: {allowed}")]
    Invalid {
        /// The JSON field name, e.g. `rounds_per_cycle`.
        field: &'static str,
        /// The rejected value as written in JSON.
        value: String,
        /// What is wrong, with the rule's source where it comes from a paper.
        problem: String,
        /// The values (or field combinations) that would be accepted.
        allowed: String,
    },

    /// `ScheduleSpec::set` was given a field name that a schedule does not have.
    #[error("unknown schedule field `{field}`; allowed: {allowed}")]
    UnknownField {
        /// The name that was given.
        field: String,
        /// The field names a schedule has.
        allowed: String,
    },

    /// No preset has this name.
    #[error("unknown schedule preset `{name}`; known presets: {known}")]
    UnknownPreset {
        /// The name that was asked for.
        name: String,
        /// All preset names, comma separated.
        known: String,
    },

    /// The JSON text is not a schedule: syntax, a missing or unknown field, or a wrong type.
    /// The message starts with the field path where serde knows it.
    #[error("schedule JSON: {message}")]
    Json {
        /// serde's message, prefixed with the field path (e.g. `size: invalid type ...`).
        message: String,
    },

    /// A schedule file could not be read.
    #[error("cannot read schedule file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },

    /// A schedule file was read but its content is not a valid schedule.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with its content.
        source: Box<ScheduleError>,
    },
}

impl ScheduleError {
    /// Builds an [`ScheduleError::Invalid`]; `value` is shown as written in JSON.
    pub(crate) fn invalid(
        field: &'static str,
        value: impl Display,
        problem: impl Into<String>,
        allowed: impl Into<String>,
    ) -> Self {
        ScheduleError::Invalid {
            field,
            value: value.to_string(),
            problem: problem.into(),
            allowed: allowed.into(),
        }
    }

    /// The schedule field this error is about, when it is about one (also through a file).
    pub fn field(&self) -> Option<&str> {
        match self {
            ScheduleError::Invalid { field, .. } => Some(field),
            ScheduleError::UnknownField { field, .. } => Some(field),
            ScheduleError::File { source, .. } => source.field(),
            _ => None,
        }
    }
}
