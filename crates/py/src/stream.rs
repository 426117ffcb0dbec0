//! The cycle simulator's output as flat batches of values, made in the simulator's own thread
//! straight from its borrowed records (the trace crate's `values`, no owned record, no frame
//! per cycle), so that handing a cycle to Python costs one view object. The channel is
//! bounded: a million-cycle run never sits in memory. Read batches go back to the simulator
//! ([`Recycler`]) to be filled again: a fresh 256 KiB buffer per batch cost page faults in
//! the simulator's thread and unmapping in the reader's.

use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use skeinhw_sched::shabal::sim::{
    self as shabal_sim, ShabalCycleRecord, ShabalJob, ShabalSink, ShabalTraceHeader,
};
use skeinhw_sched::sim::{self, CycleRecord, Job, TraceHeader, TraceSink};
use skeinhw_sched::{Schedule, shabal::ShabalSchedule};
use skeinhw_trace::names::{self, Signal};
use skeinhw_trace::shabal;

/// Cycles of a run, row by row: `values[row * fields ..][..fields]` in the order of the
/// run's signal list.
#[derive(Debug, Default)]
pub struct Batch {
    /// Each row's clock cycle.
    pub cycles: Vec<u64>,
    /// Each row's controller phase.
    pub phases: Vec<&'static str>,
    /// The rows' values, one row after the other.
    pub values: Vec<u64>,
}

impl Batch {
    fn clear(&mut self) {
        self.cycles.clear();
        self.phases.clear();
        self.values.clear();
    }

    /// Rows (cycles) in the batch.
    pub fn len(&self) -> usize {
        self.cycles.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }
}

enum Msg {
    Signals(Vec<Signal>),
    Batch(Batch),
    Error(String),
}

/// A batch holds at most this many values (256 KiB), and at least 16 rows.
const BATCH_VALUES: usize = 32 * 1024;

/// Read batches kept for reuse; more are freed.
const SPARE_BATCHES: usize = 4;

/// Hands read batches back to the simulator of their run (dropped if it has ended or has
/// enough spares).
#[derive(Clone)]
pub struct Recycler(SyncSender<Batch>);

impl Recycler {
    /// Gives `batch` back for reuse.
    pub fn recycle(&self, batch: Batch) {
        let _ = self.0.try_send(batch);
    }
}

struct BatchSink {
    tx: SyncSender<Msg>,
    spare: Receiver<Batch>,
    batch: Batch,
    rows: usize,
    scratch: Vec<u64>,
    out_words: usize,
}

impl BatchSink {
    fn send(&self, msg: Msg) -> io::Result<()> {
        self.tx
            .send(msg)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the reader stopped"))
    }

    fn start(&mut self, signals: Vec<Signal>) -> io::Result<()> {
        self.rows = (BATCH_VALUES / signals.len().max(1)).max(16);
        self.send(Msg::Signals(signals))
    }

    /// Appends the row in `scratch`.
    fn push(&mut self, cycle: u64, phase: &'static str) -> io::Result<()> {
        if self.batch.cycles.capacity() == 0
            && let Ok(mut batch) = self.spare.try_recv()
        {
            batch.clear();
            self.batch = batch;
        }
        if self.batch.cycles.capacity() == 0 {
            self.batch.cycles.reserve_exact(self.rows);
            self.batch.phases.reserve_exact(self.rows);
            self.batch
                .values
                .reserve_exact(self.rows * self.scratch.len());
        }
        self.batch.cycles.push(cycle);
        self.batch.phases.push(phase);
        self.batch.values.extend_from_slice(&self.scratch);
        if self.batch.len() == self.rows {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        self.send(Msg::Batch(batch))
    }
}

impl TraceSink for BatchSink {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.start(names::trace_signals(header))
    }
    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        names::values(record, &mut self.scratch);
        self.push(record.cycle, record.phase.as_str())
    }
    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

impl ShabalSink for BatchSink {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.out_words = header.output_words();
        self.start(shabal::signals(self.out_words))
    }
    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()> {
        shabal::values(record, self.out_words, &mut self.scratch);
        self.push(record.cycle, record.phase.as_str())
    }
    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

/// One message of a run, owned (it crosses into the simulator's thread).
pub struct OwnedRun {
    /// Message bytes.
    pub message: Vec<u8>,
    /// Message length in bits.
    pub msg_bits: u64,
}

/// A run in progress: its signals, and its batches as they are made.
pub struct Stream {
    /// The run's signals, in the order of every row's values.
    pub signals: Vec<Signal>,
    rx: Receiver<Msg>,
    recycler: Recycler,
}

impl Stream {
    /// Runs the Skein simulator on `jobs` (messages with their parameters) in a thread, queued
    /// as the hardware takes them: job i on stream i mod S, a stream's jobs back to back (as
    /// the live diff and `skeinhw.events` number them).
    pub fn skein(schedule: Schedule, jobs: Vec<skeinhw_diff::OwnedJob>) -> Result<Stream, String> {
        spawn(move |sink| {
            let streams = (schedule.blocks_in_flight() as usize).clamp(1, jobs.len().max(1));
            let mut queues: Vec<Vec<Job<'_>>> = vec![Vec::new(); streams];
            let borrowed = jobs.iter().map(|j| Job {
                message: &j.message,
                msg_bits: j.msg_bits,
                out_bits: j.out_bits,
                params: skeinhw_skein::Params {
                    key: &j.key,
                    personalization: j.personalization.as_deref(),
                    public_key: j.public_key.as_deref(),
                    key_id: j.key_id.as_deref(),
                    nonce: j.nonce.as_deref(),
                    tree: j.tree,
                },
            });
            for (i, j) in borrowed.enumerate() {
                queues[skeinhw_rtl::stream_of(i, streams)].push(j);
            }
            sim::simulate_streams(&schedule, &queues, sink)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }

    /// Runs the Shabal simulator on `jobs` in a thread.
    pub fn shabal(schedule: ShabalSchedule, jobs: Vec<OwnedRun>) -> Result<Stream, String> {
        spawn(move |sink| {
            let borrowed: Vec<ShabalJob<'_>> = jobs
                .iter()
                .map(|j| ShabalJob {
                    message: &j.message,
                    msg_bits: j.msg_bits,
                })
                .collect();
            shabal_sim::simulate(&schedule, &borrowed, sink)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }

    /// What gives this run's read batches back to its simulator.
    pub fn recycler(&self) -> Recycler {
        self.recycler.clone()
    }

    /// The next batch (blocking until the simulator has made it); None at the end.
    pub fn next_batch(&mut self) -> Option<Result<Batch, String>> {
        match self.rx.recv() {
            Ok(Msg::Batch(b)) => Some(Ok(b)),
            Ok(Msg::Error(e)) => Some(Err(format!("golden simulation: {e}"))),
            Ok(Msg::Signals(_)) | Err(_) => None,
        }
    }
}

fn spawn(
    run: impl FnOnce(&mut BatchSink) -> Result<(), String> + Send + 'static,
) -> Result<Stream, String> {
    let (tx, rx) = sync_channel::<Msg>(4);
    let (recycle, spare) = sync_channel::<Batch>(SPARE_BATCHES);
    std::thread::spawn(move || {
        let mut sink = BatchSink {
            tx: tx.clone(),
            spare,
            batch: Batch::default(),
            rows: 16,
            scratch: Vec::new(),
            out_words: 0,
        };
        if let Err(e) = run(&mut sink) {
            // A reader that stopped early is no error of the run.
            let _ = tx.send(Msg::Error(e));
        }
    });
    match rx.recv() {
        Ok(Msg::Signals(signals)) => Ok(Stream {
            signals,
            rx,
            recycler: Recycler(recycle),
        }),
        Ok(Msg::Error(e)) => Err(format!("golden simulation: {e}")),
        _ => Err("golden simulation: the simulator stopped before its first cycle".into()),
    }
}
