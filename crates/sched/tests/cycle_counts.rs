//! Cycles per block and blocks in flight of every preset, against the numbers the papers give
//! or imply. The throughput arithmetic that ties them to the papers' tables is checked in
//! `seed_tables.rs`.

use skeinhw_sched::{Schedule, preset, preset_names, preset_spec, presets};

/// (preset, cycles per block of one message, blocks in flight, issue interval, where from).
const TABLE: [(&str, u32, u32, u32, &str); 20] = [
    // Long 2009, 3.2.1: "if the algorithm uses n rounds, this design requires n clock cycles";
    // Table 1 throughput 256/(72 x 8.7 ns) = 408.7 Mbit/s.
    ("long-iter-256", 72, 1, 72, "Long 3.2.1, Fig. 7, Table 1"),
    (
        "long-iter-512",
        72,
        1,
        72,
        "Long 3.2.1, Fig. 7, Tables 1 and 3",
    ),
    (
        "long-iter-1024",
        80,
        1,
        80,
        "Long 3.2.1, Fig. 7, Table 1 (80 rounds)",
    ),
    // Fig. 8 caption: "4 copies of the round circuit, we incur only 18 iterations".
    (
        "long-unroll4-512",
        18,
        1,
        18,
        "Long Fig. 8 caption, Table 3 (441 ns = 18 x 24.5)",
    ),
    // Fig. 9: a register between all 72 rounds: 72 independent blocks (tree nodes), one
    // accepted every cycle; a block of one chain still needs 72 cycles.
    ("long-pipe-512", 72, 72, 1, "Long 3.2.3, Fig. 9"),
    // 3.4.1: one key-schedule adder "without any penalty on the latency".
    ("long-ks1-256", 72, 1, 72, "Long 3.4.1, Fig. 12"),
    // 3.4.2: "only 18 of 72 rounds require the key addition, those 18 rounds incur additional
    // latency": 72 + 18.
    ("long-outshare-256", 90, 1, 90, "Long 3.4.2, Fig. 13"),
    // 3.4.3: two cycles for every round, "the latency penalty for every round".
    ("long-inshare-256", 144, 1, 144, "Long 3.4.3, Fig. 14(a)"),
    ("long-split-256", 144, 1, 144, "Long 3.4.3, Fig. 14(b)"),
    // 3.4.4: 54 one-cycle + 18 two-cycle pseudo rounds. The paper prints "64 + 18 x 2", an
    // arithmetic slip: its 37% latency saving is 90 x T/2 against 72 x T.
    ("long-overlap-256", 90, 1, 90, "Long 3.4.4, Fig. 15"),
    // Athanasiou 2013, 3.1.1: "73 clock cycles ... 72 ... rounds ... one more cycle for the
    // computation of the first sub-key"; 4.1: c = 19 and 10 for 4r and 8r.
    ("ath-1r", 73, 1, 73, "Athanasiou 3.1.1, Fig. 6"),
    ("ath-4r", 19, 1, 19, "Athanasiou 4.1, Fig. 6"),
    ("ath-8r", 10, 1, 10, "Athanasiou 4.1, Fig. 6"),
    // 3.2.1's text says 9p + 2 = 20, 38, 74 cycles, but the throughput table of Fig. 7 implies
    // 10p with p messages in flight (e.g. 2 x 512 x 191.6 MHz / 40 = 9809.9 for 8r_4Fp). We
    // follow the table.
    (
        "ath-8r-2fp",
        20,
        2,
        10,
        "Athanasiou Fig. 7 (text: 9p+2 = 20)",
    ),
    ("ath-8r-4fp", 40, 4, 10, "Athanasiou Fig. 7 (text: 38)"),
    ("ath-8r-8fp", 80, 8, 10, "Athanasiou Fig. 7 (text: 74)"),
    // 3.2.2: three 8-round modules, three passes each, subkey 0 from Key Generation 0 without
    // a cycle of its own. Fig. 8's throughput 512 x f / 3 is one block every 3 cycles: a block
    // of one message needs 3 passes x p cycles in each of the 3 modules (9p cycles), and the
    // 3p pipeline registers hold 3p independent blocks.
    ("ath-8r-3sp", 9, 3, 3, "Athanasiou 3.2.2, Fig. 8"),
    ("ath-8r-2fp-3sp", 18, 6, 3, "Athanasiou 3.2.3, Fig. 8"),
    ("ath-8r-4fp-3sp", 36, 12, 3, "Athanasiou 3.2.3, Fig. 8"),
    ("ath-8r-8fp-3sp", 72, 24, 3, "Athanasiou 3.2.3, Fig. 8"),
];

#[test]
fn every_preset_matches_the_papers() {
    for (name, cycles, in_flight, interval, source) in TABLE {
        let s = preset(name).unwrap();
        assert_eq!(
            (
                s.cycles_per_block(),
                s.blocks_in_flight(),
                s.issue_interval()
            ),
            (cycles, in_flight, interval),
            "{name} ({source})"
        );
        assert_eq!(s.block_latency(), cycles, "{name}");
    }
}

#[test]
fn the_table_covers_every_preset() {
    let names: Vec<&str> = preset_names().collect();
    let table: Vec<&str> = TABLE.iter().map(|row| row.0).collect();
    assert_eq!(names, table);
}

#[test]
fn presets_cite_a_source_and_keep_their_names() {
    for s in presets() {
        assert!(!s.source().is_empty(), "{}", s.name());
        assert_eq!(preset(s.name()).unwrap(), s);
    }
}

/// The same designs at the other sizes, where the rules allow them.
#[test]
fn other_sizes() {
    let cycles = |name: &str, size: &str| -> Result<u32, String> {
        let mut spec = preset_spec(name).unwrap();
        spec.set("size", size).unwrap();
        Schedule::try_from(spec)
            .map(|s| s.cycles_per_block())
            .map_err(|e| e.to_string())
    };
    // Nr = 80 for Skein-1024: 80 iterations, 80 + 20 with half the subkey adders, 160 with
    // two cycles a round, 80/8 + 1 for Athanasiou's 8r.
    assert_eq!(cycles("long-iter-256", "1024"), Ok(80));
    assert_eq!(cycles("long-outshare-256", "512"), Ok(90));
    assert_eq!(cycles("long-outshare-256", "1024"), Ok(100));
    assert_eq!(cycles("long-inshare-256", "1024"), Ok(160));
    assert_eq!(cycles("long-split-256", "512"), Ok(144));
    assert_eq!(cycles("long-unroll4-512", "1024"), Ok(20));
    assert_eq!(cycles("ath-1r", "256"), Ok(73));
    assert_eq!(cycles("ath-8r", "1024"), Ok(11));
    assert_eq!(cycles("ath-8r-2fp", "1024"), Ok(22));
    // 3 modules cannot share the 10 passes of Skein-1024 evenly; 72 rounds of a fully
    // unrolled pipeline do not divide 80.
    assert!(
        cycles("ath-8r-3sp", "1024")
            .unwrap_err()
            .starts_with("structural_stages = 3")
    );
    assert!(
        cycles("long-pipe-512", "1024")
            .unwrap_err()
            .starts_with("rounds_per_cycle = 72")
    );
    assert!(
        cycles("long-overlap-256", "512")
            .unwrap_err()
            .starts_with("round_datapath")
    );
}

/// Invariants over every valid schedule of every size (a small exhaustive sweep).
#[test]
fn derived_numbers_are_consistent_for_every_valid_schedule() {
    let mut valid = 0;
    for size in ["256", "512", "1024"] {
        for k in 1..=80 {
            for p in 1..=8 {
                for s in 1..=10 {
                    for first in [false, true] {
                        let mut spec = preset_spec("ath-1r").unwrap();
                        for (field, value) in [
                            ("size", size.to_owned()),
                            ("rounds_per_cycle", k.to_string()),
                            ("functional_stages", p.to_string()),
                            ("structural_stages", s.to_string()),
                            ("first_subkey_cycle", first.to_string()),
                        ] {
                            spec.set(field, &value).unwrap();
                        }
                        let Ok(sched) = spec.build() else { continue };
                        valid += 1;
                        let nr = sched.rounds();
                        assert_eq!(nr % (k * s), 0);
                        assert_eq!(sched.cycles_per_block() % sched.blocks_in_flight(), 0);
                        assert_eq!(
                            sched.cycles_per_block(),
                            p * (nr / k + u32::from(first)),
                            "{sched:?}"
                        );
                        assert_eq!(sched.issue_interval(), nr / (k * s) + u32::from(first));
                        assert!(sched.subkeys_per_pass() <= sched.subkey_injection_points());
                    }
                }
            }
        }
    }
    assert!(valid > 100, "only {valid} valid schedules");
}

/// Adder counts by role, against what the papers count.
#[test]
fn adder_counts() {
    let adders = |name: &str| preset(name).unwrap().adders();
    // Long 3.3: "nine 64-bit adders" (Skein-256), fifteen (512), twenty seven (1024):
    // Nw/2 MIX + Nw subkey + 3 key schedule.
    for (name, total) in [
        ("long-iter-256", 9),
        ("long-iter-512", 15),
        ("long-iter-1024", 27),
    ] {
        assert_eq!(adders(name).total(), total, "{name}");
    }
    // Long 3.4: the sharing options of Skein-256.
    assert_eq!(adders("long-ks1-256").key_schedule, 1);
    assert_eq!(adders("long-outshare-256").subkey, 2);
    assert_eq!(adders("long-inshare-256").mix, 1);
    let overlap = adders("long-overlap-256");
    assert_eq!(
        overlap.mix + overlap.subkey,
        4,
        "Long 3.4.4: four adders instead of six"
    );
    // Athanasiou 3.1: 1r has 4 MIX and 8 subkey adders; 4r 16 MIX and 8; 8r 32 MIX, two
    // subkey inputs and a key generator of 6 adders (3.1.3).
    let a1 = adders("ath-1r");
    assert_eq!((a1.mix, a1.subkey, a1.key_schedule), (4, 8, 3));
    let a4 = adders("ath-4r");
    assert_eq!((a4.mix, a4.subkey, a4.key_schedule), (16, 8, 3));
    let a8 = adders("ath-8r");
    assert_eq!((a8.mix, a8.subkey, a8.key_schedule), (32, 16, 6));
    // 3.2.1: the p messages share two key generators of three adders each.
    assert_eq!(adders("ath-8r-4fp").key_schedule, 6);
    // 3.2.2: three modules with their own key generators, and Key Generation 0 (2 adders).
    let a3 = adders("ath-8r-3sp");
    assert_eq!(
        (a3.mix, a3.subkey, a3.key_schedule, a3.first_subkey),
        (96, 48, 18, 2)
    );
}
