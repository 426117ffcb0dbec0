//! Skein tree hashing (Skein 1.3, section 3.5.6) of a stream of any length, in memory bounded
//! by the tree height and the read-ahead, with the leaves in SIMD lanes and across threads.
//!
//! Each level of the tree is fed its message (the input for the leaves, the values of the
//! level below for the nodes) a stretch at a time. The whole pieces of a stretch are hashed at
//! once by [`crate::par_tree`]'s level hasher (lanes, rayon) at their place in the level; what
//! is left of a piece waits for the next stretch. Pieces of more than [`LANE_PIECE`] bytes
//! (huge leaves or nodes, and the single node at the maximum height) stream through one
//! sequential UBI call each instead of being held. When the input ends, each level's last
//! piece is hashed bottom-up, and the first level with a single value gives the root, as in
//! the sequential tree of [`crate::Skein`]; the tests check the two are bit-identical.
//!
//! [`hash_reader`] reads on a thread of its own into a few recycled buffers of
//! [`READ_AHEAD`] bytes, so that reading overlaps hashing. [`hash_file`] reads a regular file
//! in windows of [`FILE_WINDOW`] bytes, each read at its place by the task that hashes its
//! leaves: reading is spread over the threads, with no hand-off and the window in cache.
//! [`hash_file_mapped`] maps each round's windows instead, and the lanes read the page cache
//! where it is.
//!
//! Where the time goes (`perf record` of `hash --tree 5,2,255 --jobs 1` on a cached 1 GiB file,
//! one CPU, AMD EPYC Zen 4 (family 25 model 17) with AVX-512, through [`hash_reader`]): 65%
//! Threefish in the eight AVX-512 lanes (the block loads under 5% of that), 30% the kernel
//! copying the page cache into the buffers (`copy_to_iter`, `filemap_get_read_batch`: about 0.15 to 0.2 s a
//! GiB, the same for reads of 128 KiB or 2 MiB), thread hand-off and the upper levels under
//! 2%. In memory (no reading), the leaves in AVX-512 lanes run at 3.5 to 3.65 times plain
//! Skein-512 on one CPU (CPU time). So the ceiling with `read` on one CPU is near 2.6 times
//! plain `hash` (which pays the same copy), and [`hash_file`] does not lower the CPU time
//! (0.61 to 0.67 s a GiB either way, against 1.54 to 1.60 s plain): it balances the reading
//! over the threads. Measured again through [`hash_file`] (`perf record`, same machine): 58%
//! the lanes, 23% `_copy_to_iter`, 3% `filemap_get_read_batch`. A copy of 1 GiB costs 0.10
//! to 0.12 s of system time whatever the window (256 KiB to 2 MiB), with or without huge
//! pages under the buffers or `posix_fadvise(SEQUENTIAL)` (a C loop of `pread`s, one CPU).
//!
//! The copy costs per page, and so does mapping: on Linux 6.18 (ext4), a file read from disk
//! sits in the page cache in large folios, one written 4 KiB at a time in 4 KiB pages. A C
//! loop over 1 GiB spends 0.17 to 0.26 s of system time in `pread` (256 KiB windows) and 0.10
//! to 0.12 s mapping (8 MiB at a time) in 4 KiB pages; 0.10 s and under 0.01 s in large
//! folios. `skeinhw hash --tree 5,2,255 --jobs 1`, one CPU, 1 GiB: 0.54 to 0.56 s read, 0.42
//! s mapped (large folios) and 0.49 to 0.51 s (4 KiB pages), against 1.46 to 1.49 s plain.
//!
//! ```
//! use skeinhw_skein::{Params, TreeParams, batch, stream_tree::TreeHasher};
//! let data = vec![7u8; 100_000];
//! let params = Params { tree: Some(TreeParams::new(2, 2, 255).unwrap()), ..Params::default() };
//! let mut t = TreeHasher::new(batch::detected(), true, 512, 512, &params).unwrap();
//! for piece in data.chunks(777) {
//!     t.update(piece);
//! }
//! let sequential = skeinhw_skein::hash(512, 512, &data, data.len() as u64 * 8, &params).unwrap();
//! assert_eq!(t.finish(), sequential);
//! ```

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use crate::batch::{Backend, Runner};
use crate::constants::BlockType;
use crate::par_tree::Level;
use crate::threefish::words_to_bytes;
use crate::ubi::Ubi;
use crate::{Error, Params, initial_chain, output, pad_partial_byte};

/// Pieces up to this size are held until whole and hashed in lanes; larger ones stream
/// through a sequential UBI call.
pub const LANE_PIECE: u128 = 1 << 20;

/// Bytes of one read-ahead buffer of [`hash_reader`] (a multiple of every piece up to
/// [`LANE_PIECE`], so that stretches cut no leaf); three are in use at most.
pub const READ_AHEAD: usize = 2 << 20;

/// Bytes of one window of [`hash_file`]: read by one task into a buffer of its own and
/// hashed there while it is in the core's cache.
pub const FILE_WINDOW: usize = 256 << 10;

/// Windows per thread in a round of [`hash_file`]. A round ends when all its windows are
/// hashed, so a thread that finishes first waits for the other's last window: with 4 a
/// thread, up to a quarter of a round on two threads. The buffers are one a thread whatever
/// this is; a round holds only its windows' leaf values (8 KiB a window with leaves of 2 KiB).
pub const WINDOWS_PER_THREAD: usize = 32;

/// A streaming tree hash of any state size.
pub struct TreeHasher {
    inner: Inner,
}

enum Inner {
    S256(Tree<4>),
    S512(Tree<8>),
    S1024(Tree<16>),
}

impl TreeHasher {
    /// A tree hasher with these (tree) parameters; `threads` false keeps it on the calling
    /// thread (lanes only), true uses the current rayon pool.
    ///
    /// # Errors
    /// As [`crate::DynSkein::new`]; parameters without tree parameters are refused as
    /// [`Error::TreeParams`] with all three zero.
    ///
    /// # Panics
    /// If this machine cannot run `backend` (see [`Backend::is_available`]).
    pub fn new(
        backend: Backend,
        threads: bool,
        state_bits: usize,
        out_bits: u64,
        params: &Params<'_>,
    ) -> Result<Self, Error> {
        crate::DynSkein::new(state_bits, out_bits, params)?;
        let Some(tree) = params.tree else {
            return Err(Error::TreeParams {
                leaf: 0,
                fan_out: 0,
                max_height: 0,
            });
        };
        assert!(
            backend.is_available(),
            "backend {backend} is not available on this machine"
        );
        let runner = crate::par_tree::pool_runner(threads);
        let inner = match state_bits {
            256 => Inner::S256(Tree::new(backend, runner, out_bits, params, tree)),
            512 => Inner::S512(Tree::new(backend, runner, out_bits, params, tree)),
            _ => Inner::S1024(Tree::new(backend, runner, out_bits, params, tree)),
        };
        Ok(TreeHasher { inner })
    }

    /// Counts into `taken` the message bytes the hasher has taken in (hashed, or held until
    /// their leaf is whole), as it takes them: a progress meter's count, read from another
    /// thread. [`hash_file`] and [`hash_file_mapped`] add a round's bytes when its leaf values
    /// go up the tree, while the next round is hashed.
    pub fn with_progress(mut self, taken: Arc<AtomicU64>) -> Self {
        let t = Some(taken);
        match &mut self.inner {
            Inner::S256(tree) => tree.taken = t,
            Inner::S512(tree) => tree.taken = t,
            Inner::S1024(tree) => tree.taken = t,
        }
        self
    }

    /// Appends message bytes.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.inner {
            Inner::S256(t) => t.feed(0, data),
            Inner::S512(t) => t.feed(0, data),
            Inner::S1024(t) => t.feed(0, data),
        }
    }

    /// The digest of the bytes given.
    pub fn finish(self) -> Vec<u8> {
        self.finish_bits(None)
    }

    /// The digest of the bytes given followed by the first `bits` (1 to 7) bits of `last`
    /// (most significant first), as a message whose length is not a whole number of bytes.
    pub fn finish_with_bits(self, last: u8, bits: u32) -> Vec<u8> {
        assert!((1..8).contains(&bits), "1 to 7 bits of the last byte");
        self.finish_bits(Some(pad_partial_byte(last, bits)))
    }

    fn finish_bits(self, tail: Option<u8>) -> Vec<u8> {
        match self.inner {
            Inner::S256(t) => t.finish(tail),
            Inner::S512(t) => t.finish(tail),
            Inner::S1024(t) => t.finish(tail),
        }
    }
}

/// The tree of state size `N` words.
struct Tree<const N: usize> {
    backend: Backend,
    runner: Runner,
    out_bits: u64,
    g: [u64; N],
    leaf_bytes: u128,
    node_bytes: u128,
    max_height: usize,
    /// Level l + 1 at index l, created when the level below gives its first value.
    levels: Vec<Feed<N>>,
    /// Message bytes taken in, for a progress meter ([`TreeHasher::with_progress`]).
    taken: Option<Arc<AtomicU64>>,
}

impl<const N: usize> Tree<N> {
    fn new(
        backend: Backend,
        runner: Runner,
        out_bits: u64,
        params: &Params<'_>,
        tree: crate::TreeParams,
    ) -> Self {
        let nb = N * 8;
        Tree {
            backend,
            runner,
            out_bits,
            g: initial_chain::<N>(out_bits, params),
            leaf_bytes: tree.leaf_bytes(nb),
            node_bytes: (nb as u128) << tree.fan_out.min(100),
            max_height: tree.max_height as usize,
            levels: Vec::new(),
            taken: None,
        }
    }

    /// Counts `bytes` more message bytes taken in.
    fn took(&self, bytes: usize) {
        if let Some(t) = &self.taken {
            t.fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }

    /// Feeds bytes of the message of level `i + 1`, and what it gives to the levels above.
    fn feed(&mut self, i: usize, data: &[u8]) {
        if i == 0 {
            self.took(data.len());
        }
        self.make_level(i);
        let values = self.levels[i].push(data, self.backend, self.runner, &self.g);
        if !values.is_empty() {
            self.feed(i + 1, &values);
        }
    }

    /// Level `i + 1`'s feed, created when first needed.
    fn make_level(&mut self, i: usize) {
        if i == self.levels.len() {
            let level = i + 1;
            let piece = if level == self.max_height {
                u128::MAX
            } else if level == 1 {
                self.leaf_bytes
            } else {
                self.node_bytes
            };
            self.levels.push(Feed::new(level as u8, piece));
        }
    }

    /// Leaves that [`hash_file`] may hash window by window: at least 8 (a lane group) in a
    /// window, and pieces the lanes take (not the single piece of a tree of height 1).
    #[cfg(all(feature = "parallel", unix))]
    fn file_windows(&self) -> bool {
        self.max_height > 1 && self.leaf_bytes <= (FILE_WINDOW / 8) as u128
    }

    /// Takes `values`, the leaf values of `bytes` message bytes hashed outside (whole leaves
    /// at the current end of the message, none pending), as [`Tree::feed`] would have made
    /// them.
    #[cfg(all(feature = "parallel", unix))]
    fn feed_leaf_values(&mut self, bytes: usize, values: &[u8]) {
        self.make_level(0);
        let leaves = &mut self.levels[0];
        debug_assert!(leaves.pending.is_empty() && leaves.fill == 0);
        leaves.total += bytes as u128;
        leaves.start += bytes as u128;
        self.took(bytes);
        self.feed(1, values);
    }

    /// Hashes `file` from `at` to its end (see [`hash_file`]); returns the bytes read.
    /// With [`Access::Map`], each round's windows are mapped rather than read (see
    /// [`hash_file_mapped`]).
    ///
    /// With threads, a round's leaf values go up the tree while the next round's windows are
    /// read and hashed (`rayon::join`), so that the upper levels, about 4% of the blocks with
    /// the benchmark's fan-out of 4, do not leave the other threads waiting at every round.
    /// A window's bytes are needed only while its leaves are hashed, so each thread reads
    /// into one buffer of its own, window after window: the buffer the kernel copies into and
    /// the lanes read stays in that core's cache (with four buffers a thread in turn, it had
    /// left it by the next read: about 1% of the CPU time, a noisy measurement). A round's
    /// leaf values go up in one piece, so that the upper levels see whole groups of lanes
    /// rather than a window's few nodes at a time.
    #[cfg(all(feature = "parallel", unix))]
    fn feed_file(
        &mut self,
        file: &std::fs::File,
        mut at: u64,
        access: Access,
    ) -> std::io::Result<u64> {
        use rayon::prelude::*;
        use std::sync::{Mutex, PoisonError};
        let start = at;
        let threads = match self.runner {
            Runner::Pool => rayon::current_num_threads(),
            Runner::Here => 1,
        };
        let leaf = self.leaf_bytes as usize;
        let window = FILE_WINDOW / leaf * leaf;
        let windows = WINDOWS_PER_THREAD * threads;
        // Allocated on first use: a mapped file needs them only past the end it had.
        let bufs: Vec<Mutex<Vec<u8>>> = (0..threads).map(|_| Mutex::new(Vec::new())).collect();
        let (backend, g) = (self.backend, self.g);
        // The leaf values of the previous round's windows (all whole, in order), not yet fed
        // up, and the message bytes they stand for.
        let mut previous: Vec<u8> = Vec::new();
        let mut previous_bytes = 0usize;
        loop {
            // One round: every window read and its leaves hashed by one task, in parallel.
            let base = at + previous_bytes as u64;
            let bufs = &bufs;
            let mapped = match access {
                Access::Map => map_round(file, base, windows, window)?,
                Access::Read => None,
            };
            let mapped = mapped.as_deref().unwrap_or_default();
            let hash = move |k: usize| -> std::io::Result<Window> {
                let offset = base + (k * window) as u64;
                let values = |data: &[u8]| {
                    let level = Level {
                        data,
                        tail: None,
                        piece: leaf as u128,
                        level: 1,
                        offset,
                    };
                    Window::Whole(level.values::<N>(backend, Runner::Here, &g))
                };
                if let Some(data) = mapped.get(k * window..(k + 1) * window) {
                    return Ok(values(data));
                }
                // This thread's buffer (a task holds it until its window is hashed, and a
                // task makes no rayon call, so a thread never waits on its own buffer).
                let mine = rayon::current_thread_index().unwrap_or(0) % bufs.len();
                let mut buf = bufs[mine].lock().unwrap_or_else(PoisonError::into_inner);
                buf.resize(window, 0);
                let n = read_at_full(file, &mut buf, offset)?;
                if n < window {
                    return Ok(Window::Short(buf[..n].to_vec()));
                }
                Ok(values(&buf))
            };
            let mut feed_previous = |tree: &mut Self, previous: &mut Vec<u8>, bytes: &mut usize| {
                if *bytes > 0 {
                    tree.feed_leaf_values(*bytes, previous);
                    at += *bytes as u64;
                    previous.clear();
                    *bytes = 0;
                }
            };
            let done: Vec<std::io::Result<Window>> = match self.runner {
                Runner::Pool => {
                    let tree = &mut *self;
                    let previous = &mut previous;
                    let bytes = &mut previous_bytes;
                    rayon::join(
                        || (0..windows).into_par_iter().map(hash).collect(),
                        || feed_previous(tree, previous, bytes),
                    )
                    .0
                }
                Runner::Here => {
                    feed_previous(self, &mut previous, &mut previous_bytes);
                    (0..windows).map(hash).collect()
                }
            };
            // In order, up to the first window the file did not fill (its end, or a file
            // that shrank): that one's bytes are fed as they are and the rest is dropped.
            for r in done {
                match r? {
                    Window::Whole(values) => {
                        previous.extend_from_slice(&values);
                        previous_bytes += window;
                    }
                    Window::Short(bytes) => {
                        feed_previous(self, &mut previous, &mut previous_bytes);
                        self.feed(0, &bytes);
                        at += bytes.len() as u64;
                        return self.feed_rest(file, at, window).map(|m| at + m - start);
                    }
                }
            }
        }
    }

    /// What follows a short window: read on to the end as a stream would be.
    #[cfg(all(feature = "parallel", unix))]
    fn feed_rest(
        &mut self,
        file: &std::fs::File,
        mut at: u64,
        size: usize,
    ) -> std::io::Result<u64> {
        let start = at;
        let mut buf = alloc::vec![0u8; size];
        loop {
            let n = read_at_full(file, &mut buf, at)?;
            if n == 0 {
                return Ok(at - start);
            }
            self.feed(0, &buf[..n]);
            at += n as u64;
        }
    }

    fn finish(mut self, tail: Option<u8>) -> Vec<u8> {
        let nb = N * 8;
        if self.levels.is_empty() {
            self.feed(0, &[]);
        }
        let mut tail = tail;
        let mut i = 0;
        let root = loop {
            let last = self.levels[i].finish(tail.take(), self.backend, self.runner, &self.g);
            if i + 1 == self.max_height {
                break last;
            }
            self.feed(i + 1, &last);
            // A level with a single value is the root; it is still held by the level above,
            // whose pieces are at least two values.
            let above = &self.levels[i + 1];
            if above.total == nb as u128 {
                break above.pending.clone();
            }
            i += 1;
        };
        let root: [u64; N] = crate::threefish::words_from_bytes(&root);
        let mut out = alloc::vec![0u8; self.out_bits.div_ceil(8) as usize];
        output(&root, self.out_bits, &mut out);
        out
    }
}

/// How [`hash_file`] and [`hash_file_mapped`] get a window's bytes.
#[cfg(all(feature = "parallel", unix))]
#[derive(Clone, Copy)]
enum Access {
    /// `pread` into the thread's buffer: the kernel copies the page cache.
    Read,
    /// Each round's whole windows mapped into memory at once, read where they are.
    Map,
}

/// What the task of one file window gives: the leaf values of a full window, or the bytes
/// of a window the file did not fill.
#[cfg(all(feature = "parallel", unix))]
enum Window {
    Whole(Vec<u8>),
    Short(Vec<u8>),
}

/// One level being fed its message.
struct Feed<const N: usize> {
    level: u8,
    /// Bytes of one piece (u128::MAX at the maximum height: one piece).
    piece: u128,
    /// The current piece's bytes not yet hashed (for streamed pieces, the first block and a
    /// byte, until the UBI call starts, so that a single value stays readable).
    pending: Vec<u8>,
    /// A streamed piece's UBI call, once started.
    ubi: Option<Ubi<N>>,
    /// Where the current piece starts in the level's message.
    start: u128,
    /// Bytes of the current piece received.
    fill: u128,
    /// Bytes of the level's message received.
    total: u128,
}

impl<const N: usize> Feed<N> {
    fn new(level: u8, piece: u128) -> Self {
        Feed {
            level,
            piece,
            pending: Vec::new(),
            ubi: None,
            start: 0,
            fill: 0,
            total: 0,
        }
    }

    fn in_lanes(&self) -> bool {
        self.piece <= LANE_PIECE
    }

    fn level_of<'a>(&self, data: &'a [u8], tail: Option<u8>) -> Level<'a> {
        Level {
            data,
            tail,
            piece: self.piece,
            level: self.level,
            offset: self.start as u64,
        }
    }

    /// Takes more of the level's message; returns the values of the pieces it completed.
    fn push(&mut self, mut data: &[u8], backend: Backend, runner: Runner, g: &[u64; N]) -> Vec<u8> {
        self.total += data.len() as u128;
        let mut values = Vec::new();
        if self.in_lanes() {
            let piece = self.piece as usize;
            if !self.pending.is_empty() {
                let take = (piece - self.pending.len()).min(data.len());
                self.pending.extend_from_slice(&data[..take]);
                data = &data[take..];
                if self.pending.len() < piece {
                    return values;
                }
                let pending = core::mem::take(&mut self.pending);
                values = self.level_of(&pending, None).values(backend, runner, g);
                self.start += self.piece;
            }
            let whole = data.len() / piece * piece;
            if whole > 0 {
                let v = self
                    .level_of(&data[..whole], None)
                    .values(backend, runner, g);
                values.extend_from_slice(&v);
                self.start += whole as u128;
            }
            self.pending.extend_from_slice(&data[whole..]);
            self.fill = self.pending.len() as u128;
            return values;
        }
        while !data.is_empty() {
            let take = (self.piece - self.fill).min(data.len() as u128) as usize;
            let (now, rest) = data.split_at(take);
            data = rest;
            self.stream(now, g);
            self.fill += take as u128;
            if self.fill == self.piece {
                let v = self.finish_piece(None, g);
                values.extend_from_slice(&v);
            }
        }
        values
    }

    /// A streamed piece's bytes.
    fn stream(&mut self, data: &[u8], g: &[u64; N]) {
        if let Some(u) = &mut self.ubi {
            u.update(data);
            return;
        }
        self.pending.extend_from_slice(data);
        if self.pending.len() > N * 8 {
            let mut u = Ubi::new(*g, BlockType::Message, self.level, self.start);
            u.update(&self.pending);
            self.pending.clear();
            self.ubi = Some(u);
        }
    }

    /// The value of a streamed piece (ended by its size or by the end of the input).
    fn finish_piece(&mut self, tail: Option<u8>, g: &[u64; N]) -> Vec<u8> {
        let mut u = self
            .ubi
            .take()
            .unwrap_or_else(|| Ubi::new(*g, BlockType::Message, self.level, self.start));
        u.update(&self.pending);
        self.pending.clear();
        if let Some(t) = tail {
            u.update(&[t]);
        }
        let mut out = alloc::vec![0u8; N * 8];
        words_to_bytes(&u.finish(tail.is_some()), &mut out);
        self.start += self.fill;
        self.fill = 0;
        out
    }

    /// The value of the last piece, if it has bytes (or is the only one, even empty).
    fn finish(
        &mut self,
        tail: Option<u8>,
        backend: Backend,
        runner: Runner,
        g: &[u64; N],
    ) -> Vec<u8> {
        if self.fill == 0 && tail.is_none() && self.start > 0 {
            return Vec::new();
        }
        if self.in_lanes() {
            let pending = core::mem::take(&mut self.pending);
            let v = self.level_of(&pending, tail).values(backend, runner, g);
            self.fill = 0;
            v
        } else {
            self.finish_piece(tail, g)
        }
    }
}

/// Hashes everything `reader` gives with `tree`, reading on a thread of its own (buffers of
/// [`READ_AHEAD`] bytes, two ahead at most) while the calling thread hashes; returns the digest
/// and the number of bytes read.
///
/// # Errors
/// The first read error (an interrupted read is retried).
#[cfg(feature = "parallel")]
pub fn hash_reader<R: std::io::Read + Send>(
    mut tree: TreeHasher,
    mut reader: R,
) -> std::io::Result<(Vec<u8>, u64)> {
    use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
    let (full_tx, full_rx): (SyncSender<std::io::Result<Vec<u8>>>, Receiver<_>) = sync_channel(1);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(3);
    std::thread::scope(|s| {
        // Owned here, so that an early return (a read error) releases the reader.
        let empty_tx = empty_tx;
        s.spawn(move || {
            let mut made = 0;
            loop {
                let mut buf = match empty_rx.try_recv() {
                    Ok(b) => b,
                    Err(_) if made < 3 => {
                        made += 1;
                        alloc::vec![0u8; READ_AHEAD]
                    }
                    Err(_) => match empty_rx.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    },
                };
                buf.resize(READ_AHEAD, 0);
                let mut n = 0;
                let mut failed = None;
                while n < buf.len() {
                    match reader.read(&mut buf[n..]) {
                        Ok(0) => break,
                        Ok(k) => n += k,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                buf.truncate(n);
                let end = n < READ_AHEAD || failed.is_some();
                if n > 0 && full_tx.send(Ok(buf)).is_err() {
                    return;
                }
                if let Some(e) = failed {
                    let _ = full_tx.send(Err(e));
                    return;
                }
                if end {
                    return;
                }
            }
        });
        let mut total = 0u64;
        for got in full_rx {
            let buf = got?;
            tree.update(&buf);
            total += buf.len() as u64;
            let _ = empty_tx.try_send(buf);
        }
        Ok((tree.finish(), total))
    })
}

/// Hashes the regular file `file` from its start to its end with `tree`: in rounds of windows
/// of [`FILE_WINDOW`] bytes, each window read at its place (`pread`) and its leaves hashed by
/// one task of the tree's threads (the current rayon pool), so that reading is spread over the threads and each window
/// is hashed while it is in cache, with no hand-off between a reader and the hashers. Trees
/// whose leaves do not fit eight to a window go through [`hash_reader`]. A file that shrinks
/// or grows while it is read is hashed as far as it is read, as a stream would be. Off Unix,
/// [`hash_reader`].
///
/// # Errors
/// The first read error (an interrupted read is retried).
#[cfg(feature = "parallel")]
pub fn hash_file(tree: TreeHasher, file: &std::fs::File) -> std::io::Result<(Vec<u8>, u64)> {
    #[cfg(unix)]
    return hash_file_windows(tree, file, Access::Read);
    #[cfg(not(unix))]
    return hash_reader(tree, file);
}

/// As [`hash_file`], with each round's windows mapped into memory instead of read: the lanes
/// read the page cache where it is, so the kernel's copy (a third of the time of one thread on
/// a cached file) is gone. What lies past the size the file has when a round starts, and any
/// round the system will not map, is read as [`hash_file`] reads it. A round's mapping is
/// `threads * WINDOWS_PER_THREAD * FILE_WINDOW` bytes of the page cache (8 MiB a thread),
/// unmapped when the round is done.
///
/// # Safety
/// No other program may shrink the file while it is hashed: a mapped page past its new end
/// raises `SIGBUS`, which ends the process unless the caller handles it (`skeinhw hash` names
/// the file and exits 1). Nor may it write to the file meanwhile: the bytes would change under
/// a shared slice (with [`hash_file`], such a digest is only of a mix of old and new bytes).
///
/// # Errors
/// The first read error.
#[cfg(feature = "parallel")]
#[allow(unsafe_code)]
pub unsafe fn hash_file_mapped(
    tree: TreeHasher,
    file: &std::fs::File,
) -> std::io::Result<(Vec<u8>, u64)> {
    #[cfg(unix)]
    return hash_file_windows(tree, file, Access::Map);
    #[cfg(not(unix))]
    return hash_reader(tree, file);
}

/// Maps those of `windows` windows of `window` bytes of `file` from `offset` that lie whole
/// within its present size, or none (`None`) where there are none or the system will not map
/// them.
#[cfg(all(feature = "parallel", unix))]
#[allow(unsafe_code)]
fn map_round(
    file: &std::fs::File,
    offset: u64,
    windows: usize,
    window: usize,
) -> std::io::Result<Option<memmap2::Mmap>> {
    let size = file.metadata()?.len();
    let whole = (size.saturating_sub(offset) / window as u64).min(windows as u64) as usize * window;
    if whole == 0 {
        return Ok(None);
    }
    // SAFETY: the caller of `hash_file_mapped` promises that the file neither shrinks nor
    // changes while it is hashed, and the mapping is dropped before that call returns.
    let map = unsafe {
        memmap2::MmapOptions::new()
            .offset(offset)
            .len(whole)
            .map(file)
    };
    Ok(map.ok())
}

#[cfg(all(feature = "parallel", unix))]
fn hash_file_windows(
    mut tree: TreeHasher,
    file: &std::fs::File,
    access: Access,
) -> std::io::Result<(Vec<u8>, u64)> {
    let windows = match &tree.inner {
        Inner::S256(t) => t.file_windows(),
        Inner::S512(t) => t.file_windows(),
        Inner::S1024(t) => t.file_windows(),
    };
    if !windows {
        return hash_reader(tree, ReadAt { file, at: 0 });
    }
    let n = match &mut tree.inner {
        Inner::S256(t) => t.feed_file(file, 0, access)?,
        Inner::S512(t) => t.feed_file(file, 0, access)?,
        Inner::S1024(t) => t.feed_file(file, 0, access)?,
    };
    Ok((tree.finish(), n))
}

/// A file read from a position of its own (not the file's cursor), so that [`hash_file`]
/// hashes it from its start whatever was read through it before.
#[cfg(all(feature = "parallel", unix))]
struct ReadAt<'a> {
    file: &'a std::fs::File,
    at: u64,
}

#[cfg(all(feature = "parallel", unix))]
impl std::io::Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// Reads `buf.len()` bytes of `file` at `offset`, fewer only at its end; returns the count.
#[cfg(all(feature = "parallel", unix))]
fn read_at_full(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
