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

mod backend;
mod schedule;
mod task;

#[cfg(feature = "std")]
pub use backend::forced;
pub use backend::{Backend, BackendError, detected};
pub(crate) use backend::{avx2_available, avx512_available};
pub(crate) use schedule::run_tasks;
pub(crate) use task::{Segment, Segments, Task};

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::constants::BlockType;
use crate::{Error, Params, config_string};

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
