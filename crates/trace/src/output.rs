//! Output files that appear only when complete: the trace is written to a temporary file in
//! the destination's directory and renamed over the destination on success, so a failed run
//! never leaves a half-written trace and never clobbers what the user had.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::TraceError;

/// A file being written; dropped without [`AtomicFile::commit`] it disappears.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    temp: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `path` (through a temporary file beside it).
    pub fn create(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        let path = path.as_ref().to_owned();
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".skeinhw-")
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|source| TraceError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(AtomicFile {
            path,
            temp: BufWriter::with_capacity(1 << 20, temp),
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes and renames the temporary file to the destination.
    pub fn commit(self) -> Result<(), TraceError> {
        let io = |source| TraceError::Io {
            path: self.path.clone(),
            source,
        };
        let temp = self.temp.into_inner().map_err(|e| io(e.into_error()))?;
        temp.as_file().sync_all().map_err(io)?;
        temp.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// The open temporary file, for readers that want to check what was written.
    pub fn file(&self) -> &File {
        self.temp.get_ref().as_file()
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.temp.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.temp.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.temp.flush()
    }
}
