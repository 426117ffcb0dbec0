//! Many streams (files) hashed side by side in the SIMD lanes, each read in constant memory.
//!
//! [`crate::batch`] needs every message in memory; a file of many MiB hashed on its own is a
//! serial chain of Threefish calls on one lane. Here each lane of [`crate::lanes`] holds one
//! stream: its UBI state (chaining value and Position) and a read buffer of [`LANE_BUFFER`]
//! bytes, allocated once per lane and reused for every stream the lane takes. The lanes
//! advance together by runs of whole message blocks (one [`crate::lanes::Run`]: one block of
//! every stream per step, the chaining values in registers), as many as every busy lane has
//! buffered beyond its last byte (the last block waits: only the end of the stream tells
//! whether it is the Final one). A lane whose buffer runs low is refilled before the next run;
//! a lane whose stream has ended does its Final block and the output transform on the scalar
//! cipher and takes the next stream. The result is bit-identical to [`crate::hash`] of the
//! stream's bytes: the blocks and tweaks are exactly the sequential ones.
//!
//! With `threads`, [`hash_streams`] runs one such worker per thread of the current rayon pool
//! (no more than there are streams), each taking the next stream from a shared counter, so that
//! results come in roughly in stream order. A worker with fewer streams than lanes would run
//! empty lanes: [`plan`] weighs the workers and each one's backend for its share of the streams
//! by this CPU's lane speeds ([`LaneSpeeds::measured`]), so that 16 files on 16 threads run 16
//! scalar chains rather than two full AVX-512 workers and 14 idle threads (issue 34), and a
//! full-width AVX-512 core is not split into half-empty workers.
//!
//! ```
//! use skeinhw_skein::{Params, batch, stream_lanes};
//! let files: Vec<Vec<u8>> = (0..5).map(|i| vec![i as u8; 70_000 * i]).collect();
//! let digests = std::sync::Mutex::new(vec![Vec::new(); files.len()]);
//! stream_lanes::hash_streams(
//!     batch::detected(), false, 512, 256, &Params::default(), files.len(),
//!     |i| Ok(&files[i][..]),
//!     |i, r| { digests.lock().unwrap()[i] = r.unwrap().0; true },
//! )
//! .unwrap();
//! for (f, d) in files.iter().zip(digests.into_inner().unwrap()) {
//!     let one = skeinhw_skein::hash(512, 256, f, f.len() as u64 * 8, &Params::default());
//!     assert_eq!(one.unwrap(), d);
//! }
//! ```

use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::io::{self, Read};
use zeroize::Zeroize;

use crate::batch::Backend;
use crate::constants::BlockType;
use crate::fast::compress_words;
use crate::lanes::Run;
use crate::lanes::speed::LaneSpeeds;
use crate::threefish::words_from_bytes;
use crate::tweak::Tweak;
use crate::{Error, Params, initial_chain, output};

/// Bytes of one lane's read buffer. A lane is refilled when half of it or less is left, so
/// runs are at least half a buffer (hundreds of blocks) long and every read is at least that
/// large; eight lanes' buffers (1 MiB) stay in the core's L2 cache.
pub const LANE_BUFFER: usize = 128 << 10;

/// Hashes streams `0..count` with Skein-`state_bits` (`out_bits` output bits, `params`
/// without tree parameters), the blocks of several streams side by side in the lanes of
/// `backend`; `threads` spreads the streams over the current rayon pool (with the `parallel`
/// feature; otherwise, or with false, everything runs on the calling thread).
///
/// `open(i)` gives stream i's reader (called once, on the thread that hashes it); `done(i, r)`
/// gets stream i's digest and length in bytes, or its open or read error (an interrupted read
/// is retried), on the thread that hashed it, in no fixed order; when `done` returns false no
/// further stream is started and the call returns once the streams in flight are dropped.
///
/// # Errors
/// As [`crate::DynSkein::new`]; tree parameters are [`Error::TreeNotStreamed`] (use
/// [`crate::stream_tree`]). Nothing is opened then.
///
/// # Panics
/// If this machine cannot run `backend` (see [`Backend::is_available`]).
#[allow(clippy::too_many_arguments)]
pub fn hash_streams<R, O, D>(
    backend: Backend,
    threads: bool,
    state_bits: usize,
    out_bits: u64,
    params: &Params<'_>,
    count: usize,
    open: O,
    done: D,
) -> Result<(), Error>
where
    R: Read,
    O: Fn(usize) -> io::Result<R> + Sync,
    D: Fn(usize, io::Result<(Vec<u8>, u64)>) -> bool + Sync,
{
    crate::DynSkein::new(state_bits, out_bits, params)?;
    if params.tree.is_some() {
        return Err(Error::TreeNotStreamed);
    }
    assert!(
        backend.is_available(),
        "backend {backend} is not available on this machine"
    );
    let shared = Shared {
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        count,
        out_bits,
        open: &open,
        done: &done,
    };
    let threads = if threads { pool_threads() } else { 1 };
    let Plan { workers, backend } = if threads == 1 && count >= backend.lanes() {
        // One full worker: the widest lanes, nothing to weigh.
        Plan {
            workers: 1,
            backend,
        }
    } else {
        plan(
            &LaneSpeeds::measured(),
            backend,
            Backend::Avx2.is_available(),
            threads,
            count,
        )
    };
    let work = || match state_bits {
        256 => worker_for::<4, R>(backend, initial_chain::<4>(out_bits, params), &shared),
        512 => worker_for::<8, R>(backend, initial_chain::<8>(out_bits, params), &shared),
        _ => worker_for::<16, R>(backend, initial_chain::<16>(out_bits, params), &shared),
    };
    run_workers(workers, &work);
    Ok(())
}

/// Threads of the current rayon pool.
#[cfg(feature = "parallel")]
fn pool_threads() -> usize {
    rayon::current_num_threads().max(1)
}

#[cfg(not(feature = "parallel"))]
fn pool_threads() -> usize {
    1
}

/// How [`hash_streams`] runs: this many workers (one a thread), each on this backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Workers started, each taking the next stream as it finishes one.
    pub workers: usize,
    /// Every worker's lanes.
    pub backend: Backend,
}

/// A plan with more workers is taken only if it hashes this much more a second: two workers
/// that together do what one does would only take twice the CPU time.
const MORE_WORKERS_GAIN: f64 = 1.05;

/// The backend for a worker that has about `streams` streams to hash, given the widest one
/// allowed: the one with the most blocks per second once its empty lanes are counted
/// (`min(streams, lanes) / lanes` of its `speeds`; a tie goes to the wider), among `widest`,
/// AVX2 (when `widest` is AVX-512 and `avx2` says the CPU has it) and scalar. Every backend
/// gives the same digests.
pub fn worker_backend(speeds: &LaneSpeeds, widest: Backend, streams: usize, avx2: bool) -> Backend {
    let mut best = Backend::Scalar;
    for b in [Backend::Avx2, widest] {
        let allowed = b == widest || (widest == Backend::Avx512 && avx2);
        if allowed && worker_speed(speeds, b, streams) >= worker_speed(speeds, best, streams) {
            best = b;
        }
    }
    best
}

/// Blocks a second of one worker on `backend` with `streams` streams (its lanes beyond them
/// empty).
fn worker_speed(speeds: &LaneSpeeds, backend: Backend, streams: usize) -> f64 {
    let lanes = backend.lanes();
    speeds.of(backend) * streams.clamp(1, lanes) as f64 / lanes as f64
}

/// Workers and backend for `streams` streams on up to `threads` threads: the plan that hashes
/// most blocks a second, counting each worker's share of the streams (`streams / workers`) in
/// its lanes ([`worker_backend`]), with fewer workers unless more gain 5%. So 16 files on 16
/// threads run 16 scalar chains rather than two full AVX-512 workers beside 14 idle threads,
/// and 8 files on two threads of a full-width AVX-512 core one worker (two half-empty ones
/// would hash no faster for twice the CPU time), where Zen 4 runs two workers of AVX2 lanes.
pub fn plan(
    speeds: &LaneSpeeds,
    widest: Backend,
    avx2: bool,
    threads: usize,
    streams: usize,
) -> Plan {
    let of = |workers: usize| {
        let share = streams / workers;
        let backend = worker_backend(speeds, widest, share, avx2);
        let rate = workers as f64 * worker_speed(speeds, backend, share);
        (Plan { workers, backend }, rate)
    };
    let (mut best, mut best_rate) = of(1);
    for workers in 2..=threads.min(streams) {
        let (p, rate) = of(workers);
        if rate > best_rate * MORE_WORKERS_GAIN {
            (best, best_rate) = (p, rate);
        }
    }
    best
}

#[cfg(feature = "parallel")]
fn run_workers(workers: usize, work: &(dyn Fn() + Sync)) {
    if workers <= 1 {
        return work();
    }
    rayon::scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| work());
        }
    });
}

#[cfg(not(feature = "parallel"))]
fn run_workers(_workers: usize, work: &(dyn Fn() + Sync)) {
    work()
}

/// What the workers share: the next stream to start, the stop flag and the callbacks.
struct Shared<'a, O, D> {
    next: AtomicUsize,
    stop: AtomicBool,
    count: usize,
    out_bits: u64,
    open: &'a O,
    done: &'a D,
}

impl<O, D> Shared<'_, O, D>
where
    D: Fn(usize, io::Result<(Vec<u8>, u64)>) -> bool + Sync,
{
    /// The next stream's index, unless all are taken or a `done` said stop.
    fn take(&self) -> Option<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.count).then_some(i)
    }

    fn report(&self, i: usize, r: io::Result<(Vec<u8>, u64)>) {
        if !(self.done)(i, r) {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

fn worker_for<const N: usize, R: Read>(
    backend: Backend,
    g: [u64; N],
    shared: &Shared<'_, impl Fn(usize) -> io::Result<R> + Sync, impl DoneFn>,
) {
    match backend {
        Backend::Scalar => worker::<N, 1, R>(crate::lanes::run_scalar::<N>, g, shared),
        Backend::Portable8 => worker::<N, 8, R>(crate::lanes::run_portable8::<N>, g, shared),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => worker::<N, 4, R>(crate::lanes::x86::run_avx2::<N>, g, shared),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => worker::<N, 8, R>(crate::lanes::x86::run_avx512::<N>, g, shared),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Avx2 | Backend::Avx512 => unreachable!("never available off x86-64"),
    }
}

/// The `done` callback's type.
trait DoneFn: Fn(usize, io::Result<(Vec<u8>, u64)>) -> bool + Sync {}
impl<T: Fn(usize, io::Result<(Vec<u8>, u64)>) -> bool + Sync> DoneFn for T {}

/// One lane's stream: its reader, its place in the lane's buffer and its UBI state.
struct Stream<R, const N: usize> {
    index: usize,
    reader: R,
    /// Buffered bytes not yet hashed: `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// Chaining value after the `hashed` bytes.
    chain: [u64; N],
    hashed: u64,
}

impl<R, const N: usize> Drop for Stream<R, N> {
    fn drop(&mut self) {
        self.chain.zeroize();
    }
}

impl<R: Read, const N: usize> Stream<R, N> {
    fn left(&self) -> usize {
        self.end - self.start
    }

    /// Tops the buffer up once half of it or less is left, reading until it is full or the
    /// stream ends.
    fn refill(&mut self, buf: &mut [u8]) -> io::Result<()> {
        if self.eof || self.left() > buf.len() / 2 {
            return Ok(());
        }
        buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < buf.len() {
            match self.reader.read(&mut buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Whole blocks that can go through the lanes now: all but the last block's worth (at
    /// least one byte is held back until the end of the stream is known).
    fn blocks(&self) -> usize {
        self.left().saturating_sub(1) / (N * 8)
    }

    /// The tweak words of the next block when it is not the Final one.
    fn tweak(&self) -> [u64; 2] {
        Tweak {
            position: u128::from(self.hashed) + (N * 8) as u128,
            first: self.hashed == 0,
            ..Tweak::start(BlockType::Message, 0, 0)
        }
        .words()
    }

    /// The digest, once the stream has ended with at most one block left.
    fn finish(&mut self, buf: &[u8], out_bits: u64) -> (Vec<u8>, u64) {
        let nb = N * 8;
        debug_assert!(self.eof && self.left() <= nb);
        let mut bytes = [0u8; crate::ubi::MAX_BLOCK_BYTES];
        let left = self.left();
        bytes[..left].copy_from_slice(&buf[self.start..self.end]);
        let block = words_from_bytes::<N>(&bytes[..nb]);
        bytes.zeroize();
        let total = self.hashed + left as u64;
        let tweak = Tweak {
            position: u128::from(total),
            first: self.hashed == 0,
            last: true,
            ..Tweak::start(BlockType::Message, 0, 0)
        };
        compress_words(&mut self.chain, &block, tweak.words());
        let mut out = alloc::vec![0u8; out_bits.div_ceil(8) as usize];
        output(&self.chain, out_bits, &mut out);
        (out, total)
    }
}

/// One worker: `L` lanes, each with its buffer, taking streams until none is left.
fn worker<const N: usize, const L: usize, R: Read>(
    run: Run<N, L>,
    g: [u64; N],
    shared: &Shared<'_, impl Fn(usize) -> io::Result<R> + Sync, impl DoneFn>,
) {
    let nb = N * 8;
    let mut bufs: Vec<Vec<u8>> = (0..L).map(|_| alloc::vec![0u8; LANE_BUFFER]).collect();
    let mut lanes: [Option<Stream<R, N>>; L] = core::array::from_fn(|_| None);
    let mut chain = [[0u64; L]; N];
    while !shared.stop.load(Ordering::Relaxed) {
        // Give every lane a stream with blocks to hash, finishing those that have ended.
        let mut changed = true;
        while changed {
            changed = false;
            for (lane, buf) in lanes.iter_mut().zip(&mut bufs) {
                if lane.is_none() {
                    *lane = next_stream(shared, g);
                }
                let Some(s) = lane else { continue };
                if let Err(e) = s.refill(buf) {
                    shared.report(s.index, Err(e));
                    *lane = None;
                    changed = true;
                } else if s.eof && s.left() <= nb {
                    let r = s.finish(buf, shared.out_bits);
                    shared.report(s.index, Ok(r));
                    *lane = None;
                    changed = true;
                }
            }
        }
        let Some(steps) = lanes.iter().flatten().map(Stream::blocks).min() else {
            break;
        };
        debug_assert!(steps > 0, "every busy lane has a block beyond its last");
        let fill = lanes
            .iter()
            .zip(&bufs)
            .find_map(|(s, b)| s.as_ref().map(|s| &b[s.start..s.end]))
            .expect("a busy lane");
        let mut data: [&[u8]; L] = [fill; L];
        let mut tweak = [[0u64; L]; 2];
        for (l, (lane, buf)) in lanes.iter().zip(&bufs).enumerate() {
            match lane {
                Some(s) => {
                    data[l] = &buf[s.start..s.end];
                    [tweak[0][l], tweak[1][l]] = s.tweak();
                    for (c, w) in chain.iter_mut().zip(&s.chain) {
                        c[l] = *w;
                    }
                }
                None => chain.iter_mut().for_each(|c| c[l] = 0),
            }
        }
        run(&mut chain, data, tweak, [0; L], steps);
        for (l, lane) in lanes.iter_mut().enumerate() {
            if let Some(s) = lane {
                for (w, c) in s.chain.iter_mut().zip(&chain) {
                    *w = c[l];
                }
                s.start += steps * nb;
                s.hashed += (steps * nb) as u64;
            }
        }
    }
    chain.zeroize();
}

/// Opens the next stream (reporting those that fail to open), or `None` when none is left.
fn next_stream<R: Read, const N: usize>(
    shared: &Shared<'_, impl Fn(usize) -> io::Result<R> + Sync, impl DoneFn>,
    g: [u64; N],
) -> Option<Stream<R, N>> {
    while let Some(index) = shared.take() {
        match (shared.open)(index) {
            Ok(reader) => {
                return Some(Stream {
                    index,
                    reader,
                    start: 0,
                    end: 0,
                    eof: false,
                    chain: g,
                    hashed: 0,
                });
            }
            Err(e) => shared.report(index, Err(e)),
        }
    }
    None
}
