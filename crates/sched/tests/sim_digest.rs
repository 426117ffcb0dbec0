//! The digest that leaves the simulated datapath equals the library's `hash` of the same input,
//! for every preset at every size it allows, with random messages (any bit length), keys,
//! optional arguments and tree parameters; and several messages interleave in pipelines.

use proptest::prelude::*;
use skeinhw_sched::sim::{Job, NullSink, simulate};
use skeinhw_sched::{Schedule, StateSize, preset_names, preset_spec};
use skeinhw_skein::{Params, TreeParams};

/// Every preset at every size its rules allow.
fn all_schedules() -> Vec<Schedule> {
    let mut out = Vec::new();
    for name in preset_names() {
        for size in StateSize::ALL {
            let mut spec = preset_spec(name).unwrap();
            spec.set("size", &size.bits().to_string()).unwrap();
            if let Ok(s) = spec.build() {
                out.push(s);
            }
        }
    }
    out
}

#[derive(Clone, Debug)]
struct Input {
    message: Vec<u8>,
    msg_bits: u64,
    out_bits: u64,
    key: Vec<u8>,
    personalization: Option<Vec<u8>>,
    nonce: Option<Vec<u8>>,
    tree: Option<TreeParams>,
}

impl Input {
    fn params(&self) -> Params<'_> {
        Params {
            key: &self.key,
            personalization: self.personalization.as_deref(),
            nonce: self.nonce.as_deref(),
            tree: self.tree,
            ..Params::default()
        }
    }

    fn job(&self) -> Job<'_> {
        Job {
            message: &self.message,
            msg_bits: self.msg_bits,
            out_bits: self.out_bits,
            params: self.params(),
        }
    }
}

fn input() -> impl Strategy<Value = Input> {
    (
        prop::collection::vec(any::<u8>(), 0..300),
        0u64..8,
        prop_oneof![Just(0u64), 1u64..1100],
        prop_oneof![Just(Vec::new()), prop::collection::vec(any::<u8>(), 1..80)],
        prop::option::of(prop::collection::vec(any::<u8>(), 0..20)),
        prop::option::weighted(0.2, prop::collection::vec(any::<u8>(), 0..20)),
        prop::option::weighted(0.3, (1u8..3, 1u8..3, 2u8..5)),
    )
        .prop_map(|(message, cut, out, key, personalization, nonce, tree)| {
            let msg_bits = (message.len() as u64 * 8).saturating_sub(cut);
            Input {
                message,
                msg_bits,
                out_bits: if out == 0 { 0 } else { out },
                key,
                personalization,
                nonce,
                tree: tree.map(|(l, f, m)| TreeParams::new(l, f, m).unwrap()),
            }
        })
}

fn expected(size: StateSize, i: &Input) -> Vec<u8> {
    let out_bits = if i.out_bits == 0 {
        u64::from(size.bits())
    } else {
        i.out_bits
    };
    skeinhw_skein::hash(
        size.bits() as usize,
        out_bits,
        &i.message,
        i.msg_bits,
        &i.params(),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn every_schedule_hashes_like_the_library(inputs in prop::collection::vec(input(), 1..4)) {
        for schedule in all_schedules() {
            let size = schedule.size();
            let with_out: Vec<Input> = inputs
                .iter()
                .map(|i| Input {
                    out_bits: if i.out_bits == 0 { u64::from(size.bits()) } else { i.out_bits },
                    ..i.clone()
                })
                .collect();
            let jobs: Vec<Job<'_>> = with_out.iter().map(Input::job).collect();
            let report = simulate(&schedule, &jobs, &mut NullSink).unwrap();
            for (stream, i) in with_out.iter().enumerate() {
                prop_assert_eq!(
                    &report.digests[stream],
                    &expected(size, i),
                    "{} stream {}",
                    schedule.name(),
                    stream
                );
            }
            prop_assert_eq!(
                report.cycles_per_block(),
                Some(u64::from(schedule.cycles_per_block())),
                "{}",
                schedule.name()
            );
        }
    }
}

/// The official short-message vectors' bit lengths (1, 2, 3, ... bits), on every preset.
#[test]
fn bit_lengths_on_every_schedule() {
    let message = [0xC5u8, 0x3A, 0xFF];
    for schedule in all_schedules() {
        let nb = schedule.size().bits();
        for bits in [0u64, 1, 2, 3, 7, 9, 17, 23] {
            let job = Job {
                message: &message,
                msg_bits: bits,
                out_bits: u64::from(nb),
                params: Params::default(),
            };
            let report = simulate(&schedule, &[job], &mut NullSink).unwrap();
            let want = skeinhw_skein::hash(
                nb as usize,
                u64::from(nb),
                &message,
                bits,
                &Params::default(),
            )
            .unwrap();
            assert_eq!(report.digests[0], want, "{} {bits} bits", schedule.name());
        }
    }
}

/// All optional arguments at once, including a public key and a key identifier.
#[test]
fn all_optional_arguments() {
    let params = Params {
        key: b"a MAC key",
        personalization: Some(b"20100101 me@example.org skeinhw"),
        public_key: Some(&[7u8; 70]),
        key_id: Some(b"kid"),
        nonce: Some(b"nonce!"),
        tree: Some(TreeParams::new(1, 1, 3).unwrap()),
    };
    let message = vec![0x5Au8; 1000];
    for name in [
        "ath-1r",
        "long-iter-512",
        "ath-8r-4fp-3sp",
        "long-overlap-256",
    ] {
        let schedule = skeinhw_sched::preset(name).unwrap();
        let nb = schedule.size().bits() as usize;
        let job = Job::bytes(&message, 333, params);
        let report = simulate(&schedule, &[job], &mut NullSink).unwrap();
        let want = skeinhw_skein::hash(nb, 333, &message, 8000, &params).unwrap();
        assert_eq!(report.digests[0], want, "{name}");
    }
}
