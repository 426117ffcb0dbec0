//! A quick figure of the writers' speed (the criterion bench is `benches/trace.rs`): JSON
//! lines, VCD and FST writing the same recorded trace into memory, best of three, in cycles
//! per second. Ignored by default (a measurement, not a test):
//! `cargo test --release -p skeinhw-trace --test speed -- --ignored --nocapture`.

use std::io::Cursor;
use std::time::Instant;

use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MemorySink, OwnedCycleRecord, TraceHeader, TraceSink, simulate};
use skeinhw_trace::{FstWriter, JsonlWriter, VcdWriter};

fn write_all(sink: &mut dyn TraceSink, header: &TraceHeader, records: &[OwnedCycleRecord]) {
    sink.begin(header).unwrap();
    for r in records {
        sink.cycle(&r.as_record()).unwrap();
    }
    sink.finish().unwrap();
}

#[test]
#[ignore = "a measurement; run with --release --ignored --nocapture"]
fn writers_cycles_per_second() {
    let schedule = preset("ath-1r").unwrap();
    let message = vec![0xA5u8; 64 << 10];
    let mut recorded = MemorySink::new();
    simulate(
        &schedule,
        &[Job::bytes(&message, 512, Default::default())],
        &mut recorded,
    )
    .unwrap();
    let header = recorded.header.clone().unwrap();
    let records = recorded.records;
    let cycles = records.len() as f64;
    let mut out: Vec<u8> = Vec::with_capacity(256 << 20);
    let mut best = |name: &str, run: &mut dyn FnMut(&mut Vec<u8>)| {
        let mut t = f64::MAX;
        for _ in 0..3 {
            out.clear();
            let s = Instant::now();
            run(&mut out);
            t = t.min(s.elapsed().as_secs_f64());
        }
        println!(
            "{name:6} {:>12.0} cycles/s {:>12} bytes",
            cycles / t,
            out.len()
        );
        t
    };
    let j = best("jsonl", &mut |o| {
        write_all(&mut JsonlWriter::new(o), &header, &records)
    });
    let v = best("vcd", &mut |o| {
        write_all(&mut VcdWriter::new(o), &header, &records)
    });
    let f = best("fst", &mut |o| {
        write_all(&mut FstWriter::new(Cursor::new(o)), &header, &records)
    });
    println!(
        "time / jsonl: vcd {:.2}, fst {:.2} ({} cycles)",
        v / j,
        f / j,
        records.len()
    );
}
