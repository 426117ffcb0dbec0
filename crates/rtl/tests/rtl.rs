//! The generated designs against the golden model, in Icarus Verilog and Verilator: lint,
//! compilation, the official vectors (plain, bit-length, multi-block, MAC) and the VCD equal
//! to the golden trace cycle for cycle.
//!
//! Verilator builds take ~20 s each and are cached in `<target>/rtl-cache` (keyed by the
//! design's text), so a second run of the suite only simulates. `SKEINHW_SLOW=1` runs Verilator
//! on every size of every preset too.

mod common;

use std::sync::Mutex;

use common::*;
use skeinhw_rtl::{Message, Simulator, all_designs, lint};
use skeinhw_sched::Schedule;
use skeinhw_skein::kat::{GoldenEntry, parse_golden};

fn slow() -> bool {
    std::env::var_os("SKEINHW_SLOW").is_some_and(|v| v == "1")
}

fn vectors() -> &'static [GoldenEntry] {
    static V: std::sync::OnceLock<Vec<GoldenEntry>> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../vectors/skein/skein_golden_kat.txt"
        );
        parse_golden(&std::fs::read_to_string(path).expect("vectors"))
    })
}

/// A few official vectors the designs of `size` can express (output = state size, no tree):
/// a bit-length message, a multi-block message, a MAC with a key longer than a block.
fn picks(size: u32) -> Vec<&'static GoldenEntry> {
    let ok = |e: &&GoldenEntry| {
        e.state_bits == size as usize && e.out_bits == u64::from(size) && e.tree.is_none()
    };
    let all: Vec<&GoldenEntry> = vectors().iter().filter(ok).collect();
    let nb = u64::from(size);
    let bits = all
        .iter()
        .find(|e| !e.mac && e.msg_bits % 8 != 0)
        .expect("a bit-length vector");
    let multi = all
        .iter()
        .find(|e| !e.mac && e.msg_bits > 2 * nb)
        .expect("a multi-block vector");
    let mac = all
        .iter()
        .filter(|e| e.mac && !e.key.is_empty())
        .max_by_key(|e| e.key.len())
        .expect("a MAC vector");
    vec![*bits, *multi, *mac]
}

fn message(e: &GoldenEntry) -> Message<'_> {
    Message {
        data: &e.message,
        bits: e.msg_bits,
        key: &e.key,
    }
}

/// Runs the picked vectors on a design: as many at once as it has streams, and checks each
/// digest against the official result as well as against the golden model.
fn check_design(schedule: &Schedule, sim: Simulator, max_messages: usize) {
    let dir = design_dir(schedule);
    let picks = picks(schedule.size().bits());
    let picks = &picks[..picks.len().min(max_messages)];
    let streams = schedule.blocks_in_flight() as usize;
    for batch in picks.chunks(streams) {
        let messages: Vec<Message<'_>> = batch.iter().map(|e| message(e)).collect();
        let o = run_and_compare(schedule, &dir, sim, &messages);
        assert_clean(schedule.name(), sim, &o);
        for (s, e) in batch.iter().enumerate() {
            assert_eq!(
                o.output.digest_bytes(s as u32).as_deref(),
                Some(e.result.as_slice()),
                "{} ({}): official vector at line {}",
                schedule.name(),
                sim.as_str(),
                e.line
            );
        }
    }
}

/// Runs `f` on every item with two threads (the CI machine has two cores), collecting panics.
fn parallel<T: Sync>(items: &[T], f: impl Fn(&T) + Sync) {
    let next = Mutex::new(0usize);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(item) = items.get(i) else { break };
                    if let Err(e) =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)))
                    {
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.lock().unwrap().push(msg);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_design_passes_verilator_lint_wall() {
    let designs = all_designs();
    assert!(
        designs.len() >= 40,
        "presets in every size: {}",
        designs.len()
    );
    parallel(&designs, |s| {
        let dir = design_dir(s);
        if let Err(e) = lint(&dir) {
            panic!("{}: {e}", s.name());
        }
    });
}

#[test]
fn every_design_reproduces_the_vectors_and_the_trace_in_icarus() {
    let designs = all_designs();
    parallel(&designs, |s| check_design(s, Simulator::Icarus, 3));
}

#[test]
fn every_preset_reproduces_the_vectors_and_the_trace_in_verilator() {
    let designs: Vec<Schedule> = if slow() {
        all_designs()
    } else {
        skeinhw_sched::presets()
    };
    // Few messages per design: the build is the cost, and Icarus covers the rest.
    parallel(&designs, |s| check_design(s, Simulator::Verilator, 3));
}

#[test]
fn pipelines_interleave_full_loads_of_messages() {
    // Every stream of a pipelined design busy at once, with different lengths, in Icarus.
    for name in [
        "ath-8r-2fp",
        "ath-8r-3sp",
        "ath-8r-2fp-3sp",
        "long-pipe-512",
    ] {
        let s = skeinhw_sched::preset(name).unwrap();
        let dir = design_dir(&s);
        let streams = s.blocks_in_flight() as usize;
        let data: Vec<Vec<u8>> = (0..streams)
            .map(|i| vec![i as u8 ^ 0x5a; 64 * (i % 3) + i])
            .collect();
        let keys: Vec<Vec<u8>> = (0..streams)
            .map(|i| vec![0x11; if i % 4 == 1 { 100 } else { 0 }])
            .collect();
        let messages: Vec<Message<'_>> = data
            .iter()
            .zip(&keys)
            .map(|(d, k)| Message {
                data: d,
                bits: d.len() as u64 * 8,
                key: k,
            })
            .collect();
        let o = run_and_compare(&s, &dir, Simulator::Icarus, &messages);
        assert_clean(name, Simulator::Icarus, &o);
    }
}
