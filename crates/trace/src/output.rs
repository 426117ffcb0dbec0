//! Output files that appear only when complete, through `skeinhw-outfile` (the one
//! output-writing discipline of skeinhw): a regular file is written beside its destination
//! and renamed over it on success; a symlink is written through; a FIFO or a device is
//! written in place. A failed run never leaves a half-written trace.

use std::io::Write;
use std::path::Path;

use skeinhw_outfile::{Options, OutFile};

use crate::error::TraceError;

/// A file being written; dropped without [`AtomicFile::commit`] it disappears.
#[derive(Debug)]
pub struct AtomicFile {
    out: OutFile,
}

impl AtomicFile {
    /// Starts writing `path`, replacing a regular file that is there (the caller decided:
    /// commands that must not replace one use [`AtomicFile::create_with`]).
    pub fn create(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        Self::create_with(path, Options::new().force(true))
    }

    /// Starts writing `path` under `options` (`--force`, `-` for standard output).
    pub fn create_with(path: impl AsRef<Path>, options: Options) -> Result<Self, TraceError> {
        Ok(AtomicFile {
            out: OutFile::create(path, options)?,
        })
    }

    /// The destination, as given.
    pub fn path(&self) -> &Path {
        self.out.path()
    }

    /// Whether the trace goes to standard output.
    pub fn is_stdout(&self) -> bool {
        self.out.is_stdout()
    }

    /// Flushes and puts the file in place.
    pub fn commit(self) -> Result<(), TraceError> {
        Ok(self.out.commit()?)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
