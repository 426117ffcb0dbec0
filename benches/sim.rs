//! The golden simulator's speed: cycles per second on `ath-1r` into an in-memory sink (goal:
//! at least 5 million), and the JSONL writer's output rate (goal: at least 100 MB/s); the
//! Shabal simulator's cycles per second on `shabal-unfold-4`.
//! Run: `cargo bench -p skeinhw-benches --bench sim`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_sched::preset;
use skeinhw_sched::shabal::{
    self,
    sim::{self as shabal_sim, ShabalJob, ShabalMemorySink},
};
use skeinhw_sched::sim::{
    CycleRecord, Job, MemorySink, NullSink, OwnedCycleRecord, TraceHeader, TraceSink, simulate,
};
use skeinhw_trace::JsonlWriter;

/// A 100-block message on ath-1r: Config + 100 Message + Output blocks of 73 cycles.
const BLOCKS: usize = 100;

fn sim(c: &mut Criterion) {
    let schedule = preset("ath-1r").unwrap();
    let message = vec![0xA5u8; BLOCKS * 64];
    let job = Job::bytes(&message, 512, Default::default());
    let cycles = simulate(&schedule, &[job], &mut NullSink).unwrap().cycles;

    let mut group = c.benchmark_group("sim");
    group.throughput(Throughput::Elements(cycles));
    group.bench_function("ath-1r/memory-sink", |b| {
        let mut sink = MemorySink::new();
        b.iter(|| {
            sink.records.clear();
            simulate(&schedule, black_box(&[job]), &mut sink).unwrap()
        })
    });
    group.bench_function("ath-1r/null-sink", |b| {
        b.iter(|| simulate(&schedule, black_box(&[job]), &mut NullSink).unwrap())
    });
    group.finish();

    // The JSONL writer alone, on recorded cycles, into memory: bytes out per second.
    let mut recorded = MemorySink::new();
    simulate(&schedule, &[job], &mut recorded).unwrap();
    let header: TraceHeader = recorded.header.clone().unwrap();
    let records: Vec<OwnedCycleRecord> = recorded.records;
    let mut probe = JsonlWriter::new(Vec::new());
    write_all(&mut probe, &header, &records);
    let bytes = probe.bytes_written();
    let mut group = c.benchmark_group("jsonl");
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("ath-1r/writer", |b| {
        let mut out = Vec::with_capacity(bytes as usize + 1024);
        b.iter(|| {
            out.clear();
            let mut w = JsonlWriter::new(&mut out);
            write_all(&mut w, &header, black_box(&records));
        })
    });
    group.finish();
}

/// The Shabal simulator on `shabal-unfold-4` (12 cycles per block), same message length.
fn shabal(c: &mut Criterion) {
    let schedule = shabal::preset("shabal-unfold-4").unwrap();
    let message = vec![0xA5u8; BLOCKS * 64];
    let job = ShabalJob::bytes(&message);
    let cycles = shabal_sim::simulate(&schedule, &[job], &mut ShabalMemorySink::default())
        .unwrap()
        .cycles;
    let mut group = c.benchmark_group("sim");
    group.throughput(Throughput::Elements(cycles));
    group.bench_function("shabal-unfold-4/memory-sink", |b| {
        let mut sink = ShabalMemorySink::default();
        b.iter(|| {
            sink.records.clear();
            shabal_sim::simulate(&schedule, black_box(&[job]), &mut sink).unwrap()
        })
    });
    group.finish();
}

fn write_all<S: TraceSink>(sink: &mut S, header: &TraceHeader, records: &[OwnedCycleRecord]) {
    sink.begin(header).unwrap();
    for r in records {
        let rec: CycleRecord<'_> = r.as_record();
        sink.cycle(&rec).unwrap();
    }
    sink.finish().unwrap();
}

criterion_group!(benches, sim, shabal);
criterion_main!(benches);
