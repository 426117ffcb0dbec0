//! How every skeinhw command writes its output files and directories, so that no command
//! loses a user's data or leaves half-written output.
//!
//! A file destination ([`OutFile`], [`write_file`]):
//!
//! | destination | what happens |
//! |---|---|
//! | `-` | standard output, when the caller allows it ([`Options::stdout`], text formats) |
//! | missing | created complete or not at all: a temporary file `.skeinhw-XXXXXX.tmp` beside it, renamed into place on [`OutFile::commit`]; mode `0666 & !umask` |
//! | regular file | refused ([`OutFileError::Exists`]) unless [`Options::force`]; then replaced atomically, keeping its mode and (where the user may) its owner and group |
//! | symlink | written through: the rules apply to the file it points to, which is replaced or created; the link stays a link. A dangling link's target is created (its directory must exist) |
//! | FIFO, character device (`/dev/null`), socket | opened and written in place; never renamed over; no `--force` needed |
//! | `/dev/stdout`, `/dev/fd/N`, `/proc/PID/fd/N` | the open descriptor, appended to (whatever it is) |
//! | directory, missing parent, read-only or full file system | a one-line error naming the user's path; the temporary file is removed |
//!
//! A directory destination ([`OutDir`]) holds a manifest, [`MANIFEST`], listing the files
//! skeinhw wrote there. `--force` replaces only those; a directory holding anything else
//! (a user's `notes.txt`, a `sub/` directory, no manifest) is refused and nothing is touched.
//! The files of one generation are all written to temporary files before the first rename.
//!
//! Errors ([`OutFileError`]) name the path the user gave, never the temporary file's.

mod dir;
mod error;
mod file;

pub use dir::{MANIFEST, OutDir};
pub use error::OutFileError;
pub use file::{Options, OutFile, TEMP_PREFIX, TEMP_SUFFIX, write_file};
