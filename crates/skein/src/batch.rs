//! Many independent Skein computations at once, through Threefish in SIMD lanes.
//!
//! One message is a serial chain of Threefish calls: each UBI block needs the chaining value
//! the previous block produced. Independent messages are not: the batch turns each message
//! into a sequence of UBI block jobs (key = chaining value, tweak, block) and keeps `L` of
//! them in flight, one per lane of [`crate::lanes`]. Each lane is a slot holding one message;
//! it takes that message's next job every step, and when the message is done the slot takes
//! the next message (longest first, so that lanes run out of work together). Results are
//! bit-identical to [`crate::hash`]: the jobs are exactly the UBI blocks of the sequential
//! computation, only interleaved with other messages' blocks.
//!
//! The backend is chosen at run time ([`detected`]) and can be forced
//! ([`hash_batch_with`]) for tests and benchmarks:
//!
//! | backend            | lanes | needs                         |
//! |--------------------|-------|-------------------------------|
//! | [`Backend::Scalar`]| 1     | nothing ([`crate::fast`])     |
//! | [`Backend::Avx2`]  | 4     | x86-64 with AVX2              |
//!
//! An AVX-512 backend (8 lanes, native 64-bit rotate) slots in as one more variant whose run
//! function is [`crate::lanes::compress`] with `L = 8` under
//! `#[target_feature(enable = "avx512f")]`, like [`Backend::Avx2`] below. It is not written
//! because the machines this was built on lack AVX-512, and untested SIMD code does not belong
//! in a golden reference.
//!
//! ```
//! use skeinhw_skein::batch::{self, Request};
//! let msgs: Vec<Vec<u8>> = (0..10).map(|i| vec![i as u8; 100 * i]).collect();
//! let requests: Vec<Request> = msgs.iter().map(|m| Request::new(512, 512, m)).collect();
//! let digests = batch::hash_batch(&requests).unwrap();
//! for (m, d) in msgs.iter().zip(&digests) {
//!     let one = skeinhw_skein::hash(512, 512, m, m.len() as u64 * 8, &Default::default());
//!     assert_eq!(&one.unwrap(), d);
//! }
//! ```

use alloc::borrow::Cow;
use alloc::vec::Vec;
use zeroize::Zeroize;

use crate::constants::BlockType;
use crate::threefish::{words_from_bytes, words_to_bytes};
use crate::tweak::Tweak;
use crate::{Error, Params, config_string, pad_partial_byte};

/// How the lanes are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// One lane, the scalar unrolled Threefish of [`crate::fast`]; runs everywhere.
    Scalar,
    /// Four lanes in 256-bit AVX2 registers (x86-64 only, detected at run time).
    Avx2,
}

impl Backend {
    /// Every backend, fastest last.
    pub const ALL: [Backend; 2] = [Backend::Scalar, Backend::Avx2];

    /// Number of blocks in flight.
    pub const fn lanes(self) -> usize {
        match self {
            Backend::Scalar => 1,
            Backend::Avx2 => 4,
        }
    }

    /// The instruction set's name, for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Avx2 => "avx2",
        }
    }

    /// Whether this machine (and this build) can run the backend. Without the `std` feature
    /// there is no run-time detection: AVX2 counts only when the build enables it statically.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Avx2 => avx2_available(),
        }
    }
}

impl core::fmt::Display for Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
fn avx2_available() -> bool {
    std::is_x86_feature_detected!("avx2")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
fn avx2_available() -> bool {
    cfg!(target_feature = "avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_available() -> bool {
    false
}

/// The fastest backend this machine supports.
pub fn detected() -> Backend {
    Backend::ALL
        .into_iter()
        .rev()
        .find(|b| b.is_available())
        .unwrap_or(Backend::Scalar)
}

/// One message of a batch: what [`crate::hash`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// State size: 256, 512 or 1024.
    pub state_bits: usize,
    /// Output length in bits.
    pub out_bits: u64,
    /// Message bytes.
    pub message: &'a [u8],
    /// Message length in bits: the first `msg_bits` bits of `message`.
    pub msg_bits: u64,
    /// Key, optional arguments and tree parameters.
    pub params: Params<'a>,
}

impl<'a> Request<'a> {
    /// A plain hash of all of `message`.
    pub fn new(state_bits: usize, out_bits: u64, message: &'a [u8]) -> Self {
        Request {
            state_bits,
            out_bits,
            message,
            msg_bits: message.len() as u64 * 8,
            params: Params::default(),
        }
    }

    /// The checks [`crate::Skein::with_params`] and [`crate::Skein::update_bits`] make.
    fn validate(&self) -> Result<(), Error> {
        if !matches!(self.state_bits, 256 | 512 | 1024) {
            return Err(Error::UnknownSize(self.state_bits));
        }
        if self.out_bits == 0 {
            return Err(Error::ZeroOutputLength);
        }
        if let Some(t) = self.params.tree {
            crate::TreeParams::new(t.leaf, t.fan_out, t.max_height)?;
        }
        let available = self.message.len() as u64 * 8;
        if self.msg_bits > available {
            return Err(Error::NotEnoughBits {
                bits: self.msg_bits,
                available,
            });
        }
        Ok(())
    }
}

/// Hashes every request with the [`detected`] backend on the calling thread; the digests come
/// back in request order. Requests with tree parameters go through [`crate::par_tree`].
///
/// # Errors
/// The first invalid request's error (as [`crate::hash`] would give it); nothing is hashed
/// then.
pub fn hash_batch(requests: &[Request<'_>]) -> Result<Vec<Vec<u8>>, Error> {
    hash_batch_with(detected(), requests)
}

/// [`hash_batch`] with a given backend.
///
/// # Errors
/// As [`hash_batch`].
///
/// # Panics
/// If this machine cannot run `backend` (see [`Backend::is_available`]): forcing a backend is
/// for tests and benchmarks, which check first.
pub fn hash_batch_with(backend: Backend, requests: &[Request<'_>]) -> Result<Vec<Vec<u8>>, Error> {
    prepare(backend, requests)?;
    let mut out: Vec<Vec<u8>> = (0..requests.len()).map(|_| Vec::new()).collect();
    hash_size::<4>(backend, requests, &mut out, Runner::Here);
    hash_size::<8>(backend, requests, &mut out, Runner::Here);
    hash_size::<16>(backend, requests, &mut out, Runner::Here);
    Ok(out)
}

/// [`hash_batch_with`], spread over the threads of the current rayon pool (run it inside
/// `ThreadPool::install` to bound them).
///
/// # Errors
/// As [`hash_batch_with`].
#[cfg(feature = "parallel")]
pub fn hash_batch_parallel(
    backend: Backend,
    requests: &[Request<'_>],
) -> Result<Vec<Vec<u8>>, Error> {
    prepare(backend, requests)?;
    let mut out: Vec<Vec<u8>> = (0..requests.len()).map(|_| Vec::new()).collect();
    hash_size::<4>(backend, requests, &mut out, Runner::Pool);
    hash_size::<8>(backend, requests, &mut out, Runner::Pool);
    hash_size::<16>(backend, requests, &mut out, Runner::Pool);
    Ok(out)
}

fn prepare(backend: Backend, requests: &[Request<'_>]) -> Result<(), Error> {
    assert!(
        backend.is_available(),
        "backend {backend} is not available on this machine"
    );
    requests.iter().try_for_each(Request::validate)
}

/// Where the lane scheduler runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runner {
    /// On the calling thread.
    Here,
    /// Split over the current rayon pool.
    #[cfg(feature = "parallel")]
    Pool,
}

/// Hashes the requests of state size `N` (the others are skipped), writing their digests.
fn hash_size<const N: usize>(
    backend: Backend,
    requests: &[Request<'_>],
    out: &mut [Vec<u8>],
    runner: Runner,
) {
    // Configuration results of unkeyed requests, computed once per (output length, tree):
    // with small messages the Config UBI is a third of the work.
    let mut configs: Vec<(u64, [u64; N])> = Vec::new();
    let mut tasks = Vec::new();
    let mut index = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        if r.state_bits != N * 64 {
            continue;
        }
        if r.params.tree.is_some() {
            out[i] = crate::par_tree::hash_tree::<N>(
                backend, r.out_bits, r.message, r.msg_bits, &r.params, runner,
            );
            continue;
        }
        let mut segments = Vec::with_capacity(6);
        let chain = if r.params.key.is_empty() {
            match configs.iter().find(|(o, _)| *o == r.out_bits) {
                Some((_, g)) => *g,
                None => {
                    let g = crate::ubi::ubi(
                        [0u64; N],
                        &config_string(r.out_bits, None),
                        BlockType::Config,
                    );
                    configs.push((r.out_bits, g));
                    g
                }
            }
        } else {
            segments.push(Segment::whole(r.params.key, BlockType::Key));
            segments.push(Segment {
                data: Cow::Owned(config_string(r.out_bits, None).to_vec()),
                ..Segment::whole(&[], BlockType::Config)
            });
            [0u64; N]
        };
        let extras = [
            (BlockType::Personalization, r.params.personalization),
            (BlockType::PublicKey, r.params.public_key),
            (BlockType::KeyIdentifier, r.params.key_id),
            (BlockType::Nonce, r.params.nonce),
        ];
        for (block_type, value) in extras {
            if let Some(v) = value {
                segments.push(Segment::whole(v, block_type));
            }
        }
        segments.push(Segment::message(
            r.message,
            r.msg_bits,
            BlockType::Message,
            0,
            0,
        ));
        tasks.push(Task::new(chain, segments, r.out_bits));
        index.push(i);
    }
    run_tasks(backend, &mut tasks, runner);
    for (task, i) in tasks.iter_mut().zip(index) {
        out[i] = core::mem::take(&mut task.out);
    }
}

/// One UBI call's message: `data` then, for a message that ends in a partial byte, the
/// bit-padded last byte `tail` (kept apart so that a large input is never copied).
pub(crate) struct Segment<'a> {
    pub data: Cow<'a, [u8]>,
    pub tail: Option<u8>,
    pub block_type: BlockType,
    pub level: u8,
    /// Position offset of the UBI call (tree mode).
    pub position: u128,
    pub bit_pad: bool,
}

impl<'a> Segment<'a> {
    /// A whole-byte UBI message at level 0, position 0.
    pub fn whole(data: &'a [u8], block_type: BlockType) -> Self {
        Segment {
            data: Cow::Borrowed(data),
            tail: None,
            block_type,
            level: 0,
            position: 0,
            bit_pad: false,
        }
    }

    /// The first `bits` bits of `data` (the bit-pad rule applied to a partial last byte).
    pub fn message(
        data: &'a [u8],
        bits: u64,
        block_type: BlockType,
        level: u8,
        position: u128,
    ) -> Self {
        let whole = (bits / 8) as usize;
        let rest = (bits % 8) as u32;
        Segment {
            data: Cow::Borrowed(&data[..whole]),
            tail: (rest != 0).then(|| pad_partial_byte(data[whole], rest)),
            block_type,
            level,
            position,
            bit_pad: rest != 0,
        }
    }

    fn len(&self) -> usize {
        self.data.len() + usize::from(self.tail.is_some())
    }

    /// UBI blocks: at least one, even for an empty message.
    fn blocks(&self, block_bytes: usize) -> usize {
        self.len().div_ceil(block_bytes).max(1)
    }
}

/// One independent Skein or UBI computation as a sequence of block jobs: the UBI calls of its
/// segments in order, then, if `out_bits > 0`, the output transform.
pub(crate) struct Task<'a, const N: usize> {
    /// The chaining value: the key of the next job; the result when `out_bits == 0`.
    pub chain: [u64; N],
    segments: Vec<Segment<'a>>,
    segment: usize,
    block: usize,
    out_bits: u64,
    out_block: usize,
    /// The digest (when `out_bits > 0`).
    pub out: Vec<u8>,
}

impl<'a, const N: usize> Task<'a, N> {
    const BLOCK_BYTES: usize = N * 8;

    pub fn new(chain: [u64; N], segments: Vec<Segment<'a>>, out_bits: u64) -> Self {
        Task {
            chain,
            segments,
            segment: 0,
            block: 0,
            out_bits,
            out_block: 0,
            out: Vec::new(),
        }
    }

    /// Jobs left, for ordering the tasks longest first.
    fn jobs(&self) -> usize {
        let message: usize = self
            .segments
            .iter()
            .map(|s| s.blocks(Self::BLOCK_BYTES))
            .sum();
        message + self.out_bits.div_ceil(8).div_ceil(Self::BLOCK_BYTES as u64) as usize
    }

    /// The next job's tweak and block (its key is `chain`).
    #[inline(always)]
    fn job(&self) -> ([u64; 2], [u64; N]) {
        let nb = Self::BLOCK_BYTES;
        let Some(s) = self.segments.get(self.segment) else {
            // Output transform: UBI(G, ToBytes(i, 8), Tout), one block each.
            let tweak = Tweak {
                position: 8,
                first: true,
                last: true,
                ..Tweak::start(BlockType::Output, 0, 0)
            };
            let mut block = [0u64; N];
            block[0] = self.out_block as u64;
            return (tweak.words(), block);
        };
        let off = self.block * nb;
        let len = s.len();
        let last = self.block + 1 == s.blocks(nb);
        let end = (off + nb).min(len);
        let block = if off + nb <= s.data.len() {
            words_from_bytes::<N>(&s.data[off..off + nb])
        } else {
            let mut bytes = [0u8; crate::ubi::MAX_BLOCK_BYTES];
            let from_data = s.data.len().saturating_sub(off).min(nb);
            bytes[..from_data].copy_from_slice(&s.data[off..off + from_data]);
            if let Some(t) = s.tail
                && end > from_data + off
            {
                bytes[from_data] = t;
            }
            let w = words_from_bytes::<N>(&bytes[..nb]);
            bytes.zeroize();
            w
        };
        let tweak = Tweak {
            position: s.position + end as u128,
            tree_level: s.level,
            bit_pad: last && s.bit_pad,
            block_type: s.block_type,
            first: self.block == 0,
            last,
        };
        (tweak.words(), block)
    }

    /// Takes a job's result (`E(chain, tweak, block) xor block`); true when the task is done.
    #[inline(always)]
    fn absorb(&mut self, result: &[u64; N]) -> bool {
        let nb = Self::BLOCK_BYTES;
        if let Some(s) = self.segments.get(self.segment) {
            self.chain = *result;
            self.block += 1;
            if self.block == s.blocks(nb) {
                self.block = 0;
                self.segment += 1;
                if self.segment == self.segments.len() {
                    // The message is done; free the borrowed or owned inputs.
                    self.segments = Vec::new();
                    self.segment = 0;
                    if self.out_bits == 0 {
                        return true;
                    }
                    self.out = alloc::vec![0u8; self.out_bits.div_ceil(8) as usize];
                }
            }
            return false;
        }
        // Output phase: `chain` stays G; the result is output block `out_block`.
        let start = self.out_block * nb;
        let end = (start + nb).min(self.out.len());
        let mut bytes = [0u8; crate::ubi::MAX_BLOCK_BYTES];
        words_to_bytes(result, &mut bytes[..nb]);
        self.out[start..end].copy_from_slice(&bytes[..end - start]);
        bytes.zeroize();
        self.out_block += 1;
        if end == self.out.len() {
            let rest = (self.out_bits % 8) as u32;
            if rest != 0 {
                let last = self.out.len() - 1;
                self.out[last] &= 0xFFu8 << (8 - rest);
            }
            self.chain.zeroize();
            return true;
        }
        false
    }
}

impl<const N: usize> Drop for Task<'_, N> {
    fn drop(&mut self) {
        self.chain.zeroize();
    }
}

/// Runs every task to completion with the backend, on this thread or over the rayon pool.
pub(crate) fn run_tasks<const N: usize>(
    backend: Backend,
    tasks: &mut [Task<'_, N>],
    runner: Runner,
) {
    match runner {
        Runner::Here => run_here(backend, tasks),
        #[cfg(feature = "parallel")]
        Runner::Pool => {
            use rayon::prelude::*;
            let threads = rayon::current_num_threads();
            if threads <= 1 || tasks.len() <= backend.lanes() {
                return run_here(backend, tasks);
            }
            // A few chunks per thread, so that a thread that finishes early steals more; each
            // chunk fills its lanes on its own.
            let chunk = tasks.len().div_ceil(4 * threads).max(backend.lanes());
            tasks
                .par_chunks_mut(chunk)
                .for_each(|c| run_here(backend, c));
        }
    }
}

fn run_here<const N: usize>(backend: Backend, tasks: &mut [Task<'_, N>]) {
    assert!(backend.is_available(), "backend {backend} is not available");
    match backend {
        Backend::Scalar => schedule_scalar(tasks),
        Backend::Avx2 => run_avx2(tasks),
    }
}

/// The lane scheduler: each of the `L` lanes holds one task and runs its next job every step;
/// a finished task's lane takes the next task, longest tasks first. Idle lanes (fewer tasks
/// left than lanes) compute on zeros, which is cheaper than a narrower cipher. The loop is
/// written out by each backend ([`schedule_scalar`], [`schedule_avx2`]) so that the cipher call is a
/// direct call inside the backend's `#[target_feature]` function.
struct Scheduler<'t, 'a, const N: usize, const L: usize> {
    tasks: &'t mut [Task<'a, N>],
    queue: alloc::vec::IntoIter<usize>,
    slots: [Option<usize>; L],
    chain: [[u64; L]; N],
    tweak: [[u64; L]; 2],
    block: [[u64; L]; N],
}

impl<'t, 'a, const N: usize, const L: usize> Scheduler<'t, 'a, N, L> {
    #[inline(always)]
    fn new(tasks: &'t mut [Task<'a, N>]) -> Self {
        let mut order: Vec<(usize, usize)> = tasks.iter().map(Task::jobs).zip(0..).collect();
        order.sort_unstable_by_key(|&(jobs, _)| core::cmp::Reverse(jobs));
        let queue: Vec<usize> = order.into_iter().map(|(_, i)| i).collect();
        Scheduler {
            tasks,
            queue: queue.into_iter(),
            slots: [None; L],
            chain: [[0u64; L]; N],
            tweak: [[0u64; L]; 2],
            block: [[0u64; L]; N],
        }
    }

    /// Fills the lanes with each slot's next job; false when every task is done.
    #[inline(always)]
    fn gather(&mut self) -> bool {
        let mut busy = false;
        for (l, slot) in self.slots.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = self.queue.next();
            }
            match *slot {
                Some(t) => {
                    busy = true;
                    let task = &self.tasks[t];
                    let (tw, b) = task.job();
                    for (i, (c, w)) in self.chain.iter_mut().zip(&mut self.block).enumerate() {
                        c[l] = task.chain[i];
                        w[l] = b[i];
                    }
                    self.tweak[0][l] = tw[0];
                    self.tweak[1][l] = tw[1];
                }
                None => {
                    for i in 0..N {
                        self.chain[i][l] = 0;
                        self.block[i][l] = 0;
                    }
                }
            }
        }
        busy
    }

    /// Hands each lane's result to its task, freeing the lanes of finished tasks.
    #[inline(always)]
    fn scatter(&mut self) {
        for (l, slot) in self.slots.iter_mut().enumerate() {
            if let Some(t) = *slot {
                let result: [u64; N] = core::array::from_fn(|i| self.chain[i][l]);
                if self.tasks[t].absorb(&result) {
                    *slot = None;
                }
            }
        }
    }
}

impl<const N: usize, const L: usize> Drop for Scheduler<'_, '_, N, L> {
    fn drop(&mut self) {
        self.chain.zeroize();
        self.block.zeroize();
    }
}

/// The scalar backend's loop.
fn schedule_scalar<const N: usize>(tasks: &mut [Task<'_, N>]) {
    let mut s = Scheduler::<N, 1>::new(tasks);
    while s.gather() {
        let mut h: [u64; N] = core::array::from_fn(|i| s.chain[i][0]);
        let m: [u64; N] = core::array::from_fn(|i| s.block[i][0]);
        crate::fast::compress_words(&mut h, &m, [s.tweak[0][0], s.tweak[1][0]]);
        for (c, w) in s.chain.iter_mut().zip(h) {
            c[0] = w;
        }
        s.scatter();
    }
}

/// The AVX2 backend: the whole scheduler, gathering included, compiled with AVX2 so that the
/// 4-lane cipher is inlined with every `[u64; 4]` word in a `ymm` register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn schedule_avx2<const N: usize>(tasks: &mut [Task<'_, N>]) {
    let mut s = Scheduler::<N, 4>::new(tasks);
    while s.gather() {
        crate::lanes::avx2::compress::<N>(&mut s.chain, &s.tweak, &s.block);
        s.scatter();
    }
}

/// Calls [`schedule_avx2`] after checking that the CPU has AVX2. This is the crate's one
/// `unsafe`: calling a `#[target_feature]` function is unsafe because on a CPU without the
/// feature it would execute illegal instructions.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn run_avx2<const N: usize>(tasks: &mut [Task<'_, N>]) {
    assert!(avx2_available(), "AVX2 is not available");
    // SAFETY: `avx2_available()` just returned true: either run-time detection
    // (`is_x86_feature_detected!`) found AVX2 on this CPU, or (without `std`) the whole build
    // targets AVX2 statically. `schedule_avx2` has no other safety requirement.
    unsafe { schedule_avx2(tasks) }
}

#[cfg(not(target_arch = "x86_64"))]
fn run_avx2<const N: usize>(_tasks: &mut [Task<'_, N>]) {
    unreachable!("Backend::Avx2 is never available off x86-64")
}
