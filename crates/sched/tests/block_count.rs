//! The block count a progress meter reads before a run (`Job::ubi_blocks`, from the inputs'
//! sizes) against the blocks the simulator actually issues, one by one: for every state size,
//! with the Config UBI precomputed and not, keys, optional arguments, bit lengths, trees of
//! several levels and height limits, and long outputs.

use proptest::prelude::*;
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, NullSink, simulate};
use skeinhw_skein::{Params, TreeParams};

/// Schedules of each state size, with the Config UBI precomputed (Long's) and run (Athanasiou's).
const SCHEDULES: [&str; 4] = ["long-iter-256", "long-iter-512", "ath-1r", "long-iter-1024"];

fn counted_and_run(
    name: &str,
    message: &[u8],
    msg_bits: u64,
    out_bits: u64,
    params: Params<'_>,
) -> (u64, u64) {
    let schedule = preset(name).unwrap();
    let job = Job {
        message,
        msg_bits,
        out_bits,
        params,
    };
    let report = simulate(&schedule, &[job], &mut NullSink).unwrap();
    (job.ubi_blocks(&schedule), report.block_count())
}

#[test]
fn config_is_counted_only_where_the_design_computes_it() {
    // 3 bytes: Config (unless precomputed), one Message block and one Output block.
    assert_eq!(
        counted_and_run("ath-1r", b"abc", 24, 512, Params::default()),
        (3, 3)
    );
    assert_eq!(
        counted_and_run("long-iter-512", b"abc", 24, 512, Params::default()),
        (2, 2)
    );
    // A key makes even a precomputed design run Config (its input depends on the key).
    let key = [7u8; 65];
    let keyed = Params {
        key: &key,
        ..Params::default()
    };
    assert_eq!(
        counted_and_run("long-iter-512", b"abc", 24, 512, keyed),
        (5, 5)
    );
}

#[test]
fn trees_count_every_level_up_to_the_height_limit() {
    let message = vec![0x5a; 64 * 37 + 5];
    for (leaf, fan_out, max_height) in [(1, 1, 255), (1, 1, 2), (1, 1, 3), (2, 2, 255), (1, 3, 4)] {
        let tree = TreeParams::new(leaf, fan_out, max_height).unwrap();
        let params = Params {
            tree: Some(tree),
            ..Params::default()
        };
        let (counted, run) =
            counted_and_run("ath-1r", &message, message.len() as u64 * 8, 512, params);
        assert_eq!(counted, run, "tree {leaf},{fan_out},{max_height}");
    }
}

fn params_of<'a>(
    key: &'a [u8],
    personalization: Option<&'a [u8]>,
    nonce: Option<&'a [u8]>,
    tree: Option<(u8, u8, u8)>,
) -> Params<'a> {
    Params {
        key,
        personalization,
        nonce,
        tree: tree.map(|(l, f, m)| TreeParams::new(l, f, m).unwrap()),
        ..Params::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_count_before_the_run_is_what_the_run_issues(
        schedule in 0..SCHEDULES.len(),
        message in prop::collection::vec(any::<u8>(), 0..1200),
        cut in 0u64..8,
        out_bits in prop_oneof![1u64..600, 1000u64..5000],
        key in prop_oneof![Just(Vec::new()), prop::collection::vec(any::<u8>(), 1..200)],
        personalization in prop::option::of(prop::collection::vec(any::<u8>(), 0..150)),
        nonce in prop::option::weighted(0.2, prop::collection::vec(any::<u8>(), 0..20)),
        tree in prop::option::weighted(0.4, (1u8..3, 1u8..3, 2u8..6)),
    ) {
        let msg_bits = (message.len() as u64 * 8).saturating_sub(cut);
        let params = params_of(&key, personalization.as_deref(), nonce.as_deref(), tree);
        let (counted, run) =
            counted_and_run(SCHEDULES[schedule], &message, msg_bits, out_bits, params);
        prop_assert_eq!(counted, run);
    }
}
