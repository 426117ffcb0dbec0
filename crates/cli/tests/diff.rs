//! `skeinhw diff` end to end: exit 0 identical, 1 divergence, 2 usage or parse error.

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn trace(dir: &std::path::Path, schedule: &str, hex: &str, file: &str) -> std::path::PathBuf {
    let out = dir.join(file);
    skeinhw()
        .args(["trace", "--schedule", schedule, "--hex", hex, "-o"])
        .arg(&out)
        .assert()
        .success();
    out
}

#[test]
fn identical_divergent_and_event_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(dir.path(), "ath-1r", "616263", "rtl.vcd");
    let jsonl = trace(dir.path(), "ath-1r", "616263", "golden.jsonl");
    // Against the golden JSONL, and against the golden computed on the fly.
    skeinhw()
        .arg("diff")
        .arg(&vcd)
        .arg("--golden")
        .arg(&jsonl)
        .args(["--strip-prefix", "skeinhw."])
        .assert()
        .code(0);
    skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args([
            "--schedule",
            "ath-1r",
            "--hex",
            "616263",
            "--strip-prefix",
            "skeinhw.",
        ])
        .assert()
        .code(0);
    // Another message: divergence, exit 1, the report's last line is the verdict.
    let out = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args([
            "--schedule",
            "ath-1r",
            "--hex",
            "616264",
            "--strip-prefix",
            "skeinhw.",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("DIVERGENT"),
        "{text}"
    );
    // JSON for scripts.
    let out = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args([
            "--schedule",
            "ath-1r",
            "--hex",
            "616264",
            "--strip-prefix",
            "skeinhw.",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "divergent");
    assert!(v["first_divergence"]["cycle"].as_u64().unwrap() >= 1);
    // A design of another schedule: cycle alignment fails, event alignment passes.
    let other = trace(dir.path(), "ath-4r", "616263", "other.vcd");
    skeinhw()
        .arg("diff")
        .arg(&other)
        .args([
            "--schedule",
            "ath-1r",
            "--hex",
            "616263",
            "--strip-prefix",
            "skeinhw.",
        ])
        .assert()
        .code(1);
    skeinhw()
        .arg("diff")
        .arg(&other)
        .args([
            "--schedule",
            "ath-1r",
            "--hex",
            "616263",
            "--strip-prefix",
            "skeinhw.",
            "--align",
            "event",
        ])
        .assert()
        .code(0);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(dir.path(), "ath-1r", "", "rtl.vcd");
    let truncated = dir.path().join("truncated.vcd");
    let text = std::fs::read_to_string(&vcd).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 3]).unwrap();
    let garbage = dir.path().join("garbage.vcd");
    std::fs::write(&garbage, "not a waveform at all\n").unwrap();
    let bad_map = dir.path().join("map.json");
    std::fs::write(
        &bad_map,
        r#"{"clock": "skeinhw.clk", "fields": {"slot0_state_0": "skeinhw.no_such_signal"}}"#,
    )
    .unwrap();
    let missing = dir.path().join("missing.vcd");
    let g = ["--schedule", "ath-1r", "--hex", ""];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![missing.display().to_string()], "no such file"),
        (vec![garbage.display().to_string()], "garbage.vcd"),
        (
            vec![
                vcd.display().to_string(),
                "--clock".into(),
                "nope".into(),
                "--strip-prefix".into(),
                "skeinhw.".into(),
            ],
            "nope",
        ),
        (
            vec![
                vcd.display().to_string(),
                "--map".into(),
                bad_map.display().to_string(),
                // One word of the state: a partial map, to reach the missing signal.
                "--partial".into(),
            ],
            "no_such_signal",
        ),
        (
            vec![
                vcd.display().to_string(),
                "--strip-prefix".into(),
                "skeinhw.".into(),
                "--reset-cycles".into(),
                "100000".into(),
            ],
            "nothing compared",
        ),
    ];
    for (args, needle) in cases {
        let out = skeinhw().arg("diff").args(&args).args(g).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    // A truncated waveform is never a pass.
    let out = skeinhw()
        .arg("diff")
        .arg(&truncated)
        .args(["--strip-prefix", "skeinhw."])
        .args(g)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
}

/// Issue 33: `diff` takes `--config-precomputed` as `map` and `trace` do: the golden computed on
/// the fly then has no Config block, the same as `--set config_precomputed=true`.
#[test]
fn config_precomputed_is_a_diff_flag() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("pre.vcd");
    skeinhw()
        .args([
            "trace",
            "--schedule",
            "ath-8r",
            "--config-precomputed",
            "true",
        ])
        .args(["--hex", "616263", "-o"])
        .arg(&vcd)
        .assert()
        .success();
    let diff = |extra: &[&str]| {
        skeinhw()
            .arg("diff")
            .arg(&vcd)
            .args(["--schedule", "ath-8r", "--hex", "616263"])
            .args(["--strip-prefix", "skeinhw."])
            .args(extra)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(diff(&["--config-precomputed", "true"]), Some(0));
    assert_eq!(diff(&["--set", "config_precomputed=true"]), Some(0));
    assert_eq!(diff(&[]), Some(1));
}

/// Issue 33: told a wrong `--reset-cycles`, cycle alignment diverges and says which would
/// match.
#[test]
fn cycle_alignment_names_the_reset_cycles_that_match() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(dir.path(), "ath-8r", "616263", "rtl.vcd");
    let o = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args(["--schedule", "ath-8r", "--hex", "616263"])
        .args(["--strip-prefix", "skeinhw.", "--reset-cycles", "3"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("with --reset-cycles 0 (") && out.contains("IDENTICAL"),
        "{out}"
    );
}

/// The VCD's body parsed on several threads gives the one-thread verdicts (identical, and the
/// same divergence report); a `SKEINHW_VCD_WORKERS` that is not a number is a usage error.
#[test]
fn parser_threads_give_the_same_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(dir.path(), "ath-1r", &"61".repeat(3000), "rtl.vcd");
    let run = |workers: &str, hex: &str| {
        skeinhw()
            .env("SKEINHW_VCD_WORKERS", workers)
            .arg("diff")
            .arg(&vcd)
            .args(["--schedule", "ath-1r", "--hex", hex, "--json"])
            .output()
            .unwrap()
    };
    // 3,000 bytes: a VCD of about 2.2 MB, three chunks; the other message differs in its
    // last byte, so the divergence is in the last chunk.
    for (hex, code) in [
        ("61".repeat(3000), 0),
        (format!("{}62", "61".repeat(2999)), 1),
    ] {
        let one = run("0", &hex);
        assert_eq!(one.status.code(), Some(code), "{one:?}");
        for workers in ["1", "3"] {
            let many = run(workers, &hex);
            assert_eq!(many.status.code(), one.status.code(), "{workers} workers");
            assert_eq!(many.stdout, one.stdout, "{workers} workers");
        }
    }
    let bad = run("two", "61");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("SKEINHW_VCD_WORKERS") && err.lines().count() == 1,
        "{err}"
    );
}
