//! Many independent Skein computations at once, through Threefish in SIMD lanes.
//!
//! One message is a serial chain of Threefish calls: each UBI block needs the chaining value
//! the previous block produced. Independent messages are not: the batch turns each message
//! into a sequence of UBI block jobs (key = chaining value, tweak, block) and keeps `L` of
//! them in flight, one per lane of [`crate::lanes`]. Each lane is a slot holding one message;
//! when the message is done the slot takes the next one (longest first, so that lanes run out
//! of work together). The lanes advance together by runs of whole blocks read straight from
//! the messages, as many as every busy lane has left before its next boundary (a partial last
//! block, an output block after the first), with the chaining values in registers throughout;
//! a boundary is one step of single jobs. Results are bit-identical to [`crate::hash`]: the
//! jobs are exactly the UBI blocks of the sequential computation, only interleaved with other
//! messages' blocks.
//!
//! Speed on AMD Zen 3 with AVX2 (four lanes), Skein-512, against one message at a time with
//! [`crate::Skein`]: 2.35 times for 4 x 64 KiB, 2.6 times for 1000 x 64 B (the configuration
//! block is computed once and a plain hash allocates only its digest). Four lanes can be at
//! most about 2.4 times one; `lanes::x86` (in the source) says why.
//!
//! The backend is chosen at run time ([`detected`]; the environment variable
//! `SKEINHW_LANES=scalar|portable8|avx2|avx512` forces one, see [`forced`]) and can be given
//! ([`hash_batch_with`]) for tests and benchmarks:
//!
//! | backend                 | lanes | needs                                  |
//! |-------------------------|-------|----------------------------------------|
//! | [`Backend::Scalar`]     | 1     | nothing ([`crate::fast`])              |
//! | [`Backend::Portable8`]  | 8     | nothing (plain Rust arrays; for tests) |
//! | [`Backend::Avx2`]       | 4     | x86-64 with AVX2                       |
//! | [`Backend::Avx512`]     | 8     | x86-64 with AVX-512F                   |
//!
//! The three lane backends are one source ([`crate::lanes`], generic over the lane type), so
//! the 8-lane logic of the AVX-512 backend is tested on every machine through `Portable8`.
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
use crate::lanes::{Run, TWEAK_FINAL};
use crate::threefish::{words_from_bytes, words_to_bytes};
use crate::tweak::Tweak;
use crate::{Error, Params, config_string, pad_partial_byte};

/// How the lanes are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// One lane, the scalar unrolled Threefish of [`crate::fast`]; runs everywhere.
    Scalar,
    /// Eight lanes as plain `[u64; 8]` arrays: the AVX-512 backend's logic on any CPU (for
    /// tests; not faster than [`Backend::Scalar`]).
    Portable8,
    /// Four lanes in 256-bit AVX2 registers (x86-64 only, detected at run time).
    Avx2,
    /// Eight lanes in 512-bit AVX-512 registers with the native 64-bit rotate (x86-64 with
    /// AVX-512F only, detected at run time).
    Avx512,
}

impl Backend {
    /// Every backend.
    pub const ALL: [Backend; 4] = [
        Backend::Scalar,
        Backend::Portable8,
        Backend::Avx2,
        Backend::Avx512,
    ];

    /// Number of blocks in flight.
    pub const fn lanes(self) -> usize {
        match self {
            Backend::Scalar => 1,
            Backend::Avx2 => 4,
            Backend::Portable8 | Backend::Avx512 => 8,
        }
    }

    /// The instruction set's name, for reports (and for `SKEINHW_LANES`).
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Portable8 => "portable8",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }

    /// The backend named `name` (as [`Backend::name`] gives it).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether this machine (and this build) can run the backend. Without the `std` feature
    /// there is no run-time detection: AVX2 and AVX-512 count only when the build enables them
    /// statically.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar | Backend::Portable8 => true,
            Backend::Avx2 => avx2_available(),
            Backend::Avx512 => avx512_available(),
        }
    }
}

impl core::fmt::Display for Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend forced through `SKEINHW_LANES` that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The name is not one of [`Backend::ALL`]'s.
    #[error("SKEINHW_LANES={0:?}: unknown backend (expected scalar, portable8, avx2 or avx512)")]
    Unknown(alloc::string::String),
    /// This CPU lacks the instruction set.
    #[error("SKEINHW_LANES={0}: this CPU does not have that instruction set")]
    Unavailable(Backend),
}

/// The backend the environment variable `SKEINHW_LANES` forces (`None` when unset or empty).
///
/// # Errors
/// An unknown name, or a backend this machine cannot run.
#[cfg(feature = "std")]
pub fn forced() -> Result<Option<Backend>, BackendError> {
    let Ok(name) = std::env::var("SKEINHW_LANES") else {
        return Ok(None);
    };
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    let b = Backend::from_name(name).ok_or_else(|| BackendError::Unknown(name.into()))?;
    if !b.is_available() {
        return Err(BackendError::Unavailable(b));
    }
    Ok(Some(b))
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) fn avx2_available() -> bool {
    std::is_x86_feature_detected!("avx2")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
pub(crate) fn avx2_available() -> bool {
    cfg!(target_feature = "avx2")
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn avx2_available() -> bool {
    false
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) fn avx512_available() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
pub(crate) fn avx512_available() -> bool {
    cfg!(target_feature = "avx512f")
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn avx512_available() -> bool {
    false
}

/// The fastest backend this machine supports (AVX-512, then AVX2, then scalar), unless
/// `SKEINHW_LANES` forces a usable one ([`forced`]; a bad value is ignored here, and reported
/// by [`forced`]).
pub fn detected() -> Backend {
    #[cfg(feature = "std")]
    if let Ok(Some(b)) = forced() {
        return b;
    }
    [Backend::Avx512, Backend::Avx2]
        .into_iter()
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
        // A plain hash has no leading segments: nothing to allocate.
        let mut segments = Vec::new();
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
        let message = Segment::message(r.message, r.msg_bits, BlockType::Message, 0, 0);
        tasks.push(Task::new(
            chain,
            Segments {
                head: segments,
                last: Some(message),
            },
            r.out_bits,
        ));
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

/// A task's UBI calls in order: the leading ones (key, configuration, optional arguments)
/// and the last one (the message), kept apart so that a plain hash allocates nothing for them.
#[derive(Default)]
pub(crate) struct Segments<'a> {
    pub head: Vec<Segment<'a>>,
    pub last: Option<Segment<'a>>,
}

impl<'a> Segments<'a> {
    fn get(&self, i: usize) -> Option<&Segment<'a>> {
        match self.head.get(i) {
            Some(s) => Some(s),
            None if i == self.head.len() => self.last.as_ref(),
            None => None,
        }
    }

    fn len(&self) -> usize {
        self.head.len() + usize::from(self.last.is_some())
    }

    fn iter(&self) -> impl Iterator<Item = &Segment<'a>> {
        self.head.iter().chain(&self.last)
    }
}

/// Whole blocks of one task for a [`crate::lanes::Run`] (see [`Task::run`]).
#[derive(Clone, Copy)]
struct Stretch<'d> {
    /// The blocks, `blocks * Nb` bytes.
    data: &'d [u8],
    /// Tweak words of the first block.
    tweak: [u64; 2],
    blocks: usize,
    /// ORed into t1 of the last block of the stretch: the Final flag or 0.
    last: u64,
}

/// One independent Skein or UBI computation as a sequence of block jobs: the UBI calls of its
/// segments in order, then, if `out_bits > 0`, the output transform.
pub(crate) struct Task<'a, const N: usize> {
    /// The chaining value: the key of the next job; the result when `out_bits == 0`.
    pub chain: [u64; N],
    segments: Segments<'a>,
    segment: usize,
    block: usize,
    out_bits: u64,
    out_block: usize,
    /// The digest (when `out_bits > 0`).
    pub out: Vec<u8>,
}

impl<'a, const N: usize> Task<'a, N> {
    const BLOCK_BYTES: usize = N * 8;

    pub fn new(chain: [u64; N], segments: Segments<'a>, out_bits: u64) -> Self {
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

    /// The stretch of whole blocks from the next job on that can go through a
    /// [`crate::lanes::Run`]: the message blocks read straight from the data up to the last
    /// whole one (the Final block too when it is whole, `last` then being the Final flag), or
    /// the first output block. `None` when the next job is a partial, empty or bit-padded last
    /// block, a later output block, or the Position would carry out of t0 within the stretch.
    fn run(&self) -> Option<Stretch<'_>> {
        let nb = Self::BLOCK_BYTES;
        let Some(s) = self.segments.get(self.segment) else {
            if self.out_block != 0 {
                return None;
            }
            // Output block 0: ToBytes(0, 8) padded with zeros, Position 8, First and Final.
            let tweak = Tweak {
                position: 8,
                first: true,
                ..Tweak::start(BlockType::Output, 0, 0)
            };
            return Some(Stretch {
                data: &ZEROS[..nb],
                tweak: tweak.words(),
                blocks: 1,
                last: TWEAK_FINAL,
            });
        };
        let whole = s.data.len() / nb;
        let ends_whole = s.tail.is_none() && whole == s.blocks(nb);
        let blocks = whole.saturating_sub(self.block);
        let off = self.block * nb;
        let end = s.position + (off + blocks * nb) as u128;
        if blocks == 0 || end > u128::from(u64::MAX) {
            return None;
        }
        let tweak = Tweak {
            position: s.position + (off + nb) as u128,
            tree_level: s.level,
            bit_pad: false,
            block_type: s.block_type,
            first: self.block == 0,
            last: false,
        };
        Some(Stretch {
            data: &s.data[off..off + blocks * nb],
            tweak: tweak.words(),
            blocks,
            last: if ends_whole { TWEAK_FINAL } else { 0 },
        })
    }

    /// Takes the result of the next `blocks` jobs (a run of that many blocks from
    /// [`Task::run`], or one job); true when the task is done.
    #[inline(always)]
    fn advance(&mut self, result: &[u64; N], blocks: usize) -> bool {
        debug_assert!(blocks >= 1);
        if self.segment < self.segments.len() {
            self.block += blocks - 1;
        } else {
            debug_assert_eq!(blocks, 1, "output blocks go one at a time");
        }
        self.absorb(result)
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
                    self.segments = Segments::default();
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
        Backend::Scalar => schedule::<N, 1>(tasks, crate::lanes::run_scalar::<N>),
        Backend::Portable8 => schedule::<N, 8>(tasks, crate::lanes::run_portable8::<N>),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => schedule::<N, 4>(tasks, crate::lanes::x86::run_avx2::<N>),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => schedule::<N, 8>(tasks, crate::lanes::x86::run_avx512::<N>),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Avx2 | Backend::Avx512 => unreachable!("never available off x86-64"),
    }
}

/// Sixteen zero words: the one block of the first output transform call, and the data of a
/// lane with nothing to do.
static ZEROS: [u8; crate::ubi::MAX_BLOCK_BYTES] = [0; crate::ubi::MAX_BLOCK_BYTES];

/// The lane scheduler: each of the `L` lanes holds one task; a finished task's lane takes the
/// next task, longest tasks first. Every step is one [`crate::lanes::Run`] of all lanes:
///
/// - when every busy lane is in a stretch of whole blocks ([`Task::run`]: inside a UBI
///   message, up to and including a whole Final block, or the first output block), the run
///   covers as many blocks as the shortest stretch, with the chaining values in registers
///   throughout; a long message costs one gather and scatter of its chaining value per run, not
///   per block;
/// - otherwise (a partial or empty last block, a Position about to carry into t1, an output
///   block after the first) every busy lane does its next block ([`Task::job`]), one block.
///
/// Idle lanes (fewer tasks left than lanes) compute on another lane's data and their result is
/// dropped, which is cheaper than a narrower cipher.
fn schedule<const N: usize, const L: usize>(tasks: &mut [Task<'_, N>], run: Run<N, L>) {
    let nb = N * 8;
    let mut order: Vec<(usize, usize)> = tasks.iter().map(Task::jobs).zip(0..).collect();
    order.sort_unstable_by_key(|&(jobs, _)| core::cmp::Reverse(jobs));
    let mut queue = order.into_iter().map(|(_, i)| i);
    let mut slots: [Option<usize>; L] = [None; L];
    let mut chain = [[0u64; L]; N];
    let mut blocks = [[0u8; crate::ubi::MAX_BLOCK_BYTES]; L];
    loop {
        let mut busy = None;
        for (l, slot) in slots.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = queue.next();
            }
            if slot.is_some() && busy.is_none() {
                busy = Some(l);
            }
        }
        let Some(some_lane) = busy else { break };
        let mut tweak = [[0u64; L]; 2];
        let mut last = [0u64; L];
        let mut steps = usize::MAX;
        let mut stretches: [Option<Stretch<'_>>; L] = [None; L];
        for (l, slot) in slots.iter().enumerate() {
            if let Some(t) = *slot {
                stretches[l] = tasks[t].run();
                match &stretches[l] {
                    Some(s) => steps = steps.min(s.blocks),
                    None => steps = 0,
                }
            }
        }
        let mut data: [&[u8]; L] = [&ZEROS[..nb]; L];
        if steps > 0 {
            let fill = stretches[some_lane].as_ref().expect("a busy lane").data;
            for l in 0..L {
                let task = slots[l].map(|t| &tasks[t]);
                match (task, &stretches[l]) {
                    (Some(task), Some(s)) => {
                        data[l] = s.data;
                        tweak[0][l] = s.tweak[0];
                        tweak[1][l] = s.tweak[1];
                        if s.blocks == steps {
                            last[l] = s.last;
                        }
                        for (c, w) in chain.iter_mut().zip(&task.chain) {
                            c[l] = *w;
                        }
                    }
                    _ => {
                        data[l] = fill;
                        for c in chain.iter_mut() {
                            c[l] = 0;
                        }
                    }
                }
            }
        } else {
            steps = 1;
            for ((l, slot), bytes) in slots.iter().enumerate().zip(&mut blocks) {
                match *slot {
                    Some(t) => {
                        let task = &tasks[t];
                        let (tw, b) = task.job();
                        words_to_bytes(&b, &mut bytes[..nb]);
                        tweak[0][l] = tw[0];
                        tweak[1][l] = tw[1];
                        for (c, w) in chain.iter_mut().zip(&task.chain) {
                            c[l] = *w;
                        }
                    }
                    None => {
                        for c in chain.iter_mut() {
                            c[l] = 0;
                        }
                    }
                }
            }
            for (d, b) in data.iter_mut().zip(&blocks) {
                *d = &b[..nb];
            }
        }
        run(&mut chain, data, tweak, last, steps);
        for (l, slot) in slots.iter_mut().enumerate() {
            if let Some(t) = *slot {
                let result: [u64; N] = core::array::from_fn(|i| chain[i][l]);
                if tasks[t].advance(&result, steps) {
                    *slot = None;
                }
            }
        }
    }
    chain.zeroize();
    for b in &mut blocks {
        b.zeroize();
    }
}
