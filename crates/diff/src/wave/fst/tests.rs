//! Our FST decoder against fst-reader's `read_signals` and wellen, on FSTs from fst-writer
//! (several blocks, four-state and wide values), Icarus, GHDL and GTKWave's `vcd2fst` (every
//! pack type), block chains rewritten in the older encodings, and damaged files.

use std::io::{BufReader, Cursor};
use std::path::PathBuf;

use fst_writer::{
    FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalType, FstVarDirection, FstVarType,
};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, simulate};
use skeinhw_trace::{FstWriter, names};

use super::super::{sample_rising_edges_from, sample_rising_edges_with_wellen_from};
use super::block::{Loc, chain};
use super::layout::{Chain, Layout, varint};
use super::*;

type Edges = Vec<(u64, u64, Vec<Bits>)>;

fn input(fst: &[u8]) -> BufReader<Cursor<Vec<u8>>> {
    BufReader::new(Cursor::new(fst.to_vec()))
}

fn options(clock: &str) -> WaveOptions {
    WaveOptions {
        clock: clock.into(),
        strip_prefix: None,
        ..WaveOptions::default()
    }
}

/// Every edge of `clock` with `probes` sampled, through `route`.
fn by_route(fst: &[u8], clock: &str, probes: &[Probe], route: Route) -> (Edges, WaveStats) {
    let mut out = Vec::new();
    let stats = stream_fst_by(
        &mut input(fst),
        "t.fst",
        &options(clock),
        probes,
        &mut |e, t, s: &[Bits], _: &[u32]| {
            out.push((e, t, s.to_vec()));
            true
        },
        route,
    )
    .unwrap_or_else(|e| panic!("{route:?}: {e}"))
    .expect("a plain hierarchy");
    (out, stats)
}

/// The same through wellen.
fn by_wellen(fst: &[u8], clock: &str, probes: &[Probe]) -> (Edges, WaveStats) {
    let mut out = Vec::new();
    let stats = sample_rising_edges_with_wellen_from(
        input(fst),
        "t.fst",
        &options(clock),
        probes,
        |e, t, s| {
            out.push((e, t, s.to_vec()));
            true
        },
    )
    .unwrap();
    (out, stats)
}

/// Every bit-vector signal of the file, by full name.
fn all_probes(fst: &[u8]) -> Vec<Probe> {
    let mut inp = input(fst);
    let mut reader = FstReader::open(&mut inp).unwrap();
    let (names, vectors) = hierarchy(&mut reader, None).unwrap().unwrap();
    let mut list: Vec<&String> = names.keys().filter(|n| vectors[names[*n].0]).collect();
    list.sort();
    list.iter().map(|n| Probe::parse(n).unwrap()).collect()
}

/// Whether our decoder (not the fallback) reads `fst`.
fn decodes_itself(fst: &[u8]) -> bool {
    Layout::read(&mut input(fst)).unwrap().is_some()
}

/// Ours, fst-reader's and wellen's edges agree (and there are some).
fn agree(fst: &[u8], clock: &str, what: &str) -> usize {
    let probes = all_probes(fst);
    let ours = by_route(fst, clock, &probes, Route::Ours);
    let theirs = by_route(fst, clock, &probes, Route::FstReader);
    assert!(!ours.0.is_empty(), "{what}: no edges");
    assert_eq!(ours, theirs, "{what}: ours against fst-reader");
    assert_eq!(
        ours,
        by_wellen(fst, clock, &probes),
        "{what}: ours against wellen"
    );
    ours.0.len()
}

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn fst_reads_as_wellen_reads_it() {
    let mut w = FstWriter::new(Cursor::new(Vec::new()));
    let message = [7u8; 100];
    simulate(
        &preset("ath-1r").unwrap(),
        &[Job::bytes(&message, 512, Default::default())],
        &mut w,
    )
    .unwrap();
    let fst = w.into_inner().unwrap().into_inner();
    let probes: Vec<Probe> = names::signals(8, 1)
        .iter()
        .map(|s| Probe::parse(&format!("skeinhw.{}", s.name)).unwrap())
        .collect();
    assert!(decodes_itself(&fst));
    let ours = by_route(&fst, "skeinhw.clk", &probes, Route::Ours);
    assert!(ours.0.len() > 100);
    assert_eq!(ours, by_wellen(&fst, "skeinhw.clk", &probes));
    assert_eq!(
        ours,
        by_route(&fst, "skeinhw.clk", &probes, Route::FstReader)
    );
    // Stopped early, it stops.
    let mut n = 0;
    let stats = sample_rising_edges_from(
        input(&fst),
        "t.fst",
        &options("clk"),
        &[Probe::parse("slot0_state_0").unwrap()],
        |_, _, _| {
            n += 1;
            n < 5
        },
    )
    .unwrap();
    assert_eq!((n, stats.edges), (5, 5));
}

/// Icarus (fstapi, zlib), `vcd2fst` with each pack type and gzip-wrapped (left to
/// fst-reader), and Icarus's counter: x and z states, a 100-bit vector, a tri-state bus,
/// signals with identical changes (aliased in the block's chain).
#[test]
fn other_writers_fsts_read_as_fst_reader_and_wellen_read_them() {
    for (name, clock, ours) in [
        ("fst/mixed.icarus.fst", "t.clk", true),
        ("fst/mixed.vcd2fst-4.fst", "t.clk", true),
        ("fst/mixed.vcd2fst-F.fst", "t.clk", true),
        ("fst/mixed.vcd2fst-Z.fst", "t.clk", true),
        ("fst/mixed.vcd2fst-gz.fst", "t.clk", false),
        ("icarus/counter.fst.bin", "t.clk", true),
    ] {
        let fst = fixture(name);
        assert_eq!(decodes_itself(&fst), ours, "{name}");
        let edges = agree(&fst, clock, name);
        assert!(edges >= 20, "{name}: {edges} edges");
    }
}

/// GHDL's FST (gzip-wrapped, VHDL type attributes in its hierarchy) is left to wellen.
#[test]
fn a_vhdl_hierarchy_is_left_to_wellen() {
    let fst = fixture("fst/cnt.ghdl.fst");
    let mut inp = input(&fst);
    let mut reader = FstReader::open(&mut inp).unwrap();
    assert!(hierarchy(&mut reader, None).unwrap().is_none());
    let probes = [Probe::parse("count").unwrap()];
    let mut edges = 0;
    sample_rising_edges_from(input(&fst), "t.fst", &options("clk"), &probes, |_, _, _| {
        edges += 1;
        true
    })
    .unwrap();
    assert!(edges >= 30, "{edges}");
}

/// A trace of signals 1 to 100 bits wide, with x and z, `steps` time steps flushed every
/// `every`.
fn written(every: u64, steps: u64) -> Vec<u8> {
    let info = FstInfo {
        start_time: 0,
        timescale_exponent: -9,
        version: "test".into(),
        date: String::new(),
        file_type: FstFileType::Verilog,
    };
    let mut h = FstHeaderWriter::new(Cursor::new(Vec::new()), &info).unwrap();
    h.scope("top", "", FstScopeType::Module).unwrap();
    let widths = [1u32, 1, 3, 8, 63, 64, 65, 100];
    let ids: Vec<_> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let name = if i == 0 {
                "clk".into()
            } else {
                format!("s{i}")
            };
            let tpe = FstSignalType::bit_vec(w);
            h.var(
                &name,
                tpe,
                FstVarType::Wire,
                FstVarDirection::Implicit,
                None,
            )
            .unwrap()
        })
        .collect();
    h.up_scope().unwrap();
    let mut b = h.finish().unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for t in 0..steps {
        if t > 0 && t % every == 0 {
            b.flush().unwrap();
        }
        b.time_change(t * 5).unwrap();
        b.signal_change(ids[0], if t % 2 == 1 { b"1" } else { b"0" })
            .unwrap();
        for (i, &w) in widths.iter().enumerate().skip(1) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(3) {
                continue;
            }
            let digits: Vec<u8> = (0..w)
                .map(|k| match (x >> (k % 61)) % 17 {
                    0 if x.is_multiple_of(5) => b'x',
                    1 if x.is_multiple_of(7) => b'z',
                    v => b'0' + (v & 1) as u8,
                })
                .collect();
            b.signal_change(ids[i], &digits).unwrap();
        }
    }
    b.finish().unwrap().into_inner()
}

#[test]
fn fst_writer_traces_of_one_to_many_blocks_agree() {
    for every in [1, 7, 50, 1000] {
        let fst = written(every, 400);
        assert!(decodes_itself(&fst));
        let edges = agree(&fst, "top.clk", &format!("flushed every {every}"));
        assert_eq!(edges, 200);
    }
}

/// The blocks' chains rewritten in VCDATA's and VCDATA_DYN_ALIAS's encoding (unsigned
/// varints, an alias as 0 then its index + 1), the block lengths adjusted.
fn with_alias_chains(fst: &[u8], block_type: u8) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut aliases = 0;
    let mut at = 0usize;
    while at < fst.len() {
        let kind = fst[at];
        let len = u64::from_be_bytes(fst[at + 1..at + 9].try_into().unwrap()) as usize;
        let end = at + 1 + len;
        if kind != 8 {
            out.extend_from_slice(&fst[at..end]);
            at = end;
            if kind == 255 && len == 0 {
                break;
            }
            continue;
        }
        let tail = &fst[end - 24..end];
        let time_packed = u64::from_be_bytes(tail[8..16].try_into().unwrap()) as usize;
        let time_start = end - 24 - time_packed;
        let chain_len =
            u64::from_be_bytes(fst[time_start - 8..time_start].try_into().unwrap()) as usize;
        let chain_start = time_start - 8 - chain_len;
        // The pack type byte's offset: after the frame and the signal count.
        let mut rest = &fst[at + 33..];
        let _ = varint(&mut rest).unwrap();
        let frame_packed = varint(&mut rest).unwrap() as usize;
        let _ = varint(&mut rest).unwrap();
        let mut rest = &rest[frame_packed..];
        let max_handle = varint(&mut rest).unwrap() as usize;
        let vc_start = fst.len() - rest.len();
        let mut locs = Vec::new();
        let old = &fst[chain_start..chain_start + chain_len];
        chain(
            old,
            Chain::Alias2,
            max_handle,
            (chain_start - vc_start) as u64,
            &mut locs,
        )
        .unwrap();
        let mut new = Vec::new();
        let put = |v: u64, new: &mut Vec<u8>| {
            let mut v = v;
            loop {
                let b = (v & 0x7f) as u8;
                v >>= 7;
                new.push(if v == 0 { b } else { b | 0x80 });
                if v == 0 {
                    break;
                }
            }
        };
        let (mut offset, mut zeros) = (0u64, 0u64);
        for loc in &locs {
            if !matches!(loc, Loc::None) && zeros > 0 {
                put(zeros << 1, &mut new);
                zeros = 0;
            }
            match *loc {
                Loc::None => zeros += 1,
                Loc::Alias(a) => {
                    aliases += 1;
                    put(0, &mut new);
                    put(u64::from(a) + 1, &mut new);
                }
                Loc::Data(o, _) => {
                    put(((o - offset) << 1) | 1, &mut new);
                    offset = o;
                }
            }
        }
        if zeros > 0 {
            put(zeros << 1, &mut new);
        }
        let new_len = len - chain_len + new.len();
        out.push(block_type);
        out.extend_from_slice(&(new_len as u64).to_be_bytes());
        out.extend_from_slice(&fst[at + 9..chain_start]);
        out.extend_from_slice(&new);
        out.extend_from_slice(&(new.len() as u64).to_be_bytes());
        out.extend_from_slice(&fst[time_start..end]);
        at = end;
    }
    (out, aliases)
}

#[test]
fn older_chain_encodings_read_as_the_newest() {
    for name in ["fst/mixed.icarus.fst", "fst/mixed.vcd2fst-4.fst"] {
        let fst = fixture(name);
        let probes = all_probes(&fst);
        let newest = by_route(&fst, "t.clk", &probes, Route::Ours);
        for block_type in [1, 5] {
            let (older, aliases) = with_alias_chains(&fst, block_type);
            assert_ne!(older, fst);
            assert!(aliases > 0, "{name}: no aliases in its chains");
            assert!(decodes_itself(&older));
            let what = format!("{name} as block type {block_type}");
            agree(&older, "t.clk", &what);
            assert_eq!(
                by_route(&older, "t.clk", &probes, Route::Ours),
                newest,
                "{what}"
            );
        }
    }
}

/// A damaged file is an error or (if the damage is somewhere harmless) a reading, never a
/// panic: truncated at every offset, and every byte flipped three ways.
#[test]
fn damaged_files_are_errors_not_panics() {
    for (fst, clock) in [
        (fixture("fst/mixed.vcd2fst-F.fst"), "t.clk"),
        (fixture("fst/mixed.icarus.fst"), "t.clk"),
        (written(20, 60), "top.clk"),
    ] {
        let probes = all_probes(&fst);
        let options = options(clock);
        let read = |bytes: &[u8]| {
            let _ =
                sample_rising_edges_from(input(bytes), "t.fst", &options, &probes, |_, _, _| true);
        };
        for cut in 0..fst.len() {
            read(&fst[..cut]);
        }
        let mut bytes = fst.clone();
        for at in 0..fst.len() {
            for flip in [0x01, 0xff] {
                bytes[at] ^= flip;
                read(&bytes);
                bytes[at] ^= flip;
            }
        }
    }
}

/// Stopped by the caller in the middle of a later block, both readers stop at the same edge.
#[test]
fn stopping_mid_file_stops_both_readers_alike() {
    let fst = written(30, 400);
    let probes = all_probes(&fst);
    for stop in [1, 14, 15, 16, 107, 199, 200] {
        let run = |route| {
            let mut seen = Vec::new();
            let stats = stream_fst_by(
                &mut input(&fst),
                "t.fst",
                &options("top.clk"),
                &probes,
                &mut |e, t, s: &[Bits], _: &[u32]| {
                    seen.push((e, t, s.to_vec()));
                    seen.len() < stop
                },
                route,
            )
            .unwrap()
            .unwrap();
            (seen, stats)
        };
        let ours = run(Route::Ours);
        assert_eq!(ours.0.len(), stop);
        assert_eq!(ours, run(Route::FstReader), "stopped after {stop} edges");
    }
}
