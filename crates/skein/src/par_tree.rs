//! Skein tree hashing (Skein 1.3, section 3.5.6) of one input held in memory, in parallel.
//!
//! Every leaf is its own UBI call from the same chaining value, and so is every node of a
//! level: a level is a row of equal pieces of one byte string (the message, then the values of
//! the level below), hashed independently. The whole pieces go through the SIMD lanes `L` at
//! a time, all lanes in step from the first block to the Final one in one
//! [`crate::lanes::Run`]; each lane walks its own contiguous stretch of pieces, so that it
//! reads memory straight through as the sequential hasher does; with threads, each rayon task
//! takes a contiguous stretch of many groups. A shorter last piece (or the single node at the maximum height) is one sequential
//! UBI call beside them. Nothing is allocated per piece: a level writes its values as bytes
//! straight into the next level's message. The levels follow each other; the upper levels are
//! small (a level has 2^Yf times fewer values than the one below). The result is bit-identical
//! to the sequential tree of [`crate::Skein`] with `tree` parameters, and the tests check it
//! on the golden file's tree vectors.
//!
//! Speed on AMD Zen 3 with AVX2 (Skein-512, leaves of 4 KiB, nodes of 256 values, 64 MiB):
//! 2.3 times the sequential tree on one core (2.36 on 4 MiB), the ceiling of four AVX2 lanes
//! against the scalar cipher being about 2.4 (`lanes::x86` in the source counts the
//! instructions); on two threads each thread is on a CPU for half the one-thread time, 1.96
//! times (measured as time on a CPU from `/proc/thread-self/schedstat`, because the test
//! machine's two cores were shared with other jobs).
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

use alloc::vec::Vec;
use zeroize::Zeroize;

use crate::batch::{Backend, Request, Runner};
use crate::constants::BlockType;
use crate::lanes::{Run, TWEAK_FINAL};
use crate::threefish::{words_from_bytes, words_to_bytes};
use crate::tweak::Tweak;
use crate::ubi::Ubi;
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
pub(crate) fn pool_runner(threads: bool) -> Runner {
    if threads { Runner::Pool } else { Runner::Here }
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn pool_runner(_threads: bool) -> Runner {
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
    let leaf = Level {
        data: &message[..whole],
        tail,
        piece: tree.leaf_bytes(nb),
        level: 1,
        offset: 0,
    };
    let mut values = leaf.values(backend, runner, &g);

    // Levels 2, 3, ...: nodes of 2^Yf child values, until one value is left, or all of a
    // level in one UBI at the maximum height. `values` holds a level's values as bytes, the
    // next level's message.
    let node_bytes = (nb as u128) << tree.fan_out.min(100);
    let mut l = 1;
    while values.len() > nb {
        let top = l + 1 == max_height;
        let level = Level {
            data: &values,
            tail: None,
            piece: if top { u128::MAX } else { node_bytes },
            level: (l + 1) as u8,
            offset: 0,
        };
        values = level.values(backend, runner, &g);
        l += 1;
    }
    let root = words_from_bytes::<N>(&values);
    let mut out = alloc::vec![0u8; out_bits.div_ceil(8) as usize];
    output(&root, out_bits, &mut out);
    out
}

/// One level of the tree: the message `data` (then the bit-padded byte `tail`) cut into
/// pieces of `piece` bytes (the last one shorter), each hashed by its own UBI call from the
/// same chaining value at tree level `level`, piece j at Position offset `offset` + j * `piece`
/// (`offset` is where `data` starts in the level's message: the streaming tree hashes a level
/// a stretch at a time).
pub(crate) struct Level<'a> {
    pub data: &'a [u8],
    pub tail: Option<u8>,
    pub piece: u128,
    pub level: u8,
    pub offset: u64,
}

impl Level<'_> {
    /// The pieces' UBI results, as consecutive little-endian words (the next level's message).
    ///
    /// The whole pieces (every piece but a shorter or bit-padded last one) go through the lanes
    /// `L` at a time, one [`crate::lanes::Run`] per group: all lanes in step, from the first
    /// block to the Final one, the chaining values in registers throughout and nothing
    /// allocated ([`Level::whole_pieces`]). With threads, contiguous runs of many groups
    /// are spread over the rayon pool. A last piece that is not whole (or the single UBI at
    /// the maximum height) is one sequential UBI call on this thread, beside the others.
    pub(crate) fn values<const N: usize>(
        &self,
        backend: Backend,
        runner: Runner,
        g: &[u64; N],
    ) -> Vec<u8> {
        let nb = N * 8;
        let len = self.data.len() as u128 + u128::from(self.tail.is_some());
        let count = len.div_ceil(self.piece).max(1) as usize;
        let whole = if self.piece <= self.data.len() as u128 {
            self.data.len() / self.piece as usize
        } else {
            0
        };
        let mut out = alloc::vec![0u8; count * nb];
        let (whole_out, rest_out) = out.split_at_mut(whole * nb);
        let mut rest = move || {
            if whole < count {
                let start = whole * (self.piece.min(len) as usize);
                let mut u = Ubi::new(
                    *g,
                    BlockType::Message,
                    self.level,
                    u128::from(self.offset) + whole as u128 * self.piece,
                );
                u.update(&self.data[start..]);
                if let Some(t) = self.tail {
                    u.update(&[t]);
                }
                words_to_bytes(&u.finish(self.tail.is_some()), rest_out);
            }
        };
        let pieces = |first: usize, out: &mut [u8]| match backend {
            Backend::Scalar => {
                self.whole_pieces::<N, 1>(crate::lanes::run_scalar::<N>, g, first, out);
            }
            Backend::Portable8 => {
                self.whole_pieces::<N, 8>(crate::lanes::run_portable8::<N>, g, first, out);
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => {
                self.whole_pieces::<N, 4>(crate::lanes::x86::run_avx2::<N>, g, first, out);
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                self.whole_pieces::<N, 8>(crate::lanes::x86::run_avx512::<N>, g, first, out);
            }
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx2 | Backend::Avx512 => unreachable!("never available off x86-64"),
        };
        match runner {
            Runner::Here => {
                pieces(0, whole_out);
                rest();
            }
            #[cfg(feature = "parallel")]
            Runner::Pool => {
                use rayon::prelude::*;
                // Chunks of whole groups of lanes, 16 per thread, so that a thread that finishes
                // early (or shares its core) takes more and the last chunk is short: for the
                // 64 MiB benchmark on two threads, 32 chunks of 2 MiB.
                let lanes = backend.lanes();
                let groups = whole.div_ceil(lanes);
                let chunk = groups.div_ceil(16 * rayon::current_num_threads()).max(1) * lanes;
                rayon::join(
                    || {
                        whole_out
                            .par_chunks_mut(chunk * nb)
                            .enumerate()
                            .for_each(|(c, out)| pieces(c * chunk, out));
                    },
                    rest,
                );
            }
        }
        out
    }

    /// The UBI results of the whole pieces `first..first + out.len() / Nb`, written to `out`,
    /// `L` pieces at a time through `run`. With R = floor(count / L), lane l hashes pieces
    /// l R, l R + 1, ..., l R + R - 1 one after the other (4% faster on 64 MiB than lane l
    /// taking every L-th piece, whose lanes each read one 4 KiB leaf and jump). The pieces left
    /// over (fewer than the lanes) are a last group whose idle lanes hash a busy lane's piece
    /// again (their results dropped), or for a single piece the scalar run, faster than one
    /// busy lane of several.
    fn whole_pieces<const N: usize, const L: usize>(
        &self,
        run: Run<N, L>,
        g: &[u64; N],
        first: usize,
        out: &mut [u8],
    ) {
        let nb = N * 8;
        let piece = self.piece as usize;
        let steps = piece / nb;
        let t1 = Tweak {
            first: true,
            ..Tweak::start(BlockType::Message, self.level, 0)
        }
        .words()[1];
        let mut chain = [[0u64; L]; N];
        // Lane l walks its own contiguous stretch of the pieces (l * rows + n for n = 0, 1,
        // ...), so that every lane reads memory straight through like the sequential hasher.
        let count = out.len() / nb;
        let rows = if L > 1 { count / L } else { count };
        for n in 0..rows {
            let mut data = [&self.data[..0]; L];
            let mut t0 = [0u64; L];
            for l in 0..L {
                let j = first + l * rows + n;
                data[l] = &self.data[j * piece..(j + 1) * piece];
                t0[l] = self.offset + (j * piece + nb) as u64;
            }
            for (c, w) in chain.iter_mut().zip(g) {
                *c = [*w; L];
            }
            run(&mut chain, data, [t0, [t1; L]], [TWEAK_FINAL; L], steps);
            // Lane l's value is piece l * rows + n.
            let values = out.chunks_exact_mut(nb).skip(n).step_by(rows);
            for (l, value) in values.take(L).enumerate() {
                let v: [u64; N] = core::array::from_fn(|i| chain[i][l]);
                words_to_bytes(&v, value);
            }
        }
        let done = rows * L;
        let busy = count - done;
        if busy == 1 {
            let mut one = [[0u64; 1]; N];
            for (c, w) in one.iter_mut().zip(g) {
                c[0] = *w;
            }
            let start = first + done;
            let data = &self.data[start * piece..(start + 1) * piece];
            let t0 = self.offset + (start * piece + nb) as u64;
            crate::lanes::run_scalar::<N>(&mut one, [data], [[t0], [t1]], [TWEAK_FINAL], steps);
            let v: [u64; N] = core::array::from_fn(|i| one[i][0]);
            words_to_bytes(&v, &mut out[done * nb..]);
            one.zeroize();
        } else if busy > 1 {
            let start = first + done;
            let mut data = [&self.data[..0]; L];
            let mut t0 = [0u64; L];
            for l in 0..L {
                // Idle lanes hash the group's first piece again.
                let j = start + if l < busy { l } else { 0 };
                data[l] = &self.data[j * piece..(j + 1) * piece];
                t0[l] = self.offset + (j * piece + nb) as u64;
            }
            for (c, w) in chain.iter_mut().zip(g) {
                *c = [*w; L];
            }
            run(&mut chain, data, [t0, [t1; L]], [TWEAK_FINAL; L], steps);
            for (l, value) in out[done * nb..].chunks_exact_mut(nb).enumerate() {
                let v: [u64; N] = core::array::from_fn(|i| chain[i][l]);
                words_to_bytes(&v, value);
            }
        }
        chain.zeroize();
    }
}
