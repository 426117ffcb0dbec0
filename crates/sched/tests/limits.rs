//! The simulator's documented output limit: a job asking for more than MAX_OUT_BITS is refused
//! up front with a one-line error naming the limit, before any cycle is simulated; the limit
//! itself is simulated and gives the library's digest (checked against the vectors elsewhere).

use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MAX_OUT_BITS, MemorySink, NullSink, SimError, simulate};
use skeinhw_skein::Params;

#[test]
fn output_beyond_the_limit_is_refused_before_any_cycle() {
    let schedule = preset("ath-8r").unwrap();
    for out_bits in [MAX_OUT_BITS + 1, 99_999_999_999, u64::MAX] {
        let mut sink = MemorySink::default();
        let err = simulate(
            &schedule,
            &[Job::bytes(b"abc", out_bits, Params::default())],
            &mut sink,
        )
        .unwrap_err();
        assert!(matches!(err, SimError::OutputTooLong { .. }), "{err}");
        let msg = err.to_string();
        assert!(!msg.contains('\n'), "{msg}");
        assert!(msg.contains(&MAX_OUT_BITS.to_string()), "{msg}");
        assert!(sink.records.is_empty(), "nothing simulated");
    }
}

#[test]
fn output_at_the_limit_is_simulated() {
    let schedule = preset("ath-8r").unwrap();
    let report = simulate(
        &schedule,
        &[Job::bytes(b"abc", MAX_OUT_BITS, Params::default())],
        &mut NullSink,
    )
    .unwrap();
    let expected = skeinhw_skein::hash(512, MAX_OUT_BITS, b"abc", 24, &Params::default()).unwrap();
    assert_eq!(report.digests[0], expected);
}
