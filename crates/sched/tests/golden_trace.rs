//! The per-round states of the iterative schedules equal the reference C code's round-by-round
//! debug output (`vectors/skein/skein_round_trace_examples.txt`, SKEIN_DEBUG_ALL): the raw
//! Threefish blocks and the first three golden-KAT entries of each size (0, 1 and 2 bits of
//! zeros).
//!
//! How the file names words: the reference code never moves words for the permutation, it
//! renames them (`Round256(0,3,2,1,...)`), so its word i after round r is our word
//! pi^-r(i): our state after r rounds is its state permuted r times. After a key injection
//! (every 4 rounds, pi^4 = identity) both agree word for word.

use std::path::PathBuf;

use skeinhw_sched::sim::{Job, MemorySink, OwnedCycleRecord, RawBlock, simulate, simulate_raw};
use skeinhw_sched::{Schedule, preset_spec};
use skeinhw_skein::Params;
use skeinhw_skein::constants::{permutation, rounds};

/// One block of the debug output.
#[derive(Debug, Default)]
struct Block {
    /// "Threefish" (raw) or the UBI type ("CFG", "MSG", "OUT").
    kind: String,
    tweak: Vec<u64>,
    key: Vec<u64>,
    tweak_schedule: Vec<u64>,
    key_schedule: Vec<u64>,
    input: Vec<u64>,
    /// (label, words) in file order: "initial key injection", "round  1", "key injection #01",
    /// ..., "plaintext feedforward".
    states: Vec<(String, Vec<u64>)>,
}

/// A golden-KAT entry: message length and its blocks; or a raw Threefish block.
#[derive(Debug)]
enum Entry {
    Raw(Block),
    Skein { msg_bits: u64, blocks: Vec<Block> },
}

fn words_of(line: &str) -> Option<Vec<u64>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.is_empty()
        || !words
            .iter()
            .all(|w| w.len() == 17 && w.as_bytes()[8] == b'.')
    {
        return None;
    }
    Some(
        words
            .iter()
            .map(|w| u64::from_str_radix(&w.replace('.', ""), 16).unwrap())
            .collect(),
    )
}

/// Parses the entries of one state size from the file.
fn parse(bits: u32) -> Vec<Entry> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors/skein/skein_round_trace_examples.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let raw_tag = format!(":Threefish-{bits}:");
    let skein_tag = format!(":Skein-{bits}:");
    let mut entries = Vec::new();
    let mut block: Option<Block> = None;
    // Where the word lines that follow go.
    let mut target: Option<String> = None;
    let flush = |block: &mut Option<Block>, entries: &mut Vec<Entry>| {
        if let Some(b) = block.take() {
            match entries.last_mut() {
                Some(Entry::Skein { blocks, .. }) if b.kind != "Threefish" => blocks.push(b),
                _ => entries.push(Entry::Raw(b)),
            }
        }
    };
    for line in text.lines() {
        let t = line.trim();
        if let Some(words) = words_of(line) {
            let Some(b) = block.as_mut() else { continue };
            let Some(label) = &target else { continue };
            let dest = match label.as_str() {
                "Tweak:" => &mut b.tweak,
                "Key words:" | "State words:" => &mut b.key,
                "Tweak schedule:" => &mut b.tweak_schedule,
                "Key   schedule:" => &mut b.key_schedule,
                "Input block (words):" => &mut b.input,
                _ => &mut b.states.last_mut().unwrap().1,
            };
            dest.extend(words);
            continue;
        }
        if line.starts_with(&raw_tag) || line.starts_with(&skein_tag) {
            if line.contains("encryption + plaintext feedforward") {
                flush(&mut block, &mut entries);
                block = Some(Block {
                    kind: "Threefish".into(),
                    ..Block::default()
                });
            } else if let Some(rest) = line.split("msgLen =").nth(1) {
                flush(&mut block, &mut entries);
                let msg_bits = rest.split_whitespace().next().unwrap().parse().unwrap();
                entries.push(Entry::Skein {
                    msg_bits,
                    blocks: Vec::new(),
                });
            } else if let Some(rest) = line.split("Type=").nth(1) {
                flush(&mut block, &mut entries);
                block = Some(Block {
                    kind: rest[..3].to_owned(),
                    ..Block::default()
                });
            } else if let Some(rest) = line.split("[state after ").nth(1) {
                let label = rest.trim_end_matches("]=").trim().to_owned();
                if let Some(b) = block.as_mut() {
                    b.states.push((label.clone(), Vec::new()));
                }
                target = Some(label);
            } else if line.contains("Final output") {
                flush(&mut block, &mut entries);
                target = None;
            }
            continue;
        }
        if t.ends_with(':') {
            target = Some(t.to_owned());
        } else if t.starts_with(':') || t.starts_with("++++") {
            // A header of another size, or the end of a raw block.
            flush(&mut block, &mut entries);
            target = None;
        }
    }
    flush(&mut block, &mut entries);
    entries
}

/// The iterative schedule `name` at `bits` with the Config UBI computed (as the reference
/// code does).
fn schedule(name: &str, bits: u32) -> Schedule {
    let mut spec = preset_spec(name).unwrap();
    spec.set("size", &bits.to_string()).unwrap();
    spec.set("config_precomputed", "false").unwrap();
    spec.build().unwrap()
}

/// The reference state renamed to our word order after `r` rounds.
fn permuted(words: &[u64], r: usize) -> Vec<u64> {
    let pi = permutation(words.len());
    let mut w = words.to_vec();
    for _ in 0..r % 4 {
        w = (0..w.len()).map(|i| w[pi[i]]).collect();
    }
    w
}

/// The states a block must show, one per cycle of the iterative datapath: with a first-subkey
/// cycle the state after the initial key injection, then after each round (and after the key
/// injection that follows every 4th round).
fn expected_per_cycle(b: &Block, first_subkey_cycle: bool) -> Vec<Vec<u64>> {
    let nr = rounds(b.input.len());
    let find = |label: &str| -> Vec<u64> {
        b.states
            .iter()
            .find(|(l, _)| l.split_whitespace().collect::<Vec<_>>().join(" ") == label)
            .unwrap_or_else(|| panic!("no state `{label}`"))
            .1
            .clone()
    };
    let mut out = Vec::new();
    if first_subkey_cycle {
        out.push(find("initial key injection"));
    }
    for r in 1..=nr {
        if r % 4 == 0 {
            out.push(find(&format!("key injection #{:02}", r / 4)));
        } else {
            out.push(permuted(&find(&format!("round {r}")), r));
        }
    }
    out
}

/// Checks the records of one block against the file.
fn check_block(name: &str, b: &Block, records: &[OwnedCycleRecord], first_subkey_cycle: bool) {
    let nw = b.input.len();
    let expected = expected_per_cycle(b, first_subkey_cycle);
    assert_eq!(records.len(), expected.len(), "{name} {}", b.kind);
    for (i, (rec, want)) in records.iter().zip(&expected).enumerate() {
        let slot = &rec.slots[0];
        assert!(slot.valid);
        assert_eq!(
            &slot.state[..nw],
            &want[..],
            "{name} {} block, cycle {} of the block",
            b.kind,
            i + 1
        );
        assert_eq!(&slot.key[..=nw], &b.key_schedule[..], "{name} key schedule");
        assert_eq!(
            &slot.tweak[..],
            &b.tweak_schedule[..],
            "{name} tweak schedule"
        );
    }
    // The feed-forward: the block's chaining value.
    let last = &records.last().unwrap().slots[0];
    let ff: Vec<u64> = (0..nw).map(|i| last.state[i] ^ b.input[i]).collect();
    assert_eq!(
        ff,
        find_state(b, "plaintext feedforward"),
        "{name} feed-forward"
    );
}

fn find_state(b: &Block, label: &str) -> Vec<u64> {
    b.states.iter().find(|(l, _)| l == label).unwrap().1.clone()
}

#[test]
fn iterative_schedules_match_the_reference_round_trace() {
    for bits in [256u32, 512, 1024] {
        let entries = parse(bits);
        let raw = entries
            .iter()
            .filter(|e| matches!(e, Entry::Raw(_)))
            .count();
        let skein = entries.len() - raw;
        assert_eq!((raw, skein), (2, 3), "Skein-{bits}: entries found");
        for name in ["ath-1r", "long-iter-512"] {
            let sched = schedule(name, bits);
            let fsk = sched.first_subkey_cycle();
            let per_block = sched.cycles_per_block() as usize;
            for entry in &entries {
                let mut sink = MemorySink::new();
                match entry {
                    Entry::Raw(b) => {
                        let raw = RawBlock {
                            key: b.key.clone(),
                            tweak: [b.tweak[0], b.tweak[1]],
                            block: b.input.clone(),
                        };
                        simulate_raw(&sched, &[raw], &mut sink).unwrap();
                        check_block(name, b, &sink.records, fsk);
                    }
                    Entry::Skein { msg_bits, blocks } => {
                        let message = vec![0u8; msg_bits.div_ceil(8) as usize];
                        let job = Job {
                            message: &message,
                            msg_bits: *msg_bits,
                            out_bits: u64::from(bits),
                            params: Params::default(),
                        };
                        let report = simulate(&sched, &[job], &mut sink).unwrap();
                        let kinds: Vec<&str> = blocks.iter().map(|b| b.kind.as_str()).collect();
                        assert_eq!(kinds, ["CFG", "MSG", "OUT"]);
                        assert_eq!(sink.records.len(), 3 * per_block);
                        for (i, b) in blocks.iter().enumerate() {
                            let recs = &sink.records[i * per_block..(i + 1) * per_block];
                            check_block(name, b, recs, fsk);
                        }
                        // The output block's chaining value is the digest.
                        let out = sink.records.last().unwrap().out.unwrap();
                        let nw = bits as usize / 64;
                        let digest: Vec<u8> = out.data[..nw]
                            .iter()
                            .flat_map(|w| w.to_le_bytes())
                            .collect();
                        assert_eq!(report.digests[0], digest);
                    }
                }
            }
        }
    }
}
