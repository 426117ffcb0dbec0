//! Shabal event alignment: a design of another unfolding (another latency) checks clean against
//! the golden model by the state after each round; a flipped bit of a state register is named
//! at its block, part and word; wrong maps never pass. The golden digest is checked against
//! RustCrypto's `shabal` first, so the events come from a run that hashes correctly.

use std::path::{Path, PathBuf};

use rustcrypto_shabal::Digest as _;
use skeinhw_diff::{CycleOptions, DiffReport, SignalMap, Verdict, compare_shabal_events};
use skeinhw_sched::shabal::preset;
use skeinhw_sched::shabal::sim::{
    ShabalCycleRecord, ShabalJob, ShabalMemorySink, ShabalTraceHeader, simulate,
};
use skeinhw_trace::names;
use skeinhw_trace::shabal::ShabalVcdWriter;

/// 150 bytes: three padded blocks, then the three final rounds.
fn message() -> Vec<u8> {
    (0..150u8).collect()
}

fn golden(schedule: &str, msg: &[u8]) -> (ShabalTraceHeader, Vec<ShabalCycleRecord>) {
    let mut sink = ShabalMemorySink::default();
    let report = simulate(
        &preset(schedule).unwrap(),
        &[ShabalJob::bytes(msg)],
        &mut sink,
    )
    .unwrap();
    assert_eq!(
        report.digests[0],
        rustcrypto_shabal::Shabal512::digest(msg).to_vec(),
        "the golden run's digest is Shabal-512 of the message (RustCrypto)"
    );
    (sink.header.unwrap(), sink.records)
}

/// The "RTL": another unfolding's trace written as VCD.
fn rtl_vcd(dir: &Path, schedule: &str, msg: &[u8]) -> PathBuf {
    let path = dir.join(format!("{schedule}.vcd"));
    let mut w = ShabalVcdWriter::new(std::io::BufWriter::new(
        std::fs::File::create(&path).unwrap(),
    ));
    simulate(&preset(schedule).unwrap(), &[ShabalJob::bytes(msg)], &mut w).unwrap();
    drop(w);
    path
}

fn fields() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for (p, n) in [("a", 12), ("b", 16), ("c", 16)] {
        v.extend((0..n).map(|i| format!("{p}_{i}")));
    }
    v.extend((0..16).map(names::out_data));
    v.push(names::OUT_VALID.into());
    v
}

fn map_of(fields: &[String]) -> SignalMap {
    SignalMap::identity(fields.iter().map(String::as_str), Some(names::SCOPE))
}

fn options() -> CycleOptions {
    let mut o = CycleOptions::default();
    o.wave.clock = format!("{}.{}", names::SCOPE, names::CLK);
    o
}

fn run(
    h: &ShabalTraceHeader,
    records: &[ShabalCycleRecord],
    vcd: &Path,
    map: &SignalMap,
) -> DiffReport {
    compare_shabal_events(
        h,
        records.iter().copied().map(Ok::<_, String>),
        vcd,
        map,
        &options(),
    )
    .unwrap()
}

fn run_err(
    h: &ShabalTraceHeader,
    records: &[ShabalCycleRecord],
    vcd: &Path,
    map: &SignalMap,
) -> String {
    compare_shabal_events(
        h,
        records.iter().copied().map(Ok::<_, String>),
        vcd,
        map,
        &options(),
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn another_unfolding_matches_by_events() {
    let dir = tempfile::tempdir().unwrap();
    let msg = message();
    let (h, records) = golden("shabal-unfold-4", &msg);
    for other in ["shabal-unfold-1", "shabal-unfold-3", "shabal-unfold-8"] {
        let vcd = rtl_vcd(dir.path(), other, &msg);
        let report = run(&h, &records, &vcd, &map_of(&fields()));
        assert_eq!(report.verdict, Verdict::Identical, "{other}: {report}");
        // 3 message blocks + 3 final rounds, each seen in A, B and C.
        assert_eq!((report.events_expected, report.events_matched), (18, 18));
        assert!(report.summary.contains("18 of 18"), "{report}");
        assert!(report.summary.contains("1 digest(s)"), "{report}");
        assert_eq!(
            report.blocks,
            [
                "stream 0, message blocks 0-2: a, b, c after the round",
                "stream 0, final rounds 0-2: a, b, c after the round, digest"
            ]
        );
    }
}

/// Flips bit `bit` of the `nth` value change of `signal` (a vector) in a VCD.
fn flip(vcd: &Path, signal: &str, nth: usize, bit: usize, out: &Path) {
    let text = std::fs::read_to_string(vcd).unwrap();
    let id = text
        .lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"$var") && w.get(4) == Some(&signal)).then(|| w[3].to_string())
        })
        .expect("the signal is declared");
    let mut n = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let Some((value, ident)) = l.strip_prefix('b').and_then(|r| r.split_once(' ')) else {
                return l.to_string();
            };
            if ident != id || value.contains(['x', 'z']) {
                return l.to_string();
            }
            n += 1;
            if n != nth + 1 {
                return l.to_string();
            }
            let mut bits: Vec<u8> = format!("{value:0>32}").into_bytes();
            let i = bits.len() - 1 - bit;
            bits[i] ^= 1;
            format!("b{} {ident}", String::from_utf8(bits).unwrap())
        })
        .collect();
    assert!(n > nth, "{signal} changes {n} times");
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_flipped_state_bit_is_named_at_its_round_and_word() {
    let dir = tempfile::tempdir().unwrap();
    let msg = message();
    let (h, records) = golden("shabal-unfold-4", &msg);
    let vcd = rtl_vcd(dir.path(), "shabal-unfold-1", &msg);
    // C changes once per pass (P only reads it): after the value at time 0 and the initial
    // value, change k + 2 is the state after pass k. Change 3: message block 1.
    let bad = dir.path().join("bad.vcd");
    flip(&vcd, "c_3", 3, 4, &bad);
    let report = run(&h, &records, &bad, &map_of(&fields()));
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    let d = report.first_divergence.as_ref().unwrap();
    assert!(
        d.phase
            .starts_with("stream 0, message block 1, after the round: never seen in c_*"),
        "{report}"
    );
    assert!(
        d.phase.contains("last matching event message block 0"),
        "{report}"
    );
    let differing: Vec<&str> = d
        .fields
        .iter()
        .filter(|f| f.golden != f.rtl)
        .map(|f| f.field.as_str())
        .collect();
    assert_eq!(differing, ["c_3"], "{report}");
    let text = report.to_string();
    assert!(text.contains("c_3   golden"), "{text}");
    assert!(text.contains("<-- differs"), "{text}");
    // The other parts matched everywhere.
    assert_eq!(report.events_matched, 17, "{report}");

    // a_7 is written by iterations 7, 19, 31, 43 and the final additions: 5 changes per pass,
    // the last of each pass its state after the round. A bit flipped there in the last final
    // round is named there; one flipped mid-pass (a value no event is made of, overwritten
    // on the next write) is no event: event alignment does not see it.
    let bad_a = dir.path().join("bad_a.vcd");
    flip(&vcd, "a_7", 2 + 6 * 5 - 1, 0, &bad_a);
    let report = run(&h, &records, &bad_a, &map_of(&fields()));
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    let d = report.first_divergence.as_ref().unwrap();
    assert!(
        d.phase
            .starts_with("stream 0, final round 2, after the round: never seen in a_*"),
        "{report}"
    );
    assert!(
        d.phase.contains("last matching event final round 1"),
        "{report}"
    );
    let differing: Vec<&str> = d
        .fields
        .iter()
        .filter(|f| f.golden != f.rtl)
        .map(|f| f.field.as_str())
        .collect();
    assert_eq!(differing, ["a_7"], "{report}");
    let mid = dir.path().join("mid.vcd");
    flip(&vcd, "a_7", 2 + 5 * 5 + 1, 0, &mid);
    let report = run(&h, &records, &mid, &map_of(&fields()));
    assert_eq!(report.verdict, Verdict::Identical, "{report}");
}

#[test]
fn a_different_message_is_a_divergence() {
    let dir = tempfile::tempdir().unwrap();
    let (h, records) = golden("shabal-unfold-4", b"abc");
    let vcd = rtl_vcd(dir.path(), "shabal-unfold-2", b"abd");
    let report = run(&h, &records, &vcd, &map_of(&fields()));
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    assert!(
        report
            .summary
            .contains("message block 0, after the round: never seen in a_*"),
        "{report}"
    );
    // Digest only: the digest is compared and differs.
    let digest: Vec<String> = fields()
        .into_iter()
        .filter(|f| f.starts_with("out_"))
        .collect();
    let report = run(&h, &records, &vcd, &map_of(&digest));
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    assert!(report.summary.contains("none of the expected"), "{report}");
}

#[test]
fn a_digest_only_map_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (h, records) = golden("shabal-unfold-4", b"abc");
    let vcd = rtl_vcd(dir.path(), "shabal-unfold-6", b"abc");
    let digest: Vec<String> = fields()
        .into_iter()
        .filter(|f| f.starts_with("out_"))
        .collect();
    let report = run(&h, &records, &vcd, &map_of(&digest));
    assert_eq!(report.verdict, Verdict::Identical, "{report}");
    assert!(report.summary.contains("digest only"), "{report}");
}

#[test]
fn wrong_maps_never_pass() {
    let dir = tempfile::tempdir().unwrap();
    let msg = message();
    let (h, records) = golden("shabal-unfold-4", &msg);
    let vcd = rtl_vcd(dir.path(), "shabal-unfold-1", &msg);
    let scoped = |s: &str| format!("{}.{s}", names::SCOPE);
    let identity = map_of(&fields());

    // Words reversed.
    let mut reversed = identity.clone();
    for i in 0..16 {
        reversed.fields.insert(
            format!("c_{i}"),
            identity.fields[&format!("c_{}", 15 - i)].clone(),
        );
    }
    let report = run(&h, &records, &vcd, &reversed);
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    assert!(report.summary.contains("never seen in c_*"), "{report}");

    // B mapped to C's register.
    let mut other = identity.clone();
    for i in 0..16 {
        other
            .fields
            .insert(format!("b_{i}"), identity.fields[&format!("c_{i}")].clone());
    }
    let report = run(&h, &records, &vcd, &other);
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");

    // Every field mapped to a constant signal: never a known golden value.
    let mut constant = identity.clone();
    for (f, p) in constant.fields.iter_mut() {
        if f != names::OUT_VALID {
            p.signal = scoped("out_stream");
        }
    }
    assert_ne!(
        run(&h, &records, &vcd, &constant).verdict,
        Verdict::Identical
    );

    // One word missing: refused, named.
    let mut missing = identity.clone();
    missing.fields.remove("b_5");
    let err = run_err(&h, &records, &vcd, &missing);
    assert!(err.contains("'b_5'") && err.contains("--partial"), "{err}");
    // ... unless --partial, and then the verdict says what was left out.
    let mut o = options();
    o.partial = true;
    let report = compare_shabal_events(
        &h,
        records.iter().copied().map(Ok::<_, String>),
        &vcd,
        &missing,
        &o,
    )
    .unwrap();
    assert_eq!(report.verdict, Verdict::Identical, "{report}");
    assert!(report.summary.contains("not compared: b_5"), "{report}");

    // Fields this alignment cannot use, unknown fields, Skein views, a missing signal.
    for (field, signal, says) in [
        ("m_0", "m_0", "cycle alignment only"),
        ("w", "w", "cycle alignment only"),
        ("iteration", "iteration", "cycle alignment only"),
        ("slot0_state_0", "a_0", "not a field of a Shabal trace"),
        ("d_0", "a_0", "not a field of a Shabal trace"),
        ("a_12", "a_0", "A has 12 words"),
        ("out_data_16", "a_0", "the digest has 16 words"),
    ] {
        let mut m = identity.clone();
        m.fields.insert(
            field.into(),
            skeinhw_diff::wave::Probe::parse(&scoped(signal)).unwrap(),
        );
        let err = run_err(&h, &records, &vcd, &m);
        assert!(
            err.contains(&format!("'{field}'")) && err.contains(says),
            "{field}: {err}"
        );
    }
    let mut absent = identity.clone();
    absent.fields.get_mut("a_3").unwrap().signal = scoped("no_such_register");
    let err = run_err(&h, &records, &vcd, &absent);
    assert!(err.contains("no_such_register"), "{err}");

    // A serial digest port or a rotating ring means nothing for Shabal.
    let serial = SignalMap::from_json(
        r#"{"scope": "skeinhw", "fields": {"a_0": "a_0"},
            "digest_serial": {"data": "out_data_0", "valid": "out_valid"}}"#,
        "m.json",
    )
    .unwrap();
    let err = run_err(&h, &records, &vcd, &serial);
    assert!(err.contains("'digest_serial'"), "{err}");
    // An empty map is refused when read.
    let err = SignalMap::from_json(r#"{"fields": {}}"#, "m.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("m.json") && err.contains("no fields"), "{err}");
}

/// Writes the VCD of a core from `rtl`'s run: A, B and C packed into the wide registers
/// `names[2..5]` (what `regs` gives on the records where they change), the digest port
/// `names[5]` (its words as `out` stores them) with its valid bit `names[6]`, in the scope
/// `names[0].names[1]`.
fn packed_vcd(
    path: &Path,
    names: [&str; 7],
    rtl: &[ShabalCycleRecord],
    regs: impl Fn(&ShabalCycleRecord) -> Option<[Vec<u32>; 3]>,
    out: impl Fn(&[u32]) -> Vec<u32>,
) {
    use std::fmt::Write as _;
    let [top, core, a, b, c, dout, dval] = names;
    let bits =
        |words: &[u32]| -> String { words.iter().rev().map(|w| format!("{w:032b}")).collect() };
    let mut vcd = format!(
        "$timescale 1ns $end\n$scope module {top} $end\n$scope module {core} $end\n\
         $var wire 1 ! clk $end\n$var reg 384 \" {a} [383:0] $end\n\
         $var reg 512 # {b} [511:0] $end\n$var reg 512 $ {c} [511:0] $end\n\
         $var reg 512 % {dout} [511:0] $end\n$var reg 1 & {dval} $end\n\
         $upscope $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\n0&\nb0 \"\nb0 #\nb0 $\nb0 %\n",
    );
    for (k, r) in rtl.iter().enumerate() {
        let t = 10 * (k as u64 + 1);
        writeln!(vcd, "#{t}\n1!").unwrap();
        if let Some([ra, rb, rc]) = regs(r) {
            writeln!(vcd, "b{} \"\nb{} #\nb{} $", bits(&ra), bits(&rb), bits(&rc)).unwrap();
        }
        match &r.out {
            Some(o) => writeln!(vcd, "b{} %\n1&", bits(&out(&o.data))).unwrap(),
            None => writeln!(vcd, "0&").unwrap(),
        }
        writeln!(vcd, "#{}\n0!", t + 5).unwrap();
    }
    std::fs::write(path, vcd).unwrap();
}

/// A core laid out unlike the generated Verilog: A, B and C packed into wide registers (C with
/// its words in the other order), holding only the state after each round, and a 512-bit
/// digest port with its valid bit; written from another unfolding's run. `discover_shabal`
/// finds every slice, and the diff with the map it writes is IDENTICAL.
#[test]
fn map_is_found_in_packed_registers_and_diffs_identical() {
    use skeinhw_diff::discover::DiscoverOptions;
    use skeinhw_diff::discover_shabal::discover_shabal;

    let dir = tempfile::tempdir().unwrap();
    let msg = message();
    let (h, records) = golden("shabal-unfold-4", &msg);
    let (_, rtl) = golden("shabal-unfold-6", &msg);
    let path = dir.path().join("packed.vcd");
    packed_vcd(
        &path,
        ["top", "core", "st_a", "st_b", "st_c", "dout", "dval"],
        &rtl,
        |r| {
            let mut c = r.state.c;
            c.reverse();
            (r.iteration == 48).then(|| [r.state.a.to_vec(), r.state.b.to_vec(), c.to_vec()])
        },
        |d| d.to_vec(),
    );

    let d = discover_shabal(
        &h,
        records.iter().copied().map(Ok::<_, String>),
        &path,
        &DiscoverOptions::default(),
    )
    .unwrap();
    assert_eq!(d.scope, "top.core");
    assert_eq!(d.clock_in_scope(), "clk");
    assert_eq!(
        d.reset_cycles, None,
        "another unfolding: cycle alignment does not fit"
    );
    assert!(d.missing.is_empty(), "{:?}", d.missing);
    let slice = |s: &str, w: usize| format!("{s}[{}:{}]", 32 * w + 31, 32 * w);
    for i in 0..16 {
        if i < 12 {
            assert_eq!(d.fields[&format!("a_{i}")], slice("st_a", i));
        }
        assert_eq!(d.fields[&format!("b_{i}")], slice("st_b", i));
        assert_eq!(d.fields[&format!("c_{i}")], slice("st_c", 15 - i));
        assert_eq!(d.fields[&format!("out_data_{i}")], slice("dout", i));
    }
    assert_eq!(d.fields["out_valid"], "dval");

    let map = SignalMap::from_json(&d.to_json(), "found.json").unwrap();
    let mut o = CycleOptions::default();
    o.wave.clock = "top.core.clk".into();
    let report = compare_shabal_events(
        &h,
        records.iter().copied().map(Ok::<_, String>),
        &path,
        &map,
        &o,
    )
    .unwrap();
    assert_eq!(report.verdict, Verdict::Identical, "{report}");
    assert_eq!((report.events_expected, report.events_matched), (18, 18));
}

/// A core that holds A and B and its digest port byte-swapped (a core unaware of Shabal's
/// little-endian words), C as the trace does; written from another unfolding's run.
/// `discover_shabal` finds every word in the right byte order and writes `"byteswap": true`
/// on exactly the swapped ones; the diff honours it (IDENTICAL), and the same map without it
/// never passes.
#[test]
fn byte_swapped_words_are_found_and_swapped_back() {
    use skeinhw_diff::discover::DiscoverOptions;
    use skeinhw_diff::discover_shabal::discover_shabal;

    let dir = tempfile::tempdir().unwrap();
    let msg = message();
    let (h, records) = golden("shabal-unfold-4", &msg);
    let (_, rtl) = golden("shabal-unfold-2", &msg);
    let swapped = |words: &[u32]| -> Vec<u32> { words.iter().map(|w| w.swap_bytes()).collect() };
    let path = dir.path().join("swapped.vcd");
    packed_vcd(
        &path,
        ["tb", "u", "ra", "rb", "rc", "q", "q_ok"],
        &rtl,
        |r| {
            r.valid
                .then(|| [swapped(&r.state.a), swapped(&r.state.b), r.state.c.to_vec()])
        },
        |d| swapped(d),
    );

    let d = discover_shabal(
        &h,
        records.iter().copied().map(Ok::<_, String>),
        &path,
        &DiscoverOptions::default(),
    )
    .unwrap();
    assert!(d.missing.is_empty(), "{:?}", d.missing);
    let slice = |s: &str, w: usize| format!("{s}[{}:{}]", 32 * w + 31, 32 * w);
    for i in 0..16 {
        if i < 12 {
            assert_eq!(d.fields[&format!("a_{i}")], slice("ra", i));
        }
        assert_eq!(d.fields[&format!("b_{i}")], slice("rb", i));
        assert_eq!(d.fields[&format!("c_{i}")], slice("rc", i));
        assert_eq!(d.fields[&format!("out_data_{i}")], slice("q", i));
    }
    let want: std::collections::BTreeSet<String> = d
        .fields
        .keys()
        .filter(|f| f.starts_with("a_") || f.starts_with("b_") || f.starts_with("out_data_"))
        .cloned()
        .collect();
    assert_eq!(d.byteswap, want);
    let json = d.to_json();
    assert!(
        json.contains(r#""signal": "ra[31:0]""#) && json.contains(r#""byteswap": true"#),
        "{json}"
    );

    let map = SignalMap::from_json(&json, "found.json").unwrap();
    let mut o = CycleOptions::default();
    o.wave.clock = "tb.u.clk".into();
    let diff = |map: &SignalMap| {
        compare_shabal_events(
            &h,
            records.iter().copied().map(Ok::<_, String>),
            &path,
            map,
            &o,
        )
        .unwrap()
    };
    let report = diff(&map);
    assert_eq!(report.verdict, Verdict::Identical, "{report}");
    assert_eq!((report.events_expected, report.events_matched), (18, 18));
    // The same slices read in the trace's byte order: A never matches.
    let mut plain = map.clone();
    for p in plain.fields.values_mut() {
        p.byteswap = false;
    }
    let report = diff(&plain);
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    assert!(report.summary.contains("never seen in a_*"), "{report}");
}
