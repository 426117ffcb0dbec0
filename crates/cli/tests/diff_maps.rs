//! `skeinhw diff` options added for RTL written elsewhere: `--more`, the map's `reset_cycles`
//! and clock against the options, one map check for both alignments, and `--offset` /
//! `--reset-cycles` values that overflow (never IDENTICAL).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn trace(dir: &Path, args: &[&str], file: &str) -> PathBuf {
    let out = dir.join(file);
    skeinhw()
        .arg("trace")
        .args(args)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    out
}

/// Runs `diff` and returns (exit status, stdout, stderr).
fn diff(args: &[&str]) -> (i32, String, String) {
    let out = skeinhw().arg("diff").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn more_messages_are_streams_like_trace() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(
        dir.path(),
        &["--schedule", "ath-1r", "--hex", "616263", "--more", "00ff"],
        "two.vcd",
    );
    let vcd = vcd.to_str().unwrap();
    let base = [
        vcd,
        "--schedule",
        "ath-1r",
        "--hex",
        "616263",
        "--strip-prefix",
        "skeinhw.",
    ];
    let (code, out, err) = diff(&[&base[..], &["--more", "00ff"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    // Without the second message the RTL runs on: not identical.
    let (code, out, _) = diff(&base);
    assert_eq!(code, 1, "{out}");
    // Event alignment sees both streams' digests.
    let (code, out, err) = diff(&[&base[..], &["--more", "00ff", "--align", "event"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("stream 1, message block 0"), "{out}");
}

#[test]
fn the_rtl_signal_map_is_accepted_and_options_must_agree() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(
        dir.path(),
        &["--schedule", "ath-1r", "--hex", "616263"],
        "rtl.vcd",
    );
    let vcd = vcd.to_str().unwrap();
    // The map `skeinhw rtl` writes (reset_cycles, strip_prefix_verilator and all), with the
    // scope of the trace's VCD instead of the test bench's.
    let rtl_dir = dir.path().join("rtl");
    skeinhw()
        .args(["rtl", "--schedule", "ath-1r", "-o"])
        .arg(&rtl_dir)
        .assert()
        .success();
    let text = std::fs::read_to_string(rtl_dir.join("signal_map.json")).unwrap();
    let mut map: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(map.get("reset_cycles").is_some());
    map["scope"] = "skeinhw".into();
    let map_path = dir.path().join("map.json");
    std::fs::write(&map_path, map.to_string()).unwrap();
    let m = map_path.to_str().unwrap();
    let g = ["--schedule", "ath-1r", "--hex", "616263", "--map", m];
    let (code, out, err) = diff(&[&[vcd][..], &g].concat());
    assert_eq!(code, 0, "{out}{err}");
    // --reset-cycles and --clock that contradict the map: exit 2 naming the field.
    for (extra, field) in [
        (["--reset-cycles", "3"], "reset_cycles"),
        (["--clock", "other_clk"], "clock"),
    ] {
        let (code, _, err) = diff(&[&[vcd][..], &g, &extra].concat());
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("map field '{field}'")), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // The same values as the map: fine.
    let (code, _, err) =
        diff(&[&[vcd][..], &g, &["--reset-cycles", "0", "--clock", "clk"]].concat());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn one_map_check_for_both_alignments() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(
        dir.path(),
        &["--schedule", "ath-1r", "--hex", "616263"],
        "rtl.vcd",
    );
    let vcd = vcd.to_str().unwrap();
    let state: String = (0..8)
        .map(|w| format!("\"slot0_state_{w}\": \"slot0_state_{w}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let cases = [
        (
            format!("{state}, \"no_such_field\": \"phase\""),
            "no_such_field",
            "both",
        ),
        (
            format!("{state}, \"slot1_state_0\": \"slot0_state_0\""),
            "slot1_state_0",
            "both",
        ),
        (
            format!("{state}, \"slot0_round\": \"slot0_round\""),
            "slot0_round",
            "event",
        ),
        (
            format!("{state}, \"slot0_state_before_0\": \"slot0_state_0\""),
            "slot0_state_before_0",
            "cycle",
        ),
        (
            "\"slot0_state_0\": \"slot0_state_0\"".to_string(),
            "slot0_state_1",
            "both",
        ),
    ];
    for (i, (fields, field, aligns)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("map{i}.json"));
        std::fs::write(
            &path,
            format!("{{\"clock\": \"clk\", \"scope\": \"skeinhw\", \"fields\": {{{fields}}}}}"),
        )
        .unwrap();
        for align in ["cycle", "event"] {
            if *aligns != "both" && *aligns != align {
                continue;
            }
            let (code, out, err) = diff(&[
                vcd,
                "--schedule",
                "ath-1r",
                "--hex",
                "616263",
                "--align",
                align,
                "--map",
                path.to_str().unwrap(),
            ]);
            assert_eq!(code, 2, "{align} {fields}: {out}{err}");
            assert!(err.contains(&format!("'{field}'")), "{align}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
}

#[test]
fn offsets_and_reset_cycles_that_overflow_are_never_identical() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(
        dir.path(),
        &["--schedule", "ath-1r", "--hex", "616263"],
        "rtl.vcd",
    );
    let vcd = vcd.to_str().unwrap();
    let g = [
        vcd,
        "--schedule",
        "ath-1r",
        "--hex",
        "616263",
        "--strip-prefix",
        "skeinhw.",
    ];
    for extra in [
        &["--offset", "-9223372036854775808"][..],
        &["--offset", "9223372036854775807"],
        &["--reset-cycles", "18446744073709551615"],
        &["--reset-cycles", "18446744073709551615", "--offset", "5"],
        &["--reset-cycles", "18446744073709551615", "--align", "event"],
    ] {
        let (code, out, err) = diff(&[&g[..], extra].concat());
        assert_eq!(code, 2, "{extra:?}: {out}{err}");
        assert!(err.contains("nothing compared"), "{extra:?}: {err}");
    }
}

#[test]
fn help_documents_events_views_and_config_precomputed() {
    let out = skeinhw().args(["diff", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "config_precomputed",
        "slot<i>_state_before_<w>",
        "digest_serial",
        "\"when\"",
        "--partial",
        "--more",
        "rotating",
    ] {
        assert!(help.contains(needle), "{needle} missing from diff --help");
    }
}

/// `vcd` (a trace VCD: clock `!`, period 10, first rising edge at 10) with `n` more rising
/// edges before its first, all signals at their initial values: a design held in reset for
/// `n` more cycles.
fn with_reset_edges(vcd: &Path, n: u64, out: &Path) {
    let text = std::fs::read_to_string(vcd).unwrap();
    let mut body = String::new();
    let mut started = false;
    for line in text.lines() {
        match line.strip_prefix('#').map(|t| t.parse::<u64>().unwrap()) {
            Some(0) => started = true,
            Some(t) => {
                if !body.contains("#reset") {
                    body.push_str("#reset\n");
                }
                body.push_str(&format!("#{}\n", t + 10 * n));
                continue;
            }
            None => {}
        }
        body.push_str(line);
        body.push('\n');
    }
    assert!(started);
    let edges: String = (0..n)
        .map(|k| format!("#{}\n1!\n#{}\n0!\n", 10 + 10 * k, 15 + 10 * k))
        .collect();
    std::fs::write(out, body.replacen("#reset\n", &edges, 1)).unwrap();
}

/// Issue 33: `reset_cycles` is the edge of the golden run's first cycle in both alignments.
/// A design held in reset for 40 more cycles than the trace: `map` writes reset_cycles 40,
/// both alignments pass with it, and cycle alignment told 0 names 40 (found however far).
#[test]
fn reset_cycles_map_writes_mean_the_same_in_both_alignments_and_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(
        dir.path(),
        &["--schedule", "ath-8r", "--hex", "616263"],
        "t.vcd",
    );
    let vcd = dir.path().join("late.vcd");
    with_reset_edges(&t, 40, &vcd);
    let map = dir.path().join("map.json");
    skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", "ath-8r", "--hex", "616263", "-o"])
        .arg(&map)
        .assert()
        .success();
    let found: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    assert_eq!(found["reset_cycles"], 40, "{found}");
    let v = vcd.to_str().unwrap();
    let m = map.to_str().unwrap();
    for align in ["cycle", "event"] {
        let (code, out, err) = diff(&[
            v,
            "--schedule",
            "ath-8r",
            "--hex",
            "616263",
            "--align",
            align,
            "--map",
            m,
            // The trace VCD's tweak position word is not found (small numbers): a part map.
            "--partial",
        ]);
        assert_eq!(code, 0, "{align}: {out}{err}");
        assert!(
            out.lines().any(|l| l.starts_with("IDENTICAL")),
            "{align}: {out}"
        );
    }
    // Without the map's reset_cycles, told 0: the hint names 40.
    let mut bare = found.clone();
    bare.as_object_mut().unwrap().remove("reset_cycles");
    let bare_path = dir.path().join("bare.json");
    std::fs::write(&bare_path, bare.to_string()).unwrap();
    let (code, out, err) = diff(&[
        v,
        "--schedule",
        "ath-8r",
        "--hex",
        "616263",
        "--map",
        bare_path.to_str().unwrap(),
        "--partial",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("with --reset-cycles 40 (") && out.contains("IDENTICAL"),
        "{out}"
    );
}
