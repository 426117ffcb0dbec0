//! The diff's reading side alone, against the file read once (issue 34): the golden trace of
//! ath-1r written as VCD and FST, then (1) the file's bytes read into a buffer (`cat`, cached),
//! (2) every field sampled at every rising edge from the VCD (our reader), (3) the same from
//! the FST (our value-change block decoder), (4) the whole cycle diff of the VCD against the golden frames
//! read from its JSON-lines trace. Cycles per second (criterion's throughput); the goal: (2)
//! within 3x of (1), (3) no slower than (2). (2) is also measured with the VCD's body parsed on
//! 2 and 8 threads, as machines of 4 and 10 or more cores read it by default. Run: `cargo bench -p skeinhw-benches --bench
//! diff_read`.

use std::fs::File;
use std::io::{BufWriter, Read};
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_diff::wave::{WaveOptions, sample_rising_edges};
use skeinhw_diff::{
    AnyGolden, CycleOptions, SignalMap, VcdPlan, Verdict, compare_cycles, with_vcd_plan,
};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, TraceSink, simulate};
use skeinhw_trace::{FstWriter, JsonlWriter, VcdWriter, names};

/// 1,000 blocks of ath-1r: about 75,000 cycles.
const MESSAGE_BYTES: usize = 64 * 1000;

/// Simulates ath-1r on `message` into `sink`; returns the cycles.
fn write(sink: &mut dyn TraceSink, message: &[u8]) -> u64 {
    let schedule = preset("ath-1r").unwrap();
    let r = simulate(
        &schedule,
        &[Job::bytes(message, 512, Default::default())],
        sink,
    )
    .unwrap();
    r.cycles
}

fn diff_read(c: &mut Criterion) {
    let message: Vec<u8> = (0..MESSAGE_BYTES).map(|i| i as u8).collect();
    let dir = tempfile::tempdir().unwrap();
    let (vcd, fst, jsonl) = (
        dir.path().join("t.vcd"),
        dir.path().join("t.fst"),
        dir.path().join("t.jsonl"),
    );
    let out = |p: &Path| BufWriter::new(File::create(p).unwrap());
    let cycles = write(&mut VcdWriter::new(out(&vcd)), &message);
    write(&mut FstWriter::new(out(&fst)), &message);
    write(&mut JsonlWriter::new(out(&jsonl)), &message);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    eprintln!(
        "diff_read: {cycles} cycles; VCD {} bytes, FST {} bytes",
        size(&vcd),
        size(&fst)
    );

    let golden = AnyGolden::from_jsonl(&jsonl).unwrap().into_frames();
    let map = SignalMap::identity(
        golden
            .signals
            .iter()
            .map(|s| s.name.as_str())
            .filter(|n| !n.starts_with("in_ready_")),
        None,
    );
    let probes: Vec<_> = map.fields.values().cloned().collect();
    drop(golden);
    let options = WaveOptions {
        clock: names::CLK.into(),
        strip_prefix: None,
        ..WaveOptions::default()
    };

    let mut group = c.benchmark_group("diff_read");
    group.sample_size(10);
    group.throughput(Throughput::Elements(cycles));
    let mut buf = Vec::new();
    group.bench_function("cat t.vcd", |b| {
        b.iter(|| {
            buf.clear();
            File::open(&vcd).unwrap().read_to_end(&mut buf).unwrap();
            buf.len()
        })
    });
    // The VCD's body parsed in the reading thread, and on 2 and 8 parser threads (what a
    // machine of 4 and of 10 or more cores does by default).
    let one_thread = VcdPlan {
        workers: 0,
        chunk: 1 << 20,
    };
    let samples = [
        ("sample t.vcd", &vcd, one_thread),
        ("sample t.fst", &fst, one_thread),
        (
            "sample t.vcd, 2 parsers",
            &vcd,
            VcdPlan {
                workers: 2,
                ..one_thread
            },
        ),
        (
            "sample t.vcd, 8 parsers",
            &vcd,
            VcdPlan {
                workers: 8,
                ..one_thread
            },
        ),
    ];
    for (name, file, plan) in samples {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0u64;
                with_vcd_plan(plan, || {
                    sample_rising_edges(file, &options, &probes, |_, _, s| {
                        n += s.len() as u64;
                        true
                    })
                })
                .unwrap();
                n
            })
        });
    }
    for (name, file) in [("diff t.vcd --golden", &vcd), ("diff t.fst --golden", &fst)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let golden = AnyGolden::from_jsonl(&jsonl).unwrap().into_frames();
                let r = compare_cycles(
                    &golden.signals,
                    golden.frames,
                    file,
                    &map,
                    &CycleOptions {
                        wave: options.clone(),
                        ..CycleOptions::default()
                    },
                )
                .unwrap();
                assert_eq!(r.verdict, Verdict::Identical);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, diff_read);
criterion_main!(benches);
