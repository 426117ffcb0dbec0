//! The diff on RTL that this project did not generate: `data/third_party/skein256_core.v`, an
//! independent Skein-256-256 core (state registered before injection, rotating key and tweak
//! rings, serial digest, hard-coded IV), simulated in Icarus. The expected digest is the
//! official known-answer vector; the golden events come from the library. Each mutation of the
//! core (by text substitution) must be caught at the right block, event and word; wrong maps
//! must never pass, in either alignment.

use std::path::{Path, PathBuf};
use std::process::Command;

use skeinhw_diff::{CycleOptions, DiffReport, SignalMap, Verdict, compare_cycles, compare_events};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MemorySink, OwnedCycleRecord, TraceHeader, simulate};
use skeinhw_trace::{VcdWriter, names};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/third_party");

/// The message of the official vector "Skein-256: 256-bit hash, msgLen = 512 bits, data =
/// 'incrementing'": bytes FF, FE, ..., C0 (two message blocks).
fn message() -> Vec<u8> {
    (0..64).map(|i| 0xff - i as u8).collect()
}

/// The vector's digest, read from the official known-answer file.
fn kat_digest() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/skein/skein_golden_kat.txt"
    );
    let text = std::fs::read_to_string(path).expect("official vectors");
    let head = ":Skein-256:   256-bit hash, msgLen =   512 bits, data = 'incrementing'";
    let at = text.find(head).expect("vector present");
    let rest = &text[at..];
    let result = rest.find("Result:").expect("result");
    rest[result + 7..]
        .lines()
        .skip(1)
        .take(2)
        .flat_map(|l| {
            l.split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap())
        })
        .collect()
}

/// The golden run: Long's iterative Skein-256 schedule (no Config UBI, like the core).
fn golden() -> (TraceHeader, Vec<OwnedCycleRecord>) {
    let mut sink = MemorySink::new();
    let s = preset("long-iter-256").unwrap();
    simulate(
        &s,
        &[Job::bytes(&message(), 256, Default::default())],
        &mut sink,
    )
    .unwrap();
    (sink.header.unwrap(), sink.records)
}

fn iverilog() -> bool {
    let ok = Command::new("iverilog").arg("-V").output().is_ok();
    if !ok {
        eprintln!("SKIPPED: iverilog not found (scripts/install-deps.sh installs it)");
    }
    ok
}

/// Simulates the core with `(from, to)` substituted in its text; returns the VCD.
fn simulate_core(dir: &Path, mutation: Option<(&str, &str)>) -> PathBuf {
    let mut core = std::fs::read_to_string(Path::new(DATA).join("skein256_core.v")).unwrap();
    if let Some((from, to)) = mutation {
        assert_eq!(
            core.matches(from).count(),
            1,
            "mutation site '{from}' must be unique"
        );
        core = core.replace(from, to);
    }
    let core_path = dir.join("core.v");
    std::fs::write(&core_path, core).unwrap();
    let msg = message();
    let hex: String = msg
        .chunks(32)
        .map(|block| {
            let mut b = block.to_vec();
            b.resize(32, 0);
            // Word 3 first, each word's bytes little-endian.
            let words: Vec<String> = (0..4)
                .rev()
                .map(|w| {
                    format!(
                        "{:016x}",
                        u64::from_le_bytes(b[8 * w..8 * w + 8].try_into().unwrap())
                    )
                })
                .collect();
            words.concat() + "\n"
        })
        .collect();
    let blocks = msg.len().div_ceil(32);
    let last = msg.len() - 32 * (blocks - 1);
    std::fs::write(dir.join("msg.hex"), hex).unwrap();
    let vcd = dir.join("core.vcd");
    let sim = dir.join("sim");
    let out = Command::new("iverilog")
        .arg("-g2005")
        .arg(format!("-DNB={blocks}"))
        .arg(format!("-DLASTBYTES=8'd{last}"))
        .arg(format!("-DHEX=\"{}\"", dir.join("msg.hex").display()))
        .arg(format!("-DVCD=\"{}\"", vcd.display()))
        .arg("-o")
        .arg(&sim)
        .arg(&core_path)
        .arg(Path::new(DATA).join("skein256_tb.v"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("vvp").arg("-n").arg(&sim).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("timeout"));
    vcd
}

fn map_text() -> String {
    std::fs::read_to_string(Path::new(DATA).join("map.json")).unwrap()
}

fn events(vcd: &Path, map_json: &str, partial: bool) -> Result<DiffReport, String> {
    let (h, records) = golden();
    let map = SignalMap::from_json(map_json, "map.json").map_err(|e| e.to_string())?;
    let options = CycleOptions {
        partial,
        ..CycleOptions::default()
    };
    compare_events(
        &h,
        records.into_iter().map(Ok::<_, String>),
        vcd,
        &map,
        &options,
    )
    .map_err(|e| e.to_string())
}

#[test]
fn the_golden_digest_is_the_official_one() {
    let (_, records) = golden();
    let out = records.iter().find_map(|r| r.out).expect("a digest");
    let mut bytes = vec![0u8; 32];
    skeinhw_skein::threefish::words_to_bytes(&out.data[..4], &mut bytes);
    assert_eq!(bytes, kat_digest());
}

#[test]
fn the_independent_core_is_identical_with_true_counts() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vcd = simulate_core(dir.path(), None);
    let r = events(&vcd, &map_text(), false).unwrap();
    println!("{r}");
    assert_eq!(r.verdict, Verdict::Identical, "{r}");
    // Two message blocks and one output block, each: 19 states before injection, 19 after,
    // the feed-forward, 19 key-ring and 19 tweak-ring positions.
    assert_eq!(
        (r.events_expected, r.events_matched),
        (3 * 77, 3 * 77),
        "{r}"
    );
    assert!(r.summary.contains("4 digest word(s)"), "{r}");
    assert!(
        r.blocks.iter().any(|b| b
            == "stream 0, message blocks 0-1: before subkeys 0,1,2,...,18, after subkeys \
                0,1,2,...,18, key ring at subkeys 0,1,2,...,18, tweak ring at subkeys \
                0,1,2,...,18, feed-forward"),
        "{:?}",
        r.blocks
    );
}

/// A golden run that computes the Config block (a schedule without `config_precomputed`):
/// the core, with its hard-coded IV, never shows that block's events, and they are not
/// expected of it.
#[test]
fn config_events_are_not_expected_of_a_core_with_a_hard_coded_iv() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vcd = simulate_core(dir.path(), None);
    let mut spec = skeinhw_sched::preset_spec("long-iter-256").unwrap();
    spec.config_precomputed = false;
    let s = spec.build().unwrap();
    let mut sink = MemorySink::new();
    simulate(
        &s,
        &[Job::bytes(&message(), 256, Default::default())],
        &mut sink,
    )
    .unwrap();
    let h = sink.header.unwrap();
    assert!(sink.records.iter().any(|r| {
        r.slots
            .iter()
            .any(|x| x.valid && x.phase == skeinhw_sched::sim::Phase::Config)
    }));
    let map = SignalMap::from_json(&map_text(), "map.json").unwrap();
    let r = compare_events(
        &h,
        sink.records.into_iter().map(Ok::<_, String>),
        &vcd,
        &map,
        &CycleOptions::default(),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Identical, "{r}");
    assert_eq!(
        (r.events_expected, r.events_matched),
        (3 * 77, 3 * 77),
        "{r}"
    );
    assert!(
        r.blocks
            .iter()
            .any(|b| b == "stream 0, config block 0: no event"),
        "{r}"
    );
}

/// (what, from, to, block and event named, the words that must differ (all others equal)).
const MUTATIONS: [(&str, &str, &str, &str, &[&str]); 6] = [
    (
        "rotation constant R(4,1)",
        "x, 25, 33)",
        "x, 25, 34)",
        "message block 0, before subkey 2",
        &[],
    ),
    (
        "permutation swap",
        "round1 = {a1, a2, a3, a0};",
        "round1 = {a3, a2, a1, a0};",
        "message block 0, before subkey 1",
        &[],
    ),
    (
        "First tweak bit",
        "{blk_last, first, 6'd48",
        "{blk_last, 1'b0, 6'd48",
        "message block 0, tweak ring at subkey 0",
        &["slot0_tweak_1", "slot0_tweak_2"],
    ),
    (
        "subkey index",
        "{59'd0, sc}",
        "{59'd0, sc ^ 5'd1}",
        "message block 0, after subkey 0",
        &["slot0_state_3"],
    ),
    (
        "skipped feed-forward word",
        "added[191:128] ^ msg[191:128]",
        "added[191:128]",
        "message block 0, feed-forward",
        &["slot0_state_2"],
    ),
    (
        "Output counter",
        "ctr_blk = 256'd0",
        "ctr_blk = 256'd1",
        "output block 0, before subkey 0",
        &["slot0_state_before_0"],
    ),
];

#[test]
fn each_mutation_is_caught_at_its_block_event_and_word() {
    if !iverilog() {
        return;
    }
    for (what, from, to, at, words) in MUTATIONS {
        let dir = tempfile::tempdir().unwrap();
        let vcd = simulate_core(dir.path(), Some((from, to)));
        let r = events(&vcd, &map_text(), false).unwrap();
        println!("--- {what}\n{r}");
        assert_eq!(r.verdict, Verdict::Divergent, "{what}: {r}");
        assert!(
            r.summary.contains(&format!("stream 0, {at}:")),
            "{what}: {r}"
        );
        let d = r.first_divergence.as_ref().unwrap();
        if !words.is_empty() {
            let differing: Vec<&str> = d
                .fields
                .iter()
                .filter(|f| f.golden != f.rtl)
                .map(|f| f.field.as_str())
                .collect();
            assert_eq!(differing, words, "{what}: {r}");
        }
    }
}

/// Wrong maps of the core: event alignment must never pass.
#[test]
fn wrong_maps_of_the_core_never_pass() {
    if !iverilog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vcd = simulate_core(dir.path(), None);
    let good = map_text();
    let reversed = good
        .replace("st[63:0]", "ST_A")
        .replace("st[255:192]", "st[63:0]")
        .replace("ST_A", "st[255:192]")
        .replace("inj[63:0]", "INJ_A")
        .replace("inj[255:192]", "inj[63:0]")
        .replace("INJ_A", "inj[255:192]");
    let other_register = good.replace("\"st[", "\"msg[").replace("\"inj[", "\"kr[");
    let missing = good.replace("    \"slot0_state_1\": \"inj[127:64]\",\n", "");
    assert_ne!(missing, good);
    let constant = good
        .replace("\"st[", "\"konst[")
        .replace("\"inj[", "\"konst[")
        .replace("\"tr[", "\"konst[")
        .replace("\"kr[319:256]\"", "\"konst[63:0]\"")
        .replace("\"kr[", "\"konst[")
        .replace("\"dout\"", "\"konst[63:0]\"")
        .replace("\"dout_valid\"", "\"konst[1]\"")
        .replace(", \"when\": \"running\"", "")
        .replace("\"scope\": \"tb.dut\"", "\"scope\": \"tb\"");
    // With --partial the missing word is accepted, and the verdict says it was left out.
    let r = events(&vcd, &missing, true).unwrap();
    assert_eq!(r.verdict, Verdict::Identical, "{r}");
    assert!(
        r.summary
            .contains("partial map, not compared: slot0_state_1"),
        "{r}"
    );
    assert_eq!(r.left_out, ["slot0_state_1"]);
    for (what, map) in [
        ("words reversed", reversed),
        ("another register", other_register),
        ("one word missing", missing),
        ("constant signals", constant),
    ] {
        match events(&vcd, &map, false) {
            Ok(r) => {
                println!("{what}: {}", r.summary);
                assert_ne!(r.verdict, Verdict::Identical, "{what}: {r}");
            }
            Err(e) => println!("{what}: {e}"),
        }
    }
}

/// Wrong maps in both alignments on a waveform of the generated design's registers (our own
/// trace as VCD, the same schedule, so cycle alignment applies too).
#[test]
fn wrong_maps_never_pass_in_either_alignment() {
    let dir = tempfile::tempdir().unwrap();
    let msg = message();
    let s = preset("long-iter-256").unwrap();
    let vcd = dir.path().join("run.vcd");
    let mut w = VcdWriter::new(std::fs::File::create(&vcd).unwrap());
    simulate(&s, &[Job::bytes(&msg, 256, Default::default())], &mut w).unwrap();
    let (h, records) = golden();
    let signals = names::signals(h.words, h.slots);
    let scoped = |n: &str| format!("{}.{n}", names::SCOPE);
    let clock = scoped(names::CLK);
    let state: Vec<String> = (0..4)
        .map(|w| names::slot(0, &format!("state_{w}")))
        .collect();
    let out: Vec<String> = (0..4).map(names::out_data).collect();
    // Correct maps first: they must pass (so that the wrong ones fail for their fault).
    let build = |pairs: &[(String, String)]| {
        let fields: serde_json::Map<String, serde_json::Value> = pairs
            .iter()
            .map(|(f, s)| (f.clone(), serde_json::Value::String(s.clone())))
            .collect();
        serde_json::json!({ "clock": clock, "fields": fields }).to_string()
    };
    let good: Vec<(String, String)> = state
        .iter()
        .chain(&out)
        .map(|f| (f.clone(), scoped(f)))
        .chain([(names::OUT_VALID.to_string(), scoped(names::OUT_VALID))])
        .collect();
    let reversed: Vec<(String, String)> = good
        .iter()
        .map(|(f, s)| match state.iter().position(|x| x == f) {
            Some(i) => (f.clone(), scoped(&state[3 - i])),
            None => (f.clone(), s.clone()),
        })
        .collect();
    let other: Vec<(String, String)> = good
        .iter()
        .map(|(f, s)| match state.iter().position(|x| x == f) {
            Some(i) => (f.clone(), scoped(&names::slot(0, &format!("key_{i}")))),
            None => (f.clone(), s.clone()),
        })
        .collect();
    let missing: Vec<(String, String)> = good
        .iter()
        .filter(|(f, _)| *f != state[1])
        .cloned()
        .collect();
    let constant: Vec<(String, String)> = good
        .iter()
        .map(|(f, _)| (f.clone(), scoped(&names::slot(0, "stream"))))
        .collect();
    let cycle = |map: &str| -> Result<DiffReport, String> {
        let map = SignalMap::from_json(map, "map.json").map_err(|e| e.to_string())?;
        let frames = records
            .iter()
            .map(|r| Ok::<_, String>(skeinhw_diff::frame::skein_frame(r)));
        compare_cycles(&signals, frames, &vcd, &map, &CycleOptions::default())
            .map_err(|e| e.to_string())
    };
    let event = |map: &str| -> Result<DiffReport, String> {
        let map = SignalMap::from_json(map, "map.json").map_err(|e| e.to_string())?;
        compare_events(
            &h,
            records.iter().cloned().map(Ok::<_, String>),
            &vcd,
            &map,
            &CycleOptions::default(),
        )
        .map_err(|e| e.to_string())
    };
    let g = build(&good);
    assert_eq!(cycle(&g).unwrap().verdict, Verdict::Identical);
    let r = event(&g).unwrap();
    assert_eq!(r.verdict, Verdict::Identical, "{r}");
    for (what, pairs) in [
        ("words reversed", reversed),
        ("another register", other),
        ("one word missing", missing),
        ("constant signal", constant),
    ] {
        let m = build(&pairs);
        for (align, result) in [("cycle", cycle(&m)), ("event", event(&m))] {
            match result {
                Ok(r) => {
                    println!("{what}, {align}: {}", r.summary);
                    assert_ne!(r.verdict, Verdict::Identical, "{what}, {align}: {r}");
                }
                Err(e) => println!("{what}, {align}: {e}"),
            }
        }
    }
}
