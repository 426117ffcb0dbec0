//! The waveform sampler on fixtures made by real simulators.

use std::path::PathBuf;

use skeinhw_diff::wave::{Probe, WaveOptions, sample_rising_edges};

fn fixture(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(p)
}

#[test]
fn icarus_counter_sampled_after_each_rising_edge() {
    // counter.v: cnt <= cnt + 1 and wide <= {wide, 1} on every rising edge (period 10, first
    // edge at 5), for 200 time units: 20 edges.
    let probes = [
        Probe::parse("t.cnt").unwrap(),
        Probe::parse("t.wide[127:64]").unwrap(),
        Probe::parse("t.wide[3:0]").unwrap(),
    ];
    let mut seen = 0u64;
    let stats = sample_rising_edges(
        &fixture("icarus/counter.vcd"),
        &WaveOptions {
            clock: "t.clk".into(),
            strip_prefix: None,
            ..WaveOptions::default()
        },
        &probes,
        |i, time, s| {
            assert_eq!(time, 5 + 10 * i);
            assert_eq!(s[0].words[0], i + 1, "cnt after edge {i}");
            let ones = (i + 1).min(128);
            let high = if ones > 64 {
                u64::MAX >> (128 - ones)
            } else {
                0
            };
            assert_eq!(s[1].words[0], high, "wide[127:64] after edge {i}");
            assert_eq!(s[2].words[0], (1u64 << ones.min(4)) - 1);
            seen += 1;
            true
        },
    )
    .unwrap();
    assert_eq!(stats.edges, 20);
    assert_eq!(seen, 20);
}

#[test]
fn missing_signal_and_bad_files_are_errors() {
    let opts = WaveOptions {
        clock: "t.clk".into(),
        strip_prefix: None,
        ..WaveOptions::default()
    };
    let e = sample_rising_edges(
        &fixture("icarus/counter.vcd"),
        &opts,
        &[Probe::parse("t.nope").unwrap()],
        |_, _, _| true,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no signal 't.nope'"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let truncated = dir.path().join("t.vcd");
    let text = std::fs::read_to_string(fixture("icarus/counter.vcd")).unwrap();
    std::fs::write(&truncated, &text[..200]).unwrap();
    assert!(sample_rising_edges(&truncated, &opts, &[], |_, _, _| true).is_err());
    let garbage = dir.path().join("g.vcd");
    std::fs::write(&garbage, "this is not a waveform\n").unwrap();
    let e = sample_rising_edges(&garbage, &opts, &[], |_, _, _| true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("g.vcd"), "{e}");
    assert!(!e.contains('\n'));
}

#[test]
fn fst_is_read_like_vcd_and_told_apart_by_content() {
    // The same simulation dumped as FST, in a file whose name does not say FST.
    let probes = [
        Probe::parse("t.cnt").unwrap(),
        Probe::parse("t.wide[3:0]").unwrap(),
    ];
    let options = WaveOptions {
        clock: "t.clk".into(),
        strip_prefix: None,
        ..WaveOptions::default()
    };
    let mut from_vcd = Vec::new();
    sample_rising_edges(
        &fixture("icarus/counter.vcd"),
        &options,
        &probes,
        |i, t, s| {
            from_vcd.push((i, t, s[0].words[0], s[1].words[0]));
            true
        },
    )
    .unwrap();
    let mut from_fst = Vec::new();
    sample_rising_edges(
        &fixture("icarus/counter.fst.bin"),
        &options,
        &probes,
        |i, t, s| {
            from_fst.push((i, t, s[0].words[0], s[1].words[0]));
            true
        },
    )
    .unwrap();
    assert_eq!(from_vcd.len(), 20);
    assert_eq!(from_fst, from_vcd);
}

/// Issue 16: the readers' panics are contained as a malformed file, but a panic of the caller's
/// own callback is a bug and must go on unwinding (not be reported as a bad waveform).
#[test]
fn a_panic_in_the_callback_is_not_taken_for_a_malformed_file() {
    let opts = WaveOptions {
        clock: "t.clk".into(),
        strip_prefix: None,
        ..WaveOptions::default()
    };
    let caught = std::panic::catch_unwind(|| {
        sample_rising_edges(&fixture("icarus/counter.vcd"), &opts, &[], |_, _, _| {
            panic!("the caller's bug")
        })
    });
    let payload = caught.expect_err("the callback's panic unwinds out");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"the caller's bug"));
    // A reader's panic afterwards is still contained (the hook was left in a sane state).
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("badchar.vcd");
    std::fs::write(
        &bad,
        "$var wire 2 ! t.clk $end\n$enddefinitions $end\n#0\nb0) !\n",
    )
    .unwrap();
    let e = sample_rising_edges(&bad, &opts, &[], |_, _, _| true).unwrap_err();
    assert!(e.to_string().contains("malformed"), "{e}");
}

fn read_text(text: &str, stop_after: u64) -> Result<u64, String> {
    let opts = WaveOptions {
        clock: "t.clk".into(),
        strip_prefix: None,
        ..WaveOptions::default()
    };
    skeinhw_diff::wave::sample_rising_edges_from(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        "x.vcd",
        &opts,
        &[Probe::parse("t.v").unwrap()],
        |i, _, _| i + 1 < stop_after,
    )
    .map(|s| s.edges)
    .map_err(|e| e.to_string())
}

const HEAD: &str = "$scope module t $end\n$var wire 1 ! clk $end\n$var wire 4 \" v $end\n\
                    $upscope $end\n$enddefinitions $end\n";

/// Issue 14: our VCD reader checks the time order as it reads, and the rest of the file when
/// the caller stops it early: a damaged file is an error either way, never a verdict.
#[test]
fn time_going_backwards_is_found_even_after_an_early_stop() {
    let body = "#0\n0!\nb0 \"\n#10\n1!\n#20\n0!\n#30\n1!\n#5\n0!\n";
    for stop in [1, 100] {
        let e = read_text(&format!("{HEAD}{body}"), stop).unwrap_err();
        assert!(
            e.contains("x.vcd") && e.contains("time goes backwards"),
            "{e}"
        );
        assert!(e.contains("line 15"), "{e}");
    }
    assert_eq!(read_text(&format!("{HEAD}#0\n0!\n#10\n1!\n"), 100), Ok(1));
}

#[test]
fn a_bad_value_names_its_line() {
    let e = read_text(&format!("{HEAD}#0\n0!\nb10x01 \"\n"), 100).unwrap_err();
    assert!(e.contains("line 8") && e.contains("malformed"), "{e}");
    assert!(!e.contains('\n'));
    let e = read_text(&format!("{HEAD}#0\n0!\n#1\n?!\n"), 100).unwrap_err();
    assert!(e.contains("line 9") && e.contains("'?!'"), "{e}");
    // A real value on a bit vector, and a mapped real: errors, not comparisons.
    let e = read_text(&format!("{HEAD}#0\nr1.5 \"\n"), 100).unwrap_err();
    assert!(e.contains("line 7") && e.contains("malformed"), "{e}");
    let real = HEAD.replace("wire 4 \" v", "real 64 \" v");
    let e = read_text(&format!("{real}#0\nr1.5 \"\n1!\n"), 100).unwrap_err();
    assert!(e.contains("real"), "{e}");
}
