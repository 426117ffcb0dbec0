//! Mutation tests of the Shabal cores: the test edits one thing in a generated design's text
//! (the A rotation of COMBINE, an NL tap of one iteration, the V factor, a C operand of one
//! final addition, the counter increment), simulates it in Icarus and checks that the
//! comparison with the golden trace diverges at exactly the first cycle where the golden model
//! uses the mutated operation (read off the golden records: the iterations done, the end of the
//! first pass, the first change of W), naming exactly the registers it writes.
//!
//! The generator marks the lines: `// ITER n=..`, `// FINAL word=..`, `// COUNTER`,
//! `// V_FACTOR`, and the localparam `A_ROTATION`.

mod common;
mod shabal_common;

use shabal_common::*;
use skeinhw_rtl::shabal::generate;
use skeinhw_rtl::{Message, Simulator};
use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalJob, ShabalMemorySink, simulate};
use skeinhw_sched::shabal::{ShabalSchedule, preset};
use skeinhw_shabal::constants::{A_ROTATION, BLOCK_WORDS, ITERATIONS, V_FACTOR};
use skeinhw_shabal::perm;
use skeinhw_trace::shabal::signals;

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

/// The message of the runs: two blocks, so that the counter is incremented.
const MESSAGE: &[u8] = &[0x6b; 100];

/// The golden records of the run.
fn golden(schedule: &ShabalSchedule) -> Vec<ShabalCycleRecord> {
    let mut sink = ShabalMemorySink::default();
    simulate(schedule, &[ShabalJob::bytes(MESSAGE)], &mut sink).unwrap();
    sink.records
}

/// Simulates the mutated design and returns (cycle, differing registers).
fn diverge(schedule: &ShabalSchedule, verilog: String, tag: &str) -> (u64, Vec<String>) {
    let mut design = generate(schedule);
    design.verilog = verilog;
    let dir = write_design(&design, &format!("mutants/{}-{tag}", schedule.name()));
    let o = run_and_compare(
        schedule,
        &dir,
        Simulator::Icarus,
        &[Message::bytes(MESSAGE)],
    );
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

/// The first golden cycle that does iteration `n` of the first pass.
fn cycle_of_iteration(records: &[ShabalCycleRecord], n: usize) -> u64 {
    records
        .iter()
        .find(|r| r.block == 0 && r.iteration as usize > n)
        .expect("a cycle does it")
        .cycle
}

/// The registers written by iterations `ns` (A[n mod 12] and B[n mod 16]), in trace order.
fn written_by(ns: impl IntoIterator<Item = usize>, out_words: usize) -> Vec<String> {
    let mut names = Vec::new();
    for n in ns {
        let ix = perm::indices(n);
        names.push(format!("a_{}", ix.a));
        names.push(format!("b_{}", ix.b));
    }
    signals(out_words)
        .into_iter()
        .map(|s| s.name)
        .filter(|s| names.contains(s))
        .collect()
}

#[test]
fn the_a_rotation() {
    // Used by every iteration: wrong from cycle 1, in every word that cycle writes.
    for name in ["shabal-unfold-1", "shabal-unfold-4"] {
        let s = preset(name).unwrap();
        let f = s.unfolding() as usize;
        let text = mutate(&generate(&s).verilog, "localparam [4:0] A_ROTATION", |l| {
            l.replace(
                &format!("5'd{A_ROTATION};"),
                &format!("5'd{};", A_ROTATION + 1),
            )
        });
        let (cycle, fields) = diverge(&s, text, "arot");
        assert_eq!(cycle, cycle_of_iteration(&golden(&s), 0), "{name}");
        assert_eq!(fields, written_by(0..f, s.output_words()), "{name}");
    }
}

#[test]
fn an_nl_tap_index() {
    // The first tap of iteration 20 moved to the next B word. Iteration 20 is the last of its
    // cycle for f = 3 (and 1), so only the words it writes differ.
    for name in ["shabal-unfold-1", "shabal-unfold-3"] {
        let s = preset(name).unwrap();
        let n = 20;
        let ix = perm::indices(n);
        let text = mutate(&generate(&s).verilog, &format!("// ITER n={n}"), |l| {
            l.replace(
                &format!("nl(x_b_{}, ", ix.b_o1),
                &format!("nl(x_b_{}, ", (ix.b_o1 + 1) % BLOCK_WORDS),
            )
        });
        let (cycle, fields) = diverge(&s, text, "nl");
        assert_eq!(cycle, cycle_of_iteration(&golden(&s), n), "{name}");
        assert_eq!(fields, written_by([n], s.output_words()), "{name}");
    }
}

#[test]
fn the_v_factor() {
    // V(x) = 5x = (x << 2) + x becomes 9x: wrong from cycle 1.
    let s = preset("shabal-unfold-8").unwrap();
    let f = s.unfolding() as usize;
    let shift = (V_FACTOR - 1).trailing_zeros();
    let text = mutate(&generate(&s).verilog, "// V_FACTOR", |l| {
        l.replace(&format!("(x << {shift})"), &format!("(x << {})", shift + 1))
    });
    let (cycle, fields) = diverge(&s, text, "v");
    assert_eq!(cycle, cycle_of_iteration(&golden(&s), 0));
    assert_eq!(fields, written_by(0..f, s.output_words()));
}

#[test]
fn a_final_addition_c_operand() {
    // A[3] += C[6] + C[2] + C[14]: the first operand moved to C[7]. Used in the last cycle of
    // the first pass; only A[3] differs.
    let s = preset("shabal-unfold-6").unwrap();
    let word = 3;
    let [c0, _, _] = perm::final_addition_operands(word);
    let text = mutate(
        &generate(&s).verilog,
        &format!("// FINAL word={word}"),
        |l| {
            l.replace(
                &format!("+ x_c_{c0} +"),
                &format!("+ x_c_{} +", (c0 + 1) % BLOCK_WORDS),
            )
        },
    );
    let (cycle, fields) = diverge(&s, text, "final");
    let end_of_pass = golden(&s)
        .iter()
        .find(|r| r.iteration as usize == ITERATIONS)
        .unwrap()
        .cycle;
    assert_eq!(cycle, end_of_pass);
    assert_eq!(fields, [format!("a_{word}")]);
}

#[test]
fn the_counter_increment() {
    // W += 2 instead of 1: wrong in the cycle the golden W first changes (the end of the first
    // block's pass), in W alone.
    let s = preset("shabal-unfold-2").unwrap();
    let text = mutate(&generate(&s).verilog, "// COUNTER", |l| {
        l.replace("64'd1;", "64'd2;")
    });
    let (cycle, fields) = diverge(&s, text, "counter");
    let records = golden(&s);
    let first_w = records[0].state.w;
    let changed = records
        .iter()
        .find(|r| r.state.w != first_w)
        .expect("a two-block message increments W")
        .cycle;
    assert_eq!(cycle, changed);
    assert_eq!(fields, ["w"]);
}
