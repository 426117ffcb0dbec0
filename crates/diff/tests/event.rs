//! Event alignment: a design of another schedule (other latency, other registers) checks clean
//! against the golden model; a wrong digest does not.

use std::path::{Path, PathBuf};

use skeinhw_diff::{CycleOptions, SignalMap, Verdict, compare_events};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MemorySink, OwnedCycleRecord, TraceHeader, simulate};
use skeinhw_trace::{VcdWriter, names};

fn golden(schedule: &str, msg: &[u8]) -> (TraceHeader, Vec<OwnedCycleRecord>) {
    let mut sink = MemorySink::new();
    let s = preset(schedule).unwrap();
    simulate(&s, &[Job::bytes(msg, 512, Default::default())], &mut sink).unwrap();
    (sink.header.unwrap(), sink.records)
}

/// The "RTL": another schedule's trace written as VCD.
fn rtl_vcd(dir: &Path, schedule: &str, msg: &[u8]) -> PathBuf {
    let path = dir.join(format!("{schedule}.vcd"));
    let s = preset(schedule).unwrap();
    let mut w = VcdWriter::new(std::fs::File::create(&path).unwrap());
    simulate(&s, &[Job::bytes(msg, 512, Default::default())], &mut w).unwrap();
    path
}

/// The fields event alignment compares: slot 0's state, key and tweak, and the digest.
fn map(h: &TraceHeader) -> SignalMap {
    let signals = names::signals(h.words, h.slots);
    let usable = signals.iter().map(|s| s.name.as_str()).filter(|n| {
        n.starts_with("out_data_")
            || *n == names::OUT_VALID
            || ["state", "key", "tweak"]
                .iter()
                .any(|r| n.starts_with(&format!("slot0_{r}_")))
    });
    SignalMap::identity(usable, Some(names::SCOPE))
}

fn options() -> CycleOptions {
    let mut o = CycleOptions::default();
    o.wave.clock = format!("{}.{}", names::SCOPE, names::CLK);
    o
}

#[test]
fn another_schedule_matches_by_events() {
    let dir = tempfile::tempdir().unwrap();
    let msg = vec![0x5a; 200];
    let (h, records) = golden("ath-1r", &msg);
    for other in ["ath-8r", "long-iter-512", "ath-4r"] {
        let vcd = rtl_vcd(dir.path(), other, &msg);
        let report = compare_events(
            &h,
            records.iter().cloned().map(Ok::<_, String>),
            &vcd,
            &map(&h),
            &options(),
        )
        .unwrap();
        assert_eq!(report.verdict, Verdict::Identical, "{other}: {report}");
        assert!(report.summary.contains("digest"), "{report}");
    }
}

#[test]
fn a_different_digest_is_a_divergence() {
    let dir = tempfile::tempdir().unwrap();
    let (h, records) = golden("ath-1r", b"abc");
    let vcd = rtl_vcd(dir.path(), "ath-8r", b"abd");
    let report = compare_events(
        &h,
        records.iter().cloned().map(Ok::<_, String>),
        &vcd,
        &map(&h),
        &options(),
    )
    .unwrap();
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    println!("{report}");
    // The message differs in its third byte: the first state event of message block 0 shows
    // it, in word 0 only.
    assert!(
        report.summary.contains("message block 0, after subkey 0"),
        "{report}"
    );
    let d = report.first_divergence.clone().unwrap();
    let differing: Vec<&str> = d
        .fields
        .iter()
        .filter(|f| f.golden != f.rtl)
        .map(|f| f.field.as_str())
        .collect();
    assert_eq!(differing, ["slot0_state_0"], "{report:?}");
}

/// A map of the state alone (no digest port) passes on correct RTL; a map of the digest alone
/// says so in the verdict.
#[test]
fn state_only_and_digest_only_maps() {
    let dir = tempfile::tempdir().unwrap();
    let msg = vec![0x11; 150];
    let (h, records) = golden("ath-1r", &msg);
    let vcd = rtl_vcd(dir.path(), "ath-8r", &msg);
    let full = map(&h);
    for (what, keep) in [("state only", "slot0_state_"), ("digest only", "out_")] {
        let mut m = full.clone();
        m.fields.retain(|f, _| f.starts_with(keep));
        let r = compare_events(
            &h,
            records.iter().cloned().map(Ok::<_, String>),
            &vcd,
            &m,
            &options(),
        )
        .unwrap();
        assert_eq!(r.verdict, Verdict::Identical, "{what}: {r}");
        assert_eq!(
            r.summary.contains("digest only"),
            what == "digest only",
            "{r}"
        );
        if what == "state only" {
            assert!(
                r.events_matched > 0 && r.events_matched == r.events_expected,
                "{r}"
            );
        }
    }
}

/// Two messages queued on one stream (as the cocotb checker and `LiveDiff` run more messages
/// than streams): the second message's blocks are numbered from 0 again, and each of its
/// blocks is expected all the same (issue 33: they were taken for repeats of the first's).
#[test]
fn queued_messages_each_expect_all_their_blocks() {
    use skeinhw_diff::event::Expected;
    use skeinhw_diff::map::Ring;
    let s = preset("ath-1r").unwrap();
    let (a, b) = (b"abc".as_slice(), [7u8; 200]);
    let jobs = vec![
        Job::bytes(a, 512, Default::default()),
        Job::bytes(&b, 512, Default::default()),
    ];
    let mut sink = MemorySink::new();
    skeinhw_sched::sim::simulate_streams(&s, &[jobs], &mut sink).unwrap();
    let records = sink.records.into_iter().map(Ok::<_, String>);
    let (ex, _) =
        Expected::from_records(&sink.header.unwrap(), records, Ring::Fixed, Ring::Fixed).unwrap();
    let alone = |msg: &[u8]| {
        let (h, r) = golden("ath-1r", msg);
        let (ex, _) = Expected::from_records(
            &h,
            r.into_iter().map(Ok::<_, String>),
            Ring::Fixed,
            Ring::Fixed,
        )
        .unwrap();
        ex.events().into_iter().map(|e| e.words).collect::<Vec<_>>()
    };
    let queued: Vec<Vec<u64>> = ex.events().into_iter().map(|e| e.words).collect();
    let mut both = alone(a);
    both.extend(alone(&b));
    // Config, message, output for "abc"; Config, 4 message blocks, output for 200 bytes.
    assert_eq!(queued.len(), both.len());
    assert!(queued == both);
    assert_eq!(ex.digests().len(), 2);
}
