//! The Skein golden run of more messages than the schedule has streams: message i on stream
//! i mod S, a stream's messages back to back (`skeinhw_sched::sim::simulate_streams`, the run
//! the generated test bench and `drive_messages` feed), in a thread whose records cross a
//! bounded channel in batches, so that a long run never sits in memory.

use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use skeinhw_diff::{Golden, OwnedJob};
use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{CycleRecord, Job, OwnedCycleRecord, TraceHeader, TraceSink};
use skeinhw_skein::Params;

/// Records per hand-over: one per cycle would cost more than the simulation.
const BATCH: usize = 256;

enum Item {
    Header(TraceHeader),
    Records(Vec<OwnedCycleRecord>),
    Error(String),
}

struct ChannelSink {
    tx: SyncSender<Item>,
    batch: Vec<OwnedCycleRecord>,
}

impl ChannelSink {
    fn send(&self, item: Item) -> io::Result<()> {
        self.tx
            .send(item)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the diff stopped"))
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        self.send(Item::Records(batch))
    }
}

impl TraceSink for ChannelSink {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.send(Item::Header(header.clone()))
    }
    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        self.batch.push(record.to_owned());
        if self.batch.len() == BATCH {
            self.flush()?;
        }
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

/// The records as they arrive; the simulator's error as the last item.
struct Records {
    rx: Receiver<Item>,
    current: std::vec::IntoIter<OwnedCycleRecord>,
}

impl Iterator for Records {
    type Item = Result<OwnedCycleRecord, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.current.next() {
                return Some(Ok(r));
            }
            match self.rx.recv() {
                Ok(Item::Records(batch)) => self.current = batch.into_iter(),
                Ok(Item::Error(e)) => return Some(Err(format!("golden simulation: {e}"))),
                Ok(Item::Header(_)) | Err(_) => return None,
            }
        }
    }
}

fn job(j: &OwnedJob) -> Job<'_> {
    Job {
        message: &j.message,
        msg_bits: j.msg_bits,
        out_bits: j.out_bits,
        params: Params {
            key: &j.key,
            personalization: j.personalization.as_deref(),
            public_key: j.public_key.as_deref(),
            key_id: j.key_id.as_deref(),
            nonce: j.nonce.as_deref(),
            tree: j.tree,
        },
    }
}

/// Runs `jobs` on `schedule` back to back per stream (job i on stream
/// `skeinhw_rtl::stream_of(i, S)`), in a thread; with at most S jobs this is the run of one
/// job per stream.
pub(crate) fn simulate_queued(schedule: Schedule, jobs: Vec<OwnedJob>) -> Result<Golden, String> {
    let streams = (schedule.blocks_in_flight() as usize).clamp(1, jobs.len().max(1));
    let (tx, rx) = sync_channel::<Item>(8);
    std::thread::spawn(move || {
        let mut queues: Vec<Vec<Job<'_>>> = vec![Vec::new(); streams];
        for (i, j) in jobs.iter().enumerate() {
            queues[skeinhw_rtl::stream_of(i, streams)].push(job(j));
        }
        let mut sink = ChannelSink {
            tx: tx.clone(),
            batch: Vec::with_capacity(BATCH),
        };
        if let Err(e) = skeinhw_sched::sim::simulate_streams(&schedule, &queues, &mut sink) {
            // A diff that stopped early is no error of the run.
            let _ = tx.send(Item::Error(e.to_string()));
        }
    });
    match rx.recv() {
        Ok(Item::Header(header)) => Ok(Golden {
            header,
            records: Box::new(Records {
                rx,
                current: Vec::new().into_iter(),
            }),
        }),
        Ok(Item::Error(e)) => Err(format!("golden simulation: {e}")),
        _ => Err("golden simulation: the simulator stopped before its first cycle".into()),
    }
}
