//! The VCD body parsed on several threads, its changes handed to the sink in file order: on a
//! machine with cores to spare, the one thread that tokenizes the file (more than half of a
//! diff's CPU time) would be the diff's slowest.
//!
//! One thread cuts the body into chunks of whole lines, each but the first starting at a time
//! stamp (`\n#`); workers parse a chunk as if the chunk before it ended cleanly (no comment
//! open, no vector value waiting for its id), recording its watched changes; the calling
//! thread takes the chunks back in order and replays their changes into the sink. A chunk
//! whose guess was wrong (the one before ended in a comment or a dangling value, or it was cut
//! where no time stamp was near) is parsed again in the calling thread from the true state, so
//! that the sink sees what [`super::stream_body`] shows it: the same changes, the same errors
//! on the same lines, and the same stop.
//!
//! Buffers go back to the cutting thread once replayed: at most `2 x workers + 2` chunks are in
//! flight whatever the file's size, each with its recorded changes (32 bytes a change: about
//! 0.9 MB for a MiB of a Skein trace, about 11 MB for a MiB of one-bit changes `1!`).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, channel, sync_channel};
use std::sync::{Arc, Mutex};

use super::digits::DigitScan;
use super::{Body, Lookup, Sink, parse, time_stamp};

/// Bytes of a chunk: about 1,700 cycles of a Skein trace, so that a hand-over costs little
/// against its parse.
const CHUNK: usize = 1 << 20;

/// The most parser threads: eight parse the 1.2 M-cycle ath-1r trace faster than the diff's
/// comparison takes it, and the chunks in flight stay a few MiB on a machine of any size.
const MAX_WORKERS: usize = 8;

/// The fewest cores on which the body is parsed in parallel: the diff already runs three
/// threads (simulator, sampler, comparison); on two cores, parsing beside them only adds the
/// hand-over's CPU time.
const MIN_CORES: usize = 4;

thread_local! {
    /// A plan forced by [`with_plan`], for this thread's reads.
    static FORCED: Cell<Option<Plan>> = const { Cell::new(None) };
}

/// How a body is read: parser threads (0: in the calling thread, as [`super::stream_body`])
/// and the bytes of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Parser threads; 0 parses in the calling thread.
    pub workers: usize,
    /// Bytes of a chunk (and of each read).
    pub chunk: usize,
}

impl Plan {
    /// This thread's plan: one forced by [`with_plan`], else `SKEINHW_VCD_WORKERS` if set (0
    /// reads in one thread; at most [`MAX_WORKERS`]), else two fewer than the machine's cores
    /// from [`MIN_CORES`] on. A `SKEINHW_VCD_WORKERS` that is not a number is an error, not a
    /// silent fallback.
    pub fn for_this_thread() -> Result<Plan, String> {
        if let Some(p) = Plan::forced() {
            return Ok(p);
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = match std::env::var("SKEINHW_VCD_WORKERS") {
            Ok(v) => v
                .trim()
                .parse::<usize>()
                .map_err(|_| {
                    format!(
                        "SKEINHW_VCD_WORKERS='{v}': not a number of parser threads (0 reads \
                         the VCD in one thread)"
                    )
                })?
                .min(MAX_WORKERS),
            Err(_) if cores >= MIN_CORES => (cores - 2).min(MAX_WORKERS),
            Err(_) => 0,
        };
        Ok(Plan {
            workers,
            chunk: CHUNK,
        })
    }

    /// The plan [`with_plan`] forced on this thread, if any (for a thread that reads for it).
    pub(crate) fn forced() -> Option<Plan> {
        FORCED.with(Cell::get)
    }
}

/// Runs `f` with VCD bodies read in this thread by `plan` (tests: every plan on any machine).
#[doc(hidden)]
pub fn with_plan<T>(plan: Plan, f: impl FnOnce() -> T) -> T {
    struct Reset(Option<Plan>);
    impl Drop for Reset {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(FORCED.with(|c| c.replace(Some(plan))));
    f()
}

/// The first `len` bytes of a reused buffer.
struct Lines {
    buf: Vec<u8>,
    len: usize,
}

impl Lines {
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Whole lines of the body; `at_stamp`: the chunk starts with a time stamp (or is the first),
/// so that a worker can parse it without the state the chunks before it leave. `Err`: reading
/// failed there.
struct Chunk {
    seq: u64,
    bytes: Result<Lines, String>,
    at_stamp: bool,
    ops: Vec<Op>,
}

/// One recorded step of a chunk's parse.
#[derive(Clone, Copy)]
enum Step {
    /// The time of the changes after it (`word`).
    Time,
    /// [`Sink::change_bit`].
    Bit,
    /// [`Sink::change_packed`] with `word`.
    Packed,
    /// [`Sink::change`].
    Raw,
}

/// A recorded change: its value is `bytes[at..at + len]` of its chunk.
#[derive(Clone, Copy)]
struct Op {
    step: Step,
    slot: u32,
    at: usize,
    len: usize,
    word: u64,
}

/// How a worker's parse of a chunk ended.
enum End {
    /// Bytes consumed (fewer than the chunk's when a vector value waits for its id) and the
    /// line ends among them, whether a comment is open, and the time of the last stamp (or
    /// of a change before any).
    Parsed {
        done: usize,
        done_lines: u64,
        in_comment: bool,
        time: Option<u64>,
    },
    /// A malformed token at this offset.
    Failed(usize, String),
}

/// A worker's parse of a chunk from a clean start: the chunk's time stamp (if it starts with
/// one) and how the parse ended; its changes are in [`Parsed::ops`].
struct Guess {
    first_stamp: Option<u64>,
    end: End,
}

/// A chunk back from a worker, with its guessed parse unless it starts away from a time stamp
/// (or reading failed): then the replay parses it.
struct Parsed {
    seq: u64,
    bytes: Result<Lines, String>,
    ops: Vec<Op>,
    guess: Option<Guess>,
}

/// The changes of one chunk, recorded.
struct Record<'a> {
    base: usize,
    ops: &'a mut Vec<Op>,
    time: Option<u64>,
}

impl Record<'_> {
    fn push(&mut self, time: u64, step: Step, slot: usize, value: &[u8], word: u64) {
        if self.time != Some(time) {
            self.time = Some(time);
            self.ops.push(Op {
                step: Step::Time,
                slot: 0,
                at: 0,
                len: 0,
                word: time,
            });
        }
        self.ops.push(Op {
            step,
            slot: slot as u32,
            at: value.as_ptr() as usize - self.base,
            len: value.len(),
            word,
        });
    }
}

impl Sink for Record<'_> {
    fn change(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
        self.push(time, Step::Raw, slot, value, 0);
        Ok(true)
    }

    fn change_packed(
        &mut self,
        time: u64,
        slot: usize,
        value: &[u8],
        word: u64,
    ) -> Result<bool, String> {
        self.push(time, Step::Packed, slot, value, word);
        Ok(true)
    }

    fn change_bit(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
        self.push(time, Step::Bit, slot, value, 0);
        Ok(true)
    }
}

/// [`super::stream_body`] on `plan.workers` threads (at least one).
pub(super) fn stream_body_parallel(
    input: impl Read + Send,
    first_line: u64,
    lookup: &Lookup,
    sink: &mut impl Sink,
    plan: Plan,
    scan: DigitScan,
) -> Result<(), String> {
    let workers = plan.workers.max(1);
    let chunk = plan.chunk.max(1);
    let in_flight = 2 * workers + 2;
    let (chunk_tx, chunk_rx) = channel::<Chunk>();
    let (parsed_tx, parsed_rx) = channel::<Parsed>();
    let (back_tx, back_rx) = sync_channel::<(Vec<u8>, Vec<Op>)>(in_flight);
    // Each worker holds the only handles of the chunks' receiver: when the last one stops,
    // the cutter's next chunk finds nobody and it stops too.
    let chunk_rx = Arc::new(Mutex::new(chunk_rx));
    let receivers: Vec<_> = (0..workers).map(|_| Arc::clone(&chunk_rx)).collect();
    drop(chunk_rx);
    std::thread::scope(|s| {
        s.spawn(move || cut(input, chunk, in_flight, &back_rx, &chunk_tx));
        for chunk_rx in receivers {
            let parsed_tx = parsed_tx.clone();
            s.spawn(move || parse_chunks(&chunk_rx, &parsed_tx, lookup, scan));
        }
        drop(parsed_tx);
        // Dropping the channels on return stops the cutter and the workers.
        replay(first_line, lookup, sink, scan, parsed_rx, back_tx)
    })
}

/// Cuts `input` into chunks of whole lines of about `chunk` bytes, at most `in_flight` of them
/// unreplayed at a time.
fn cut(
    mut input: impl Read,
    chunk: usize,
    in_flight: usize,
    back: &Receiver<(Vec<u8>, Vec<Op>)>,
    chunks: &std::sync::mpsc::Sender<Chunk>,
) {
    let mut carry: Vec<u8> = Vec::new();
    let mut at_stamp = true;
    let mut made = 0;
    for seq in 0u64.. {
        // A replayed chunk's buffers, else new ones up to `in_flight`, else wait for some;
        // the replay gone (it stopped or failed), cut no more.
        let recycled = match back.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) => None,
        };
        let (mut buf, ops) = match recycled {
            Some(r) => r,
            None if made < in_flight => {
                made += 1;
                (Vec::new(), Vec::new())
            }
            None => match back.recv() {
                Ok(r) => r,
                Err(_) => return,
            },
        };
        // `buf` keeps its length (zeroed once, when it grew): `filled` bytes are the file's.
        let mut filled = carry.len();
        if buf.len() < filled + chunk {
            buf.resize(filled + chunk, 0);
        }
        buf[..filled].copy_from_slice(&carry);
        let mut eof = false;
        let mut searched = 0usize; // no cut before this offset
        let (end, next_at_stamp) = loop {
            if filled >= chunk || eof {
                if eof {
                    break (filled, true);
                }
                // The last time stamp at a line's start; failing that (none within four
                // chunks' bytes), the last line end.
                let from = searched.saturating_sub(1);
                if let Some(i) = memchr::memmem::rfind(&buf[from..filled], b"\n#") {
                    break (from + i + 1, true);
                }
                if filled >= 4 * chunk
                    && let Some(i) = memchr::memrchr(b'\n', &buf[..filled])
                {
                    break (i + 1, false);
                }
                searched = filled;
            }
            if buf.len() < filled + chunk {
                buf.resize(filled + chunk, 0);
            }
            let read = loop {
                match input.read(&mut buf[filled..filled + chunk]) {
                    Ok(n) => break Ok(n),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e.to_string()),
                }
            };
            match read {
                Ok(n) => {
                    filled += n;
                    eof = n == 0;
                }
                Err(e) => {
                    // The whole lines read before the error are parsed first, as one thread
                    // parses each read's whole lines before the next read.
                    let len = memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |i| i + 1);
                    let _ = chunks.send(Chunk {
                        seq,
                        bytes: Ok(Lines { buf, len }),
                        at_stamp,
                        ops,
                    });
                    let _ = chunks.send(Chunk {
                        seq: seq + 1,
                        bytes: Err(e),
                        at_stamp: false,
                        ops: Vec::new(),
                    });
                    return;
                }
            }
        };
        carry.clear();
        carry.extend_from_slice(&buf[end..filled]);
        let last = eof && carry.is_empty();
        let sent = chunks.send(Chunk {
            seq,
            bytes: Ok(Lines { buf, len: end }),
            at_stamp,
            ops,
        });
        if sent.is_err() || last {
            return;
        }
        at_stamp = next_at_stamp;
    }
}

/// A worker: parses chunks until there are none.
fn parse_chunks(
    chunks: &Mutex<Receiver<Chunk>>,
    parsed: &std::sync::mpsc::Sender<Parsed>,
    lookup: &Lookup,
    scan: DigitScan,
) {
    loop {
        let next = chunks.lock().map(|rx| rx.recv());
        let Ok(Ok(Chunk {
            seq,
            bytes,
            at_stamp,
            mut ops,
        })) = next
        else {
            return;
        };
        ops.clear();
        let guess = match &bytes {
            Ok(b) if at_stamp => Some(parse_chunk(b.bytes(), lookup, scan, &mut ops)),
            _ => None,
        };
        let p = Parsed {
            seq,
            bytes,
            ops,
            guess,
        };
        if parsed.send(p).is_err() {
            return;
        }
    }
}

/// Parses a chunk from a clean state, recording its changes into `ops`.
fn parse_chunk(bytes: &[u8], lookup: &Lookup, scan: DigitScan, ops: &mut Vec<Op>) -> Guess {
    let first_stamp = bytes.strip_prefix(b"#").and_then(|rest| {
        let end = rest
            .iter()
            .position(|b| super::WS[*b as usize])
            .unwrap_or(rest.len());
        time_stamp(&rest[..end])
    });
    let mut st = Body {
        time: None,
        in_comment: false,
    };
    let mut record = Record {
        base: bytes.as_ptr() as usize,
        ops,
        time: None,
    };
    let end = match parse(scan, bytes, &mut st, lookup, &mut record) {
        Ok(Some(done)) => End::Parsed {
            done,
            done_lines: lines(&bytes[..done]),
            in_comment: st.in_comment,
            time: st.time,
        },
        Ok(None) => unreachable!("recording never stops"),
        Err((at, message)) => End::Failed(at, message),
    };
    Guess { first_stamp, end }
}

fn lines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Takes the parsed chunks back in order and replays their changes into `sink`, parsing again
/// from the true state any chunk whose clean start was a wrong guess.
fn replay(
    mut line: u64,
    lookup: &Lookup,
    sink: &mut impl Sink,
    scan: DigitScan,
    parsed: Receiver<Parsed>,
    back: SyncSender<(Vec<u8>, Vec<Op>)>,
) -> Result<(), String> {
    let mut st = Body {
        time: None,
        in_comment: false,
    };
    // Bytes the chunk before left unparsed (a vector value waiting for its id).
    let mut carry: Vec<u8> = Vec::new();
    let mut waiting: BTreeMap<u64, Parsed> = BTreeMap::new();
    let mut next = 0u64;
    loop {
        let Some(p) = waiting.remove(&next) else {
            match parsed.recv() {
                Ok(p) => {
                    waiting.insert(p.seq, p);
                    continue;
                }
                // The cutter and the workers are done: the body ended with the last chunk.
                Err(_) => break,
            }
        };
        next += 1;
        let lines_read = match p.bytes {
            Ok(b) => b,
            Err(e) => return Err(format!("line {line}: {e}")),
        };
        let bytes = lines_read.bytes();
        let clean = carry.is_empty() && !st.in_comment;
        if let (true, Some(Guess { first_stamp, end })) = (clean, p.guess) {
            if let (Some(t), Some(before)) = (first_stamp, st.time)
                && t < before
            {
                return Err(format!(
                    "line {line}: time goes backwards: #{t} after #{before}"
                ));
            }
            if !replay_ops(bytes, &p.ops, &mut line, sink)? {
                return Ok(());
            }
            match end {
                End::Parsed {
                    done,
                    done_lines,
                    in_comment,
                    time,
                } => {
                    st.in_comment = in_comment;
                    st.time = time.or(st.time);
                    line += done_lines;
                    carry.extend_from_slice(&bytes[done..]);
                }
                End::Failed(at, message) => {
                    return Err(format!("line {}: {message}", line + lines(&bytes[..at])));
                }
            }
        } else {
            // The true state differs from a clean start (or no worker parsed the chunk): parse
            // here, as one thread would.
            carry.extend_from_slice(bytes);
            match parse(scan, &carry, &mut st, lookup, sink) {
                Ok(Some(done)) => {
                    line += lines(&carry[..done]);
                    carry.drain(..done);
                }
                Ok(None) => return Ok(()),
                Err((at, message)) => {
                    return Err(format!("line {}: {message}", line + lines(&carry[..at])));
                }
            }
        }
        // The cutter may be done: then the buffers are dropped.
        let _ = back.try_send((lines_read.buf, p.ops));
    }
    if !carry.is_empty() {
        return Err(format!(
            "malformed: line {line}: a value change without its signal id at the end"
        ));
    }
    Ok(())
}

/// Replays one chunk's recorded changes; false when the sink says stop. A sink's error names
/// the line of its change.
fn replay_ops(
    bytes: &[u8],
    ops: &[Op],
    line: &mut u64,
    sink: &mut impl Sink,
) -> Result<bool, String> {
    let mut time = 0;
    for op in ops {
        let value = &bytes[op.at..][..op.len];
        let slot = op.slot as usize;
        let changed = match op.step {
            Step::Time => {
                time = op.word;
                continue;
            }
            Step::Bit => sink.change_bit(time, slot, value),
            Step::Packed => sink.change_packed(time, slot, value, op.word),
            Step::Raw => sink.change(time, slot, value),
        };
        match changed {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            Err(message) => {
                let at = op.at;
                return Err(format!("line {}: {message}", *line + lines(&bytes[..at])));
            }
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::stream_chunks;
    use super::*;

    /// Every change the sink saw, and where reading ended.
    type Seen = (Vec<(u64, usize, Vec<u8>)>, Result<(), String>);

    /// Records changes, stopping after `stop` of them; a value `b2` is refused as a sink's
    /// error (so that errors from the sink, not only the parser, are on the right line).
    struct Record {
        seen: Vec<(u64, usize, Vec<u8>)>,
        stop: usize,
    }

    impl Sink for Record {
        fn change(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
            if value == b"b2" {
                return Err("refused".into());
            }
            self.seen.push((time, slot, value.to_vec()));
            Ok(self.seen.len() < self.stop)
        }
    }

    /// Watched ids: `!`, `#` (a vector's id on the next line then starts like a time stamp)
    /// and `#a`; `$` goes unwatched.
    fn lookup() -> Lookup {
        let id = |s: &[u8]| super::super::id_to_int(s).unwrap();
        Lookup::new(&[id(b"!"), id(b"#"), id(b"#a")])
    }

    fn one_thread(body: &[u8], stop: usize) -> Seen {
        let mut r = Record {
            seen: Vec::new(),
            stop,
        };
        let end = stream_chunks(body, 5, &lookup(), &mut r, 1 << 20, DigitScan::Swar);
        (r.seen, end)
    }

    fn parallel(body: &[u8], stop: usize, workers: usize, chunk: usize) -> Seen {
        let mut r = Record {
            seen: Vec::new(),
            stop,
        };
        let plan = Plan { workers, chunk };
        let end = stream_body_parallel(body, 5, &lookup(), &mut r, plan, DigitScan::best());
        (r.seen, end)
    }

    /// A random body: time stamps (sometimes going backwards), scalar and vector changes
    /// (ids on the same line or the next), comments holding lines that look like stamps,
    /// `$dumpvars` blocks, long stretches without a stamp, and now and then a bad token.
    fn body(seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut r = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let ids = ["!", "#", "#a", "$"];
        let mut t = 0u64;
        let mut out = String::new();
        // A third of the bodies are damaged somewhere (time going backwards, a bad token, a
        // value the sink refuses).
        let faulty = r(3) == 0;
        let fault = |r: &mut dyn FnMut(u64) -> u64, one_in: u64| faulty && r(one_in) == 0;
        for _ in 0..40 + r(200) {
            match r(40) {
                0..=7 => {
                    t = if fault(&mut r, 20) {
                        t.saturating_sub(3)
                    } else {
                        t + r(4)
                    };
                    out.push_str(&format!("#{t}\n"));
                }
                8..=19 => out.push_str(&format!("{}{}\n", r(2), ids[r(4) as usize])),
                20..=31 => {
                    let digits: String = (0..1 + r(70))
                        .map(|_| (b'0' + r(2) as u8) as char)
                        .collect();
                    let value = if fault(&mut r, 10) {
                        "2".to_string()
                    } else {
                        digits
                    };
                    let sep = ["\n", " ", "\t", "\n\n"][r(4) as usize];
                    out.push_str(&format!("b{value}{sep}{}\n", ids[r(4) as usize]));
                }
                32..=33 => out.push_str("$comment\n#99 b1 !\n#1\n$end\n"),
                34 => out.push_str("$dumpvars\nbx !\n1#\n$end\n"),
                35 => out.push_str(&"1!\n0!\n".repeat(r(40) as usize)),
                36 => out.push_str("bz1x #a\r\n"),
                37 if fault(&mut r, 2) => out.push_str("%oops\n"),
                37 if fault(&mut r, 2) => out.push_str("#1.5\n"),
                _ => out.push_str("x!\n"),
            }
        }
        if r(10) == 0 {
            out.push_str("b0101"); // a value without its id at the end
        } else if r(10) == 0 {
            out.pop(); // no final line end
        }
        out.into_bytes()
    }

    #[test]
    fn the_parallel_reader_sees_what_one_thread_sees() {
        let mut ended = [0usize; 3]; // read to the end, stopped by the sink, failed
        for seed in 0..300u64 {
            let text = body(seed * 0x9e37_79b9 + 7);
            for stop in [usize::MAX, 1 + (seed as usize % 50)] {
                let want = one_thread(&text, stop);
                match &want.1 {
                    Ok(()) if want.0.len() == stop => ended[1] += 1,
                    Ok(()) => ended[0] += 1,
                    Err(_) => ended[2] += 1,
                }
                for chunk in [1, 2, 7, 16, 61, 300, 1 << 20] {
                    for workers in [1, 2, 3] {
                        let got = parallel(&text, stop, workers, chunk);
                        assert_eq!(
                            got,
                            want,
                            "seed {seed}, stop {stop}, chunk {chunk}, {workers} workers\n{}",
                            String::from_utf8_lossy(&text)
                        );
                    }
                }
            }
        }
        // Not vacuous: each way of ending is met often.
        assert!(ended.iter().all(|&n| n > 60), "{ended:?}");
    }

    #[test]
    fn a_read_error_names_its_line() {
        /// Two lines, then an error.
        struct Failing(&'static [u8]);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0.is_empty() {
                    return Err(std::io::Error::other("disk on fire"));
                }
                let n = buf.len().min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = Record {
            seen: Vec::new(),
            stop: usize::MAX,
        };
        let plan = Plan {
            workers: 2,
            chunk: 4,
        };
        let end = stream_body_parallel(
            Failing(b"#1\n1!\n"),
            5,
            &lookup(),
            &mut r,
            plan,
            DigitScan::best(),
        );
        assert_eq!(end, Err("line 7: disk on fire".into()));
        assert_eq!(r.seen, vec![(1, 0, b"1".to_vec())]);
    }
}
