//! The simulator run on the fly, in a thread that hands its cycles over bounded channels, so
//! that neither side is ever held whole.
//!
//! What it hands over is decided by the first use: records ([`SimRecords`] read as an
//! iterator), or frames ([`SimRecords::frames_of`], the cycle diff). Frames are made in the
//! simulator's thread straight from the borrowed records: no record is copied into owned
//! vectors (two heap vectors per cycle, allocated in one thread and freed in another: 12 to
//! 14% of the diff's time), and no third thread sits between the simulator and the diff.

use std::any::Any;
use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalSink, ShabalTraceHeader};
use skeinhw_sched::sim::{CycleRecord, OwnedCycleRecord, TraceHeader, TraceSink};

use super::batch::{BATCH, Batcher, Frames, frame_channel};
use crate::error::DiffError;
use crate::frame::{shabal_parts, skein_parts};

/// A golden trace's record stream. `Any`, so that [`super::Golden::into_frames`] can tell the
/// simulator's own stream from others and have the simulator make the frames itself.
pub trait RecordStream<T>: Iterator<Item = Result<T, String>> + Send + Any {
    /// The stream as `Any`, to be downcast.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T, I: Iterator<Item = Result<T, String>> + Send + Any> RecordStream<T> for I {
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

enum Item<H, T> {
    Header(H),
    Records(Vec<T>),
}

/// What the reading side wants, told before the first cycle is simulated.
enum Mode {
    Records,
    Frames(Batcher),
}

fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "diff stopped")
}

/// A sink that sends everything to the reading side; a closed channel (the diff stopped
/// early, or the golden trace was dropped unread) ends the simulation.
pub(super) struct ChannelSink<H, T> {
    tx: SyncSender<Item<H, T>>,
    mode: Receiver<Mode>,
    /// `None` until the first cycle; then `Some(None)` for records, `Some(Some(_))` for frames.
    frames: Option<Option<Batcher>>,
    batch: Vec<T>,
    /// Shabal's output words (for its frames), from the header.
    out_words: usize,
}

impl<H, T> ChannelSink<H, T> {
    fn send(&mut self, item: Item<H, T>) -> io::Result<()> {
        self.tx.send(item).map_err(|_| stopped())
    }

    /// The frame maker, or `None` when records are wanted; waits for the reading side's
    /// choice on the first call.
    fn frames(&mut self) -> io::Result<Option<&mut Batcher>> {
        if self.frames.is_none() {
            self.frames = Some(match self.mode.recv().map_err(|_| stopped())? {
                Mode::Records => None,
                Mode::Frames(b) => Some(b),
            });
        }
        Ok(self.frames.as_mut().and_then(Option::as_mut))
    }

    fn push(&mut self, record: T) -> io::Result<()> {
        self.batch.push(record);
        if self.batch.len() == BATCH {
            let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
            self.send(Item::Records(batch))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(Some(b)) = self.frames.take() {
            b.finish();
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        if batch.is_empty() {
            return Ok(());
        }
        self.send(Item::Records(batch))
    }
}

impl TraceSink for ChannelSink<TraceHeader, OwnedCycleRecord> {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.send(Item::Header(header.clone()))
    }
    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        match self.frames()? {
            Some(b) => b
                .push(|values, location| skein_parts(record, values, location))
                .then_some(())
                .ok_or_else(stopped),
            None => self.push(record.to_owned()),
        }
    }
    fn finish(&mut self) -> io::Result<()> {
        ChannelSink::finish(self)
    }
}

impl ShabalSink for ChannelSink<ShabalTraceHeader, ShabalCycleRecord> {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.out_words = header.output_words();
        self.send(Item::Header(header.clone()))
    }
    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()> {
        let words = self.out_words;
        match self.frames()? {
            Some(b) => b
                .push(|values, location| shabal_parts(record, words, values, location))
                .then_some(())
                .ok_or_else(stopped),
            None => self.push(*record),
        }
    }
    fn finish(&mut self) -> io::Result<()> {
        ChannelSink::finish(self)
    }
}

/// The simulator's records, streamed. Reading one tells the simulator to send records;
/// [`SimRecords::frames_of`] before that tells it to send frames instead.
pub(super) struct SimRecords<H, T> {
    rx: Receiver<Item<H, T>>,
    current: std::vec::IntoIter<T>,
    mode: Option<SyncSender<Mode>>,
}

impl<H: 'static, T: 'static> SimRecords<H, T> {
    /// The frames of the simulation, if `records` is a simulator's stream none of whose
    /// records has been read yet; else `records` back.
    pub(super) fn frames_of(
        mut records: Box<dyn RecordStream<T>>,
    ) -> Result<Frames, Box<dyn RecordStream<T>>> {
        // `(*records)`: the box itself is a `RecordStream` too, and would answer for itself.
        let Some(mode) = (*records)
            .as_any_mut()
            .downcast_mut::<SimRecords<H, T>>()
            .and_then(|sim| sim.mode.take())
        else {
            return Err(records);
        };
        let (batcher, frames) = frame_channel();
        // A simulator that already stopped (its error) ends the frames early, as it would
        // have ended the records.
        let _ = mode.send(Mode::Frames(batcher));
        Ok(frames)
    }
}

impl<H, T> Iterator for SimRecords<H, T> {
    type Item = Result<T, String>;

    fn next(&mut self) -> Option<Result<T, String>> {
        if let Some(mode) = self.mode.take() {
            // The simulator may have stopped already: then the channel below ends too.
            let _ = mode.send(Mode::Records);
        }
        loop {
            if let Some(r) = self.current.next() {
                return Some(Ok(r));
            }
            match self.rx.recv() {
                Ok(Item::Records(batch)) => self.current = batch.into_iter(),
                // The simulator sends one header, first; nothing else can follow it.
                Ok(Item::Header(_)) | Err(_) => return None,
            }
        }
    }
}

/// Runs `simulate` in a thread that hands its cycles over bounded channels; returns the header
/// once the simulator has begun (or the simulator's error).
pub(super) fn spawn<H, T, E>(
    simulate: impl FnOnce(&mut ChannelSink<H, T>) -> Result<(), E> + Send + 'static,
) -> Result<(H, SimRecords<H, T>), DiffError>
where
    H: Send + 'static,
    T: Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let (tx, rx) = sync_channel::<Item<H, T>>(8);
    let (mode_tx, mode_rx) = sync_channel::<Mode>(1);
    let handle = std::thread::spawn(move || {
        let mut sink = ChannelSink {
            tx,
            mode: mode_rx,
            frames: None,
            batch: Vec::with_capacity(BATCH),
            out_words: 0,
        };
        simulate(&mut sink).map_err(|e| e.to_string())
    });
    match rx.recv() {
        Ok(Item::Header(h)) => Ok((
            h,
            SimRecords {
                rx,
                current: Vec::new().into_iter(),
                mode: Some(mode_tx),
            },
        )),
        _ => {
            let message = match handle.join() {
                Ok(Err(e)) => e,
                _ => "the simulator stopped before its first cycle".to_string(),
            };
            Err(DiffError::Invalid(format!("golden simulation: {message}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use skeinhw_sched::preset;

    use super::super::{Golden, OwnedJob, Records};
    use super::*;
    use crate::frame::skein_frame;

    fn golden() -> Golden {
        let job = OwnedJob {
            message: vec![5; 200],
            msg_bits: 1600,
            out_bits: 256,
            ..OwnedJob::default()
        };
        Golden::simulate(preset("ath-1r").unwrap(), vec![job]).unwrap()
    }

    #[test]
    fn the_simulator_makes_the_frames_of_a_stream_not_read_yet() {
        let records: Vec<OwnedCycleRecord> = golden().records.map(Result::unwrap).collect();
        let want: Vec<_> = records.iter().map(skein_frame).collect();
        assert!(want.len() > 100);
        let frames = SimRecords::<TraceHeader, OwnedCycleRecord>::frames_of(golden().records)
            .unwrap_or_else(|_| panic!("a simulation not read yet gives frames"));
        assert_eq!(frames.map(Result::unwrap).collect::<Vec<_>>(), want);
        // Read once, it gives records; another stream is given back.
        let mut read = golden().records;
        let first = read.next();
        assert!(SimRecords::<TraceHeader, OwnedCycleRecord>::frames_of(read).is_err());
        let other: Records = Box::new(records.into_iter().map(Ok));
        assert!(SimRecords::<TraceHeader, OwnedCycleRecord>::frames_of(other).is_err());
        assert!(first.is_some());
        assert_eq!(golden().into_frames().frames.count(), want.len());
    }
}
