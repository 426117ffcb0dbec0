//! The trace diff on a long simulation: a golden trace computed on the fly (the simulator in a
//! thread) against a VCD of the same run, streaming both. Reported as cycles per second (wall,
//! criterion) and, printed at the end, cycles per CPU-second of the whole process and of the
//! reading thread alone (the load of a shared machine does not inflate those). Issue 14's goal:
//! at least one million cycles per second. Run: `cargo bench -p skeinhw-benches --bench diff`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_benches::{CpuCount, cpu_seconds, thread_cpu_seconds};
use skeinhw_diff::{CycleOptions, Golden, OwnedJob, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, simulate};
use skeinhw_trace::{VcdWriter, names};

/// 1,000 blocks of ath-1r: 3,000 UBI blocks... about 73,000 cycles.
const MESSAGE_BYTES: usize = 64 * 1000;

fn diff(c: &mut Criterion) {
    let schedule = preset("ath-1r").unwrap();
    let message: Vec<u8> = (0..MESSAGE_BYTES).map(|i| i as u8).collect();
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
    let bytes = std::fs::metadata(&vcd).unwrap().len();
    eprintln!(
        "diff bench: {cycles} cycles, VCD of {} MB",
        bytes / 1_000_000
    );
    let mut group = c.benchmark_group("diff");
    group.sample_size(10);
    group.throughput(Throughput::Elements(cycles));
    let mut cpu = CpuCount::default();
    let mut reader_cpu = CpuCount::default();
    group.bench_function("ath-1r cycles (golden on the fly vs VCD)", |b| {
        b.iter(|| {
            let before = cpu_seconds();
            let reader_before = thread_cpu_seconds();
            let job = OwnedJob {
                message: message.clone(),
                msg_bits: message.len() as u64 * 8,
                out_bits: 512,
                ..OwnedJob::default()
            };
            let golden = Golden::simulate(schedule.clone(), vec![job]).unwrap();
            let signals = names::signals(golden.header.words, golden.header.slots);
            let map =
                SignalMap::identity(signals.iter().map(|s| s.name.as_str()), Some(names::SCOPE));
            let mut options = CycleOptions::default();
            options.wave.clock = format!("{}.{}", names::SCOPE, names::CLK);
            let golden = golden.into_frames();
            let r = compare_cycles(&golden.signals, golden.frames, &vcd, &map, &options).unwrap();
            assert_eq!(r.verdict, Verdict::Identical);
            cpu.add(cycles, before, cpu_seconds());
            reader_cpu.add(cycles, reader_before, thread_cpu_seconds());
        })
    });
    group.finish();
    cpu.report("diff", "all threads");
    reader_cpu.report("diff", "the reading thread alone");
}

criterion_group!(benches, diff);
criterion_main!(benches);
