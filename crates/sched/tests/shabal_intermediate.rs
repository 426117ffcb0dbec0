//! The Shabal golden simulator's registers against the intermediate values that the SAPHIR
//! reference code prints (`vectors/shabal/intermediate.txt`, see its README): the initial value
//! after the prefix, the state inside P after each loop of 16 iterations of every pass (message
//! and final rounds), the state after every message round but the last, and the digest.

use skeinhw_sched::shabal::sim::{self, ShabalCycleRecord, ShabalJob, ShabalMemorySink};
use skeinhw_sched::shabal::{ShabalSchedule, ShabalSpec};
use skeinhw_shabal::State;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vectors/shabal/intermediate.txt"
);

/// One printed state: the step name and A, B, C, W.
#[derive(Debug)]
struct Printed {
    step: String,
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
    w: u64,
}

/// One vector: output bits, message name, states in order, final output hex.
struct Vector {
    out_bits: u32,
    message: char,
    states: Vec<Printed>,
    digest: String,
}

fn words(text: &str) -> Vec<u32> {
    text.split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).unwrap())
        .collect()
}

fn parse(text: &str) -> Vec<Vector> {
    let mut out: Vec<Vector> = Vec::new();
    let mut lines = text.lines().peekable();
    let mut step = String::new();
    let mut current: Option<Printed> = None;
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("Intermediate States for Shabal-") {
            let (bits, msg) = rest.split_once(" (Message ").unwrap();
            out.push(Vector {
                out_bits: bits.parse().unwrap(),
                message: msg.chars().next().unwrap(),
                states: Vec::new(),
                digest: String::new(),
            });
        } else if let Some(rest) = line.strip_prefix("block number = ") {
            step = rest.split_once(" : ").unwrap().1.to_owned();
        } else if line == "final output:" {
            let mut hex = String::new();
            lines.next();
            while let Some(l) = lines.next_if(|l| l.starts_with("   ")) {
                hex.push_str(l.trim());
            }
            out.last_mut().unwrap().digest = hex;
        } else if let Some((name, first)) = line.split_once(" : ") {
            // A register: this line and its indented continuation lines.
            let mut text = first.to_owned();
            while let Some(l) = lines.next_if(|l| l.starts_with("    ")) {
                text.push(' ');
                text.push_str(l);
            }
            let v = words(&text);
            match name {
                "A" => {
                    current = Some(Printed {
                        step: step.clone(),
                        a: v,
                        b: vec![],
                        c: vec![],
                        w: 0,
                    })
                }
                "B" => current.as_mut().unwrap().b = v,
                "C" => current.as_mut().unwrap().c = v,
                "W" => {
                    let mut p = current.take().unwrap();
                    p.w = u64::from(v[0]) | u64::from(v[1]) << 32;
                    out.last_mut().unwrap().states.push(p);
                }
                _ => {} // M: the message block, not a register state
            }
        }
    }
    out
}

fn message(name: char) -> Vec<u8> {
    match name {
        'A' => vec![0; 64],
        'B' => b"abcdefghijklmnopqrstuvwxyz-0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789-abcdefghijklmnopqrstuvwxyz".to_vec(),
        _ => panic!("unknown message {name}"),
    }
}

fn schedule(out_bits: u32, unfolding: u32) -> ShabalSchedule {
    ShabalSpec {
        algorithm: "shabal".into(),
        name: "t".into(),
        source: String::new(),
        output_bits: out_bits,
        unfolding,
    }
    .build()
    .unwrap()
}

fn same(r: &State, p: &Printed) -> bool {
    r.a[..] == p.a[..] && r.b[..] == p.b[..] && r.c[..] == p.c[..] && r.w == p.w
}

#[test]
fn golden_registers_match_the_reference_codes_intermediate_values() {
    let text = std::fs::read_to_string(FILE).unwrap();
    let vectors = parse(&text);
    assert_eq!(vectors.len(), 3);
    for v in &vectors {
        // The prefix: the state after the second "increment counter W" is the IV.
        let increments: Vec<&Printed> = v
            .states
            .iter()
            .filter(|p| p.step == "increment counter W")
            .collect();
        let iv = skeinhw_shabal::perm::initial_state(u64::from(v.out_bits)).unwrap();
        let mut iv_no_m = *iv;
        iv_no_m.m = [0; 16];
        assert!(same(&iv_no_m, increments[1]), "IV of Shabal-{}", v.out_bits);
        // Inside P: every "permutation (j = J)" after the prefix, in order.
        let loops: Vec<&Printed> = v
            .states
            .iter()
            .filter(|p| p.step.starts_with("permutation (j = "))
            .skip(2 * 3)
            .collect();
        // The state after each message round but the last (increments after the prefix).
        let rounds: Vec<&Printed> = increments[2..].to_vec();
        // Every unfolding factor with a cycle boundary after iterations 16 and 32.
        for f in [1, 2, 4, 8, 16] {
            let s = schedule(v.out_bits, f);
            let msg = message(v.message);
            let mut sink = ShabalMemorySink::default();
            let report = sim::simulate(&s, &[ShabalJob::bytes(&msg)], &mut sink).unwrap();
            assert_eq!(hex::encode(&report.digests[0]), v.digest);
            let at = |iteration: u32| -> Vec<&ShabalCycleRecord> {
                sink.records
                    .iter()
                    .filter(|r| r.iteration == iteration)
                    .collect()
            };
            let (after16, after32) = (at(16), at(32));
            assert_eq!(after16.len() * 3, loops.len(), "f = {f}");
            for (pass, (r16, r32)) in after16.iter().zip(&after32).enumerate() {
                let state16 = &r16.state;
                let p16 = loops[3 * pass];
                assert_eq!(state16.a[..], p16.a[..], "f = {f}, pass {pass}, j = 0: A");
                assert_eq!(state16.b[..], p16.b[..], "f = {f}, pass {pass}, j = 0: B");
                assert_eq!(state16.c[..], p16.c[..], "f = {f}, pass {pass}, j = 0: C");
                let p32 = loops[3 * pass + 1];
                assert_eq!(r32.state.a[..], p32.a[..], "f = {f}, pass {pass}, j = 1: A");
                assert_eq!(r32.state.b[..], p32.b[..], "f = {f}, pass {pass}, j = 1: B");
            }
            let ends = at(48);
            for (pass, printed) in rounds.iter().enumerate() {
                assert!(
                    same(&ends[pass].state, printed),
                    "f = {f}: registers after message round {pass}"
                );
            }
        }
    }
}
