//! The batch and parallel tree paths against the sequential scalar path (`skeinhw_skein::hash`,
//! itself checked against the official vectors): random batches of mixed sizes, lengths (0 and
//! bit lengths included) and optional arguments; every lane count; the golden file's tree
//! vectors through the parallel tree. Each backend this machine supports is forced in turn;
//! the others are skipped with a message on the test output (`--nocapture` shows it).

use proptest::prelude::*;
use skeinhw_skein::batch::{self, Backend, Request};
use skeinhw_skein::kat::parse_golden;
use skeinhw_skein::{Params, TreeParams, hash, par_tree};

/// The backends to test, printing the ones skipped.
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

fn sequential(r: &Request<'_>) -> Vec<u8> {
    hash(r.state_bits, r.out_bits, r.message, r.msg_bits, &r.params).unwrap()
}

/// Owned request data for proptest.
#[derive(Clone, Debug)]
struct Owned {
    state_bits: usize,
    out_bits: u64,
    message: Vec<u8>,
    msg_bits: u64,
    key: Vec<u8>,
    extras: [Option<Vec<u8>>; 4],
    tree: Option<TreeParams>,
}

impl Owned {
    fn request(&self) -> Request<'_> {
        Request {
            state_bits: self.state_bits,
            out_bits: self.out_bits,
            message: &self.message,
            msg_bits: self.msg_bits,
            params: Params {
                key: &self.key,
                personalization: self.extras[0].as_deref(),
                public_key: self.extras[1].as_deref(),
                key_id: self.extras[2].as_deref(),
                nonce: self.extras[3].as_deref(),
                tree: self.tree,
            },
        }
    }
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..=max)
}

fn owned() -> impl Strategy<Value = Owned> {
    (
        prop::sample::select(vec![256usize, 512, 1024]),
        prop_oneof![Just(256u64), Just(512), Just(1024), 1u64..1100],
        // Lengths around block boundaries are the interesting ones; up to 5 blocks of 1024.
        prop_oneof![bytes(3), bytes(140), bytes(700)],
        0u32..8,
        prop_oneof![Just(Vec::new()), bytes(150)],
        prop::array::uniform4(prop::option::of(bytes(70))),
        prop::option::weighted(0.2, (1u8..3, 1u8..3, 2u8..5)),
    )
        .prop_map(|(state_bits, out_bits, message, drop, key, extras, tree)| {
            // Whole bytes or a partial last byte (dropping 0..8 bits of the last byte).
            let msg_bits = (message.len() as u64 * 8).saturating_sub(u64::from(drop));
            Owned {
                state_bits,
                out_bits,
                message,
                msg_bits,
                key,
                extras,
                tree: tree.map(|(l, f, h)| TreeParams::new(l, f, h).unwrap()),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A random batch equals the sequential path, message by message, on every backend.
    #[test]
    fn random_batches_equal_scalar(batch in prop::collection::vec(owned(), 0..12)) {
        let requests: Vec<Request> = batch.iter().map(Owned::request).collect();
        let expected: Vec<Vec<u8>> = requests.iter().map(sequential).collect();
        for backend in backends() {
            let got = batch::hash_batch_with(backend, &requests).unwrap();
            prop_assert_eq!(&got, &expected, "backend {}", backend);
            let got = batch::hash_batch_parallel(backend, &requests).unwrap();
            prop_assert_eq!(&got, &expected, "backend {} across threads", backend);
        }
    }

    /// The parallel tree equals the sequential tree on random inputs (several levels, bit
    /// lengths, the maximum height reached).
    #[test]
    fn random_trees_equal_sequential(
        message in bytes(5000),
        drop in 0u32..8,
        state_bits in prop::sample::select(vec![256usize, 512, 1024]),
        leaf in 1u8..4, fan_out in 1u8..3, max_height in prop_oneof![2u8..5, Just(255u8)],
    ) {
        let msg_bits = (message.len() as u64 * 8).saturating_sub(u64::from(drop));
        let params = Params {
            tree: Some(TreeParams::new(leaf, fan_out, max_height).unwrap()),
            ..Params::default()
        };
        let request = Request { msg_bits, params, ..Request::new(state_bits, 384, &message) };
        let expected = sequential(&request);
        for backend in backends() {
            for threads in [false, true] {
                let got = par_tree::hash_with(backend, threads, &request).unwrap();
                prop_assert_eq!(&got, &expected, "backend {}, threads {}", backend, threads);
            }
        }
    }
}

/// Batches of 1 to lanes + 1 messages (every lane count, plus one message waiting for a lane)
/// of mixed lengths, for each size.
#[test]
fn every_lane_count() {
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 256) as u8).collect();
    for backend in backends() {
        for state_bits in [256, 512, 1024] {
            for n in 1..=backend.lanes() + 1 {
                let requests: Vec<Request> = (0..n)
                    .map(|i| Request::new(state_bits, 512, &data[..(i * 397) % 3000]))
                    .collect();
                let expected: Vec<Vec<u8>> = requests.iter().map(sequential).collect();
                let got = batch::hash_batch_with(backend, &requests).unwrap();
                assert_eq!(got, expected, "{backend}, Skein-{state_bits}, {n} messages");
            }
        }
    }
}

/// The edges of the lanes' runs of whole blocks: messages of exactly k blocks (the Final
/// block whole, inside a run), one byte more or less (a partial last block, a single job),
/// empty; bit lengths; digests of one and of several output blocks (the first output block is
/// a run, later ones single jobs); keyed and plain mixed, so that the lanes reach their
/// boundaries at different steps. Every size, every backend, every batch size up to two more
/// than the lanes.
#[test]
fn run_boundaries() {
    let data: Vec<u8> = (0..9 * 128 + 2u32)
        .map(|i| (i * 13 + i / 7) as u8)
        .collect();
    for backend in backends() {
        for state_bits in [256usize, 512, 1024] {
            let nb = state_bits / 8;
            let mut requests = Vec::new();
            for k in 0..=8usize {
                for len in [k * nb, (k * nb).saturating_sub(1), k * nb + 1] {
                    for (j, out_bits) in [state_bits as u64, 3 * 8 * nb as u64 + 5, 8]
                        .into_iter()
                        .enumerate()
                    {
                        let key: &[u8] = if (k + j) % 3 == 0 { &data[..nb] } else { &[] };
                        let drop = (k as u64 * 3 + j as u64) % 8;
                        requests.push(Request {
                            msg_bits: (len as u64 * 8).saturating_sub(drop),
                            params: Params {
                                key,
                                ..Params::default()
                            },
                            ..Request::new(state_bits, out_bits, &data[..len])
                        });
                    }
                }
            }
            let expected: Vec<Vec<u8>> = requests.iter().map(sequential).collect();
            let got = batch::hash_batch_with(backend, &requests).unwrap();
            assert_eq!(got, expected, "{backend}, Skein-{state_bits}, all at once");
            for n in 1..=backend.lanes() + 2 {
                for (c, chunk) in requests.chunks(n).enumerate().step_by(5) {
                    let got = batch::hash_batch_with(backend, chunk).unwrap();
                    let want = &expected[c * n..c * n + chunk.len()];
                    assert_eq!(got, want, "{backend}, Skein-{state_bits}, batches of {n}");
                }
            }
        }
    }
}

/// Trees of 1 to 13 leaves, whole or with a shorter (or bit-padded) last leaf: every count of
/// whole pieces modulo the lanes (a group with idle lanes, a single piece on the scalar lane),
/// on the levels above too, with and without threads and a maximum height.
#[test]
fn tree_piece_counts() {
    let data: Vec<u8> = (0..13 * 4 * 128u32)
        .map(|i| (i * 29 + i / 5) as u8)
        .collect();
    for backend in backends() {
        for state_bits in [256usize, 512, 1024] {
            let leaf_bytes = state_bits / 8 * 4;
            for leaves in 1..=13usize {
                for (cut, drop) in [(0, 0), (1, 0), (0, 3), (leaf_bytes - 1, 0)] {
                    let len = leaves * leaf_bytes - cut;
                    for (fan_out, max_height) in [(1u8, 255u8), (2, 3), (1, 2)] {
                        let params = Params {
                            tree: Some(TreeParams::new(2, fan_out, max_height).unwrap()),
                            ..Params::default()
                        };
                        let request = Request {
                            params,
                            msg_bits: len as u64 * 8 - drop,
                            ..Request::new(state_bits, 256, &data[..len])
                        };
                        let expected = sequential(&request);
                        for threads in [false, true] {
                            let got = par_tree::hash_with(backend, threads, &request).unwrap();
                            assert_eq!(
                                got, expected,
                                "{backend}, Skein-{state_bits}, {leaves} leaves less {cut} bytes \
                                 and {drop} bits, Yf {fan_out}, Ym {max_height}, threads {threads}"
                            );
                        }
                    }
                }
            }
        }
    }
}

fn golden() -> Vec<skeinhw_skein::kat::GoldenEntry> {
    let path = format!(
        "{}/../../vectors/skein/skein_golden_kat.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_golden(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
}

/// The golden file's tree vectors through the parallel tree path, on every backend, on this
/// thread and across threads.
#[test]
fn golden_tree_vectors_through_parallel_tree() {
    let entries: Vec<_> = golden().into_iter().filter(|e| e.tree.is_some()).collect();
    assert!(!entries.is_empty(), "the golden file has tree vectors");
    for backend in backends() {
        for threads in [false, true] {
            for e in &entries {
                let request = Request {
                    state_bits: e.state_bits,
                    out_bits: e.out_bits,
                    message: &e.message,
                    msg_bits: e.msg_bits,
                    params: Params {
                        key: &e.key,
                        tree: e.tree,
                        ..Params::default()
                    },
                };
                let got = par_tree::hash_with(backend, threads, &request).unwrap();
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

/// The whole golden file (plain, MAC, tree) as one batch.
#[test]
fn golden_file_as_one_batch() {
    let entries = golden();
    let requests: Vec<Request> = entries
        .iter()
        .map(|e| Request {
            state_bits: e.state_bits,
            out_bits: e.out_bits,
            message: &e.message,
            msg_bits: e.msg_bits,
            params: Params {
                key: &e.key,
                tree: e.tree,
                ..Params::default()
            },
        })
        .collect();
    for backend in backends() {
        let got = batch::hash_batch_with(backend, &requests).unwrap();
        for (e, d) in entries.iter().zip(&got) {
            assert_eq!(d, &e.result, "line {}: {backend}", e.line);
        }
    }
}

/// A tree input large enough for many leaves per thread and three levels.
#[test]
fn large_tree_equals_sequential() {
    let data: Vec<u8> = (0..(3 << 20) + 77u32)
        .map(|i| (i ^ (i >> 9)) as u8)
        .collect();
    for (leaf, fan_out, max_height) in [(1, 1, 255), (3, 2, 255), (2, 1, 3), (6, 8, 2)] {
        let params = Params {
            tree: Some(TreeParams::new(leaf, fan_out, max_height).unwrap()),
            ..Params::default()
        };
        let request = Request {
            params,
            msg_bits: data.len() as u64 * 8 - 3,
            ..Request::new(512, 512, &data)
        };
        let expected = sequential(&request);
        for backend in backends() {
            let got = par_tree::hash_jobs(backend, 2, &request).unwrap();
            assert_eq!(
                got, expected,
                "{backend}, tree {leaf},{fan_out},{max_height}"
            );
        }
    }
}

/// Errors are those of `hash`, before anything is hashed.
#[test]
fn invalid_requests_are_rejected() {
    let bad_size = Request::new(384, 256, b"abc");
    assert!(batch::hash_batch(&[Request::new(256, 256, b""), bad_size]).is_err());
    let zero_out = Request::new(512, 0, b"abc");
    assert!(batch::hash_batch(&[zero_out]).is_err());
    let too_many_bits = Request {
        msg_bits: 25,
        ..Request::new(512, 256, b"abc")
    };
    assert!(batch::hash_batch(&[too_many_bits]).is_err());
    assert!(par_tree::hash(&too_many_bits).is_err());
    assert_eq!(batch::hash_batch(&[]).unwrap(), Vec::<Vec<u8>>::new());
}

/// The backend chosen at run time is one the machine has, and says which.
#[test]
fn detected_backend_is_available() {
    let b = batch::detected();
    assert!(b.is_available());
    println!("detected backend: {b} ({} lanes)", b.lanes());
}
