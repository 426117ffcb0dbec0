//! Several messages per stream, back to back (`simulate_streams`): every digest equals the
//! library's hash of its message, a stream's next message starts only after the previous
//! one's Output block left, its block counter starts again at 0, and one job per stream is
//! exactly `simulate`.

use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MemorySink, Phase, simulate, simulate_streams};
use skeinhw_skein::Params;

fn messages() -> Vec<Vec<u8>> {
    (0..7u8)
        .map(|k| (0..k * 23).map(|i| i ^ k).collect())
        .collect()
}

#[test]
fn queued_messages_hash_like_the_library_on_every_stream() {
    for name in ["ath-8r-2fp", "ath-8r-3sp", "ath-1r"] {
        let schedule = preset(name).unwrap();
        let ns = schedule.blocks_in_flight() as usize;
        let msgs = messages();
        let key = [7u8, 8, 9];
        let params = Params {
            key: &key,
            ..Params::default()
        };
        // Message i on stream i mod ns, as `skeinhw sim` feeds them.
        let mut streams: Vec<Vec<Job<'_>>> = vec![Vec::new(); ns.min(msgs.len())];
        let mut order = Vec::new();
        for (s, queue) in streams.iter_mut().enumerate() {
            for (i, m) in msgs.iter().enumerate().filter(|(i, _)| i % ns == s) {
                queue.push(Job::bytes(m, 512, params));
                order.push(i);
            }
        }
        let mut sink = MemorySink::new();
        let report = simulate_streams(&schedule, &streams, &mut sink).unwrap();
        assert_eq!(report.digests.len(), msgs.len(), "{name}");
        for (d, &i) in report.digests.iter().zip(&order) {
            let want =
                skeinhw_skein::hash(512, 512, &msgs[i], msgs[i].len() as u64 * 8, &params).unwrap();
            assert_eq!(d, &want, "{name}: message {i}");
        }
        // Per stream: blocks never overlap, and a message's first block (index 0) follows the
        // previous message's Output block.
        for s in 0..streams.len() as u32 {
            let mut blocks: Vec<_> = report.blocks.iter().filter(|b| b.stream == s).collect();
            blocks.sort_by_key(|b| b.issued);
            let starts = blocks.iter().filter(|b| b.index == 0).count();
            assert_eq!(starts, streams[s as usize].len(), "{name}: stream {s}");
            for w in blocks.windows(2) {
                assert!(w[1].issued > w[0].completed, "{name}: stream {s} overlaps");
                if w[1].index == 0 {
                    assert_eq!(w[0].phase, Phase::Output, "{name}: stream {s}");
                } else {
                    assert_eq!(w[1].index, w[0].index + 1, "{name}: stream {s}");
                }
            }
        }
        let outs = sink.records.iter().filter(|r| r.out.is_some()).count();
        assert_eq!(outs, msgs.len(), "{name}: out_valid cycles");
    }
}

#[test]
fn one_job_per_stream_is_simulate() {
    let schedule = preset("ath-8r-2fp").unwrap();
    let msgs = messages();
    let jobs: Vec<Job<'_>> = msgs[..2]
        .iter()
        .map(|m| Job::bytes(m, 512, Params::default()))
        .collect();
    let mut a = MemorySink::new();
    let ra = simulate(&schedule, &jobs, &mut a).unwrap();
    let mut b = MemorySink::new();
    let streams: Vec<Vec<Job<'_>>> = jobs.iter().map(|j| vec![*j]).collect();
    let rb = simulate_streams(&schedule, &streams, &mut b).unwrap();
    assert_eq!(a.records, b.records);
    assert_eq!(ra.digests, rb.digests);
}

#[test]
fn an_empty_stream_is_no_input() {
    let schedule = preset("ath-1r").unwrap();
    let mut sink = MemorySink::new();
    assert!(simulate_streams(&schedule, &[], &mut sink).is_err());
    assert!(simulate_streams(&schedule, &[Vec::new()], &mut sink).is_err());
}
