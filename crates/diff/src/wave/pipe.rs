//! The waveform read in a thread of its own, its edges handed to the caller's thread in
//! batches: reading (VCD tokens, FST blocks) runs beside the comparison and the golden
//! simulation instead of before them. Only the samples taken anew at an edge cross (most
//! registers hold their value on most edges), in flat vectors that go back to the reading
//! thread once applied, so that nothing is allocated per edge.
//!
//! The caller sees what the one-thread read shows: the same edges, samples and statistics,
//! and the same errors. The reader may run ahead of a caller that stops early; an error it
//! finds there is not the caller's (the one-thread read never got that far), and only the
//! time order of the whole file is checked then, as the one-thread read checks it.

use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::precheck::{check_vcd_times, precheck};
use super::{Bits, Counted, Probe, WaveOptions, WaveStats, sample_from};
use crate::error::DiffError;
use crate::vcd;

/// The fewest cores on which the file is read in a thread of its own: a diff against the
/// simulator runs three threads (simulator, reader, comparison). On two idle cores the
/// reader's own thread takes the 1.2 M-cycle ath-1r VCD diff from 0.52 s to 0.40 s (the
/// reader holds about 55% of the CPU time, the comparison 30%, the simulator 11%); on two
/// cores shared with other work it costs about 8% more CPU time for little wall time.
pub(super) const CORES: usize = 2;

/// Edges per batch.
const BATCH: usize = 256;

/// One edge of a batch.
struct Edge {
    time: u64,
    /// End of this edge's samples in [`EdgeBatch::changes`].
    changes_end: usize,
}

/// One sample taken anew: its probe, and its value (words in [`EdgeBatch::words`]).
struct Change {
    probe: u32,
    width: u32,
    unknown: Option<char>,
    words_end: usize,
}

/// Edges in flat vectors.
#[derive(Default)]
struct EdgeBatch {
    edges: Vec<Edge>,
    changes: Vec<Change>,
    words: Vec<u64>,
}

/// The reading thread's end: fills batches, recycled ones when the caller has sent them back.
struct Sender {
    tx: SyncSender<EdgeBatch>,
    back: Receiver<EdgeBatch>,
    batch: EdgeBatch,
    stop: Arc<AtomicBool>,
}

impl Sender {
    /// Adds an edge; false when the caller wants no more.
    fn edge(&mut self, time: u64, samples: &[Bits], fresh: &[u32]) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return false;
        }
        let b = &mut self.batch;
        for &p in fresh {
            let s = &samples[p as usize];
            // One word (every field of a trace) without a call to copy it.
            match s.words.as_slice() {
                [w] => b.words.push(*w),
                words => b.words.extend_from_slice(words),
            }
            b.changes.push(Change {
                probe: p,
                width: s.width,
                unknown: s.unknown,
                words_end: b.words.len(),
            });
        }
        b.edges.push(Edge {
            time,
            changes_end: b.changes.len(),
        });
        b.edges.len() < BATCH || self.send()
    }

    fn send(&mut self) -> bool {
        let fresh = self.back.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, fresh);
        self.tx.send(full).is_ok()
    }
}

/// [`super::sample_rising_edges`] with the file read in a thread of its own.
pub(super) fn sample_in_thread(
    path: PathBuf,
    input: Counted,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    mut on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError> {
    let (tx, rx) = sync_channel::<EdgeBatch>(8);
    let (back_tx, back_rx) = sync_channel::<EdgeBatch>(10);
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (file, options, probes) = (file.to_string(), options.clone(), probes.to_vec());
        let stop = Arc::clone(&stop);
        // A plan the caller forced for a VCD body is the reading thread's.
        let forced = vcd::parallel::Plan::forced();
        std::thread::spawn(move || {
            let read = || {
                let mut sender = Sender {
                    tx,
                    back: back_rx,
                    batch: EdgeBatch::default(),
                    stop,
                };
                let input = BufReader::new(input);
                let result =
                    sample_from(input, &file, &options, &probes, true, |_, t, s, fresh| {
                        sender.edge(t, s, fresh)
                    });
                if !sender.batch.edges.is_empty() {
                    sender.send();
                }
                result
            };
            match forced {
                Some(plan) => vcd::parallel::with_plan(plan, read),
                None => read(),
            }
        })
    };
    let mut samples: Vec<Bits> = probes.iter().map(|_| Bits::known(vec![], 0)).collect();
    let mut stats = WaveStats::default();
    let mut stopped = false;
    'read: for batch in &rx {
        let (mut change, mut word) = (0, 0);
        for e in &batch.edges {
            for c in &batch.changes[change..e.changes_end] {
                let s = &mut samples[c.probe as usize];
                s.width = c.width;
                s.unknown = c.unknown;
                match (&batch.words[word..c.words_end], s.words.as_mut_slice()) {
                    ([w], [o]) => *o = *w,
                    (words, _) => {
                        s.words.clear();
                        s.words.extend_from_slice(words);
                    }
                }
                word = c.words_end;
            }
            change = e.changes_end;
            stats.last_time = e.time;
            let edge = stats.edges;
            stats.edges += 1;
            if !on_edge(edge, e.time, &samples) {
                stopped = true;
                stop.store(true, Ordering::Relaxed);
                break 'read;
            }
        }
        let mut read = batch;
        read.edges.clear();
        read.changes.clear();
        read.words.clear();
        // The reader may be done or have enough batches: then this one is dropped.
        let _ = back_tx.try_send(read);
    }
    drop(rx); // a reader still sending stops
    let result = reader
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    match result {
        Ok(_) => Ok(stats),
        Err(e) if !stopped => Err(e),
        // Stopped early: what the reader found beyond the stopping edge is not the caller's,
        // but the one-thread read checks a VCD's time order to its end.
        Err(_) => recheck_times(&path, file).map(|()| stats),
    }
}

/// The time order of a whole VCD (nothing for an FST), as the one-thread read checks it
/// after a caller stopped early. The reader in its thread checked it already, unless it
/// stopped on an error of its own.
fn recheck_times(path: &PathBuf, file: &str) -> Result<(), DiffError> {
    let malformed = |message: String| DiffError::Wave {
        file: file.to_string(),
        message,
    };
    let mut input = BufReader::new(File::open(path).map_err(|e| malformed(e.to_string()))?);
    if precheck(&mut input, false).map_err(malformed)? {
        return Ok(());
    }
    input
        .seek(SeekFrom::Start(0))
        .map_err(|e| malformed(e.to_string()))?;
    check_vcd_times(&mut input).map_err(malformed)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use skeinhw_sched::preset;
    use skeinhw_sched::sim::{Job, simulate};
    use skeinhw_trace::{VcdWriter, names};

    use super::super::sample_rising_edges_from;
    use super::*;

    type Read = (Vec<(u64, u64, Vec<Bits>)>, Result<WaveStats, String>);

    /// Every edge up to `stop_at` edges, read in a thread and in the caller's.
    fn both(path: &std::path::Path, stop_at: usize) -> (Read, Read) {
        let probes: Vec<Probe> = names::signals(4, 1)
            .iter()
            .map(|s| Probe::parse(&s.name).unwrap())
            .collect();
        let options = WaveOptions {
            clock: "clk".into(),
            strip_prefix: None,
            ..WaveOptions::default()
        };
        let read = |threaded: bool| {
            let mut out = Vec::new();
            let on_edge = |e: u64, t: u64, s: &[Bits]| {
                out.push((e, t, s.to_vec()));
                out.len() < stop_at
            };
            let stats = if threaded {
                let file = path.display().to_string();
                let input = Counted::new(File::open(path).unwrap(), options.progress.clone());
                sample_in_thread(path.to_path_buf(), input, &file, &options, &probes, on_edge)
            } else {
                let input = BufReader::new(File::open(path).unwrap());
                let file = path.display().to_string();
                sample_rising_edges_from(input, &file, &options, &probes, on_edge)
            };
            (out, stats.map_err(|e| e.to_string()))
        };
        (read(true), read(false))
    }

    #[test]
    fn a_thread_reads_what_the_caller_would() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.vcd");
        let mut w = VcdWriter::new(std::io::BufWriter::new(File::create(&path).unwrap()));
        let message = [3u8; 3000];
        let job = Job::bytes(&message, 256, Default::default());
        simulate(&preset("ath-1r").unwrap(), &[job], &mut w).unwrap();
        drop(w);
        for stop_at in [1, 3, 300, 2000, usize::MAX] {
            let (threaded, one) = both(&path, stop_at);
            assert!(threaded.1.is_ok(), "{:?}", threaded.1);
            assert_eq!(threaded.1, one.1, "stop at {stop_at}");
            assert!(threaded.0 == one.0, "stop at {stop_at}");
        }
        // Damaged after the stopping edge: no error (the reader ran ahead, the caller did
        // not); damaged before it, or time going backwards anywhere: the same error.
        let whole = std::fs::read(&path).unwrap();
        for (tail, stop_at) in [("#1\n", 5), ("bq !\n", 5), ("bq !\n", usize::MAX)] {
            std::fs::File::create(&path)
                .unwrap()
                .write_all(&[&whole[..], tail.as_bytes()].concat())
                .unwrap();
            let (threaded, one) = both(&path, stop_at);
            assert_eq!(threaded.1, one.1, "{tail:?} stop at {stop_at}");
            assert!(threaded.0 == one.0, "{tail:?} stop at {stop_at}");
            assert_eq!(
                threaded.1.is_err(),
                tail != "bq !\n" || stop_at == usize::MAX
            );
        }
    }
}
