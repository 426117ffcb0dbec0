//! The golden side of a diff: a JSON-lines trace file, or the simulator run on the fly in a
//! thread that hands records over a bounded channel, so that neither side is ever held whole.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use serde::Deserialize;
use skeinhw_sched::Schedule;
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{
    self as shabal_sim, ShabalCycleRecord, ShabalJob, ShabalSink, ShabalTraceHeader,
};
use skeinhw_sched::sim::{CycleRecord, Job, OwnedCycleRecord, TraceHeader, TraceSink, simulate};
use skeinhw_skein::{Params, TreeParams};
use skeinhw_trace::names::{self, Signal};
use skeinhw_trace::shabal::{self, ShabalJsonlReader};
use skeinhw_trace::{JsonlReader, TraceError, read_line_bounded};

use crate::error::DiffError;
use crate::frame::{Frame, shabal_parts, skein_parts};
use crate::report::SlotWhere;

/// Records of a golden trace, in cycle order; errors as one-line messages.
pub type Records = Box<dyn Iterator<Item = Result<OwnedCycleRecord, String>> + Send>;

/// A golden trace: its header and its records.
pub struct Golden {
    /// What the trace is a trace of.
    pub header: TraceHeader,
    /// The records, streamed.
    pub records: Records,
}

/// One message to simulate, owning its data (it crosses into the simulator's thread).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedJob {
    /// Message bytes.
    pub message: Vec<u8>,
    /// Message length in bits.
    pub msg_bits: u64,
    /// Output bits.
    pub out_bits: u64,
    /// Key (empty: none).
    pub key: Vec<u8>,
    /// Personalization.
    pub personalization: Option<Vec<u8>>,
    /// Public key.
    pub public_key: Option<Vec<u8>>,
    /// Key identifier.
    pub key_id: Option<Vec<u8>>,
    /// Nonce.
    pub nonce: Option<Vec<u8>>,
    /// Tree parameters.
    pub tree: Option<TreeParams>,
}

impl OwnedJob {
    fn job(&self) -> Job<'_> {
        Job {
            message: &self.message,
            msg_bits: self.msg_bits,
            out_bits: self.out_bits,
            params: Params {
                key: &self.key,
                personalization: self.personalization.as_deref(),
                public_key: self.public_key.as_deref(),
                key_id: self.key_id.as_deref(),
                nonce: self.nonce.as_deref(),
                tree: self.tree,
            },
        }
    }
}

enum Item<H, T> {
    Header(H),
    Records(Vec<T>),
}

/// Records cross the channel in batches: one hand-over per cycle would cost more than the
/// simulation itself.
const BATCH: usize = 512;

/// A sink that sends everything to the reading side; a closed channel (the diff stopped
/// early) ends the simulation.
struct ChannelSink<H, T> {
    tx: SyncSender<Item<H, T>>,
    batch: Vec<T>,
}

impl<H, T> ChannelSink<H, T> {
    fn send(&mut self, item: Item<H, T>) -> io::Result<()> {
        self.tx
            .send(item)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "diff stopped"))
    }

    fn push(&mut self, record: T) -> io::Result<()> {
        self.batch.push(record);
        if self.batch.len() == BATCH {
            let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
            self.send(Item::Records(batch))?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
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
        self.push(record.to_owned())
    }
    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

impl ShabalSink for ChannelSink<ShabalTraceHeader, ShabalCycleRecord> {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.send(Item::Header(header.clone()))
    }
    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()> {
        self.push(*record)
    }
    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

/// Runs `simulate` in a thread that hands its records over a bounded channel; returns the
/// header once the first cycle is ready (or the simulator's error).
fn spawn<H, T, E>(
    simulate: impl FnOnce(&mut ChannelSink<H, T>) -> Result<(), E> + Send + 'static,
) -> Result<(H, Channel<H, T>), DiffError>
where
    H: Send + 'static,
    T: Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let (tx, rx) = sync_channel::<Item<H, T>>(8);
    let handle = std::thread::spawn(move || {
        let mut sink = ChannelSink {
            tx,
            batch: Vec::with_capacity(BATCH),
        };
        simulate(&mut sink).map_err(|e| e.to_string())
    });
    match rx.recv() {
        Ok(Item::Header(h)) => Ok((
            h,
            Channel {
                rx,
                current: Vec::new().into_iter(),
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

fn open_jsonl(path: &Path) -> Result<BufReader<File>, DiffError> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|e| DiffError::Io {
            file: path.display().to_string(),
            message: e.to_string(),
        })
}

/// An error of the header (or of the line it names), in the one-line form `FILE:LINE: ...`.
fn header_error(file: &str, e: TraceError) -> DiffError {
    match e {
        TraceError::Jsonl { line, message } => DiffError::Parse {
            file: file.to_string(),
            line,
            message,
        },
        other => DiffError::Parse {
            file: file.to_string(),
            line: 1,
            message: other.to_string(),
        },
    }
}

/// A trace reader's records, each error naming `file`.
fn named_errors<T, E: std::fmt::Display>(
    reader: impl Iterator<Item = Result<T, E>> + Send + 'static,
    file: &str,
) -> Box<dyn Iterator<Item = Result<T, String>> + Send> {
    let file = file.to_string();
    Box::new(reader.map(move |r| r.map_err(|e| format!("{file}: {e}"))))
}

/// A JSON-lines trace reader of either algorithm (Skein's or Shabal's): a header, then records.
trait TraceFile: Iterator<Item = Result<Self::Record, TraceError>> + Sized + Send + 'static {
    type Input;
    type Header: Clone;
    type Record;
    fn open(input: Self::Input) -> Result<Self, TraceError>;
    fn header(&self) -> &Self::Header;
}

impl<R: BufRead + Send + 'static> TraceFile for JsonlReader<R> {
    type Input = R;
    type Header = TraceHeader;
    type Record = OwnedCycleRecord;
    fn open(input: R) -> Result<Self, TraceError> {
        JsonlReader::new(input)
    }
    fn header(&self) -> &TraceHeader {
        JsonlReader::header(self)
    }
}

impl<R: BufRead + Send + 'static> TraceFile for ShabalJsonlReader<R> {
    type Input = R;
    type Header = ShabalTraceHeader;
    type Record = ShabalCycleRecord;
    fn open(input: R) -> Result<Self, TraceError> {
        ShabalJsonlReader::new(input)
    }
    fn header(&self) -> &ShabalTraceHeader {
        ShabalJsonlReader::header(self)
    }
}

/// The header and the streamed records of a trace read by `T`; `file` names it in errors.
type TraceRead<T> = (
    <T as TraceFile>::Header,
    Box<dyn Iterator<Item = Result<<T as TraceFile>::Record, String>> + Send>,
);

/// Opens a trace with `T`, once for both algorithms.
fn read_trace<T: TraceFile>(input: T::Input, file: &str) -> Result<TraceRead<T>, DiffError> {
    let reader = T::open(input).map_err(|e| header_error(file, e))?;
    Ok((reader.header().clone(), named_errors(reader, file)))
}

/// The one header field the algorithm is told by; serde skips the rest without building it.
#[derive(Deserialize)]
struct AlgorithmOf {
    schedule: ScheduleAlgorithm,
}

#[derive(Deserialize)]
struct ScheduleAlgorithm {
    #[serde(default)]
    algorithm: Option<String>,
}

impl Golden {
    /// Reads a JSON-lines trace written by `skeinhw trace`.
    pub fn from_jsonl(path: &Path) -> Result<Golden, DiffError> {
        Golden::from_reader(open_jsonl(path)?, &path.display().to_string())
    }

    /// Reads a JSON-lines trace from `input`; `file` names it in errors.
    pub fn from_reader(
        input: impl BufRead + Send + 'static,
        file: &str,
    ) -> Result<Golden, DiffError> {
        let (header, records) = read_trace::<JsonlReader<_>>(input, file)?;
        Ok(Golden { header, records })
    }

    /// Runs the simulator on `jobs` in a thread; records arrive as the diff asks for them.
    pub fn simulate(schedule: Schedule, jobs: Vec<OwnedJob>) -> Result<Golden, DiffError> {
        let (header, records) = spawn(move |sink| {
            let borrowed: Vec<Job<'_>> = jobs.iter().map(OwnedJob::job).collect();
            simulate(&schedule, &borrowed, sink).map(|_| ())
        })?;
        Ok(Golden {
            header,
            records: Box::new(records.map(Ok)),
        })
    }

    /// The trace as signals and frames, for [`crate::compare_cycles`].
    pub fn into_frames(self) -> GoldenFrames {
        GoldenFrames {
            signals: names::trace_signals(&self.header),
            frames: in_thread(self.records, skein_parts),
        }
    }
}

/// A golden Shabal trace: its header and its records.
pub struct ShabalGolden {
    /// What the trace is a trace of.
    pub header: ShabalTraceHeader,
    /// The records, streamed.
    pub records: Box<dyn Iterator<Item = Result<ShabalCycleRecord, String>> + Send>,
}

/// One Shabal message to simulate, owning its data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedShabalJob {
    /// Message bytes.
    pub message: Vec<u8>,
    /// Message length in bits.
    pub msg_bits: u64,
}

impl ShabalGolden {
    /// Reads a Shabal JSON-lines trace written by `skeinhw trace`.
    pub fn from_jsonl(path: &Path) -> Result<ShabalGolden, DiffError> {
        ShabalGolden::from_reader(open_jsonl(path)?, &path.display().to_string())
    }

    /// Reads a Shabal JSON-lines trace from `input`; `file` names it in errors.
    pub fn from_reader(
        input: impl BufRead + Send + 'static,
        file: &str,
    ) -> Result<ShabalGolden, DiffError> {
        let (header, records) = read_trace::<ShabalJsonlReader<_>>(input, file)?;
        Ok(ShabalGolden { header, records })
    }

    /// Runs the Shabal simulator on `jobs` in a thread.
    pub fn simulate(
        schedule: ShabalSchedule,
        jobs: Vec<OwnedShabalJob>,
    ) -> Result<ShabalGolden, DiffError> {
        let (header, records) = spawn(move |sink| {
            let borrowed: Vec<ShabalJob<'_>> = jobs
                .iter()
                .map(|j| ShabalJob {
                    message: &j.message,
                    msg_bits: j.msg_bits,
                })
                .collect();
            shabal_sim::simulate(&schedule, &borrowed, sink).map(|_| ())
        })?;
        Ok(ShabalGolden {
            header,
            records: Box::new(records.map(Ok)),
        })
    }

    /// The trace as signals and frames, for [`crate::compare_cycles`].
    pub fn into_frames(self) -> GoldenFrames {
        let words = self.header.output_words();
        GoldenFrames {
            signals: shabal::signals(words),
            frames: in_thread(self.records, move |r, values, location| {
                shabal_parts(r, words, values, location)
            }),
        }
    }
}

/// A golden trace of either algorithm.
pub enum AnyGolden {
    /// Skein.
    Skein(Golden),
    /// Shabal.
    Shabal(ShabalGolden),
}

impl AnyGolden {
    /// Reads a JSON-lines trace of either algorithm (told by its header line).
    pub fn from_jsonl(path: &Path) -> Result<AnyGolden, DiffError> {
        AnyGolden::from_reader(open_jsonl(path)?, &path.display().to_string())
    }

    /// Reads a JSON-lines trace of either algorithm from `input`; `file` names it in errors.
    /// The header line is read once (bounded by [`skeinhw_trace::MAX_LINE_BYTES`]) and parsed
    /// into typed structs only, never into a whole `serde_json::Value`.
    pub fn from_reader(
        mut input: impl BufRead + Send + 'static,
        file: &str,
    ) -> Result<AnyGolden, DiffError> {
        let mut first = String::new();
        read_line_bounded(&mut input, &mut first, 1).map_err(|e| header_error(file, e))?;
        let shabal = serde_json::from_str::<AlgorithmOf>(first.trim_end()).is_ok_and(|h| {
            h.schedule.algorithm.as_deref() == Some(skeinhw_sched::shabal::ALGORITHM)
        });
        let input = io::Cursor::new(first.into_bytes()).chain(input);
        if shabal {
            ShabalGolden::from_reader(input, file).map(AnyGolden::Shabal)
        } else {
            Golden::from_reader(input, file).map(AnyGolden::Skein)
        }
    }

    /// The trace as signals and frames.
    pub fn into_frames(self) -> GoldenFrames {
        match self {
            AnyGolden::Skein(g) => g.into_frames(),
            AnyGolden::Shabal(g) => g.into_frames(),
        }
    }
}

/// A golden trace of either algorithm as the cycle diff takes it.
pub struct GoldenFrames {
    /// The trace's signals, in the order of every frame's values.
    pub signals: Vec<Signal>,
    /// The frames, streamed; errors as one-line messages.
    pub frames: Box<dyn Iterator<Item = Result<Frame, String>> + Send>,
}

/// Golden frames made in a thread of their own and handed over in batches: turning records into
/// frames (and parsing a JSON-lines trace) costs about as much as reading the waveform, so it
/// runs beside it. The first error ends the frames, as it ends the diff.
///
/// A batch is flat (all its frames' values in one vector) and goes back to this thread once
/// read, so that no memory is allocated per frame in one thread and freed in the other (glibc
/// frees another thread's memory under its arena's lock: 7% of the diff's time).
fn in_thread<R, F>(
    records: impl Iterator<Item = Result<R, String>> + Send + 'static,
    parts: F,
) -> Frames
where
    F: Fn(&R, &mut Vec<u64>, &mut Vec<SlotWhere>) -> (u64, &'static str) + Send + 'static,
{
    let (tx, rx) = sync_channel::<FrameBatch>(8);
    let (back_tx, back_rx) = sync_channel::<FrameBatch>(10);
    std::thread::spawn(move || {
        let fresh = || back_rx.try_recv().unwrap_or_default();
        let mut batch = fresh();
        let mut scratch = Vec::new();
        for r in records {
            match r {
                Ok(r) => {
                    let (cycle, phase) = parts(&r, &mut scratch, &mut batch.locations);
                    batch.values.extend_from_slice(&scratch);
                    batch.heads.push(Head {
                        cycle,
                        phase,
                        values_end: batch.values.len(),
                        locations_end: batch.locations.len(),
                    });
                }
                Err(e) => batch.error = Some(e),
            }
            if batch.heads.len() == BATCH || batch.error.is_some() {
                let failed = batch.error.is_some();
                let full = std::mem::replace(&mut batch, fresh());
                // A closed channel: the diff stopped early.
                if tx.send(full).is_err() || failed {
                    return;
                }
            }
        }
        let _ = tx.send(batch);
    });
    Box::new(FrameChannel {
        rx,
        back: back_tx,
        batch: FrameBatch::default(),
        next: 0,
    })
}

/// Golden frames, streamed; errors as one-line messages.
type Frames = Box<dyn Iterator<Item = Result<Frame, String>> + Send>;

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

/// The reading side of [`in_thread`]: each frame is copied out of its batch (allocated and, when
/// the comparison drops it, freed in the reading thread), read batches are sent back.
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

struct Channel<H, T> {
    rx: Receiver<Item<H, T>>,
    current: std::vec::IntoIter<T>,
}

impl<H, T> Iterator for Channel<H, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(r) = self.current.next() {
                return Some(r);
            }
            match self.rx.recv() {
                Ok(Item::Records(batch)) => self.current = batch.into_iter(),
                // The simulator sends one header, first; nothing else can follow it.
                Ok(Item::Header(_)) | Err(_) => return None,
            }
        }
    }
}
