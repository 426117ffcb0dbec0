//! Cycle alignment on the independent cores (issue 33): no golden schedule runs them cycle for
//! cycle, and `map` alone says where and why instead of writing a `reset_cycles` that would
//! fail. The before-injection core takes a load cycle between blocks (74 edges from the Config
//! block to message block 0, where Athanasiou's one-round schedule takes 73; 72 without the
//! subkey-0 cycle) and registers the state before injection; the unroll-8 core takes a load
//! and a feed-forward cycle (12 edges per block, the eight-round schedule 10).

use crate::cli::{map_alone, simulated};
use crate::sim::{Core, iverilog};

fn map_says(core: Core, why: &[&str]) {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (what, hex, vcd) in simulated(core, &[], dir.path()) {
        let out = dir.path().join(format!("{what}.json"));
        let (m, map) = map_alone(core, &vcd, &hex, &out);
        assert_eq!(m.code, 0, "{what}: {}", m.text());
        assert!(map.unwrap().get("reset_cycles").is_none(), "{what}");
        let line = m
            .out
            .lines()
            .find(|l| l.starts_with("cycle alignment does not fit ("))
            .unwrap_or_else(|| panic!("{what}: {}", m.out));
        for w in why {
            assert!(line.contains(w), "{what}: expected {w:?} in: {line}");
        }
        assert!(line.ends_with("use --align event"), "{line}");
    }
}

#[test]
fn map_names_the_load_cycle_and_the_register_before_injection_of_the_one_round_core() {
    map_says(
        Core::Before,
        &[
            "in config block 0 and",
            "in message block 0: the core takes 74 edges from the start of the one to the \
             start of the other, the schedule 73 cycles",
            "tb.dut.st holds the state before subkey injection",
        ],
    );
}

#[test]
fn map_names_the_load_and_feed_forward_cycles_of_the_unroll_8_core() {
    map_says(
        Core::U8,
        &[
            "in message block 0 and",
            "block 0 and",
            ": the core takes 12 edges from the start of the one to the start of the other",
            "the schedule 10 cycles",
        ],
    );
}
