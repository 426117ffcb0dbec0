//! Many streams side by side in the lanes (`stream_lanes`) against the sequential scalar path
//! (`skeinhw_skein::hash`, itself checked against the official vectors): many streams of mixed
//! lengths (0, short, around the lane buffer's refill points, several buffers), readers giving
//! random short reads, every state size, keys and personalization, every backend this machine
//! supports forced in turn, on this thread and across threads; open and read errors reported
//! for their stream only; a `done` that says stop.

use skeinhw_skein::lanes::speed::LaneSpeeds;
use std::io::Read;
use std::sync::Mutex;

use proptest::prelude::*;
use skeinhw_skein::batch::Backend;
use skeinhw_skein::stream_lanes::{LANE_BUFFER, hash_streams};
use skeinhw_skein::{Error, Params, TreeParams, hash};

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

/// A reader giving `data` in reads of the given lengths (cycled; 1 byte at least).
struct ShortReads<'a> {
    data: &'a [u8],
    lengths: &'a [usize],
    next: usize,
}

impl Read for ShortReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = self.lengths[self.next % self.lengths.len()].max(1);
        self.next += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

type Results = Vec<Option<std::io::Result<(Vec<u8>, u64)>>>;

/// Every stream's result through `hash_streams`, checking each is reported once.
fn lanes(
    backend: Backend,
    threads: bool,
    state_bits: usize,
    out_bits: u64,
    params: &Params<'_>,
    files: &[Vec<u8>],
    reads: &[usize],
) -> Results {
    let results: Mutex<Results> = Mutex::new((0..files.len()).map(|_| None).collect());
    hash_streams(
        backend,
        threads,
        state_bits,
        out_bits,
        params,
        files.len(),
        |i| {
            Ok(ShortReads {
                data: &files[i],
                lengths: reads,
                next: i,
            })
        },
        |i, r| {
            let mut all = results.lock().unwrap();
            assert!(all[i].is_none(), "stream {i} reported twice");
            all[i] = Some(r);
            true
        },
    )
    .unwrap();
    results.into_inner().unwrap()
}

/// Lengths that matter: empty, within a block, block edges, the refill points of the lane
/// buffer (half of it and all of it) and beyond.
fn length() -> impl Strategy<Value = usize> {
    let half = LANE_BUFFER / 2;
    prop_oneof![
        Just(0usize),
        0usize..300,
        (0usize..3, 0usize..3).prop_map(|(k, d)| 128 * k + 63 + d),
        (half - 130..half + 130),
        (LANE_BUFFER - 130..LANE_BUFFER + 130),
        (LANE_BUFFER..3 * LANE_BUFFER),
    ]
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    (length(), any::<u64>()).prop_map(|(len, seed)| {
        (0..len)
            .map(|i| ((i as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn streams_equal_the_scalar_path(
        files in prop::collection::vec(file(), 0..11),
        state_bits in prop::sample::select(vec![256usize, 512, 1024]),
        out_bits in prop_oneof![Just(512u64), 1u64..1100],
        key in prop_oneof![Just(Vec::new()), prop::collection::vec(any::<u8>(), 1..40)],
        personalization in prop::option::of(prop::collection::vec(any::<u8>(), 0..40)),
        reads in prop::collection::vec(1usize..200_000, 1..5),
        threads in any::<bool>(),
    ) {
        let params = Params {
            key: &key,
            personalization: personalization.as_deref(),
            ..Params::default()
        };
        let expected: Vec<Vec<u8>> = files
            .iter()
            .map(|f| hash(state_bits, out_bits, f, f.len() as u64 * 8, &params).unwrap())
            .collect();
        for backend in backends() {
            let got = lanes(backend, threads, state_bits, out_bits, &params, &files, &reads);
            for (i, (g, e)) in got.into_iter().zip(&expected).enumerate() {
                let (digest, len) = g.expect("every stream reported").unwrap();
                prop_assert_eq!(len, files[i].len() as u64, "length of stream {}", i);
                prop_assert_eq!(&digest, e, "stream {} of {} ({} bytes), {}", i, files.len(), files[i].len(), backend);
            }
        }
    }
}

/// A reader that fails after `after` bytes.
struct Failing {
    left: usize,
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = self.left.min(buf.len()).min(1000);
        buf[..n].fill(7);
        self.left -= n;
        Ok(n)
    }
}

/// A stream's digest or its error's message.
type Outcome = Result<Vec<u8>, String>;

#[test]
fn errors_are_reported_for_their_stream_only() {
    for backend in backends() {
        let good = vec![5u8; 300_000];
        let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; 5]);
        hash_streams(
            backend,
            true,
            512,
            512,
            &Params::default(),
            5,
            |i| -> std::io::Result<Box<dyn Read>> {
                match i {
                    1 => Err(std::io::Error::other("cannot open")),
                    3 => Ok(Box::new(Failing { left: 200_000 })),
                    _ => Ok(Box::new(&good[..])),
                }
            },
            |i, r| {
                results.lock().unwrap()[i] = Some(r.map(|d| d.0).map_err(|e| e.to_string()));
                true
            },
        )
        .unwrap();
        let expected = hash(512, 512, &good, good.len() as u64 * 8, &Params::default()).unwrap();
        let results = results.into_inner().unwrap();
        for (i, r) in results.into_iter().enumerate() {
            match i {
                1 => assert_eq!(r, Some(Err("cannot open".into())), "{backend}"),
                3 => assert_eq!(r, Some(Err("disk on fire".into())), "{backend}"),
                _ => assert_eq!(r, Some(Ok(expected.clone())), "{backend}"),
            }
        }
    }
}

#[test]
fn done_returning_false_stops() {
    let data = vec![1u8; 1000];
    let reported = Mutex::new(0usize);
    hash_streams(
        Backend::Scalar,
        false,
        512,
        256,
        &Params::default(),
        100,
        |_| Ok(&data[..]),
        |_, _| {
            *reported.lock().unwrap() += 1;
            false
        },
    )
    .unwrap();
    assert_eq!(
        reported.into_inner().unwrap(),
        1,
        "one lane: stops after the first"
    );
}

#[test]
fn tree_parameters_and_bad_sizes_are_refused() {
    let params = Params {
        tree: Some(TreeParams::new(1, 1, 2).unwrap()),
        ..Params::default()
    };
    let never = |_: usize| -> std::io::Result<&[u8]> { panic!("nothing is opened") };
    let r = hash_streams(
        Backend::Scalar,
        false,
        512,
        512,
        &params,
        1,
        never,
        |_, _| true,
    );
    assert_eq!(r, Err(Error::TreeNotStreamed));
    let r = hash_streams(
        Backend::Scalar,
        false,
        384,
        512,
        &Params::default(),
        1,
        never,
        |_, _| true,
    );
    assert_eq!(r, Err(Error::UnknownSize(384)));
    let r = hash_streams(
        Backend::Scalar,
        false,
        512,
        0,
        &Params::default(),
        1,
        never,
        |_, _| true,
    );
    assert_eq!(r, Err(Error::ZeroOutputLength));
}

/// Issue 34: with more threads than full lane workers, a worker's share of the streams picks
/// the backend with the most blocks per second once empty lanes count (Zen 4's measured lane
/// speeds: scalar 1, AVX2 2.7, AVX-512 3.8): one stream a worker runs the scalar chain, two to
/// five the four AVX2 lanes, six or more the eight AVX-512 lanes.
#[test]
fn a_worker_with_few_streams_takes_a_narrower_backend() {
    use skeinhw_skein::stream_lanes::worker_backend;
    let pick = |widest, s, avx2| worker_backend(&LaneSpeeds::ZEN4, widest, s, avx2);
    assert_eq!(pick(Backend::Avx512, 1, true), Backend::Scalar);
    assert_eq!(pick(Backend::Avx512, 2, true), Backend::Avx2);
    assert_eq!(pick(Backend::Avx512, 5, true), Backend::Avx2);
    assert_eq!(pick(Backend::Avx512, 6, true), Backend::Avx512);
    assert_eq!(pick(Backend::Avx512, 100, true), Backend::Avx512);
    // Without AVX2 the choice is scalar or AVX-512 (2 of 8 lanes: 0.95, under scalar; 3: 1.4).
    assert_eq!(pick(Backend::Avx512, 2, false), Backend::Scalar);
    assert_eq!(pick(Backend::Avx512, 3, false), Backend::Avx512);
    assert_eq!(pick(Backend::Avx2, 1, true), Backend::Scalar);
    assert_eq!(pick(Backend::Avx2, 2, true), Backend::Avx2);
    // A forced backend is never widened, and the portable lanes keep full workers.
    assert_eq!(pick(Backend::Scalar, 64, true), Backend::Scalar);
    assert_eq!(pick(Backend::Portable8, 8, true), Backend::Portable8);
    assert_eq!(pick(Backend::Portable8, 7, true), Backend::Scalar);
}

/// On a full-width AVX-512 core (Zen 5's whole-process speeds: scalar 19.0, AVX2 29.2,
/// AVX-512 76.9 M blocks/s) half-empty AVX-512 lanes beat the others from two streams (2 of 8
/// lanes: 19.2 against scalar 19.0 and AVX2's 2 of 4, 14.6); AVX2 is never the choice, where
/// Zen 4 takes it for two to five streams.
#[test]
fn a_full_width_core_keeps_avx512_for_fewer_streams() {
    use skeinhw_skein::stream_lanes::worker_backend;
    let pick = |s| worker_backend(&LaneSpeeds::ZEN5, Backend::Avx512, s, true);
    assert_eq!(pick(1), Backend::Scalar);
    for streams in 2..=9 {
        assert_eq!(pick(streams), Backend::Avx512, "{streams} streams");
    }
}

/// How many workers: the plan with most blocks a second, more workers only for 5% more.
/// Measured on the Zen 5 this was written on (`hash --jobs 1` and `--jobs 2`, 8 files of 256
/// MiB, before the plan): one AVX-512 worker took 0.53 s, two AVX2 workers 0.64 s.
#[test]
fn workers_are_started_only_where_they_hash_more() {
    use skeinhw_skein::stream_lanes::{Plan, plan};
    let p = |speeds: &LaneSpeeds, threads, streams| {
        plan(speeds, Backend::Avx512, true, threads, streams)
    };
    let of = |workers, backend| Plan { workers, backend };
    // 8 files, 2 threads: Zen 4 gains from two AVX2 workers (73 against 51.3); Zen 5 does
    // not (two half-empty AVX-512 workers: 76.9, the same as one full one).
    assert_eq!(p(&LaneSpeeds::ZEN4, 2, 8), of(2, Backend::Avx2));
    assert_eq!(p(&LaneSpeeds::ZEN5, 2, 8), of(1, Backend::Avx512));
    // 16 files: two full AVX-512 workers on two threads; 16 scalar chains on 16 threads.
    assert_eq!(p(&LaneSpeeds::ZEN5, 2, 16), of(2, Backend::Avx512));
    assert_eq!(p(&LaneSpeeds::ZEN4, 16, 16), of(16, Backend::Scalar));
    assert_eq!(p(&LaneSpeeds::ZEN5, 16, 16), of(16, Backend::Scalar));
    // Many files on many threads: every worker full.
    assert_eq!(p(&LaneSpeeds::ZEN5, 16, 1000), of(16, Backend::Avx512));
    // One file, or one thread: one worker, its lanes chosen for the streams it has.
    assert_eq!(p(&LaneSpeeds::ZEN5, 16, 1), of(1, Backend::Scalar));
    assert_eq!(p(&LaneSpeeds::ZEN4, 1, 4), of(1, Backend::Avx2));
    assert_eq!(p(&LaneSpeeds::ZEN5, 1, 4), of(1, Backend::Avx512));
    // No stream at all is one idle worker, not a division by zero.
    assert_eq!(p(&LaneSpeeds::ZEN5, 4, 0).workers, 1);
}
