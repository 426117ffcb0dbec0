//! The `when` qualifier `map` writes (issue 33): the before-injection core built with
//! `JUNK_BETWEEN` holds a scratch value in `st` between blocks and while the digest is shifted
//! out, where its `running` is 0. `map` alone qualifies the state fields with it, and only
//! them; the cores without scratch values get no qualifier.

use crate::cli::{diff, map_alone, signal, simulated, slice};
use crate::sim::{Core, iverilog};
use serde_json::Value;

/// The fields of `map` that carry a `when`, with its signal.
fn qualified(map: &Value) -> Vec<(String, String)> {
    map["fields"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(f, v)| Some((f.clone(), v.get("when")?.as_str()?.to_string())))
        .collect()
}

#[test]
fn map_alone_qualifies_a_state_register_that_holds_scratch_values_between_blocks() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (what, hex, vcd) in simulated(Core::Before, &["JUNK_BETWEEN"], dir.path()) {
        let out = dir.path().join(format!("{what}.json"));
        let (m, map) = map_alone(Core::Before, &vcd, &hex, &out);
        assert_eq!(m.code, 0, "{what}: {}", m.text());
        let map = map.unwrap();
        for w in 0..8 {
            let f = format!("slot0_state_before_{w}");
            assert_eq!(signal(&map, &f), Some(slice("st", w)), "{what}: {map}");
        }
        let when = qualified(&map);
        let expected: Vec<(String, String)> = (0..8)
            .map(|w| (format!("slot0_state_before_{w}"), "running".to_string()))
            .collect();
        // Every message has a load cycle between the Config block and message block 0.
        assert_eq!(when, expected, "{what}: {}", m.text());
        assert!(
            m.out.contains("compared only when tb.dut.running is 1"),
            "{}",
            m.out
        );
        let e = diff(Core::Before, &vcd, &hex, &out, "event");
        if !e.identical() {
            failures.push(format!("{what}: {}", e.text()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// The qualifier keeps the scratch values out: with it, a mutant is still caught where the
/// hand-written map catches it (the rotation constant: Config block, before subkey 2, word 1).
#[test]
fn a_mutant_of_the_scratch_value_core_is_caught_with_the_map_map_wrote() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let good = simulated(Core::Before, &["JUNK_BETWEEN"], dir.path());
    let (_, hex, vcd) = &good[2];
    let out = dir.path().join("found.json");
    let (m, map) = map_alone(Core::Before, vcd, hex, &out);
    assert_eq!(m.code, 0, "{}", m.text());
    assert!(!qualified(&map.unwrap()).is_empty());
    let bin = crate::sim::compile(Core::Before, &["JUNK_BETWEEN", "MUT_ROT"], dir.path());
    let (bad, _) = crate::sim::run(&bin, &crate::sim::messages()[2].bytes, dir.path(), "rot");
    let o = diff(Core::Before, &bad, hex, &out, "event");
    assert_eq!(o.code, 1, "{}", o.text());
    assert!(
        o.out.contains(
            "DIVERGENT (event alignment): stream 0, config block 0, before subkey 2: never seen"
        ),
        "{}",
        o.text()
    );
}

#[test]
fn map_alone_writes_no_qualifier_where_no_register_holds_other_values() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for core in [Core::Before, Core::U8] {
        for (what, hex, vcd) in simulated(core, &[], dir.path()) {
            let out = dir.path().join(format!("{core:?}{what}.json"));
            let (m, map) = map_alone(core, &vcd, &hex, &out);
            assert_eq!(m.code, 0, "{}", m.text());
            assert_eq!(qualified(&map.unwrap()), vec![], "{core:?}, {what}");
        }
    }
}
