//! Issue 33, "what it must show": Skein-512 cores written from the specification, unlike
//! the generated Verilog (`crates/diff/tests/data/cores/`), run through the `skeinhw` binary.
//! The third, `skein512_cyc.v` (`ath-8r` cycle for cycle, so cycle alignment applies), has
//! its own submodule: `cyc`.
//!
//! - `skein512_before.v`: one round per clock, the state register before injection (reset to
//!   0), rotating key and tweak rings, Config computed, a serial byte-swapped digest;
//! - `skein512_u8.v`: unroll 8, the state registered after every other injection, fixed key
//!   and tweak registers, a hard-coded IV, a parallel digest.
//!
//! Their digests are checked against the official vectors and RustCrypto (not this
//! workspace's Skein); then `skeinhw map` alone, the hand-written maps beside the cores, five
//! mutants of each (caught at the block, subkey and words where the bug first acts, derived
//! from the specification, with the hand-written map and with the one `map` wrote alone), and
//! wrong maps (never a pass). Submodules: `qualifier` (the `when` qualifier `map` writes),
//! `timing` (why no schedule runs either core cycle for cycle), `heuristics` (the matcher's
//! rules shown to earn their verdicts). A test that fails is ignored with
//! the reason (none is today); `cargo test -p skeinhw --test independent_cores -- --ignored`
//! runs them.

#[path = "independent_cores/cli.rs"]
mod cli;
#[path = "independent_cores/cyc.rs"]
mod cyc;
#[path = "independent_cores/cycle_byteswap.rs"]
mod cycle_byteswap;
#[path = "independent_cores/heuristics.rs"]
mod heuristics;
#[path = "independent_cores/maps.rs"]
mod maps;
#[path = "independent_cores/qualifier.rs"]
mod qualifier;
#[path = "independent_cores/sim.rs"]
mod sim;
#[path = "independent_cores/timing.rs"]
mod timing;

use cli::{base_map, diff, diff_with, map_alone, read_map, signal, simulated, slice, write_json};
use maps::{only, remap, rename, with};
use serde_json::Value;
use sim::{Core, compile, iverilog, kat, messages, run, rustcrypto};

#[test]
fn the_cores_give_the_official_digests() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for core in [Core::Before, Core::U8] {
        let bin = compile(core, &[], dir.path());
        // The official file: 0, 3, 64, 128, 255 bytes.
        for bits in [0, 24, 512, 1024, 2040] {
            let (msg, md) = kat(bits);
            let (_, got) = run(&bin, &msg, dir.path(), &format!("kat{bits}"));
            assert_eq!(hex::encode(got), hex::encode(md), "{core:?}, Len = {bits}");
        }
        // RustCrypto, for the messages of the issue.
        for (i, m) in messages().iter().enumerate() {
            let (_, got) = run(&bin, &m.bytes, dir.path(), &format!("rc{i}"));
            assert_eq!(
                hex::encode(got),
                hex::encode(rustcrypto(&m.bytes)),
                "{core:?}, {}",
                m.what
            );
        }
    }
    // The two independent vectors agree where both apply: "Len = 24" through RustCrypto.
    let (msg, md) = kat(24);
    assert_eq!(rustcrypto(&msg), md);
}

/// `skeinhw map` alone on each message, then `diff` with the map it wrote: IDENTICAL by event;
/// by cycle too where the map offers cycle alignment (`reset_cycles`), else `map` says so.
fn map_alone_passes(core: Core) {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (what, hex, vcd) in simulated(core, &[], dir.path()) {
        let out = dir.path().join(format!("{}.json", vcd.display()));
        let (m, map) = map_alone(core, &vcd, &hex, &out);
        let Some(map) = map.filter(|_| m.code == 0) else {
            failures.push(format!("{what}: map wrote no map: {}", m.text()));
            continue;
        };
        let e = diff(core, &vcd, &hex, &out, "event");
        if !e.identical() {
            failures.push(format!("{what}, event: {}\nmap: {map}", e.text()));
        }
        if map.get("reset_cycles").is_some() {
            let c = diff(core, &vcd, &hex, &out, "cycle");
            if !c.identical() {
                failures.push(format!("{what}, cycle: {}", c.text()));
            }
        } else if !m.out.contains("use --align event") {
            failures.push(format!(
                "{what}: no reset_cycles, and map did not say why: {}",
                m.out
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn map_alone_works_on_the_before_injection_core() {
    map_alone_passes(Core::Before);
}

#[test]
fn map_alone_works_on_the_unroll_8_core() {
    map_alone_passes(Core::U8);
}

/// What `map` must find in the before-injection core, as its comment lays it out.
#[test]
fn map_alone_finds_the_before_injection_cores_registers() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = compile(Core::Before, &[], dir.path());
    let (vcd, _) = run(&bin, b"abc", dir.path(), "abc");
    let out = dir.path().join("found.json");
    let (m, map) = map_alone(Core::Before, &vcd, "616263", &out);
    assert_eq!(m.code, 0, "{}", m.text());
    let map = map.unwrap();
    let fields = map["fields"].as_object().unwrap();
    for w in 0..8 {
        assert_eq!(
            signal(&map, &format!("slot0_state_before_{w}")),
            Some(slice("st", w)),
            "{map}"
        );
        // `st` never holds the injected state; only the net `inj` may be mapped so.
        assert_ne!(
            signal(&map, &format!("slot0_state_{w}")),
            Some(slice("st", w)),
            "{map}"
        );
    }
    for w in 0..9 {
        assert_eq!(
            signal(&map, &format!("slot0_key_{w}")),
            Some(slice("kr", w))
        );
    }
    for t in 0..3 {
        let f = format!("slot0_tweak_{t}");
        assert_eq!(fields.get(&f), Some(&Value::from(slice("tr", t))), "{map}");
    }
    assert_eq!(map["key_ring"], "rotating", "{map}");
    assert_eq!(map["tweak_ring"], "rotating", "{map}");
    let serial = &map["digest_serial"];
    assert!(
        serial["data"] == "dout" || serial["data"] == "dout[63:0]",
        "{map}"
    );
    assert_eq!(serial["valid"], "dout_valid", "{map}");
    assert_eq!(serial["byteswap"], true, "{map}");
}

#[test]
fn map_alone_finds_the_unroll_8_cores_registers() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = compile(Core::U8, &[], dir.path());
    let (vcd, _) = run(&bin, b"abc", dir.path(), "abc");
    let out = dir.path().join("found.json");
    let (m, map) = map_alone(Core::U8, &vcd, "616263", &out);
    assert_eq!(m.code, 0, "{}", m.text());
    let map = map.unwrap();
    for w in 0..8 {
        assert_eq!(
            signal(&map, &format!("slot0_state_{w}")),
            Some(slice("sa", w))
        );
        assert_eq!(
            signal(&map, &format!("slot0_key_{w}")),
            Some(slice("kw", w))
        );
        assert_eq!(
            signal(&map, &format!("out_data_{w}")),
            Some(slice("digest", w))
        );
        assert_eq!(
            signal(&map, &format!("slot0_state_before_{w}")),
            None,
            "{map}"
        );
    }
    for t in 0..2 {
        assert_eq!(
            signal(&map, &format!("slot0_tweak_{t}")),
            Some(slice("tw", t))
        );
    }
    assert_eq!(signal(&map, "out_valid").as_deref(), Some("digest_valid"));
    assert!(map.get("key_ring").is_none_or(|r| r == "fixed"), "{map}");
    assert!(map.get("tweak_ring").is_none_or(|r| r == "fixed"), "{map}");
}

/// The hand-written map beside the core (`map` without the serial digest port when `whole` is
/// false), by event on each message.
fn hand_written_map_passes(core: Core, whole: bool, defines: &[&str]) {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut map = read_map(core);
    if !whole {
        map.as_object_mut().unwrap().remove("digest_serial");
    }
    let path = write_json(dir.path(), "map.json", &map);
    let mut failures = Vec::new();
    for (what, hex, vcd) in simulated(core, defines, dir.path()) {
        let e = diff(core, &vcd, &hex, &path, "event");
        if !e.identical() {
            failures.push(format!("{what}: {}", e.text()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn the_hand_written_map_of_the_before_injection_core_passes() {
    hand_written_map_passes(Core::Before, true, &[]);
}

#[test]
fn the_before_injection_core_passes_by_state_and_rings() {
    hand_written_map_passes(Core::Before, false, &[]);
}

/// The control of the test above: the same core with its state register reset to all ones
/// instead of 0 passes today.
#[test]
fn the_before_injection_core_passes_by_state_and_rings_when_the_state_resets_to_ones() {
    hand_written_map_passes(Core::Before, false, &["RESET_ONES"]);
}

/// One word of the state is a partial map (`--partial`): a value of that word that equals an
/// event blocks ahead (the reset's 0, a round's word) is no reason to jump there.
#[test]
fn one_state_word_of_the_before_injection_core_passes_partially() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let map = only(&base_map(Core::Before), |k| {
        !k.starts_with("slot0_state_before_") || k == "slot0_state_before_0"
    });
    let path = write_json(dir.path(), "one.json", &map);
    let mut failures = Vec::new();
    for (what, hex, vcd) in simulated(Core::Before, &[], dir.path()) {
        let o = diff_with(Core::Before, &vcd, &hex, &path, "event", &["--partial"]);
        if !o.identical() || !o.out.contains("not compared: slot0_state_before_1") {
            failures.push(format!("{what}: {}", o.text()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn the_hand_written_map_of_the_unroll_8_core_passes() {
    hand_written_map_passes(Core::U8, true, &[]);
}

/// `diff` of `core` built with `defines` (a mutant among them) on the 200-byte message, with
/// the map of [`base_map`].
fn mutant_diff(core: Core, defines: &[&str]) -> cli::Outcome {
    let dir = tempfile::tempdir().unwrap();
    let bin = compile(core, defines, dir.path());
    let m = &messages()[2];
    let (vcd, digest) = run(&bin, &m.bytes, dir.path(), "mutant");
    assert_ne!(digest, rustcrypto(&m.bytes), "{defines:?} changes nothing");
    let map = write_json(dir.path(), "map.json", &base_map(core));
    diff(core, &vcd, &m.hex(), &map, "event")
}

/// DIVERGENT (exit 1), first at `at` ("<block>, <event>").
pub(crate) fn caught_at(o: &cli::Outcome, at: &str) {
    assert_eq!(o.code, 1, "{}", o.text());
    let line = format!("DIVERGENT (event alignment): stream 0, {at}: never seen");
    assert!(o.out.contains(&line), "expected at {at}: {}", o.text());
}

/// The fields the divergence marks as differing.
pub(crate) fn differing(o: &cli::Outcome) -> Vec<&str> {
    o.out
        .lines()
        .filter(|l| l.ends_with("<-- differs"))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// The mutant `define` of `core`: caught first at `at`, where exactly the fields `words` differ.
fn mutant_is_caught(core: Core, (define, at, words): (&str, &str, &[&str])) {
    if !iverilog() {
        return;
    }
    let o = mutant_diff(core, &[define]);
    caught_at(&o, at);
    assert_eq!(differing(&o), words, "{define}: {}", o.text());
}

const BEFORE_ALL: [&str; 8] = [
    "slot0_state_before_0",
    "slot0_state_before_1",
    "slot0_state_before_2",
    "slot0_state_before_3",
    "slot0_state_before_4",
    "slot0_state_before_5",
    "slot0_state_before_6",
    "slot0_state_before_7",
];

// Where each bug first acts, from the specification. The before-injection core computes the
// Config block first, so a fault in the round function shows there: R_{7,0} acts in round 7,
// on MIX 0's second output, which pi sends to word 1: before subkey 2 (after round 7), word 1
// alone. The exchanged permutation acts in round 0 and, by round 2, on every word: before
// subkey 1, all words. The subkey index adds 1 to word 7 of subkey 0; four rounds spread it to
// every word: before subkey 1, all words. The First flag is t1 bit 62 of message block 0:
// tweak ring words 1 and 2 (t1, t2) at subkey 0. The feed-forward skipped on word 0 (the
// Config block's word 0 is nonzero) changes the chaining value, which is message block 0's
// key: ring words 0 (k_0) and 8 (the parity k_8) at subkey 0.

const BEFORE_MUTANTS: [(&str, &str, &[&str]); 5] = [
    (
        "MUT_ROT",
        "config block 0, before subkey 2",
        &["slot0_state_before_1"],
    ),
    ("MUT_PERM", "config block 0, before subkey 1", &BEFORE_ALL),
    (
        "MUT_FIRST",
        "message block 0, tweak ring at subkey 0",
        &["slot0_tweak_1", "slot0_tweak_2"],
    ),
    ("MUT_SUBKEY", "config block 0, before subkey 1", &BEFORE_ALL),
    (
        "MUT_FF",
        "message block 0, key ring at subkey 0",
        &["slot0_key_0", "slot0_key_8"],
    ),
];

#[test]
fn before_core_rotation_mutant() {
    mutant_is_caught(Core::Before, BEFORE_MUTANTS[0]);
}

#[test]
fn before_core_permutation_mutant() {
    mutant_is_caught(Core::Before, BEFORE_MUTANTS[1]);
}

#[test]
fn before_core_first_flag_mutant() {
    mutant_is_caught(Core::Before, BEFORE_MUTANTS[2]);
}

#[test]
fn before_core_subkey_index_mutant() {
    mutant_is_caught(Core::Before, BEFORE_MUTANTS[3]);
}

#[test]
fn before_core_feed_forward_mutant() {
    mutant_is_caught(Core::Before, BEFORE_MUTANTS[4]);
}

/// The control of the tests above: with the state register reset to all ones instead of 0,
/// each mutant is caught at its block and event today.
#[test]
fn before_core_mutants_are_caught_at_their_event_when_the_state_resets_to_ones() {
    if !iverilog() {
        return;
    }
    for (define, at, _) in BEFORE_MUTANTS {
        caught_at(&mutant_diff(Core::Before, &[define, "RESET_ONES"]), at);
    }
}

// The unroll-8 core computes no Config block; it registers the state after subkeys 0, 2, ...,
// 18. R_{7,0} (round instance 7) changes word 1 after round 7, and subkey 2 is added to it:
// after subkey 2, word 1 alone (after subkey 1 exists only on a net). The permutation of
// instance 7 exchanges words 0 and 6 after round 7: after subkey 2, words 0 and 6. The First
// flag: the tweak register's t1 at subkey 0. The subkey index: word 7 of subkey 0, after subkey
// 0. The feed-forward on word 0 (the message's word 0 is nonzero): message block 0's chaining
// value, word 0.

pub(crate) const U8_MUTANTS: [(&str, &str, &[&str]); 5] = [
    (
        "MUT_ROT",
        "message block 0, after subkey 2",
        &["slot0_state_1"],
    ),
    (
        "MUT_PERM",
        "message block 0, after subkey 2",
        &["slot0_state_0", "slot0_state_6"],
    ),
    (
        "MUT_FIRST",
        "message block 0, tweak ring at subkey 0",
        &["slot0_tweak_1"],
    ),
    (
        "MUT_SUBKEY",
        "message block 0, after subkey 0",
        &["slot0_state_7"],
    ),
    (
        "MUT_FF",
        "message block 0, feed-forward",
        &["slot0_state_0"],
    ),
];

#[test]
fn unroll_8_core_rotation_mutant() {
    mutant_is_caught(Core::U8, U8_MUTANTS[0]);
}

#[test]
fn unroll_8_core_permutation_mutant() {
    mutant_is_caught(Core::U8, U8_MUTANTS[1]);
}

#[test]
fn unroll_8_core_first_flag_mutant() {
    mutant_is_caught(Core::U8, U8_MUTANTS[2]);
}

#[test]
fn unroll_8_core_subkey_index_mutant() {
    mutant_is_caught(Core::U8, U8_MUTANTS[3]);
}

#[test]
fn unroll_8_core_feed_forward_mutant() {
    mutant_is_caught(Core::U8, U8_MUTANTS[4]);
}

/// The map `map` writes alone (from the correct core's waveform of the 200-byte message)
/// catches each mutant where the hand-written map does: the same block, event and words.
fn map_alone_catches_the_mutants(core: Core, mutants: &[(&str, &str, &[&str])]) {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let good = simulated(core, &[], dir.path());
    let (_, hex, vcd) = &good[2];
    let found = dir.path().join("found.json");
    let (m, map) = map_alone(core, vcd, hex, &found);
    assert!(m.code == 0 && map.is_some(), "{}", m.text());
    for &(define, at, words) in mutants {
        let bin = compile(core, &[define], dir.path());
        let (bad, _) = run(&bin, &messages()[2].bytes, dir.path(), define);
        let o = diff(core, &bad, hex, &found, "event");
        caught_at(&o, at);
        assert_eq!(differing(&o), words, "{define}: {}", o.text());
    }
}

#[test]
fn the_map_map_wrote_catches_the_before_injection_cores_mutants_where_they_act() {
    map_alone_catches_the_mutants(Core::Before, &BEFORE_MUTANTS);
}

#[test]
fn the_map_map_wrote_catches_the_unroll_8_cores_mutants_where_they_act() {
    map_alone_catches_the_mutants(Core::U8, &U8_MUTANTS);
}

/// Wrong maps of `core`, each on the four messages: never IDENTICAL (exit 1 or 2).
fn wrong_maps_never_pass(core: Core, wrong: Vec<(&str, Value)>) {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runs = simulated(core, &[], dir.path());
    let mut passed = Vec::new();
    for (what, map) in &wrong {
        let path = write_json(dir.path(), "wrong.json", map);
        for (msg, hex, vcd) in &runs {
            let o = diff(core, vcd, hex, &path, "event");
            let first = o.out.lines().chain(o.err.lines()).last().unwrap_or("");
            println!("{what}, {msg}: exit {}: {first}", o.code);
            if o.identical() || o.code == 0 {
                passed.push(format!("{what}, {msg}: {}", o.text()));
            }
        }
    }
    assert!(
        passed.is_empty(),
        "wrong maps passed:\n{}",
        passed.join("\n---\n")
    );
}

// The ring faults are also tried with the rings alone (below), where only the ring can be what
// fails.
#[test]
fn wrong_maps_of_the_before_injection_core_never_pass() {
    let good = base_map(Core::Before);
    wrong_maps_never_pass(
        Core::Before,
        vec![
            (
                "key ring one word off",
                remap(&good, "slot0_key_", 9, |i| (i + 1) % 9),
            ),
            (
                "tweak ring one word off",
                remap(&good, "slot0_tweak_", 3, |i| (i + 1) % 3),
            ),
            (
                "rotating key ring declared fixed",
                with(&good, "key_ring", "fixed"),
            ),
            (
                "rotating tweak ring declared fixed",
                with(&good, "tweak_ring", "fixed"),
            ),
            (
                "state word 3 missing",
                only(&good, |k| k != "slot0_state_before_3"),
            ),
            (
                "state words one off",
                remap(&good, "slot0_state_before_", 8, |w| (w + 1) % 8),
            ),
            (
                "state before injection declared after",
                rename(&good, "slot0_state_before_", "slot0_state_"),
            ),
        ],
    );
}

/// Ring faults with the rings alone (`--partial` is not needed: each ring is mapped whole).
/// Ring word i read one word off is, at subkey s, the ring at subkey s+1; a ring declared fixed
/// holds the fixed words only at subkey 0.
#[test]
fn wrong_ring_maps_of_the_before_injection_core_never_pass() {
    let rings = only(&base_map(Core::Before), |k| !k.starts_with("slot0_state"));
    wrong_maps_never_pass(
        Core::Before,
        vec![
            (
                "key ring one word off",
                remap(&rings, "slot0_key_", 9, |i| (i + 1) % 9),
            ),
            (
                "tweak ring one word off",
                remap(&rings, "slot0_tweak_", 3, |i| (i + 1) % 3),
            ),
            ("key ring declared fixed", with(&rings, "key_ring", "fixed")),
            (
                "tweak ring declared fixed",
                with(&rings, "tweak_ring", "fixed"),
            ),
        ],
    );
}

#[test]
fn wrong_maps_of_the_unroll_8_core_never_pass() {
    let good = base_map(Core::U8);
    wrong_maps_never_pass(
        Core::U8,
        vec![
            (
                "key one word off",
                remap(&good, "slot0_key_", 8, |i| (i + 1) % 8),
            ),
            (
                "tweak words exchanged",
                remap(&good, "slot0_tweak_", 2, |i| 1 - i),
            ),
            (
                "fixed key declared rotating",
                with(&good, "key_ring", "rotating"),
            ),
            (
                "fixed tweak declared rotating",
                with(&good, "tweak_ring", "rotating"),
            ),
            (
                "state word 3 missing",
                only(&good, |k| k != "slot0_state_3"),
            ),
            (
                "state words one off",
                remap(&good, "slot0_state_", 8, |w| (w + 1) % 8),
            ),
            (
                "state after injection declared before",
                rename(&good, "slot0_state_", "slot0_state_before_"),
            ),
        ],
    );
}

/// A map of the key and tweak registers alone says nothing of the state: no verdict of
/// IDENTICAL (a state event in every message block is required).
#[test]
fn a_map_of_only_the_key_and_tweak_never_passes() {
    let key_tweak = |k: &str| k.starts_with("slot0_key") || k.starts_with("slot0_tweak");
    for core in [Core::Before, Core::U8] {
        let map = only(&base_map(core), key_tweak);
        wrong_maps_never_pass(core, vec![("only the key and tweak", map)]);
    }
}
