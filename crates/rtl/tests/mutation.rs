//! Mutation tests: the test edits one thing in a generated design's text (a rotation constant,
//! a permutation index, a subkey word index, a tweak flag bit, a shared-adder select), simulates
//! it in Icarus and checks that the comparison with the golden trace diverges at exactly the
//! first cycle where the golden model's per-cycle ops (`Datapath::cycle_ops`, the list the
//! simulator executes) say the mutated operation acts, naming the register it writes.
//!
//! The generator marks the lines: `// ROT d=.. j=..`, `// PERM w=.. pi=..`, `// SUBKEY s=.. i=..`,
//! `// TWEAK First`, and the ROM rows `// CYCLE e=..`.

mod common;

use common::*;
use skeinhw_rtl::{Message, Simulator, generate};
use skeinhw_sched::sim::{Datapath, MicroOp};
use skeinhw_sched::{Schedule, preset};
use skeinhw_skein::constants::permutation;

/// Replaces the one line containing `marker` with `edit(line)`.
fn mutate(text: &str, marker: &str, edit: impl Fn(&str) -> String) -> String {
    let hits: Vec<&str> = text.lines().filter(|l| l.contains(marker)).collect();
    assert_eq!(
        hits.len(),
        1,
        "marker {marker:?} must be on exactly one line"
    );
    let new = edit(hits[0]);
    assert_ne!(new, hits[0], "the edit changed nothing");
    text.replacen(hits[0], &new, 1)
}

/// Simulates the mutated design on "abc" and returns (cycle, differing registers).
fn diverge(schedule: &Schedule, verilog: String, tag: &str) -> (u64, Vec<String>) {
    let mut design = generate(schedule).unwrap();
    design.verilog = verilog;
    let dir = cache_root()
        .join("mutants")
        .join(format!("{}-{tag}", schedule.name()));
    std::fs::create_dir_all(&dir).unwrap();
    design.write_into(&dir).unwrap();
    let o = run_and_compare(schedule, &dir, Simulator::Icarus, &[Message::bytes(b"abc")]);
    let d = o.divergence.unwrap_or_else(|| {
        panic!(
            "{} {tag}: the mutant agrees with the golden trace",
            schedule.name()
        )
    });
    let d = d
        .first_divergence
        .unwrap_or_else(|| panic!("{} {tag}: {}", schedule.name(), d.summary));
    (d.cycle, d.fields.into_iter().map(|f| f.field).collect())
}

/// The golden cycle of elapsed cycle `e` of the first block (issued in cycle 1).
fn cycle_of(e: u32) -> u64 {
    u64::from(e) + 1
}

/// The first (e, ops) where `pred` holds for one of the cycle's ops, with the op's index.
fn first_op(dp: &Datapath, pred: impl Fn(&MicroOp) -> bool) -> (u32, usize, usize) {
    for op in dp.cycle_ops() {
        if let Some(i) = op.ops.iter().position(&pred) {
            return (op.elapsed, op.slot, i);
        }
    }
    panic!("no cycle does the operation");
}

/// The state word that word `w` ends up in at the end of the cycle, after the ops following
/// index `i` (permutations move it; the test designs do one round or less per cycle).
fn final_word(dp: &Datapath, e: u32, i: usize, mut w: usize, words: usize) -> usize {
    let pi = permutation(words);
    for m in &dp.cycle_ops()[e as usize].ops[i + 1..] {
        if *m == MicroOp::Permute {
            w = pi.iter().position(|&p| p == w).unwrap();
        }
    }
    w
}

#[test]
fn a_rotation_constant() {
    for name in ["ath-1r", "long-split-256"] {
        let s = preset(name).unwrap();
        let n = s.words() as usize;
        let dp = Datapath::new(&s);
        let (d, j) = (5u32, 1u32);
        let text = generate(&s).unwrap().verilog;
        let text = mutate(&text, &format!("// ROT d={d} j={j}"), |l| {
            let r = skeinhw_skein::constants::rotation(n, d as usize, j as usize);
            l.replace(&format!("6'd{r})"), &format!("6'd{})", (r + 1) % 64))
        });
        let (e, slot, i) = first_op(
            &dp,
            |m| matches!(*m, MicroOp::Mix { round, first, end } if round % 8 == d && (first..end).contains(&j)),
        );
        let w = final_word(&dp, e, i, 2 * j as usize + 1, n);
        let (cycle, fields) = diverge(&s, text, "rot");
        assert_eq!(cycle, cycle_of(e), "{name}");
        assert_eq!(fields, [format!("slot{slot}_state_{w}")], "{name}");
    }
}

#[test]
fn a_permutation_index() {
    let s = preset("long-iter-512").unwrap();
    let n = s.words() as usize;
    let dp = Datapath::new(&s);
    let w = 3usize;
    let pi = permutation(n);
    let text = generate(&s).unwrap().verilog;
    let text = mutate(&text, &format!("// PERM w={w} pi="), |l| {
        l.replace(
            &format!("x[{} +: 64]", 64 * pi[w]),
            &format!("x[{} +: 64]", 64 * pi[(w + 1) % n]),
        )
    });
    let (e, slot, _) = first_op(&dp, |m| *m == MicroOp::Permute);
    let (cycle, fields) = diverge(&s, text, "perm");
    assert_eq!(cycle, cycle_of(e));
    assert_eq!(fields, [format!("slot{slot}_state_{w}")]);
}

#[test]
fn a_subkey_word_index() {
    let s = preset("ath-1r").unwrap();
    let n = s.words() as usize;
    let dp = Datapath::new(&s);
    let (sk, i) = (2u32, 5usize);
    let text = generate(&s).unwrap().verilog;
    let text = mutate(&text, &format!("// SUBKEY s={sk} i={i}"), |l| {
        // k_{(s+i) mod 9} -> the next key word
        let key = (sk as usize + i) % (n + 1);
        l.replace(
            &format!("ky[{} +: 64]", 64 * key),
            &format!("ky[{} +: 64]", 64 * ((key + 1) % (n + 1))),
        )
    });
    let (e, slot, at) = first_op(
        &dp,
        |m| matches!(*m, MicroOp::AddSubkey { subkey, first, end } if subkey == sk && (first..end).contains(&(i as u32))),
    );
    let w = final_word(&dp, e, at, i, n);
    let (cycle, fields) = diverge(&s, text, "subkey");
    assert_eq!(cycle, cycle_of(e));
    assert_eq!(fields, [format!("slot{slot}_state_{w}")]);
}

#[test]
fn a_tweak_flag_bit() {
    // First moved into the Type field: wrong from the first block's first cycle (its tweak is
    // loaded, and subkey 0 adds t1 to word Nw-2).
    let s = preset("ath-1r").unwrap();
    let n = s.words() as usize;
    let text = generate(&s).unwrap().verilog;
    let text = mutate(&text, "// TWEAK First", |l| {
        l.replace("iss_t1[62]", "iss_t1[61]")
    });
    let (cycle, fields) = diverge(&s, text, "tweak");
    assert_eq!(cycle, 1);
    for f in ["slot0_tweak_1", "slot0_tweak_2"] {
        assert!(fields.iter().any(|x| x == f), "{fields:?}");
    }
    assert!(
        fields.contains(&format!("slot0_state_{}", n - 2)),
        "{fields:?}"
    );
}

#[test]
fn a_shared_adder_select() {
    // Long 3.4.2 (half the subkey adders) and 3.4.3 (half the MIX adders): the ROM's select of
    // the first shared use swapped to the other half.
    // The pooled ROM: `_off` is the first word (subkey) or MIX the layer's adders take.
    for (name, unit, swapped) in [
        (
            "long-outshare-256",
            "c0_l2_off = 8'd0;",
            "c0_l2_off = 8'd2;",
        ),
        (
            "long-inshare-256",
            "c0_l0_off = 8'd0; c0_l0_en = 1'h1;",
            "c0_l0_off = 8'd1; c0_l0_en = 1'h1;",
        ),
    ] {
        let s = preset(name).unwrap();
        let dp = Datapath::new(&s);
        let text = generate(&s).unwrap().verilog;
        let row = text
            .lines()
            .find(|l| l.contains("// CYCLE e=") && l.contains(unit))
            .expect("a ROM row using half the shared adders")
            .to_owned();
        let e: u32 = row.rsplit("e=").next().unwrap().trim().parse().unwrap();
        let text = mutate(&text, &row, |l| l.replace(unit, swapped));
        // Which words the golden op writes in that cycle: the first half of the subkey or the
        // first MIX (words 0, 1), so word 0 or its permuted place differs.
        let op = &dp.cycle_ops()[e as usize];
        let (i, _) = op
            .ops
            .iter()
            .enumerate()
            .find(|(_, m)| match m {
                MicroOp::AddSubkey { first, end, .. } => *end - *first < s.words(),
                MicroOp::Mix { first, end, .. } => *end - *first < s.words() / 2,
                MicroOp::Permute => false,
            })
            .expect("a half op");
        let w = final_word(&dp, e, i, 0, s.words() as usize);
        let (cycle, fields) = diverge(&s, text, "select");
        assert_eq!(cycle, cycle_of(e), "{name}");
        assert!(
            fields.contains(&format!("slot{}_state_{w}", op.slot)),
            "{name}: {fields:?}"
        );
    }
}
