//! The waveform file with its read offset published ([`ReadProgress`]): every read and seek
//! stores where the reader now is, one relaxed atomic store per buffer refill.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use crate::options::ReadProgress;

/// A file whose offset a [`ReadProgress`] follows.
pub(crate) struct Counted {
    file: File,
    offset: u64,
    progress: ReadProgress,
}

impl Counted {
    pub(crate) fn new(file: File, progress: ReadProgress) -> Counted {
        progress.set(0);
        Counted {
            file,
            offset: 0,
            progress,
        }
    }
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.offset += n as u64;
        self.progress.set(self.offset);
        Ok(n)
    }
}

impl Seek for Counted {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.offset = self.file.seek(to)?;
        self.progress.set(self.offset);
        Ok(self.offset)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};

    use super::*;

    #[test]
    fn the_count_follows_reads_and_seeks() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[7u8; 10_000]).unwrap();
        f.rewind().unwrap();
        let progress = ReadProgress::new();
        let mut input = BufReader::with_capacity(4096, Counted::new(f, progress.clone()));
        assert_eq!(progress.position(), 0);
        input.fill_buf().unwrap();
        assert_eq!(progress.position(), 4096, "one buffer read");
        input.seek(SeekFrom::Start(9000)).unwrap();
        assert_eq!(progress.position(), 9000);
        let mut rest = Vec::new();
        input.read_to_end(&mut rest).unwrap();
        assert_eq!((rest.len(), progress.position()), (1000, 10_000));
        // A new read of the same file starts the count again.
        let again = Counted::new(tempfile::tempfile().unwrap(), progress.clone());
        assert_eq!(progress.position(), 0);
        drop(again);
    }
}
