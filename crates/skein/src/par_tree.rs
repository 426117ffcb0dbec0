//! Skein tree hashing (Skein 1.3, section 3.5.6) of one input held in memory, in parallel.
//!
//! Every leaf is its own UBI call from the same chaining value, and so is every node of a
//! level: a level is a batch of independent tasks. Each level goes through the lane scheduler
//! of [`crate::batch`] (the leaves fill the SIMD lanes), split over the threads of the current
//! rayon pool when the `parallel` feature is on and threads are asked for. The levels follow
//! each other; the upper levels are small (a level has 2^Yf times fewer values than the one
//! below). The result is bit-identical to the sequential tree of [`crate::Skein`] with
//! `tree` parameters, and the tests check it on the golden file's tree vectors.
//!
//! ```
//! use skeinhw_skein::{Params, TreeParams, batch::{self, Request}, par_tree};
//! let data = vec![7u8; 100_000];
//! let params = Params { tree: Some(TreeParams::new(2, 2, 255).unwrap()), ..Params::default() };
//! let request = Request { params, ..Request::new(512, 512, &data) };
//! let parallel = par_tree::hash_with(batch::detected(), true, &request).unwrap();
//! let sequential = skeinhw_skein::hash(512, 512, &data, data.len() as u64 * 8, &params).unwrap();
//! assert_eq!(parallel, sequential);
//! ```

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::batch::{Backend, Request, Runner, Segment, Task, run_tasks};
use crate::constants::BlockType;
use crate::threefish::words_to_bytes;
use crate::{Error, Params, initial_chain, output, pad_partial_byte};

/// Hashes one request with the [`crate::batch::detected`] backend, across the threads of the
/// current rayon pool (with the `parallel` feature; otherwise on this thread). A request
/// without tree parameters is hashed sequentially.
///
/// # Errors
/// As [`crate::hash`].
pub fn hash(request: &Request<'_>) -> Result<Vec<u8>, Error> {
    hash_with(crate::batch::detected(), true, request)
}

/// [`hash`] with a given backend; `threads` false keeps it on the calling thread (lanes only).
///
/// # Errors
/// As [`crate::hash`].
///
/// # Panics
/// If this machine cannot run `backend` (see [`Backend::is_available`]).
pub fn hash_with(backend: Backend, threads: bool, request: &Request<'_>) -> Result<Vec<u8>, Error> {
    if request.params.tree.is_none() {
        let mut d = crate::batch::hash_batch_with(backend, core::slice::from_ref(request))?;
        return Ok(d.pop().expect("one digest"));
    }
    // The checks of the streaming hasher, so that errors are the same.
    crate::DynSkein::new(request.state_bits, request.out_bits, &request.params)?;
    let available = request.message.len() as u64 * 8;
    if request.msg_bits > available {
        return Err(Error::NotEnoughBits {
            bits: request.msg_bits,
            available,
        });
    }
    assert!(
        backend.is_available(),
        "backend {backend} is not available on this machine"
    );
    let runner = pool_runner(threads);
    let r = request;
    Ok(match r.state_bits {
        256 => hash_tree::<4>(
            backend, r.out_bits, r.message, r.msg_bits, &r.params, runner,
        ),
        512 => hash_tree::<8>(
            backend, r.out_bits, r.message, r.msg_bits, &r.params, runner,
        ),
        _ => hash_tree::<16>(
            backend, r.out_bits, r.message, r.msg_bits, &r.params, runner,
        ),
    })
}

/// [`hash_with`] on a new rayon pool of `jobs` threads (the command line's `--jobs`).
///
/// # Errors
/// As [`crate::hash`].
#[cfg(feature = "parallel")]
pub fn hash_jobs(backend: Backend, jobs: usize, request: &Request<'_>) -> Result<Vec<u8>, Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .expect("a thread pool");
    pool.install(|| hash_with(backend, true, request))
}

#[cfg(feature = "parallel")]
fn pool_runner(threads: bool) -> Runner {
    if threads { Runner::Pool } else { Runner::Here }
}

#[cfg(not(feature = "parallel"))]
fn pool_runner(_threads: bool) -> Runner {
    Runner::Here
}

/// The tree hash of a validated request with tree parameters.
pub(crate) fn hash_tree<const N: usize>(
    backend: Backend,
    out_bits: u64,
    message: &[u8],
    msg_bits: u64,
    params: &Params<'_>,
    runner: Runner,
) -> Vec<u8> {
    let tree = params.tree.expect("tree parameters");
    let nb = N * 8;
    let g = initial_chain::<N>(out_bits, params);
    let max_height = tree.max_height as usize;

    // Level 1: the leaves, Nl = Nb * 2^Yl bytes each; a partial last byte (bit-padded) is the
    // last byte of the last leaf.
    let whole = (msg_bits / 8) as usize;
    let rest = (msg_bits % 8) as u32;
    let tail = (rest != 0).then(|| pad_partial_byte(message[whole], rest));
    let len = whole as u128 + u128::from(tail.is_some());
    let leaf_bytes = tree.leaf_bytes(nb);
    let leaves = len.div_ceil(leaf_bytes).max(1) as usize;
    let mut tasks: Vec<Task<'_, N>> = (0..leaves)
        .map(|i| {
            let start = (i as u128 * leaf_bytes).min(whole as u128) as usize;
            let end = ((i as u128 + 1) * leaf_bytes).min(whole as u128) as usize;
            let last = i + 1 == leaves;
            let segment = Segment {
                data: Cow::Borrowed(&message[start..end]),
                tail: if last { tail } else { None },
                block_type: BlockType::Message,
                level: 1,
                position: i as u128 * leaf_bytes,
                bit_pad: last && tail.is_some(),
            };
            Task::new(g, alloc::vec![segment], 0)
        })
        .collect();
    run_tasks(backend, &mut tasks, runner);
    let mut values: Vec<[u64; N]> = tasks.iter().map(|t| t.chain).collect();
    drop(tasks);

    // Levels 2, 3, ...: nodes of 2^Yf child values, until one value is left, or all of a
    // level in one UBI at the maximum height.
    let node_bytes = (nb as u128) << tree.fan_out.min(100);
    let mut l = 1;
    while values.len() > 1 {
        let mut bytes = alloc::vec![0u8; values.len() * nb];
        for (chunk, v) in bytes.chunks_exact_mut(nb).zip(&values) {
            words_to_bytes(v, chunk);
        }
        let mut tasks: Vec<Task<'_, N>> = if l + 1 == max_height {
            let segment = Segment::message(
                &bytes,
                bytes.len() as u64 * 8,
                BlockType::Message,
                max_height as u8,
                0,
            );
            alloc::vec![Task::new(g, alloc::vec![segment], 0)]
        } else {
            let chunk = node_bytes.min(bytes.len() as u128) as usize;
            bytes
                .chunks(chunk)
                .enumerate()
                .map(|(j, node)| {
                    let segment = Segment::message(
                        node,
                        node.len() as u64 * 8,
                        BlockType::Message,
                        (l + 1) as u8,
                        j as u128 * node_bytes,
                    );
                    Task::new(g, alloc::vec![segment], 0)
                })
                .collect()
        };
        run_tasks(backend, &mut tasks, runner);
        values = tasks.iter().map(|t| t.chain).collect();
        drop(tasks);
        l += 1;
    }
    let mut out = alloc::vec![0u8; out_bits.div_ceil(8) as usize];
    output(&values[0], out_bits, &mut out);
    out
}
