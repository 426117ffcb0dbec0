//! Progress on standard error for runs long enough to want it, and only when standard error is
//! a terminal: scripts, pipes and CI logs see nothing. Bars are cleared when the run ends, so
//! the results print as they would without them.

use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressFinish, ProgressStyle};
use skeinhw_diff::options::ReadProgress;
use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalSink, ShabalTraceHeader};
use skeinhw_sched::sim::{CycleRecord, TraceHeader, TraceSink};

/// Inputs of this many bytes or more show a bar (about a second of the slowest reader).
pub const MIN_BYTES: u64 = 64 << 20;
/// Traces of this many blocks or more show one (about half a second of the simulator).
pub const MIN_BLOCKS: u64 = 8 << 10;
/// Shabal traces of this many cycles or more (as many cycles as `MIN_BLOCKS` of Skein).
pub const MIN_CYCLES: u64 = 1 << 19;

/// Records between two moves of a trace's bar: a move costs more than a cycle does.
const RECORDS_PER_MOVE: u64 = 1 << 12;

/// How often a bar that follows another thread's count reads it.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);

/// A bar of `len` units for `what`, when the run is long enough (`len >= min`) and standard
/// error is a terminal; `units` is indicatif's template for the count ("{bytes}/...").
fn bar(len: u64, min: u64, what: &str, units: &str) -> Option<ProgressBar> {
    if len < min || !io::stderr().is_terminal() {
        return None;
    }
    // Cleared however it ends: an error's line prints where the bar was.
    let bar = ProgressBar::new(len).with_finish(ProgressFinish::AndClear);
    bar.set_style(
        ProgressStyle::with_template(&format!("{{msg}} {{wide_bar}} {units} {{eta}}"))
            .expect("a valid template"),
    );
    bar.set_message(what.to_string());
    Some(bar)
}

/// A bar over the bytes of an input.
pub fn bytes(len: u64, what: &str) -> Option<ProgressBar> {
    bar(
        len,
        MIN_BYTES,
        what,
        "{bytes}/{total_bytes} {bytes_per_sec}",
    )
}

/// A bar that another thread's count moves (`position` read every 100 ms) until it is dropped.
pub struct Follow {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Follow {
    pub fn new(bar: ProgressBar, position: impl Fn() -> u64 + Send + 'static) -> Follow {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (bar, stop) = (bar.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    bar.set_position(position());
                    std::thread::park_timeout(FOLLOW_EVERY);
                }
            })
        };
        Follow {
            bar,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
        self.bar.finish_and_clear();
    }
}

/// A bar over a waveform's bytes as `progress` follows its reading (`what` says who reads:
/// `diff`, `map`), for a long file on a terminal.
pub fn wave_meter(what: &str, wave: &Path, progress: &ReadProgress) -> Option<Follow> {
    let len = std::fs::metadata(wave).ok().filter(|m| m.is_file())?.len();
    let bar = bytes(len, &format!("{what} {}", wave.display()))?;
    let progress = progress.clone();
    Some(Follow::new(bar, move || progress.position()))
}

/// A trace sink that passes every record on and moves a bar by the UBI blocks that have
/// entered the datapath (out of [`skeinhw_sched::sim::Job::ubi_blocks`]'s count): each
/// stream's highest block seen in a pipeline register, every few thousand records.
pub struct BlockMeter<S> {
    inner: S,
    bar: Option<ProgressBar>,
    entered: Vec<u64>,
}

impl<S: TraceSink> BlockMeter<S> {
    /// `total` blocks in the run; a bar only if that makes a long run (and on a terminal).
    pub fn new(inner: S, total: u64) -> Self {
        BlockMeter {
            inner,
            bar: bar(total, MIN_BLOCKS, "trace", "{pos}/{len} blocks"),
            entered: Vec::new(),
        }
    }
}

impl<S: TraceSink> TraceSink for BlockMeter<S> {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.entered = vec![0; header.streams];
        self.inner.begin(header)
    }

    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        if let Some(bar) = &self.bar
            && record.cycle.is_multiple_of(RECORDS_PER_MOVE)
        {
            for slot in record.slots.iter().filter(|s| s.valid) {
                if let Some(e) = self.entered.get_mut(slot.stream as usize) {
                    *e = (*e).max(slot.block + 1);
                }
            }
            bar.set_position(self.entered.iter().sum());
        }
        self.inner.cycle(record)
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.inner.finish()
    }
}

/// [`BlockMeter`] for Shabal traces, whose messages run one after another: the bar counts
/// cycles (out of [`skeinhw_sched::shabal::sim::ShabalJob::cycles`]'s sum).
pub struct CycleMeter<S> {
    inner: S,
    bar: Option<ProgressBar>,
}

impl<S: ShabalSink> CycleMeter<S> {
    pub fn new(inner: S, total: u64) -> Self {
        CycleMeter {
            inner,
            bar: bar(total, MIN_CYCLES, "trace", "{pos}/{len} cycles"),
        }
    }
}

impl<S: ShabalSink> ShabalSink for CycleMeter<S> {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.inner.begin(header)
    }

    fn cycle(&mut self, record: &ShabalCycleRecord) -> io::Result<()> {
        if let Some(bar) = &self.bar
            && record.cycle.is_multiple_of(RECORDS_PER_MOVE)
        {
            bar.set_position(record.cycle);
        }
        self.inner.cycle(record)
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.inner.finish()
    }
}
