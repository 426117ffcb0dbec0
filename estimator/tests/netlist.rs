//! The netlist path on hand-written fixtures whose Yosys netlists are checked in
//! (`tests/data/`, see its README): cell counts, packing, the bit-level critical path against
//! the model's delays, and bad input (truncated, malformed, no top module, unknown cells,
//! loops), including a property test that no input makes the reader panic.

use proptest::prelude::*;
use skeinhw_estimator::netlist::Netlist;
use skeinhw_estimator::timing::{Chain, adder_ns, delay};
use skeinhw_estimator::{Constants, EstimatorError, Flow};

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> Netlist {
    Netlist::from_file(data(name), None).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn adder_between_registers_is_the_models_adder() {
    let c = Constants::built_in();
    let e = read("add64.json").analyse(Flow::Ise13, &c);
    assert_eq!(e.top, "add64");
    // One LUT2 (a ^ b) per bit into 16 CARRY4s; two 64-bit operand registers and the sum.
    assert_eq!(e.cells.lut_by_inputs, [0, 64, 0, 0, 0, 0]);
    assert_eq!((e.cells.carry4, e.cells.ffs, e.cells.other), (16, 192, 0));
    assert_eq!(e.cells.by_type["FDRE"], 192);
    // The sum registers take the carry chain's outputs, not a LUT's: no pairing.
    assert_eq!((e.luts, e.lut_fed_ffs, e.lut_ff_pairs), (64, 0, 256));
    assert_eq!(e.slices, 64);
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);

    let p = &e.critical_path;
    assert_eq!(
        (
            p.lut_depth,
            p.carry_chains,
            p.carry4,
            p.carry_bits,
            p.muxf,
            p.nets
        ),
        (1, 1, 16, 64, 0, 2)
    );
    assert_eq!(p.from, "rb[0] (FDRE Q)");
    assert_eq!(p.to, "s[63] (FDRE D)");
    // The same delay as the model's one-adder chain with the same routing delay per net.
    let (logic, route) = delay(
        &Chain {
            adders: 1,
            lut_levels: 0,
            muxf: 0,
        },
        &c,
        e.net_ns,
    );
    assert!(close(p.logic_ns, logic), "{} vs {logic}", p.logic_ns);
    assert!(close(p.logic_ns, c.t_register_ns + adder_ns(&c)));
    assert!(close(p.route_ns, route));
    assert!(close(e.period_ns, logic + route));
}

#[test]
fn mix_adds_a_lut_level_after_the_adder() {
    let c = Constants::built_in();
    let e = read("mix64.json").analyse(Flow::Ise13, &c);
    // Adder LUTs and the XOR's LUTs; the rotation is wiring.
    assert_eq!(e.cells.lut_by_inputs, [0, 128, 0, 0, 0, 0]);
    assert_eq!((e.cells.carry4, e.ffs), (16, 256));
    // The XOR's LUTs feed the y1 register: 64 pairs share.
    assert_eq!(e.lut_fed_ffs, 64);
    let p = &e.critical_path;
    assert_eq!(
        (p.lut_depth, p.carry_chains, p.carry_bits, p.nets),
        (2, 1, 64, 3)
    );
    assert_eq!(p.to, "y1[63] (FDRE D)");
    let (logic, route) = delay(
        &Chain {
            adders: 1,
            lut_levels: 1,
            muxf: 0,
        },
        &c,
        e.net_ns,
    );
    assert!(close(e.period_ns, logic + route));
}

#[test]
fn alumacc_merges_a_chained_subkey_add_into_the_mix_add() {
    // y0 = (x0 + k0) + (x1 + k1): three adders in the source, two of them in series on
    // the path. Yosys's alumacc turns (x0 + k0) + w1 into one three-operand $macc: a row of
    // full adders in LUTs (LUT3 sum, LUT6 carry) and one carry chain. So the netlist has two
    // carry chains (w1's and the merged one), where the model counts three adders; on the
    // path, both count two chains, the netlist with an extra LUT level (the full adder).
    let c = Constants::built_in();
    let e = read("subkey_mix64.json").analyse(Flow::Ise13, &c);
    assert_eq!(e.cells.carry4, 32, "two carry chains, not three");
    assert_eq!(e.cells.lut_by_inputs, [0, 128, 64, 0, 0, 63]);
    let p = &e.critical_path;
    assert_eq!((p.carry_chains, p.lut_depth), (2, 3));
    assert_eq!(p.from, "r1[0] (FDRE Q)");
    // Where it runs, in the fixture's own wire names (Yosys's `$` names left out): from r1
    // through the subkey sum w1 (its chain entered at bit 0) and the merged sum s; the end,
    // y1, is `to`.
    assert_eq!(p.through, ["r1[0]", "w1[0]", "s[63]"], "{p:?}");
}

#[test]
fn paths_from_chosen_registers_only() {
    let c = Constants::built_in();
    let n = read("subkey_mix64.json");
    // From r0 alone: r0 + rk0 enters the merged adder's one chain, never w1's (r1 + rk1).
    let a = n.analyse(Flow::Ise13, &c);
    let p = n
        .critical_path_between(&a, &c, &|r| r.starts_with("r0["), &|_| true)
        .unwrap();
    assert!(p.from.starts_with("r0["), "{p:?}");
    assert_eq!(p.carry_chains, 1, "{p:?}");
    let whole = n.critical_path_into(&a, &c, &|_| true);
    assert!(p.period_ns < whole.period_ns, "{p:?} against {whole:?}");
    // The whole netlist's path, timed as the analysis timed it.
    assert_eq!(whole, a.critical_path);
    // Every start accepted: the whole netlist's path.
    let all = n.critical_path_between(&a, &c, &|_| true, &|_| true);
    assert_eq!(all.as_ref(), Some(&whole));
    // No start accepted: no path, not a path from nowhere.
    let none = n.critical_path_between(&a, &c, &|_| false, &|_| true);
    assert_eq!(none, None);
}

#[test]
fn datapath_registers_by_their_generated_names() {
    use skeinhw_estimator::netlist::summary::is_datapath_register;
    for name in [
        "slot0_st[3]",
        "slot12_ky[64]",
        "p0_l2_a1[4]",
        "c0_l0_u[1]",
        "a0_ky",
        "n1_st",
    ] {
        assert!(is_datapath_register(name), "{name}");
    }
    for name in [
        "b0_full",
        "s0_pos[2]",
        "c_chain[1]",
        "iss_t0[0]",
        "phase[0]",
        "in_data[3]",
    ] {
        assert!(!is_datapath_register(name), "{name}");
    }
}

#[test]
fn threefish_round_path_and_counts() {
    let c = Constants::built_in();
    let e = read("tf256_round.json").analyse(Flow::Ise13, &c);
    // 4 subkey adders and 2 MIX adders: 6 carry chains of 16 CARRY4s.
    assert_eq!(e.cells.carry4, 96);
    assert_eq!(e.ffs, 512);
    let p = &e.critical_path;
    // Subkey add (its select folded into the MIX adder's LUTs), MIX add, XOR.
    assert_eq!((p.carry_chains, p.lut_depth), (2, 3));
    assert!(p.from.starts_with("v[") && p.to.starts_with("v["), "{p:?}");
    // A slower flow means a longer period, and the path's parts add up.
    let slow = read("tf256_round.json").analyse(Flow::Ise9Default, &c);
    assert!(slow.period_ns > e.period_ns);
    assert!(close(p.period_ns, p.logic_ns + p.route_ns));
}

fn message(r: Result<Netlist, EstimatorError>) -> String {
    let m = r.unwrap_err().to_string();
    assert_eq!(m.lines().count(), 1, "one line: {m}");
    m
}

#[test]
fn truncated_and_malformed_json_are_one_line_errors() {
    let text = std::fs::read_to_string(data("add64.json")).unwrap();
    let m = message(Netlist::parse(&text[..text.len() / 2], "half.json", None));
    assert!(m.starts_with("netlist half.json: truncated JSON"), "{m}");
    let m = message(Netlist::parse("{\"modules\": 3}", "x.json", None));
    assert!(
        m.contains("not a Yosys JSON netlist") && m.contains("modules"),
        "{m}"
    );
    let m = message(Netlist::parse("hello", "x.json", None));
    assert!(m.contains("not a Yosys JSON netlist"), "{m}");
    let bad_bit = r#"{"modules": {"t": {"attributes": {"top": 1}, "cells": {"a": {"type": "LUT1",
        "connections": {"I0": ["q"], "O": [3]}}}}}}"#;
    let m = message(Netlist::parse(bad_bit, "x.json", None));
    assert!(m.contains("modules.t.cells.a.connections.I0"), "{m}");
    let m = message(Netlist::from_file(data("missing.json"), None).map(|_| unreachable!()));
    assert!(m.contains("missing.json"), "{m}");
}

#[test]
fn no_top_module_is_an_error() {
    let m = message(Netlist::parse(r#"{"modules": {}}"#, "x.json", None));
    assert!(m.contains("no top module"), "{m}");
    let two = r#"{"modules": {"a": {}, "b": {}}}"#;
    let m = message(Netlist::parse(two, "x.json", None));
    assert!(m.contains("no top module") && m.contains("-top"), "{m}");
    let boxes = r#"{"modules": {"LUT1": {"attributes": {"blackbox": "1"}}}}"#;
    assert!(message(Netlist::parse(boxes, "x.json", None)).contains("no top module"));
    // Naming it works; naming a missing one says so.
    assert_eq!(Netlist::parse(two, "x.json", Some("b")).unwrap().top, "b");
    assert!(message(Netlist::parse(two, "x.json", Some("c"))).contains("no module `c`"));
    // Without a top mark, the only module that is not a black box is the top.
    let one = r#"{"modules": {"LUT1": {"attributes": {"blackbox": "1"}}, "t": {}}}"#;
    assert_eq!(Netlist::parse(one, "x.json", None).unwrap().top, "t");
}

#[test]
fn unknown_cells_are_other_with_a_warning_and_loops_are_broken() {
    let text = r#"{"modules": {"t": {
      "attributes": {"top": "00000000000000000000000000000001"},
      "ports": {"a": {"direction": "input", "bits": [2]}, "y": {"direction": "output", "bits": [5]}},
      "cells": {
        "dsp": {"type": "DSP48E", "connections": {"A": [2], "P": [3]}},
        "l1": {"type": "LUT2", "connections": {"I0": [3], "I1": [4], "O": [4]}},
        "r": {"type": "FDRE", "connections": {"C": [9], "CE": ["1"], "R": ["0"], "D": [4], "Q": [5]}},
        "m": {"type": "$_DFF_P_", "port_directions": {"C": "input", "D": "input", "Q": "output"},
              "connections": {"C": [9], "D": [5], "Q": [6]}}
      }}}}"#;
    let n = Netlist::parse(text, "x.json", None).unwrap();
    let e = n.analyse(Flow::Ise13, &Constants::built_in());
    assert_eq!((e.cells.other, e.cells.luts, e.ffs), (2, 1, 1));
    let w = e.warnings.join("\n");
    assert!(w.contains("DSP48E x1") && w.contains("$_DFF_P_ x1"), "{w}");
    assert!(w.contains("no port directions for DSP48E"), "{w}");
    assert!(w.contains("combinational loop"), "{w}");
    assert!(e.period_ns.is_finite() && e.period_ns > 0.0);
}

#[test]
fn every_bit_kind_and_an_empty_module() {
    let e = Netlist::parse(r#"{"modules": {"t": {}}}"#, "x.json", None)
        .unwrap()
        .analyse(Flow::Ise13, &Constants::built_in());
    assert_eq!((e.luts, e.ffs, e.slices), (0, 0, 0));
    assert!(e.period_ns > 0.0);
    let text = r#"{"modules": {"t": {"cells": {"c": {"type": "CARRY4",
        "connections": {"CI": ["x"], "CYINIT": ["0"], "DI": [2, "1", "z"], "S": [3],
                        "O": [4, 5, 6, 7], "CO": []}}}}}}"#;
    let e = Netlist::parse(text, "x.json", None)
        .unwrap()
        .analyse(Flow::Ise13, &Constants::built_in());
    assert_eq!(e.cells.carry4, 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any prefix of a real netlist, and any single-byte corruption of it: an error or an
    /// analysis, never a panic.
    #[test]
    fn truncated_or_corrupted_netlists_never_panic(cut in 0usize..20_000, pos in 0usize..20_000,
                                                   byte in any::<u8>()) {
        let text = include_str!("data/mix64.json");
        let small: String = text.chars().take(20_000).collect();
        let cut = cut.min(small.len());
        let prefix = small.get(..cut).unwrap_or("");
        if let Ok(n) = Netlist::parse(prefix, "p.json", None) {
            let _ = n.analyse(Flow::Ise13, &Constants::built_in());
        }
        let mut bytes = text.as_bytes().to_vec();
        let pos = pos % bytes.len();
        bytes[pos] = byte;
        if let Ok(s) = std::str::from_utf8(&bytes)
            && let Ok(n) = Netlist::parse(s, "c.json", None)
        {
            let _ = n.analyse(Flow::Ise9Default, &Constants::built_in());
        }
    }

    /// Random JSON-shaped text built from netlist tokens.
    #[test]
    fn random_json_never_panics(tokens in proptest::collection::vec(0usize..24, 0..200)) {
        const T: [&str; 24] = [
            "{", "}", "[", "]", ",", ":", "\"modules\"", "\"t\"", "\"cells\"", "\"type\"",
            "\"LUT2\"", "\"CARRY4\"", "\"FDRE\"", "\"connections\"", "\"O\"", "\"I0\"", "\"CI\"",
            "\"D\"", "\"Q\"", "2", "3", "\"0\"", "\"ports\"", "\"attributes\"",
        ];
        let text: String = tokens.iter().map(|&i| T[i]).collect::<Vec<_>>().join("");
        if let Ok(n) = Netlist::parse(&text, "r.json", None) {
            let _ = n.analyse(Flow::Ise13, &Constants::built_in());
        }
    }

    /// Random netlists that parse: random cells wired to random nets, loops included.
    #[test]
    fn random_netlists_analyse(cells in proptest::collection::vec(
        (0usize..6, proptest::collection::vec(2u32..40, 0..12)), 0..60)) {
        const KINDS: [&str; 6] = ["LUT4", "CARRY4", "FDRE", "MUXF7", "SRLC32E", "MYSTERY"];
        const PINS: [&[&str]; 6] = [
            &["I0", "I1", "I2", "I3", "O"],
            &["CI", "CYINIT", "DI", "S", "O", "CO"],
            &["C", "D", "Q"],
            &["I0", "I1", "S", "O"],
            &["D", "CLK", "Q"],
            &["A", "B"],
        ];
        let mut parts = Vec::new();
        for (i, (k, bits)) in cells.iter().enumerate() {
            let pins = PINS[*k];
            let conns: Vec<String> = pins.iter().enumerate().map(|(j, p)| {
                let chunk: Vec<String> = bits.iter().skip(j).step_by(pins.len())
                    .map(|b| b.to_string()).collect();
                format!("\"{p}\": [{}]", chunk.join(","))
            }).collect();
            parts.push(format!("\"c{i}\": {{\"type\": \"{}\", \"connections\": {{{}}}}}",
                KINDS[*k], conns.join(",")));
        }
        let text = format!("{{\"modules\": {{\"t\": {{\"cells\": {{{}}}}}}}}}", parts.join(","));
        let n = Netlist::parse(&text, "g.json", None).unwrap();
        let e = n.analyse(Flow::Ise13, &Constants::built_in());
        prop_assert!(e.period_ns.is_finite() && e.period_ns > 0.0);
        let p = &e.critical_path;
        prop_assert!((p.period_ns - p.logic_ns - p.route_ns).abs() < 1e-9);
    }
}

/// A top module of LUT1 cells given as (input bit, output bit) pairs, input port bit 2.
fn lut_module(cells: &[(u32, u32)], output: u32) -> String {
    let cells: Vec<String> = cells
        .iter()
        .enumerate()
        .map(|(i, (a, y))| {
            format!(
                r#""c{i}": {{"type": "LUT1", "parameters": {{"INIT": "10"}},
                "connections": {{"I0": [{a}], "O": [{y}]}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"modules": {{"t": {{"attributes": {{"top": "1"}},
        "ports": {{"a": {{"direction": "input", "bits": [2]}},
                  "y": {{"direction": "output", "bits": [{output}]}}}},
        "cells": {{{}}}, "netnames": {{}}}}}}}}"#,
        cells.join(",")
    )
}

/// Issue 16: the fuzz seeds' shapes at full size. A chain 50,000 LUTs deep (a recursive walk
/// would overflow the test thread's stack) and a combinational loop are timed, not crashed on.
#[test]
fn deep_chains_and_loops_do_not_overflow_the_stack() {
    let c = Constants::built_in();
    let depth = 50_000u32;
    let chain: Vec<(u32, u32)> = (0..depth).map(|i| (i + 2, i + 3)).collect();
    let n = Netlist::parse(&lut_module(&chain, depth + 2), "chain.json", None).unwrap();
    let e = n.analyse(Flow::Ise13, &c);
    assert_eq!(e.cells.lut_by_inputs[0], depth);
    let p = n.critical_path_into(&n.analyse(Flow::Ise13, &c), &c, &|_| true);
    assert_eq!(p.lut_depth, depth, "{p:?}");
    // y = c2(c1(c0(...))) with c0 and c1 feeding each other: a loop, reported and cut.
    let looped = lut_module(&[(4, 5), (5, 4), (4, 3)], 3);
    let n = Netlist::parse(&looped, "loop.json", None).unwrap();
    let e = n.analyse(Flow::Ise13, &c);
    assert!(
        e.warnings.iter().any(|w| w.contains("loop")),
        "{:?}",
        e.warnings
    );
}
