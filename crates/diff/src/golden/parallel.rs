//! A JSON-lines golden trace parsed by several threads, its frames in order: parsing is most of
//! a `diff --golden t.jsonl` (73% of its CPU time on the 1 MiB ath-1r trace), and its lines are
//! independent of each other.
//!
//! One thread cuts the input into chunks of whole lines (about [`CHUNK`] bytes) and numbers
//! their lines; workers parse a chunk's lines ([`JsonlReader::parse_record`]: the checks and
//! errors of reading line by line); the frame-making thread takes the chunks back in order and
//! makes their frames. A chunk is cut only when a token comes back from the frame maker, so the
//! chunks in flight, and the memory, stay a few per worker whatever the file's size; a line
//! longer than [`MAX_LINE_BYTES`] is refused before it is read whole.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::sync::mpsc::{Receiver, Sender, channel, sync_channel};
use std::sync::{Arc, Mutex};

use skeinhw_sched::sim::{OwnedCycleRecord, TraceHeader};
use skeinhw_trace::{JsonlReader, MAX_LINE_BYTES, TraceError};

use super::batch::{Frames, frame_channel};
use crate::report::SlotWhere;

/// Bytes of a chunk: hundreds of lines, so that a hand-over costs little against its parse.
pub(super) const CHUNK: usize = 1 << 20;

/// What a frame is made of, from a record.
pub(super) type Parts =
    fn(&OwnedCycleRecord, &mut Vec<u64>, &mut Vec<SlotWhere>) -> (u64, &'static str);

/// Whole lines from line `first_line` on, or the error that ended the input there.
struct Chunk {
    seq: u64,
    first_line: usize,
    lines: Result<Vec<u8>, TraceError>,
}

/// A chunk parsed and made into frames (in the worker: its records are allocated and freed in
/// one thread), flat: each frame's cycle, phase and where its values and busy slots end; then
/// the error of the line after the last frame, if any.
struct Parsed {
    seq: u64,
    heads: Vec<(u64, &'static str, usize, usize)>,
    values: Vec<u64>,
    locations: Vec<SlotWhere>,
    error: Option<TraceError>,
}

/// The most parser threads: one core parses the 1.2 M-line trace in about 1.5 s, so eight
/// would take about 0.2 s, near what reading the waveform and comparing take; and the chunks
/// in flight (two a worker, 1 MiB each) stay a few MiB on a machine of any size.
const MAX_WORKERS: usize = 8;

/// Parser threads for this machine: its cores (the diff's other threads mostly wait), at most
/// [`MAX_WORKERS`].
pub(super) fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS))
}

/// The frames of the records of a JSON-lines trace from line `first_line` of `input` on,
/// parsed on `workers` threads in chunks of about `chunk` bytes; `file` names it in errors
/// (`FILE: line N: ...`, as line-by-line reading says).
pub(super) fn frames_in_parallel(
    header: TraceHeader,
    input: Box<dyn BufRead + Send>,
    first_line: usize,
    file: String,
    workers: usize,
    chunk: usize,
    parts: Parts,
) -> Frames {
    let workers = workers.max(1);
    let (mut batcher, frames) = frame_channel();
    let (token_tx, token_rx) = sync_channel::<()>(2 * workers + 2);
    let (chunk_tx, chunk_rx) = channel::<Chunk>();
    let (parsed_tx, parsed_rx) = channel::<Parsed>();
    std::thread::spawn(move || cut(input, first_line, chunk, &token_rx, &chunk_tx));
    let chunk_rx = Arc::new(Mutex::new(chunk_rx));
    let header = Arc::new(header);
    for _ in 0..workers {
        let (chunk_rx, parsed_tx, header) = (
            Arc::clone(&chunk_rx),
            parsed_tx.clone(),
            Arc::clone(&header),
        );
        std::thread::spawn(move || parse_chunks(&header, parts, &chunk_rx, &parsed_tx));
    }
    drop(parsed_tx);
    std::thread::spawn(move || {
        for _ in 0..2 * workers + 2 {
            let _ = token_tx.send(());
        }
        let mut waiting: BTreeMap<u64, Parsed> = BTreeMap::new();
        let mut next = 0u64;
        loop {
            while let Some(p) = waiting.remove(&next) {
                let (mut values_from, mut locations_from) = (0, 0);
                for &(cycle, phase, values_end, locations_end) in &p.heads {
                    let pushed = batcher.push(|values, location| {
                        values.clear();
                        values.extend_from_slice(&p.values[values_from..values_end]);
                        location.extend_from_slice(&p.locations[locations_from..locations_end]);
                        (cycle, phase)
                    });
                    if !pushed {
                        return;
                    }
                    (values_from, locations_from) = (values_end, locations_end);
                }
                if let Some(e) = p.error {
                    return batcher.fail(format!("{file}: {e}"));
                }
                next += 1;
                let _ = token_tx.send(());
            }
            match parsed_rx.recv() {
                Ok(p) => {
                    waiting.insert(p.seq, p);
                }
                // Every worker is done: the input ended with the last chunk taken.
                Err(_) => break,
            }
        }
        batcher.finish();
    });
    frames
}

/// Cuts `input` into chunks of whole lines, one per token.
fn cut(
    mut input: Box<dyn BufRead + Send>,
    mut first_line: usize,
    chunk: usize,
    tokens: &Receiver<()>,
    chunks: &Sender<Chunk>,
) {
    let mut carry: Vec<u8> = Vec::new();
    for seq in 0u64.. {
        if tokens.recv().is_err() {
            return;
        }
        // The carry holds no line end: it is what followed the last one.
        let mut buf = std::mem::take(&mut carry);
        let mut last_end: Option<usize> = None;
        let mut eof = false;
        // Up to `chunk` bytes, then on to the end of a line (a line is never cut).
        let end = loop {
            if let Some(i) = last_end
                && (buf.len() >= chunk || eof)
            {
                break i + 1;
            }
            if eof {
                break buf.len();
            }
            if last_end.is_none() && buf.len() as u64 > MAX_LINE_BYTES {
                let error = TraceError::Jsonl {
                    line: first_line,
                    message: format!("longer than {MAX_LINE_BYTES} bytes: not a trace line"),
                };
                let _ = chunks.send(Chunk {
                    seq,
                    first_line,
                    lines: Err(error),
                });
                return;
            }
            let start = buf.len();
            // A chunk's worth more (at least a page: fill's 0 is the end of the input).
            let want = start + chunk.max(4096);
            match fill(&mut input, &mut buf, want) {
                Ok(0) => eof = true,
                Ok(_) => {
                    if let Some(i) = memchr::memrchr(b'\n', &buf[start..]) {
                        last_end = Some(start + i);
                    }
                }
                Err(e) => {
                    let _ = chunks.send(Chunk {
                        seq,
                        first_line,
                        lines: Err(TraceError::from(e)),
                    });
                    return;
                }
            }
        };
        carry = buf.split_off(end);
        if buf.is_empty() {
            return;
        }
        let lines = memchr::memchr_iter(b'\n', &buf).count();
        let next_line = first_line + lines;
        if chunks
            .send(Chunk {
                seq,
                first_line,
                lines: Ok(buf),
            })
            .is_err()
        {
            return;
        }
        first_line = next_line;
    }
}

/// Reads into `buf` until it holds `want` bytes or the input ends; the bytes read. Straight
/// into `buf`'s spare room: a buffered reader passes reads this large through.
fn fill(
    input: &mut Box<dyn BufRead + Send>,
    buf: &mut Vec<u8>,
    want: usize,
) -> std::io::Result<usize> {
    let start = buf.len();
    buf.reserve(want.saturating_sub(start));
    input
        .by_ref()
        .take(want.saturating_sub(start) as u64)
        .read_to_end(buf)?;
    Ok(buf.len() - start)
}

/// A worker: parses chunks and makes their frames until there are none.
fn parse_chunks(
    header: &TraceHeader,
    parts: Parts,
    chunks: &Mutex<Receiver<Chunk>>,
    parsed: &Sender<Parsed>,
) {
    let mut scratch = Vec::new();
    loop {
        let chunk = {
            let rx = chunks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match rx.recv() {
                Ok(c) => c,
                Err(_) => return,
            }
        };
        let mut out = Parsed {
            seq: chunk.seq,
            heads: Vec::new(),
            values: Vec::new(),
            locations: Vec::new(),
            error: None,
        };
        match chunk.lines {
            Err(e) => out.error = Some(e),
            Ok(bytes) => {
                for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
                    match JsonlReader::<&[u8]>::parse_record(header, line, chunk.first_line + i) {
                        Ok(r) => {
                            let (cycle, phase) = parts(&r, &mut scratch, &mut out.locations);
                            out.values.extend_from_slice(&scratch);
                            out.heads
                                .push((cycle, phase, out.values.len(), out.locations.len()));
                        }
                        Err(e) => {
                            out.error = Some(e);
                            break;
                        }
                    }
                }
            }
        }
        if parsed.send(out).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use skeinhw_sched::preset;
    use skeinhw_sched::sim::{Job, simulate};
    use skeinhw_trace::JsonlWriter;

    use super::*;
    use crate::frame::{Frame, skein_parts};
    use crate::golden::batch::in_thread;

    fn parts(
        r: &OwnedCycleRecord,
        v: &mut Vec<u64>,
        l: &mut Vec<SlotWhere>,
    ) -> (u64, &'static str) {
        skein_parts(&r.as_record(), v, l)
    }

    /// A JSON-lines trace of two messages through a two-stream pipeline (a few thousand lines).
    fn trace() -> Vec<u8> {
        let schedule = preset("ath-8r-2fp").unwrap();
        let (a, b) = (vec![0x11u8; 9000], vec![0x22u8; 5000]);
        let jobs = [
            Job::bytes(&a, 512, Default::default()),
            Job::bytes(&b, 512, Default::default()),
        ];
        let mut out = Vec::new();
        simulate(&schedule, &jobs, &mut JsonlWriter::new(&mut out)).unwrap();
        out
    }

    /// Frames (or the error that ended them) read line by line, as before.
    fn one_by_one(bytes: &[u8]) -> Vec<Result<Frame, String>> {
        let reader = JsonlReader::new(BufReader::new(Cursor::new(bytes.to_vec()))).unwrap();
        let records = reader.map(|r| r.map_err(|e| format!("t.jsonl: {e}")));
        in_thread(records, parts).collect()
    }

    fn in_parallel(bytes: &[u8], workers: usize, chunk: usize) -> Vec<Result<Frame, String>> {
        let input: Box<dyn BufRead + Send> = Box::new(BufReader::new(Cursor::new(bytes.to_vec())));
        let reader = JsonlReader::new(input).unwrap();
        let (header, input, first_line) = reader.into_parts();
        frames_in_parallel(
            header,
            input,
            first_line,
            "t.jsonl".into(),
            workers,
            chunk,
            parts,
        )
        .collect()
    }

    #[test]
    fn frames_come_in_order_whatever_the_chunks_and_workers() {
        let bytes = trace();
        let expected = one_by_one(&bytes);
        assert!(expected.len() > 1000 && expected.iter().all(Result::is_ok));
        for workers in [1, 2, 5] {
            // Chunks smaller than a line, of a few lines, and of the whole file.
            for chunk in [1, 700, 64 << 10, 1 << 24] {
                assert!(
                    in_parallel(&bytes, workers, chunk) == expected,
                    "{workers} workers, chunk {chunk}"
                );
            }
        }
        // Without the last line end, and with CRLF line ends.
        let cut = &bytes[..bytes.len() - 1];
        assert!(in_parallel(cut, 3, 700) == one_by_one(cut));
        let crlf: Vec<u8> = bytes
            .iter()
            .flat_map(|&b| {
                if b == b'\n' {
                    vec![b'\r', b'\n']
                } else {
                    vec![b]
                }
            })
            .collect();
        assert!(in_parallel(&crlf, 3, 700) == expected);
    }

    #[test]
    fn the_first_bad_line_is_named_as_line_by_line_reading_names_it() {
        let bytes = trace();
        let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        let with = |at: usize, bad: &[u8]| {
            let mut out = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                out.extend_from_slice(if i == at { bad } else { l });
            }
            out
        };
        // A record that is no JSON, an empty line, bytes that are no UTF-8, late in the file
        // (and a second bad line after the first, which must not be the one named).
        for (at, bad) in [
            (1234, &b"{\"cycle\": oops}\n"[..]),
            (2000, b"\n"),
            (777, b"{\"cycle\": 1, \xff}\n"),
        ] {
            let mut damaged = with(at, bad);
            damaged.extend_from_slice(b"also bad\n");
            let expected = one_by_one(&damaged);
            let error = expected.last().unwrap().as_ref().unwrap_err();
            assert!(
                error.starts_with(&format!("t.jsonl: line {}: ", at + 1)),
                "{error}"
            );
            for (workers, chunk) in [(1, 300), (4, 5000), (2, 1 << 20)] {
                assert!(
                    in_parallel(&damaged, workers, chunk) == expected,
                    "line {at}, {workers} workers, chunk {chunk}"
                );
            }
        }
    }

    #[test]
    fn a_line_longer_than_the_limit_is_refused_before_it_is_read_whole() {
        let mut bytes = trace();
        let first_record = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        bytes.truncate(first_record);
        bytes.extend(std::iter::repeat_n(b'7', MAX_LINE_BYTES as usize + 10));
        let got = in_parallel(&bytes, 2, 1 << 20);
        let expected = one_by_one(&bytes);
        assert!(
            got == expected,
            "{:?}",
            got.last().map(|r| r.as_ref().err())
        );
        assert!(matches!(got.last(), Some(Err(e)) if e.contains("line 2: longer than")));
    }

    #[test]
    fn a_reader_that_stops_early_leaves_no_thread_behind() {
        let bytes = trace();
        let input: Box<dyn BufRead + Send> = Box::new(BufReader::new(Cursor::new(bytes)));
        let (header, input, first_line) = JsonlReader::new(input).unwrap().into_parts();
        let mut frames = frames_in_parallel(header, input, first_line, "t".into(), 3, 700, parts);
        assert!(frames.next().unwrap().is_ok());
        drop(frames); // the threads see their channels closed and end; nothing waits forever
    }
}
