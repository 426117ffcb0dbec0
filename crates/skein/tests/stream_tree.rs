//! The streaming tree (`stream_tree`) against the sequential scalar tree
//! (`skeinhw_skein::hash`, itself checked against the official vectors): random tree shapes
//! (pieces held for the lanes and pieces streamed through one UBI call, the maximum height
//! reached or not), input split at random points, every backend this machine supports forced
//! in turn, on this thread and across threads; readers returning random short reads; the
//! golden file's tree vectors.

use proptest::prelude::*;
use skeinhw_skein::batch::Backend;
use skeinhw_skein::kat::parse_golden;
use skeinhw_skein::stream_tree::{TreeHasher, hash_reader};
use skeinhw_skein::{Params, TreeParams, hash};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

fn backends() -> Vec<Backend> {
    Backend::ALL
        .into_iter()
        .filter(|b| {
            let ok = b.is_available();
            if !ok {
                println!("skipping backend {b}: not available on this machine");
            }
            ok
        })
        .collect()
}

/// Feeds `message` cut at `cuts` (positions taken modulo the length, in any order).
fn streamed(t: &mut TreeHasher, message: &[u8], cuts: &[usize]) {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|c| c % (message.len() + 1))
        .chain([0, message.len()])
        .collect();
    at.sort_unstable();
    for w in at.windows(2) {
        t.update(&message[w[0]..w[1]]);
    }
}

/// A reader giving `data` in reads of the given lengths (cycled; 1 byte at least).
struct ShortReads<'a> {
    data: &'a [u8],
    lengths: Vec<usize>,
    next: usize,
}

impl std::io::Read for ShortReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = self.lengths[self.next % self.lengths.len()].max(1);
        self.next += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random shapes and cuts, every backend, with and without threads.
    #[test]
    fn streamed_equals_sequential(
        message in prop::collection::vec(any::<u8>(), 0..6000),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        drop in 0u32..8,
        state_bits in prop::sample::select(vec![256usize, 512, 1024]),
        leaf in prop_oneof![1u8..4, Just(15u8)],
        fan_out in prop_oneof![1u8..3, Just(15u8)],
        max_height in prop_oneof![2u8..5, Just(255u8)],
    ) {
        let params = Params {
            tree: Some(TreeParams::new(leaf, fan_out, max_height).unwrap()),
            ..Params::default()
        };
        // A partial last byte (bits through the API) when `drop` > 0 and there is a byte.
        let bits = if message.is_empty() { 0 } else { drop };
        let msg_bits = message.len() as u64 * 8 - u64::from(bits);
        let expected = hash(state_bits, 384, &message, msg_bits, &params).unwrap();
        for backend in backends() {
            for threads in [false, true] {
                let mut t = TreeHasher::new(backend, threads, state_bits, 384, &params).unwrap();
                let got = if bits == 0 {
                    streamed(&mut t, &message, &cuts);
                    t.finish()
                } else {
                    let (whole, last) = message.split_at(message.len() - 1);
                    streamed(&mut t, whole, &cuts);
                    t.finish_with_bits(last[0], 8 - bits)
                };
                prop_assert_eq!(&got, &expected, "backend {}, threads {}", backend, threads);
            }
        }
    }

    /// Through the reader thread, with random short reads.
    #[test]
    fn reader_with_short_reads(
        message in prop::collection::vec(any::<u8>(), 0..20000),
        lengths in prop::collection::vec(1usize..5000, 1..8),
        leaf in 1u8..3,
    ) {
        let params = Params {
            tree: Some(TreeParams::new(leaf, 1, 255).unwrap()),
            ..Params::default()
        };
        let expected = hash(512, 512, &message, message.len() as u64 * 8, &params).unwrap();
        for backend in backends() {
            let t = TreeHasher::new(backend, true, 512, 512, &params).unwrap();
            let reader = ShortReads { data: &message, lengths: lengths.clone(), next: 0 };
            let (got, n) = hash_reader(t, reader).unwrap();
            prop_assert_eq!(n, message.len() as u64);
            prop_assert_eq!(&got, &expected, "backend {}", backend);
        }
    }
}

/// More than one read-ahead buffer (stretches of the leaves level hashed at their offsets),
/// through the reader thread, against the sequential tree.
#[test]
fn several_read_buffers() {
    let len = skeinhw_skein::stream_tree::READ_AHEAD + 12_345;
    let message: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
    for (leaf, fan_out, max_height) in [(2, 3, 3), (1, 1, 255)] {
        let params = Params {
            tree: Some(TreeParams::new(leaf, fan_out, max_height).unwrap()),
            ..Params::default()
        };
        let expected = hash(512, 512, &message, len as u64 * 8, &params).unwrap();
        let backend = skeinhw_skein::batch::detected();
        let t = TreeHasher::new(backend, true, 512, 512, &params).unwrap();
        let reader = ShortReads {
            data: &message,
            lengths: vec![100_000, 3, 1 << 20],
            next: 0,
        };
        let (got, n) = hash_reader(t, reader).unwrap();
        assert_eq!(n, len as u64);
        assert_eq!(got, expected, "tree {leaf},{fan_out},{max_height}");
    }
}

/// A read error is returned, not a digest.
#[test]
fn read_error_is_returned() {
    struct Failing(usize);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk on fire"));
            }
            self.0 -= 1;
            buf.fill(1);
            Ok(buf.len())
        }
    }
    let params = Params {
        tree: Some(TreeParams::new(5, 2, 255).unwrap()),
        ..Params::default()
    };
    let t = TreeHasher::new(Backend::Scalar, true, 512, 512, &params).unwrap();
    let e = hash_reader(t, Failing(2)).unwrap_err();
    assert_eq!(e.to_string(), "disk on fire");
}

/// The golden file's tree vectors through the streaming tree, fed in 7-byte stretches, on
/// every backend, on this thread and across threads.
#[test]
fn golden_tree_vectors_through_streaming_tree() {
    let path = format!(
        "{}/../../vectors/skein/skein_golden_kat.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let golden = parse_golden(&std::fs::read_to_string(&path).unwrap());
    let entries: Vec<_> = golden.into_iter().filter(|e| e.tree.is_some()).collect();
    assert!(!entries.is_empty(), "the golden file has tree vectors");
    for backend in backends() {
        for threads in [false, true] {
            for e in &entries {
                let params = Params {
                    key: &e.key,
                    tree: e.tree,
                    ..Params::default()
                };
                let mut t =
                    TreeHasher::new(backend, threads, e.state_bits, e.out_bits, &params).unwrap();
                let whole = (e.msg_bits / 8) as usize;
                let rest = (e.msg_bits % 8) as u32;
                for piece in e.message[..whole].chunks(7) {
                    t.update(piece);
                }
                let got = if rest == 0 {
                    t.finish()
                } else {
                    t.finish_with_bits(e.message[whole], rest)
                };
                assert_eq!(
                    got, e.result,
                    "line {}: {backend}, threads {threads}",
                    e.line
                );
            }
        }
    }
    println!("{} tree vectors checked", entries.len());
}

/// `hash_file` (windows read at their place by the hashing threads) and `hash_file_mapped`
/// (the same windows mapped a round at a time) against the sequential tree: files of 0 bytes,
/// around one window, over several rounds of windows and ending just at the end of a round
/// (`WINDOWS_PER_THREAD` windows a round on one thread, twice that on two: the leaf values of
/// the last full round are still to be fed up when the next round finds the end), tree shapes
/// with 8 or more leaves to a window and one with fewer (through the reader thread), every
/// backend, on this thread, on one and on two threads.
#[test]
fn file_windows_equal_sequential() {
    use skeinhw_skein::stream_tree::{
        FILE_WINDOW, WINDOWS_PER_THREAD, hash_file, hash_file_mapped,
    };
    type HashFile = fn(TreeHasher, &std::fs::File) -> std::io::Result<(Vec<u8>, u64)>;
    // SAFETY (of `hash_file_mapped`): nothing else writes or shrinks the test's file.
    #[allow(unsafe_code)]
    fn mapped(t: TreeHasher, f: &std::fs::File) -> std::io::Result<(Vec<u8>, u64)> {
        unsafe { hash_file_mapped(t, f) }
    }
    let accesses: [(&str, HashFile); 2] = [("read", hash_file), ("mapped", mapped)];
    let w = FILE_WINDOW;
    let round = WINDOWS_PER_THREAD * w;
    let path = std::env::temp_dir().join(format!("skeinhw-file-windows-{}", std::process::id()));
    let sizes = [
        0,
        1,
        65,
        w - 1,
        w,
        w + 64,
        2 * w + 7,
        8 * w,
        round,
        2 * round,
        4 * round + w + 12_345,
    ];
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect();
    for (i, size) in sizes.into_iter().enumerate() {
        let message: Vec<u8> = (0..size).map(|j| (j * 7 + j / 1000 + i) as u8).collect();
        std::fs::write(&path, &message).unwrap();
        for (leaf, fan_out, max_height) in [(5u8, 2u8, 255u8), (1, 1, 3), (9, 1, 255), (10, 2, 4)] {
            let states: &[usize] = if size > 4 * w {
                &[512]
            } else {
                &[256, 512, 1024]
            };
            for &state_bits in states {
                let params = Params {
                    tree: Some(TreeParams::new(leaf, fan_out, max_height).unwrap()),
                    ..Params::default()
                };
                let expected = hash(state_bits, 512, &message, size as u64 * 8, &params).unwrap();
                for (backend, (access, hash_file)) in backends()
                    .into_iter()
                    .flat_map(|b| accesses.iter().map(move |a| (b, *a)))
                {
                    let file = std::fs::File::open(&path).unwrap();
                    // The progress count ends at every byte, whichever way they were taken.
                    let taken = Arc::new(AtomicU64::new(0));
                    let t = TreeHasher::new(backend, false, state_bits, 512, &params)
                        .unwrap()
                        .with_progress(Arc::clone(&taken));
                    let (got, n) = hash_file(t, &file).unwrap();
                    let shape =
                        format!("{size} bytes, {access}, tree {leaf},{fan_out},{max_height}");
                    assert_eq!(n, size as u64, "{shape}");
                    assert_eq!(taken.load(Ordering::Relaxed), n, "{shape}: progress");
                    assert_eq!(
                        got, expected,
                        "{shape}, {state_bits}, {backend}, this thread"
                    );
                    for pool in &pools {
                        let taken = Arc::new(AtomicU64::new(0));
                        let t = TreeHasher::new(backend, true, state_bits, 512, &params)
                            .unwrap()
                            .with_progress(Arc::clone(&taken));
                        let (got, n) = pool.install(|| hash_file(t, &file)).unwrap();
                        assert_eq!(n, size as u64, "{shape}");
                        assert_eq!(taken.load(Ordering::Relaxed), n, "{shape}: progress");
                        assert_eq!(
                            got,
                            expected,
                            "{shape}, {state_bits}, {backend}, {} threads",
                            pool.current_num_threads()
                        );
                    }
                }
            }
        }
    }
    std::fs::remove_file(&path).unwrap();
}
