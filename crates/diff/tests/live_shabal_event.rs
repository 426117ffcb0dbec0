//! The live event checker (the cocotb `GoldenChecker` with `align="event"`) on a Shabal
//! schedule: a design of another unfolding, fed edge by edge, is IDENTICAL with the true counts;
//! one wrong word of C is DIVERGENT at its message block, its round event and its word; a
//! byte-swapped register is read back through `"byteswap": true`. The golden digest is checked
//! against RustCrypto's `shabal` first.

use rustcrypto_shabal::Digest as _;
use skeinhw_diff::live::Step;
use skeinhw_diff::live_event::LiveEventDiff;
use skeinhw_diff::wave::Bits;
use skeinhw_diff::{DiffReport, OwnedShabalJob, ShabalGolden, SignalMap, Verdict};
use skeinhw_sched::shabal::preset;
use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalJob, ShabalMemorySink, simulate};
use skeinhw_trace::shabal as tnames;

/// 150 bytes: three padded blocks, then the three final rounds.
fn message() -> Vec<u8> {
    (0..150u8).collect()
}

fn golden() -> ShabalGolden {
    let schedule = preset("shabal-unfold-1").unwrap();
    let jobs = vec![OwnedShabalJob {
        message: message(),
        msg_bits: 8 * 150,
    }];
    ShabalGolden::simulate(schedule, jobs).unwrap()
}

/// The "RTL": the per-cycle registers of `shabal-unfold-4` (another latency), by trace field
/// name, each record's values in the order of `tnames::signals`.
fn rtl() -> (Vec<String>, Vec<Vec<u64>>) {
    let mut sink = ShabalMemorySink::default();
    let msg = message();
    let report = simulate(
        &preset("shabal-unfold-4").unwrap(),
        &[ShabalJob::bytes(&msg)],
        &mut sink,
    )
    .unwrap();
    assert_eq!(
        report.digests[0],
        rustcrypto_shabal::Shabal512::digest(&msg).to_vec(),
        "the design's digest is Shabal-512 of the message (RustCrypto)"
    );
    let out_words = sink.header.as_ref().unwrap().output_words();
    let names = tnames::signals(out_words)
        .into_iter()
        .map(|s| s.name)
        .collect();
    let rows = sink
        .records
        .iter()
        .map(|r: &ShabalCycleRecord| {
            let mut v = Vec::new();
            tnames::values(r, out_words, &mut v);
            v
        })
        .collect();
    (names, rows)
}

/// A, B, C and the digest port, by the trace's names (the generated design's).
fn map() -> SignalMap {
    let mut fields: Vec<String> = Vec::new();
    for (p, n) in [("a", 12), ("b", 16), ("c", 16)] {
        fields.extend((0..n).map(|i| tnames::word(p, i)));
    }
    fields.extend((0..16).map(|w| format!("out_data_{w}")));
    fields.push("out_valid".into());
    SignalMap::identity(fields.iter().map(String::as_str), None)
}

/// Feeds every RTL edge, `change` applied to each (field, edge, value), until the checker
/// says it is done; the report.
fn run(map: &SignalMap, change: impl Fn(&str, usize, u64) -> u64) -> DiffReport {
    let (names, rows) = rtl();
    let mut live = LiveEventDiff::shabal(golden(), map, false).expect("a Shabal live diff");
    let probes: Vec<(String, usize)> = live
        .probes()
        .map(|(f, p)| {
            let at = names.iter().position(|n| *n == p.signal).expect("a field");
            (f.to_string(), at)
        })
        .collect();
    let mut done = false;
    for (edge, row) in rows.iter().enumerate() {
        let samples: Vec<Bits> = probes
            .iter()
            .map(|(f, i)| {
                let w = if f == "out_valid" { 1 } else { 32 };
                Bits::known(vec![change(f, edge, row[*i])], w)
            })
            .collect();
        if live.step(edge as u64, 10 * edge as u64, &samples).unwrap() == Step::Done {
            done = true;
            break;
        }
    }
    assert!(done, "the digest ends the run");
    live.finish().expect("a report")
}

#[test]
fn another_unfolding_fed_live_is_identical_with_true_counts() {
    let r = run(&map(), |_, _, v| v);
    assert_eq!(r.verdict, Verdict::Identical, "{r}");
    // Three message blocks and three final rounds, A, B and C after each.
    assert_eq!((r.events_expected, r.events_matched), (18, 18), "{r}");
    assert!(
        r.summary.starts_with(
            "IDENTICAL (event alignment): 18 of 18 expected events matched, 1 digest(s)"
        ),
        "{r}"
    );
}

#[test]
fn a_wrong_word_of_c_is_named_at_its_block_event_and_word() {
    // c_5 wrong from the edge after which unfold-4 holds C after message block 1 (its 2nd
    // pass ends 12 cycles a block after the first): every later value of c_5 differs, so
    // block 1's event is never seen.
    let (names, rows) = rtl();
    let block = names.iter().position(|n| n == "block").unwrap();
    let iteration = names.iter().position(|n| n == "iteration").unwrap();
    let at = rows
        .iter()
        .position(|r| r[block] == 1 && r[iteration] == 48)
        .expect("the end of message block 1");
    let r = run(&map(), |f, edge, v| {
        if f == "c_5" && edge >= at {
            v ^ 0x0002_0000
        } else {
            v
        }
    });
    assert_eq!(r.verdict, Verdict::Divergent, "{r}");
    let d = r.first_divergence.as_ref().unwrap();
    assert!(
        d.phase
            .starts_with("stream 0, message block 1, after the round: never seen in c_*"),
        "{}",
        d.phase
    );
    let differs: Vec<&str> = d
        .fields
        .iter()
        .filter(|f| f.golden != f.rtl)
        .map(|f| f.field.as_str())
        .collect();
    assert_eq!(differs, ["c_5"], "{r}");
    assert_eq!(d.rtl_edge, at as u64, "{r}");
}

#[test]
fn a_byte_swapped_register_is_read_back_through_byteswap() {
    // The RTL holds every word of B byte-swapped; the map says so.
    let mut m = map();
    for (f, p) in m.fields.iter_mut() {
        if f.starts_with("b_") {
            p.byteswap = true;
        }
    }
    let swap = |f: &str, _: usize, v: u64| {
        if f.starts_with("b_") {
            u64::from((v as u32).swap_bytes())
        } else {
            v
        }
    };
    let r = run(&m, swap);
    assert_eq!(r.verdict, Verdict::Identical, "{r}");
    assert_eq!(r.events_matched, 18, "{r}");
    // Without the flag the same RTL never shows B.
    let r = run(&map(), swap);
    assert_eq!(r.verdict, Verdict::Divergent, "{r}");
    assert!(
        r.first_divergence
            .as_ref()
            .unwrap()
            .phase
            .contains("never seen in b_*"),
        "{r}"
    );
}

#[test]
fn skein_fields_and_empty_maps_are_refused() {
    let m = SignalMap::identity(["slot0_state_0"], None);
    let e = LiveEventDiff::shabal(golden(), &m, false)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("slot0_state_0"), "{e}");
    let m = SignalMap::identity(["w"], None);
    assert!(LiveEventDiff::shabal(golden(), &m, false).is_err());
}

#[test]
fn nothing_compared_is_an_error() {
    let live = LiveEventDiff::shabal(golden(), &map(), false).unwrap();
    assert!(live.finish().is_err());
}
