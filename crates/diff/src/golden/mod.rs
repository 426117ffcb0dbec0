//! The golden side of a diff: a JSON-lines trace file, or the simulator run on the fly in a
//! thread ([`sim`]) that hands records or frames over bounded channels, so that neither side
//! is ever held whole.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use serde::Deserialize;
use skeinhw_sched::Schedule;
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{
    self as shabal_sim, ShabalCycleRecord, ShabalJob, ShabalTraceHeader,
};
use skeinhw_sched::sim::{Job, OwnedCycleRecord, TraceHeader, simulate};
use skeinhw_skein::{Params, TreeParams};
use skeinhw_trace::names::{self, Signal};
use skeinhw_trace::shabal::{self, ShabalJsonlReader};
use skeinhw_trace::{JsonlReader, TraceError, read_line_bounded};

use crate::error::DiffError;
use crate::frame::{Frame, shabal_parts, skein_parts};
use crate::report::SlotWhere;

mod batch;
mod parallel;
mod sim;

use batch::in_thread;
pub use sim::RecordStream;
use sim::{SimRecords, spawn};

/// Records of a golden trace, in cycle order; errors as one-line messages.
pub type Records = Box<dyn RecordStream<OwnedCycleRecord>>;

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

fn open_jsonl(path: &Path) -> Result<BufReader<File>, DiffError> {
    File::open(path)
        .map(|f| BufReader::with_capacity(1 << 16, f))
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
fn named_errors<T: 'static, E: std::fmt::Display>(
    reader: impl Iterator<Item = Result<T, E>> + Send + 'static,
    file: &str,
) -> Box<dyn RecordStream<T>> {
    let file = file.to_string();
    Box::new(reader.map(move |r| r.map_err(|e| format!("{file}: {e}"))))
}

/// A JSON-lines trace reader of either algorithm (Skein's or Shabal's): a header, then records.
trait TraceFile: Iterator<Item = Result<Self::Record, TraceError>> + Sized + Send + 'static {
    type Input;
    type Header: Clone;
    type Record: 'static;
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
    Box<dyn RecordStream<<T as TraceFile>::Record>>,
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
        let input: Box<dyn BufRead + Send> = Box::new(input);
        let reader = JsonlReader::new(input).map_err(|e| header_error(file, e))?;
        Ok(Golden {
            header: reader.header().clone(),
            records: Box::new(JsonlRecords {
                reader: Some(reader),
                file: file.to_string(),
            }),
        })
    }

    /// Runs the simulator on `jobs` in a thread; records arrive as the diff asks for them.
    pub fn simulate(schedule: Schedule, jobs: Vec<OwnedJob>) -> Result<Golden, DiffError> {
        let (header, records) = spawn(move |sink| {
            let borrowed: Vec<Job<'_>> = jobs.iter().map(OwnedJob::job).collect();
            simulate(&schedule, &borrowed, sink).map(|_| ())
        })?;
        Ok(Golden {
            header,
            records: Box::new(records),
        })
    }

    /// The trace as signals and frames, for [`crate::compare_cycles`]; a simulation not read
    /// yet makes its frames in its own thread.
    pub fn into_frames(self) -> GoldenFrames {
        let signals = names::trace_signals(&self.header);
        let parts = |r: &OwnedCycleRecord, v: &mut Vec<u64>, l: &mut Vec<SlotWhere>| {
            skein_parts(&r.as_record(), v, l)
        };
        let frames = match SimRecords::<TraceHeader, OwnedCycleRecord>::frames_of(self.records) {
            Ok(frames) => frames,
            Err(mut records) => match JsonlRecords::take(&mut records) {
                Some((reader, file)) => {
                    let (header, input, first_line) = reader.into_parts();
                    parallel::frames_in_parallel(
                        header,
                        input,
                        first_line,
                        file,
                        parallel::workers(),
                        parallel::CHUNK,
                        parts,
                    )
                }
                None => in_thread(records, parts),
            },
        };
        GoldenFrames { signals, frames }
    }
}

/// A Skein JSON-lines trace's records: read line by line when they are asked for as records,
/// parsed on several threads when they are made into frames ([`Golden::into_frames`]).
struct JsonlRecords {
    reader: Option<JsonlReader<Box<dyn BufRead + Send>>>,
    file: String,
}

impl JsonlRecords {
    /// The reader inside `records`, if they are a JSON-lines trace's not yet read.
    fn take(
        records: &mut Box<dyn RecordStream<OwnedCycleRecord>>,
    ) -> Option<(JsonlReader<Box<dyn BufRead + Send>>, String)> {
        // `(**records)`: the box itself is a `RecordStream` too, and would answer for itself.
        let j = (**records).as_any_mut().downcast_mut::<JsonlRecords>()?;
        Some((j.reader.take()?, j.file.clone()))
    }
}

impl Iterator for JsonlRecords {
    type Item = Result<OwnedCycleRecord, String>;

    fn next(&mut self) -> Option<Self::Item> {
        let r = self.reader.as_mut()?.next()?;
        Some(r.map_err(|e| format!("{}: {e}", self.file)))
    }
}

/// A golden Shabal trace: its header and its records.
pub struct ShabalGolden {
    /// What the trace is a trace of.
    pub header: ShabalTraceHeader,
    /// The records, streamed.
    pub records: Box<dyn RecordStream<ShabalCycleRecord>>,
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
            records: Box::new(records),
        })
    }

    /// The trace as signals and frames, for [`crate::compare_cycles`]; a simulation not read
    /// yet makes its frames in its own thread.
    pub fn into_frames(self) -> GoldenFrames {
        let words = self.header.output_words();
        let frames =
            match SimRecords::<ShabalTraceHeader, ShabalCycleRecord>::frames_of(self.records) {
                Ok(frames) => frames,
                Err(records) => in_thread(records, move |r, values, location| {
                    shabal_parts(r, words, values, location)
                }),
            };
        GoldenFrames {
            signals: shabal::signals(words),
            frames,
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
