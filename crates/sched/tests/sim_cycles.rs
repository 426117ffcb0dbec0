//! The simulator's timing equals the schedule's derived numbers: every block takes
//! `cycles_per_block` cycles, p x s independent messages fill the `blocks_in_flight` pipeline
//! registers, and a full datapath accepts a block every `issue_interval` cycles.

use skeinhw_sched::sim::{Job, MemorySink, NullSink, Phase, simulate};
use skeinhw_sched::{preset, presets};
use skeinhw_skein::Params;

#[test]
fn every_preset_keeps_its_derived_timing_with_enough_messages() {
    for schedule in presets() {
        let streams = schedule.blocks_in_flight() as usize;
        let nb = schedule.size().bits() as usize / 8;
        // 5 message blocks each, all messages the same length.
        let messages: Vec<Vec<u8>> = (0..streams).map(|i| vec![i as u8; 5 * nb]).collect();
        let jobs: Vec<Job<'_>> = messages
            .iter()
            .map(|m| Job::bytes(m, u64::from(schedule.size().bits()), Params::default()))
            .collect();
        let report = simulate(&schedule, &jobs, &mut NullSink).unwrap();
        let latency = u64::from(schedule.cycles_per_block());
        assert_eq!(
            report.cycles_per_block(),
            Some(latency),
            "{}",
            schedule.name()
        );
        assert_eq!(
            report.max_blocks_in_flight(),
            streams,
            "{}: blocks in flight",
            schedule.name()
        );
        // Kept full, the datapath takes a block every issue_interval cycles; the ramp costs
        // at most one block latency.
        let blocks = report.block_count();
        let full = blocks * u64::from(schedule.issue_interval());
        assert!(
            (full..=full + latency).contains(&report.cycles),
            "{}: {} cycles for {blocks} blocks, interval {}",
            schedule.name(),
            report.cycles,
            schedule.issue_interval()
        );
    }
}

#[test]
fn the_controller_walks_the_fsm_phases() {
    // MAC: Key, Config, Message, Output (Athanasiou Fig. 3b); 73 cycles each on ath-1r.
    let schedule = preset("ath-1r").unwrap();
    let params = Params {
        key: &[1u8; 64],
        ..Params::default()
    };
    let mut sink = MemorySink::new();
    simulate(&schedule, &[Job::bytes(b"msg", 512, params)], &mut sink).unwrap();
    let phases: Vec<Phase> = sink.records.iter().map(|r| r.phase).collect();
    let mut runs: Vec<(Phase, usize)> = Vec::new();
    for p in phases {
        match runs.last_mut() {
            Some((q, n)) if *q == p => *n += 1,
            _ => runs.push((p, 1)),
        }
    }
    assert_eq!(
        runs,
        [
            (Phase::Key, 73),
            (Phase::Config, 73),
            (Phase::Message, 73),
            (Phase::Output, 73)
        ]
    );
    // out_valid in the last cycle only.
    let valid: Vec<u64> = sink
        .records
        .iter()
        .filter(|r| r.out.is_some())
        .map(|r| r.cycle)
        .collect();
    assert_eq!(valid, [4 * 73]);
}

#[test]
fn precomputed_config_skips_the_config_ubi() {
    // Long's designs: Message and Output only, 72 cycles each.
    let report = simulate(
        &preset("long-iter-512").unwrap(),
        &[Job::bytes(b"", 512, Params::default())],
        &mut NullSink,
    )
    .unwrap();
    assert_eq!(report.cycles, 2 * 72);
}

#[test]
fn adder_use_is_counted_by_role() {
    // ath-1r, one message block: per block 72 rounds x 4 MIX adders, 19 subkeys x 8 adders.
    let schedule = preset("ath-1r").unwrap();
    let report = simulate(
        &schedule,
        &[Job::bytes(b"", 512, Params::default())],
        &mut NullSink,
    )
    .unwrap();
    let blocks = 3;
    assert_eq!(report.busy.mix, blocks * 72 * 4);
    assert_eq!(report.busy.subkey, blocks * 19 * 8);
    assert_eq!(report.busy.key_schedule, blocks * 19 * 3);
    let u = report.utilisation();
    assert!((u.mix - 72.0 / 73.0).abs() < 1e-9, "{u:?}");
}

#[test]
fn pipelined_slots_hold_different_messages() {
    let schedule = preset("ath-8r-2fp").unwrap();
    let jobs = [
        Job::bytes(b"first", 512, Params::default()),
        Job::bytes(b"second", 512, Params::default()),
    ];
    let mut sink = MemorySink::new();
    simulate(&schedule, &jobs, &mut sink).unwrap();
    let both = sink
        .records
        .iter()
        .filter(|r| r.slots.iter().all(|s| s.valid) && r.slots[0].stream != r.slots[1].stream)
        .count();
    assert!(both > 40, "{both} cycles with both messages in flight");
}
