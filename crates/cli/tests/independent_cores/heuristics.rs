//! The event matcher's heuristics on the independent cores (issue 33), each shown to earn its
//! verdict both ways:
//! - the leave-block rule (a stream may leave a block none of whose events was seen: a design
//!   without that block) lets the unroll-8 core, which hard-codes the IV, pass against a
//!   golden schedule that computes the Config block; its key register's reset value (0, the
//!   Config block's key) is no sign that the design computes that block. The rule does not
//!   excuse a faulty last block (the Output block with a wrong position), nor hide the
//!   mutants.
//! - the before/after vote of `map` (2:1 at the subkey boundaries): see
//!   `map_alone_finds_the_before_injection_cores_registers` (before) and
//!   `map_alone_finds_the_unroll_8_cores_registers` (after).

use std::path::Path;

use assert_cmd::Command;

use crate::cli::{Outcome, base_map, diff, diff_with, simulated, write_json};
use crate::maps::only;
use crate::sim::{Core, compile, iverilog, messages, run};
use crate::{U8_MUTANTS, caught_at, differing};

/// `diff --align event` of the unroll-8 core's waveform against plain `ath-8r` (which computes
/// the Config block), with `map`.
fn against_full_ath_8r(vcd: &Path, hex: &str, map: &Path) -> Outcome {
    let o = Command::cargo_bin("skeinhw")
        .unwrap()
        .arg("diff")
        .arg(vcd)
        .args([
            "--schedule",
            "ath-8r",
            "--hex",
            hex,
            "--align",
            "event",
            "--map",
        ])
        .arg(map)
        .output()
        .unwrap();
    Outcome {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn the_unroll_8_core_passes_against_a_schedule_that_computes_the_config_block_it_hard_codes() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let map = write_json(dir.path(), "map.json", &base_map(Core::U8));
    let mut failures = Vec::new();
    for (what, hex, vcd) in simulated(Core::U8, &[], dir.path()) {
        let o = against_full_ath_8r(&vcd, &hex, &map);
        if !o.identical() || !o.out.contains("config block 0: not computed by the design") {
            failures.push(format!("{what}: {}", o.text()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
    // The mutants are caught where they are with the Config block left out of the golden run.
    let m = &messages()[2];
    for (define, at, words) in U8_MUTANTS {
        let bin = compile(Core::U8, &[define], dir.path());
        let (vcd, _) = run(&bin, &m.bytes, dir.path(), define);
        let o = against_full_ath_8r(&vcd, &m.hex(), &map);
        caught_at(&o, at);
        assert_eq!(differing(&o), words, "{define}: {}", o.text());
    }
}

/// The Output block with a wrong position (16 instead of 8): only the last block is wrong. A
/// stream may leave a block none of whose events was seen, but the Output block is no block
/// a design may lack: caught at its first event, by the rings and by the state alone.
#[test]
fn a_fault_in_the_last_block_alone_is_caught_at_its_first_event() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runs = simulated(Core::Before, &[], dir.path());
    let bin = compile(Core::Before, &["MUT_OUT_POS"], dir.path());
    let m = &messages()[2];
    let (vcd, _) = run(&bin, &m.bytes, dir.path(), "outpos");
    let rings = write_json(dir.path(), "rings.json", &base_map(Core::Before));
    let o = diff(Core::Before, &vcd, &m.hex(), &rings, "event");
    caught_at(&o, "output block 0, tweak ring at subkey 0");
    assert_eq!(
        differing(&o),
        ["slot0_tweak_0", "slot0_tweak_2"],
        "{}",
        o.text()
    );
    let state = only(&base_map(Core::Before), |k| k.starts_with("slot0_state"));
    let state = write_json(dir.path(), "state.json", &state);
    let o = diff_with(
        Core::Before,
        &vcd,
        &m.hex(),
        &state,
        "event",
        &["--partial"],
    );
    caught_at(&o, "output block 0, before subkey 1");
    // The control: the correct core passes with the same state-only map.
    let (_, hex, good) = &runs[2];
    let o = diff_with(Core::Before, good, hex, &state, "event", &["--partial"]);
    assert!(o.identical(), "{}", o.text());
}

/// The other way round: the before-injection core computes the Config block, the golden
/// schedule precomputes it (`config_precomputed=true`). Its state register's reset 0 equals
/// the Output block's input; held while the Config block runs, it must not be taken for the
/// Output block (a jump that left every message block "never seen"). The First-flag mutant is
/// still caught at message block 0.
#[test]
fn the_before_injection_core_passes_against_a_schedule_that_precomputes_its_config_block() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let set = ["--set", "config_precomputed=true"];
    let whole = write_json(dir.path(), "map.json", &crate::cli::read_map(Core::Before));
    let state = only(&base_map(Core::Before), |k| k.starts_with("slot0_state"));
    let state = write_json(dir.path(), "state.json", &state);
    let mut failures = Vec::new();
    for (what, hex, vcd) in simulated(Core::Before, &[], dir.path()) {
        let o = diff_with(Core::Before, &vcd, &hex, &whole, "event", &set);
        let s = diff_with(
            Core::Before,
            &vcd,
            &hex,
            &state,
            "event",
            &[&set[..], &["--partial"]].concat(),
        );
        for (which, o) in [("whole map", o), ("state alone", s)] {
            if !o.identical() {
                failures.push(format!("{what}, {which}: {}", o.text()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
    let bin = compile(Core::Before, &["MUT_FIRST"], dir.path());
    let m = &messages()[2];
    let (vcd, _) = run(&bin, &m.bytes, dir.path(), "first");
    let o = diff_with(Core::Before, &vcd, &m.hex(), &whole, "event", &set);
    caught_at(&o, "message block 0, tweak ring at subkey 0");
}
