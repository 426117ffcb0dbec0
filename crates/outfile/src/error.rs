//! The one error type of the crate. Every message names the path the user gave (never a
//! temporary file's) and fits on one line.

use std::path::PathBuf;

/// Why an output file or directory could not be written. Nothing the user had is changed
/// when one of these is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutFileError {
    /// A regular file is already there and `--force` was not given.
    #[error("{}: file exists; give --force to replace it", path.display())]
    Exists {
        /// The user's path.
        path: PathBuf,
    },
    /// The destination of a file is a directory.
    #[error("{}: is a directory; give a file name", path.display())]
    IsDirectory {
        /// The user's path.
        path: PathBuf,
    },
    /// The destination of a directory, or a file's parent, is not a directory.
    #[error("{}: {} is not a directory", path.display(), parent.display())]
    NotDirectory {
        /// The user's path.
        path: PathBuf,
        /// The component that is not a directory.
        parent: PathBuf,
    },
    /// The directory a file or directory would go into does not exist.
    #[error("{}: directory {} does not exist", path.display(), parent.display())]
    NoParent {
        /// The user's path.
        path: PathBuf,
        /// The missing directory.
        parent: PathBuf,
    },
    /// `-` was given where standard output cannot take the output.
    #[error("-: {what} cannot be written to standard output; give a path")]
    NoStdout {
        /// What was to be written (a directory, a file rewritten in place).
        what: String,
    },
    /// A chain of symbolic links that does not end.
    #[error("{}: too many levels of symbolic links", path.display())]
    SymlinkLoop {
        /// The user's path.
        path: PathBuf,
    },
    /// An output directory holds skeinhw's files and `--force` was not given.
    #[error("{}: directory is not empty; give --force to replace the files skeinhw wrote there", path.display())]
    DirNotEmpty {
        /// The user's path.
        path: PathBuf,
    },
    /// An output directory holds entries skeinhw did not write (not in its manifest).
    #[error(
        "{}: holds {} not written by skeinhw (not listed in its {}); nothing was changed: move {} away or choose another directory",
        path.display(),
        list(names),
        crate::MANIFEST,
        if names.len() == 1 { "it" } else { "them" }
    )]
    Foreign {
        /// The user's path.
        path: PathBuf,
        /// The foreign entries' names.
        names: Vec<String>,
    },
    /// The operating system refused (no space, read-only, permission, ...).
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The user's path.
        path: PathBuf,
        /// What was being done ("write", "create", "replace", ...).
        action: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

impl OutFileError {
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
        source: std::io::Error,
    ) -> Self {
        OutFileError::Io {
            path: path.into(),
            action,
            source,
        }
    }
}

/// At most five names, quoted, then a count of the rest.
fn list(names: &[String]) -> String {
    let mut s: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    if names.len() > 5 {
        s.push(format!("and {} more", names.len() - 5));
    }
    s.join(", ")
}
