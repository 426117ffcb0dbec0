//! Lean cores (`Options { lean: true }`): without the registers only the trace reads, they
//! still give the official digests in Icarus and diff IDENTICAL against the golden trace on
//! every field they keep; the fields they lack are named, never compared by accident.

mod common;

use std::path::PathBuf;

use common::cache_root;
use skeinhw_rtl::{
    Message, Options, Simulator, build_cached, compare_vcd, compare_vcd_except, generate,
    generate_with, lean_omitted, run, stimulus,
};
use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{Job, MemorySink, simulate};
use skeinhw_skein::Params;
use skeinhw_skein::kat::{GoldenEntry, parse_golden};
use skeinhw_trace::names;

const LEAN: Options = Options { lean: true };

fn vectors() -> Vec<GoldenEntry> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/skein/skein_golden_kat.txt"
    );
    parse_golden(&std::fs::read_to_string(path).expect("vectors"))
}

/// A multi-block message and a MAC of the official vectors for `size`.
fn picks(all: &[GoldenEntry], size: u32) -> Vec<&GoldenEntry> {
    let ok = |e: &&GoldenEntry| {
        e.state_bits == size as usize && e.out_bits == u64::from(size) && e.tree.is_none()
    };
    let multi = all
        .iter()
        .filter(ok)
        .find(|e| !e.mac && e.msg_bits > 2 * u64::from(size))
        .expect("a multi-block vector");
    let mac = all
        .iter()
        .filter(ok)
        .find(|e| e.mac && !e.key.is_empty())
        .expect("a MAC vector");
    vec![multi, mac]
}

/// Writes the lean core of `s` into its own directory under the cache root.
fn lean_dir(s: &Schedule) -> PathBuf {
    let d = generate_with(s, LEAN).expect("generate");
    let dir = cache_root().join("src-lean").join(s.name());
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in d.files() {
        let p = dir.join(name);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text.as_str()) {
            let mut tmp = tempfile::NamedTempFile::new_in(&dir).unwrap();
            std::io::Write::write_all(&mut tmp, text.as_bytes()).unwrap();
            tmp.persist(&p).unwrap();
        }
    }
    dir
}

#[test]
fn lean_cores_give_the_official_digests_and_diff_identical_but_for_the_named_fields() {
    let all = vectors();
    let quick = [
        "long-iter-256",
        "long-iter-512",
        "long-iter-1024",
        "long-split-256",
        "long-overlap-256",
        "ath-4r",
        "ath-8r",
        "ath-8r-2fp",
    ];
    // SKEINHW_SLOW=1: every preset's lean core (minutes in Icarus).
    let slow = std::env::var_os("SKEINHW_SLOW").is_some_and(|v| v == "1");
    let names: Vec<String> = if slow {
        skeinhw_sched::preset_names().map(str::to_owned).collect()
    } else {
        quick.iter().map(|n| (*n).to_owned()).collect()
    };
    for name in &names {
        let name = name.as_str();
        let s = skeinhw_sched::preset(name).unwrap();
        let dir = lean_dir(&s);
        if let Err(e) = skeinhw_rtl::lint(&dir) {
            panic!("{name} lean: {e}");
        }
        let built = build_cached(Simulator::Icarus, &dir, &cache_root()).expect("build");
        for e in picks(&all, s.size().bits()) {
            let m = Message {
                data: &e.message,
                bits: e.msg_bits,
                key: &e.key,
            };
            let work = tempfile::tempdir().unwrap();
            let input = work.path().join("input.txt");
            std::fs::write(&input, stimulus(&s, &[m]).unwrap()).unwrap();
            let vcd = work.path().join("dump.vcd");
            let out = run(&built, &input, &vcd).expect("simulation");
            assert_eq!(
                out.digest_bytes(0).as_deref(),
                Some(e.result.as_slice()),
                "{name} lean: official vector at line {}",
                e.line
            );
            let job = Job {
                message: &e.message,
                msg_bits: e.msg_bits,
                out_bits: u64::from(s.size().bits()),
                params: Params {
                    key: &e.key,
                    ..Params::default()
                },
            };
            let mut sink = MemorySink::new();
            simulate(&s, &[job], &mut sink).expect("golden");
            let header = sink.header.as_ref().expect("header");
            let omitted = lean_omitted(header.slots);
            let report = compare_vcd_except(
                header,
                &sink.records,
                &vcd,
                skeinhw_rtl::SCOPE,
                None,
                &omitted,
            )
            .expect("compare");
            assert!(report.is_none(), "{name} lean: {}", report.unwrap());
            // The full comparison asks for the fields the lean core lacks: refused, not passed.
            assert!(
                compare_vcd(header, &sink.records, &vcd, skeinhw_rtl::SCOPE, None).is_err(),
                "{name} lean: a comparison of the omitted fields must not pass"
            );
        }
    }
}

#[test]
fn a_lean_core_lacks_exactly_the_omitted_registers_and_its_map_says_so() {
    for name in ["long-iter-256", "ath-8r-2fp"] {
        let s = skeinhw_sched::preset(name).unwrap();
        let full = generate(&s).unwrap();
        let lean = generate_with(&s, LEAN).unwrap();
        let slots = skeinhw_sched::sim::Datapath::new(&s).slots();
        let omitted = lean_omitted(slots);
        let map: serde_json::Value = serde_json::from_str(&lean.signal_map).unwrap();
        let full_map: serde_json::Value = serde_json::from_str(&full.signal_map).unwrap();
        let fields = map["fields"].as_object().unwrap();
        let full_fields = full_map["fields"].as_object().unwrap();
        for f in full_fields.keys() {
            assert_eq!(
                fields.contains_key(f),
                !omitted.contains(f),
                "{name}: lean map field {f}"
            );
        }
        for f in &omitted {
            let decl = |v: &str| {
                v.lines().any(|l| {
                    let l = l.trim();
                    (l.starts_with("reg ") || l.starts_with("output reg "))
                        && l.split([' ', ',', ';']).any(|w| w == f)
                })
            };
            assert!(decl(&full.verilog), "{name}: the full core declares {f}");
            assert!(!decl(&lean.verilog), "{name}: the lean core declares {f}");
        }
        assert!(omitted.iter().any(|f| f == names::PHASE));
    }
}
