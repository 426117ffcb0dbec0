//! `skeinhw map`'s search on a long waveform: a 100,000-cycle VCD of ath-1r (the trace's 42
//! signals, as the diff bench), the golden run on the fly, every value change of every wide
//! signal looked up among the golden words. The goal: under 10 s. Beside it, the
//! cycle diff of the same VCD with the map found, the competitor that reads the same file.
//! Run: `cargo bench -p skeinhw-benches --bench map`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_benches::{CpuCount, cpu_seconds};
use skeinhw_diff::discover::{DiscoverOptions, discover};
use skeinhw_diff::{CycleOptions, Golden, OwnedJob, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, simulate};
use skeinhw_trace::{VcdWriter, names};

/// 1,370 message blocks of ath-1r: about 100,000 cycles.
const MESSAGE_BYTES: usize = 64 * 1370;

fn job(message: &[u8]) -> OwnedJob {
    OwnedJob {
        message: message.to_vec(),
        msg_bits: message.len() as u64 * 8,
        out_bits: 512,
        ..OwnedJob::default()
    }
}

fn map(c: &mut Criterion) {
    let schedule = preset("ath-1r").unwrap();
    let message: Vec<u8> = (0..MESSAGE_BYTES).map(|i| (i * 7) as u8).collect();
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("run.vcd");
    let report = {
        let mut w = VcdWriter::new(std::io::BufWriter::new(
            std::fs::File::create(&vcd).unwrap(),
        ));
        simulate(
            &schedule,
            &[Job::bytes(&message, 512, Default::default())],
            &mut w,
        )
        .unwrap()
    };
    let cycles = report.cycles;
    eprintln!(
        "map bench: {cycles} cycles, VCD of {} MB",
        std::fs::metadata(&vcd).unwrap().len() / 1_000_000
    );
    let mut group = c.benchmark_group("map");
    group.sample_size(10);
    group.throughput(Throughput::Elements(cycles));
    let mut cpu = CpuCount::default();
    let mut diff_cpu = CpuCount::default();
    group.bench_function("discover (ath-1r, 100k cycles)", |b| {
        b.iter(|| {
            let before = cpu_seconds();
            let golden = Golden::simulate(schedule.clone(), vec![job(&message)]).unwrap();
            let found = discover(
                &golden.header,
                golden.records,
                &vcd,
                &DiscoverOptions::default(),
            )
            .unwrap();
            assert_eq!(found.reset_cycles, Some(0));
            assert!(found.fields.contains_key("slot0_state_7"));
            cpu.add(cycles, before, cpu_seconds());
        })
    });
    group.bench_function("diff with the map found (same VCD)", |b| {
        b.iter(|| {
            let before = cpu_seconds();
            let golden = Golden::simulate(schedule.clone(), vec![job(&message)]).unwrap();
            let signals = names::signals(golden.header.words, golden.header.slots);
            let map =
                SignalMap::identity(signals.iter().map(|s| s.name.as_str()), Some(names::SCOPE));
            let mut options = CycleOptions::default();
            options.wave.clock = format!("{}.{}", names::SCOPE, names::CLK);
            let golden = golden.into_frames();
            let r = compare_cycles(&golden.signals, golden.frames, &vcd, &map, &options).unwrap();
            assert_eq!(r.verdict, Verdict::Identical);
            diff_cpu.add(cycles, before, cpu_seconds());
        })
    });
    group.finish();
    cpu.report("map", "all threads");
    diff_cpu.report("diff with the map found", "all threads");
}

criterion_group!(benches, map);
criterion_main!(benches);
