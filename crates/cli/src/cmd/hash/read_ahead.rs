//! Reading one chunk ahead of the hasher, on a thread of its own.
//!
//! A single Skein stream is bound by its dependency chain on one core; the kernel's copy out
//! of the page cache (about 7% of a whole-process Skein-256 hash of a cached file) can run on
//! another core meanwhile instead of in between. The reader owns a few fixed buffers that go
//! round between the two threads: memory stays at `BUFFERS x READ_CHUNK` whatever the input.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::READ_CHUNK;

/// Buffers in circulation: one being hashed, one being filled, one waiting.
const BUFFERS: usize = 3;

/// Reads `reader` to its end on a scoped thread and hands each chunk to `consume` in order;
/// returns the bytes read. A read error ends the loop and is returned (`Interrupted` retried).
pub(super) fn read_ahead<R: Read + Send>(
    reader: R,
    mut consume: impl FnMut(&[u8]),
) -> io::Result<u64> {
    let (full_tx, full_rx) = sync_channel::<io::Result<(Vec<u8>, usize)>>(BUFFERS);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(BUFFERS);
    for _ in 0..BUFFERS {
        empty_tx
            .send(vec![0u8; READ_CHUNK])
            .expect("room for every buffer");
    }
    std::thread::scope(|s| {
        s.spawn(move || fill(reader, &empty_rx, &full_tx));
        let mut total = 0u64;
        for chunk in full_rx {
            let (buf, n) = chunk?;
            consume(&buf[..n]);
            total += n as u64;
            // The reader may have stopped at the end already: a refused buffer is dropped.
            let _ = empty_tx.send(buf);
        }
        Ok(total)
    })
}

/// The reader thread: fills each empty buffer it gets and passes it on, until the end of the
/// input, an error, or the consumer hanging up.
fn fill<R: Read>(
    mut reader: R,
    empty: &Receiver<Vec<u8>>,
    full: &SyncSender<io::Result<(Vec<u8>, usize)>>,
) {
    while let Ok(mut buf) = empty.recv() {
        let n = loop {
            match reader.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match n {
            Ok(0) => return,
            Ok(n) => {
                if full.send(Ok((buf, n))).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = full.send(Err(e));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns short, uneven pieces, an `Interrupted` now and then, and
    /// optionally fails after some bytes.
    struct Uneven {
        data: Vec<u8>,
        at: usize,
        calls: usize,
        fail_at: Option<usize>,
    }

    impl Read for Uneven {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(5) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(io::Error::other("disk on fire"));
            }
            let n = (self.calls * 7919 % 100_000 + 1)
                .min(buf.len())
                .min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn input(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + i / 977) as u8).collect()
    }

    #[test]
    fn every_byte_arrives_once_in_order() {
        for len in [0, 1, READ_CHUNK - 1, READ_CHUNK, 5 * READ_CHUNK + 12_345] {
            let data = input(len);
            let reader = Uneven {
                data: data.clone(),
                at: 0,
                calls: 0,
                fail_at: None,
            };
            let mut seen = Vec::new();
            let total = read_ahead(reader, |c| seen.extend_from_slice(c)).unwrap();
            assert_eq!(total, len as u64);
            assert_eq!(seen, data, "len {len}");
        }
    }

    #[test]
    fn a_read_error_is_returned_after_the_bytes_before_it() {
        let data = input(3 * READ_CHUNK);
        let reader = Uneven {
            data: data.clone(),
            at: 0,
            calls: 0,
            fail_at: Some(READ_CHUNK),
        };
        let mut seen = Vec::new();
        let err = read_ahead(reader, |c| seen.extend_from_slice(c)).unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        assert!(seen.len() >= READ_CHUNK && data.starts_with(&seen));
    }
}
