//! VCD and FST through the diff's sampler: our own VCD reader (`crates/diff/src/vcd.rs`, the
//! default for a VCD) and wellen (FST, unusual VCD headers, and forced here on every input so
//! that its panics stay contained). The input's first line names the clock and the probes
//! (`clk tb.dut.state[63:0] ...`), the rest is the waveform: seeds name signals that exist, and
//! mutations reach the name matching, the header and body parsers and the value decoders. Our
//! reader's body parsed on two threads must read as its one-thread parse does.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use skeinhw_diff::wave::{
    Bits, Probe, WaveOptions, sample_rising_edges_from, sample_rising_edges_with_wellen_from,
};
use skeinhw_diff::{VcdPlan, with_vcd_plan};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (names, wave) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let names = String::from_utf8_lossy(names);
    let mut names = names.split_whitespace();
    let options = WaveOptions {
        clock: names.next().unwrap_or("clk").to_string(),
        ..WaveOptions::default()
    };
    let probes: Vec<Probe> = names
        .filter_map(|n| Probe::parse(n).ok())
        .take(16)
        .collect();
    let check = |edges: &mut u64, samples: &[Bits]| {
        assert_eq!(samples.len(), probes.len());
        for s in samples {
            let _ = s.to_hex();
        }
        *edges += 1;
        *edges < 100_000
    };
    // Our reader in one thread, and its body parsed in chunks of a few bytes by two workers:
    // the same edges and samples, or the same error.
    let ours = |workers: usize| {
        let mut edges = 0u64;
        let mut seen: Vec<(u64, Vec<Bits>)> = Vec::new();
        let plan = VcdPlan {
            workers,
            chunk: 1 + data.len() % 61,
        };
        let read = with_vcd_plan(plan, || {
            sample_rising_edges_from(
                Cursor::new(wave.to_vec()),
                "fuzz.vcd",
                &options,
                &probes,
                |_, time, samples| {
                    seen.push((time, samples.to_vec()));
                    check(&mut edges, samples)
                },
            )
        });
        (seen, read.map_err(|e| e.to_string()))
    };
    assert_eq!(ours(2), ours(0));
    let mut edges = 0u64;
    let _ = sample_rising_edges_with_wellen_from(
        Cursor::new(wave.to_vec()),
        "fuzz.vcd",
        &options,
        &probes,
        |_, _, samples| check(&mut edges, samples),
    );
});
