//! The golden side of a diff: a JSON-lines trace file, or the simulator run on the fly in a
//! thread that hands records over a bounded channel, so that neither side is ever held whole.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{CycleRecord, Job, OwnedCycleRecord, TraceHeader, TraceSink, simulate};
use skeinhw_skein::{Params, TreeParams};
use skeinhw_trace::JsonlReader;

use crate::error::DiffError;

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

enum Item {
    Header(TraceHeader),
    Records(Vec<OwnedCycleRecord>),
}

/// Records cross the channel in batches: one hand-over per cycle would cost more than the
/// simulation itself.
const BATCH: usize = 512;

/// A sink that sends everything to the reading side; a closed channel (the diff stopped
/// early) ends the simulation.
struct ChannelSink {
    tx: SyncSender<Item>,
    batch: Vec<OwnedCycleRecord>,
}

impl ChannelSink {
    fn send(&mut self, item: Item) -> io::Result<()> {
        self.tx
            .send(item)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "diff stopped"))
    }
}

impl TraceSink for ChannelSink {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.send(Item::Header(header.clone()))
    }

    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        self.batch.push(record.to_owned());
        if self.batch.len() == BATCH {
            let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
            self.send(Item::Records(batch))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        let batch = std::mem::take(&mut self.batch);
        if batch.is_empty() {
            return Ok(());
        }
        self.send(Item::Records(batch))
    }
}

impl Golden {
    /// Reads a JSON-lines trace written by `skeinhw trace`.
    pub fn from_jsonl(path: &Path) -> Result<Golden, DiffError> {
        let file = path.display().to_string();
        let f = File::open(path).map_err(|e| DiffError::Io {
            file: file.clone(),
            message: e.to_string(),
        })?;
        let reader = JsonlReader::new(BufReader::new(f)).map_err(|e| DiffError::Parse {
            file: file.clone(),
            line: 1,
            message: e.to_string(),
        })?;
        let header = reader.header().clone();
        let records = reader.map(move |r| r.map_err(|e| format!("{file}: {e}")));
        Ok(Golden {
            header,
            records: Box::new(records),
        })
    }

    /// Runs the simulator on `jobs` in a thread; records arrive as the diff asks for them.
    pub fn simulate(schedule: Schedule, jobs: Vec<OwnedJob>) -> Result<Golden, DiffError> {
        let (tx, rx) = sync_channel::<Item>(8);
        let handle = std::thread::spawn(move || {
            let borrowed: Vec<Job<'_>> = jobs.iter().map(OwnedJob::job).collect();
            let mut sink = ChannelSink {
                tx,
                batch: Vec::with_capacity(BATCH),
            };
            simulate(&schedule, &borrowed, &mut sink).map(|_| ())
        });
        let header = match rx.recv() {
            Ok(Item::Header(h)) => h,
            _ => {
                let message = match handle.join() {
                    Ok(Err(e)) => e.to_string(),
                    _ => "the simulator stopped before its first cycle".to_string(),
                };
                return Err(DiffError::Invalid(format!("golden simulation: {message}")));
            }
        };
        Ok(Golden {
            header,
            records: Box::new(Channel {
                rx,
                current: Vec::new().into_iter(),
            }),
        })
    }
}

struct Channel {
    rx: Receiver<Item>,
    current: std::vec::IntoIter<OwnedCycleRecord>,
}

impl Iterator for Channel {
    type Item = Result<OwnedCycleRecord, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.current.next() {
                return Some(Ok(r));
            }
            match self.rx.recv() {
                Ok(Item::Records(batch)) => self.current = batch.into_iter(),
                Ok(Item::Header(_)) => return Some(Err("a second trace header".to_string())),
                Err(_) => return None,
            }
        }
    }
}
