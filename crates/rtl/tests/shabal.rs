//! The generated Shabal cores against the library and the golden model, in Icarus Verilog and
//! Verilator: lint, compilation, digests equal to `skeinhw_shabal::hash` (itself tested against
//! RustCrypto's `shabal` and the specification's values) for empty, bit-length, one-block and
//! multi-block messages back to back, and the VCD equal to the golden trace of
//! `skeinhw_sched::shabal::sim` cycle for cycle.
//!
//! Verilator builds take ~20-40 s each and are cached in `<target>/rtl-cache`; by default
//! Verilator runs the six Table I presets (Shabal-512), `SKEINHW_SLOW=1` every output size too.

mod common;
mod shabal_common;

use shabal_common::*;
use skeinhw_rtl::shabal::all_designs;
use skeinhw_rtl::{Message, Simulator, lint};
use skeinhw_sched::shabal::ShabalSchedule;

fn slow() -> bool {
    std::env::var_os("SKEINHW_SLOW").is_some_and(|v| v == "1")
}

/// Deterministic bytes (xorshift) for the messages.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// The messages of one run, varied by `seed`: the empty message, a bit-length message
/// (1..=7 extra bits), exactly one block of data (its padding takes a second block) and a
/// multi-block message of odd length.
fn messages(seed: u64) -> Vec<(Vec<u8>, u64)> {
    let odd = bytes(seed, 3);
    let extra = 1 + seed % 7;
    vec![
        (Vec::new(), 0),
        (odd.clone(), 16 + extra),
        (bytes(seed + 1, 64), 512),
        (bytes(seed + 2, 150 + seed as usize % 50), 0),
    ]
    .into_iter()
    .map(|(d, bits)| {
        let bits = if bits == 0 { d.len() as u64 * 8 } else { bits };
        (d, bits)
    })
    .collect()
}

fn check(schedule: &ShabalSchedule, sim: Simulator, seed: u64) {
    let data = messages(seed);
    let msgs: Vec<Message<'_>> = data
        .iter()
        .map(|(d, bits)| Message {
            data: d,
            bits: *bits,
            key: &[],
        })
        .collect();
    let dir = design_dir(schedule);
    let o = run_and_compare(schedule, &dir, sim, &msgs);
    assert_clean(schedule.name(), sim, &o);
    // 48/f cycles per pass: (blocks + 3) passes per message.
    let blocks: u64 = data
        .iter()
        .map(|(_, bits)| bits / 512 + 1)
        .map(|b| b + 3)
        .sum();
    assert_eq!(
        o.output.cycles,
        blocks * u64::from(48 / schedule.unfolding()),
        "{}",
        schedule.name()
    );
}

#[test]
fn every_shabal_design_is_generated_for_every_size_and_factor() {
    let designs = all_designs();
    assert_eq!(designs.len(), 6 * 5);
    let factors: Vec<u32> = designs.iter().map(|s| s.unfolding()).collect();
    for f in [1, 2, 3, 4, 6, 8] {
        assert_eq!(factors.iter().filter(|&&x| x == f).count(), 5, "f = {f}");
    }
}

#[test]
fn every_shabal_design_passes_verilator_lint_wall() {
    parallel(&all_designs(), |s| {
        if let Err(e) = lint(&design_dir(s)) {
            panic!("{}: {e}", s.name());
        }
    });
}

#[test]
fn every_shabal_design_reproduces_the_library_and_the_trace_in_icarus() {
    let designs: Vec<(u64, ShabalSchedule)> = all_designs()
        .into_iter()
        .enumerate()
        .map(|(i, s)| (i as u64, s))
        .collect();
    parallel(&designs, |(i, s)| check(s, Simulator::Icarus, *i));
}

#[test]
fn every_unfolding_factor_reproduces_the_library_and_the_trace_in_verilator() {
    let designs = if slow() {
        all_designs()
    } else {
        skeinhw_sched::shabal::presets()
    };
    // The build is the cost (one at a time: each uses both cores); each design runs the four
    // messages once.
    for s in &designs {
        check(s, Simulator::Verilator, 100);
    }
}

#[test]
fn late_blocks_stall_the_core_without_changing_the_digests() {
    // The test bench's +stall=N withholds the input every N-th cycle: passes that need a block
    // (a message's next one, or the next message's first) wait with the state held. Icarus
    // only (the option is the test bench's, the same in both simulators).
    let data = [bytes(7, 300), bytes(8, 0), bytes(9, 130)];
    let msgs: Vec<Message<'_>> = data.iter().map(|d| Message::bytes(d)).collect();
    for name in ["shabal-unfold-1", "shabal-unfold-6"] {
        let s = skeinhw_sched::shabal::preset(name).unwrap();
        let built = skeinhw_rtl::build_cached(Simulator::Icarus, &design_dir(&s), &cache_root())
            .expect("build");
        let work = tempfile::tempdir().unwrap();
        let input = work.path().join("input.txt");
        std::fs::write(&input, skeinhw_rtl::shabal::stimulus(&msgs).unwrap()).unwrap();
        let out = std::process::Command::new("vvp")
            .arg("-n")
            .arg(built.dir.join("skeinhw_tb.vvp"))
            .arg(format!("+input={}", input.display()))
            .arg(format!("+vcd={}", work.path().join("dump.vcd").display()))
            .arg("+stall=7")
            .output()
            .expect("vvp");
        let log = String::from_utf8_lossy(&out.stdout);
        let mut digests = Vec::new();
        let mut cycles = 0u64;
        for line in log.lines() {
            let mut it = line.split_whitespace();
            match it.next() {
                Some("digest") => {
                    let stream: usize = it.next().unwrap().parse().unwrap();
                    let words: Vec<u8> = it
                        .skip(1)
                        .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
                        .collect();
                    digests.push((stream, words));
                }
                Some("cycles") => cycles = it.next().unwrap().parse().unwrap(),
                _ => {}
            }
        }
        let expected: Vec<(usize, Vec<u8>)> = data
            .iter()
            .enumerate()
            .map(|(i, d)| (i, skeinhw_shabal::hash(512, d, d.len() as u64 * 8).unwrap()))
            .collect();
        assert_eq!(digests, expected, "{name}: {log}");
        let passes: u64 = data.iter().map(|d| d.len() as u64 / 64 + 1 + 3).sum();
        let unstalled = passes * u64::from(s.cycles_per_block());
        assert!(
            cycles > unstalled,
            "{name}: {cycles} cycles, no stall happened ({unstalled} without)"
        );
    }
}
