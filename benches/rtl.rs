//! Golden trace generation vs Icarus Verilog simulating the same design (`ath-8r`).
//!
//! The golden side hashes a 1 MiB message and writes its whole VCD trace (into a discarding
//! writer). Icarus on 1 MiB (about 180 000 cycles of a 512-bit design with VCD dumping) would
//! take minutes per sample, so it runs a 16 KiB message and its time is scaled per cycle to
//! 1 MiB; the printed ratio is (Icarus per cycle) / (golden per cycle). Goal: >= 100.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use skeinhw_rtl::{Message, Simulator, build, generate, run, stimulus};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, NullSink, simulate};
use skeinhw_trace::VcdWriter;

fn golden(c: &mut Criterion) {
    let schedule = preset("ath-8r").unwrap();
    let msg = vec![0x5au8; 1 << 20];
    let cycles = simulate(
        &schedule,
        &[Job::bytes(&msg, 512, Default::default())],
        &mut NullSink,
    )
    .unwrap()
    .cycles;
    let mut g = c.benchmark_group("rtl");
    g.sample_size(10);
    g.bench_function("golden_trace_vcd_1MiB_ath-8r", |b| {
        b.iter(|| {
            let mut w = VcdWriter::new(std::io::sink());
            simulate(
                &schedule,
                &[Job::bytes(&msg, 512, Default::default())],
                &mut w,
            )
            .unwrap()
        })
    });
    g.finish();

    // Icarus: one timed run of a shorter message (no criterion loop: seconds per run).
    if std::process::Command::new("iverilog")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("iverilog not installed: skipping the Icarus comparison");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    generate(&schedule).unwrap().write_into(tmp.path()).unwrap();
    let built = build(
        Simulator::Icarus,
        tmp.path(),
        &tmp.path().join("b"),
        Some(512),
    )
    .unwrap();
    let short = vec![0x5au8; 16 << 10];
    let input = tmp.path().join("input.txt");
    std::fs::write(
        &input,
        stimulus(&schedule, &[Message::bytes(&short)]).unwrap(),
    )
    .unwrap();
    let t = Instant::now();
    let out = run(&built, &input, &tmp.path().join("dump.vcd")).unwrap();
    let icarus = t.elapsed();
    let t = Instant::now();
    let reps = 5;
    for _ in 0..reps {
        let mut w = VcdWriter::new(std::io::sink());
        simulate(
            &schedule,
            &[Job::bytes(&msg, 512, Default::default())],
            &mut w,
        )
        .unwrap();
    }
    let gold = t.elapsed() / reps;
    let per_cycle_icarus = icarus.as_secs_f64() / out.cycles as f64;
    let per_cycle_golden = gold.as_secs_f64() / cycles as f64;
    let scaled = Duration::from_secs_f64(per_cycle_icarus * cycles as f64);
    println!(
        "ath-8r, 1 MiB = {cycles} cycles: golden trace {gold:?}; Icarus {icarus:?} for {} cycles \
         (16 KiB), scaled to 1 MiB {scaled:?}; golden is {:.0}x faster per cycle",
        out.cycles,
        per_cycle_icarus / per_cycle_golden
    );
}

criterion_group!(benches, golden);
criterion_main!(benches);
