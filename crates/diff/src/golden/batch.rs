//! Golden frames handed from the thread that makes them to the diff's thread in batches: one
//! hand-over per cycle would cost more than the comparison.
//!
//! A batch is flat (all its frames' values in one vector) and goes back to the making thread
//! once read, so that no memory is allocated per frame in one thread and freed in the other
//! (glibc frees another thread's memory under its arena's lock: 7% of the diff's time).

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::frame::Frame;
use crate::report::SlotWhere;

/// Frames per batch.
pub(super) const BATCH: usize = 512;

/// Golden frames, streamed; errors as one-line messages.
pub(super) type Frames = Box<dyn Iterator<Item = Result<Frame, String>> + Send>;

/// Where one frame of a [`FrameBatch`] is.
struct Head {
    cycle: u64,
    phase: &'static str,
    values_end: usize,
    locations_end: usize,
}

/// Frames in flat vectors, and the error that ended them, if any.
#[derive(Default)]
struct FrameBatch {
    heads: Vec<Head>,
    values: Vec<u64>,
    locations: Vec<SlotWhere>,
    error: Option<String>,
}

/// The making side: fills batches (recycled ones when the reading side has sent them back).
pub(super) struct Batcher {
    tx: SyncSender<FrameBatch>,
    back: Receiver<FrameBatch>,
    batch: FrameBatch,
    scratch: Vec<u64>,
}

/// A new pair of ends: frames pushed into the [`Batcher`] come out of the iterator.
pub(super) fn frame_channel() -> (Batcher, Frames) {
    let (tx, rx) = sync_channel::<FrameBatch>(8);
    let (back_tx, back_rx) = sync_channel::<FrameBatch>(10);
    let batcher = Batcher {
        tx,
        back: back_rx,
        batch: FrameBatch::default(),
        scratch: Vec::new(),
    };
    let frames = FrameChannel {
        rx,
        back: back_tx,
        batch: FrameBatch::default(),
        next: 0,
    };
    (batcher, Box::new(frames))
}

impl Batcher {
    /// Adds the frame that `parts` writes (values into a cleared buffer, busy slots appended);
    /// false when the reading side is gone (the diff stopped early).
    pub(super) fn push(
        &mut self,
        parts: impl FnOnce(&mut Vec<u64>, &mut Vec<SlotWhere>) -> (u64, &'static str),
    ) -> bool {
        let b = &mut self.batch;
        let (cycle, phase) = parts(&mut self.scratch, &mut b.locations);
        b.values.extend_from_slice(&self.scratch);
        b.heads.push(Head {
            cycle,
            phase,
            values_end: b.values.len(),
            locations_end: b.locations.len(),
        });
        b.heads.len() < BATCH || self.send()
    }

    /// Ends the frames with an error (after those pushed so far).
    pub(super) fn fail(mut self, message: String) {
        self.batch.error = Some(message);
        self.send();
    }

    /// Sends what is left.
    pub(super) fn finish(mut self) {
        if !self.batch.heads.is_empty() {
            self.send();
        }
    }

    fn send(&mut self) -> bool {
        let fresh = self.back.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, fresh);
        self.tx.send(full).is_ok()
    }
}

/// Makes frames of `records` with `parts` in a thread of their own: turning records into
/// frames (and parsing a JSON-lines trace) costs about as much as reading the waveform, so it
/// runs beside it. The first error ends the frames, as it ends the diff.
pub(super) fn in_thread<R, F>(
    records: impl Iterator<Item = Result<R, String>> + Send + 'static,
    parts: F,
) -> Frames
where
    F: Fn(&R, &mut Vec<u64>, &mut Vec<SlotWhere>) -> (u64, &'static str) + Send + 'static,
{
    let (mut batcher, frames) = frame_channel();
    std::thread::spawn(move || {
        for r in records {
            match r {
                Ok(r) => {
                    if !batcher.push(|values, location| parts(&r, values, location)) {
                        return;
                    }
                }
                Err(e) => return batcher.fail(e),
            }
        }
        batcher.finish();
    });
    frames
}

/// The reading side: each frame is copied out of its batch (allocated and, when the comparison
/// drops it, freed in the reading thread), read batches are sent back.
struct FrameChannel {
    rx: Receiver<FrameBatch>,
    back: SyncSender<FrameBatch>,
    batch: FrameBatch,
    next: usize,
}

impl Iterator for FrameChannel {
    type Item = Result<Frame, String>;

    fn next(&mut self) -> Option<Result<Frame, String>> {
        loop {
            let b = &self.batch;
            if let Some(h) = b.heads.get(self.next) {
                let (values_from, locations_from) = match self.next.checked_sub(1) {
                    Some(p) => (b.heads[p].values_end, b.heads[p].locations_end),
                    None => (0, 0),
                };
                self.next += 1;
                return Some(Ok(Frame {
                    cycle: h.cycle,
                    phase: h.phase,
                    location: b.locations[locations_from..h.locations_end].to_vec(),
                    values: b.values[values_from..h.values_end].to_vec(),
                }));
            }
            if let Some(e) = self.batch.error.take() {
                return Some(Err(e));
            }
            let mut read = match self.rx.recv() {
                Ok(batch) => std::mem::replace(&mut self.batch, batch),
                Err(_) => return None,
            };
            self.next = 0;
            read.heads.clear();
            read.values.clear();
            read.locations.clear();
            // The producer may be gone or have enough batches: then this one is dropped.
            let _ = self.back.try_send(read);
        }
    }
}
