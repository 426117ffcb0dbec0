//! The trace writers against each other (issue 34): JSON lines, VCD and FST writing the same
//! recorded trace (ath-1r, a 64 KiB message: 1024 message blocks of 73 cycles) into memory,
//! in cycles per second; the simulator is left out (the cycles are recorded first).
//! Run: `cargo bench -p skeinhw-benches --bench trace` (add `-- --measurement-time 3` on a
//! shared machine).

use std::hint::black_box;
use std::io::Cursor;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{
    CycleRecord, Job, MemorySink, OwnedCycleRecord, TraceHeader, TraceSink, simulate,
};
use skeinhw_trace::{FstWriter, JsonlWriter, VcdWriter};

fn write_all<S: TraceSink>(sink: &mut S, header: &TraceHeader, records: &[OwnedCycleRecord]) {
    sink.begin(header).unwrap();
    for r in records {
        let rec: CycleRecord<'_> = r.as_record();
        sink.cycle(&rec).unwrap();
    }
    sink.finish().unwrap();
}

fn writers(c: &mut Criterion) {
    let schedule = preset("ath-1r").unwrap();
    let message = vec![0xA5u8; 64 << 10];
    let job = Job::bytes(&message, 512, Default::default());
    let mut recorded = MemorySink::new();
    simulate(&schedule, &[job], &mut recorded).unwrap();
    let header = recorded.header.clone().unwrap();
    let records = recorded.records;

    let mut group = c.benchmark_group("trace-writer");
    group.sample_size(10);
    group.throughput(Throughput::Elements(records.len() as u64));
    let mut out: Vec<u8> = Vec::with_capacity(256 << 20);
    group.bench_function("ath-1r-64k/jsonl", |b| {
        b.iter(|| {
            out.clear();
            write_all(
                &mut JsonlWriter::new(&mut out),
                &header,
                black_box(&records),
            );
        })
    });
    group.bench_function("ath-1r-64k/vcd", |b| {
        b.iter(|| {
            out.clear();
            write_all(&mut VcdWriter::new(&mut out), &header, black_box(&records));
        })
    });
    group.bench_function("ath-1r-64k/fst", |b| {
        b.iter(|| {
            out.clear();
            let mut w = FstWriter::new(Cursor::new(&mut out));
            write_all(&mut w, &header, black_box(&records));
        })
    });
    group.finish();
}

criterion_group!(benches, writers);
criterion_main!(benches);
