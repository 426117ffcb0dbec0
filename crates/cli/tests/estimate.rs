//! `skeinhw estimate`, `sweep` and `calibrate` from the outside: output shape, exit codes,
//! one-line errors, and no output file left behind by a failed command.

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn stderr_line(out: &std::process::Output) -> String {
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "one-line error, got: {err}");
    err
}

#[test]
fn estimate_json_has_the_documented_fields() {
    let out = skeinhw()
        .args(["estimate", "--schedule", "ath-8r-2fp", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for f in [
        "luts",
        "ffs",
        "lut_ff_pairs",
        "slices",
        "period_ns",
        "cycles_per_block",
        "blocks_in_flight",
        "throughput_mbps",
    ] {
        assert!(v[f].is_number(), "{f}");
    }
    assert_eq!(v["cycles_per_block"], 20);
    assert_eq!(v["blocks_in_flight"], 2);
}

#[test]
fn estimate_at_a_given_clock_and_with_overrides() {
    let out = skeinhw()
        .args([
            "estimate",
            "--schedule",
            "ath-8r-2fp",
            "--freq-mhz",
            "162.3",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!((v["throughput_mbps"].as_f64().unwrap() - 8309.76).abs() < 0.01);

    let out = skeinhw()
        .args([
            "estimate",
            "--schedule",
            "ath-8r",
            "--size",
            "1024",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cycles_per_block"], 11);
    assert_eq!(v["schedule"], "ath-8r+size=1024");

    let out = skeinhw()
        .args(["estimate", "--schedule", "long-iter-512"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("15 = mix 4 + subkey 8 + key schedule 3"),
        "{text}"
    );
}

#[test]
fn estimate_bad_input_is_one_line_and_nonzero() {
    for args in [
        &["estimate", "--schedule", "no-such-preset"][..],
        &[
            "estimate",
            "--schedule",
            "ath-8r",
            "--functional-stages",
            "3",
        ],
        &["estimate", "--schedule", "ath-8r", "--freq-mhz", "-5"],
        &["estimate", "--schedule", "ath-8r", "--set", "bogus=1"],
        &["estimate", "--schedule", "ath-8r", "--synth"],
        &["estimate", "--schedule", "/nonexistent/x.json"],
    ] {
        let out = skeinhw().args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = stderr_line(&out);
        assert!(err.starts_with("skeinhw: "), "{args:?}: {err}");
    }
    let out = skeinhw()
        .args([
            "estimate",
            "--schedule",
            "ath-8r",
            "--functional-stages",
            "3",
        ])
        .output()
        .unwrap();
    assert!(stderr_line(&out).contains("functional_stages = 3"));
}

#[test]
fn estimate_reads_a_schedule_file_and_reports_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("s.json");
    std::fs::write(
        &good,
        r#"{"name": "mine", "size": 256, "rounds_per_cycle": 4,
            "first_subkey_cycle": false, "config_precomputed": true}"#,
    )
    .unwrap();
    let out = skeinhw()
        .args(["estimate", "--schedule", good.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"name": "x", "size": 384"#).unwrap();
    let out = skeinhw()
        .args(["estimate", "--schedule", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr_line(&out).contains("bad.json"));
}

#[test]
fn sweep_writes_csv_json_svg() {
    let dir = tempfile::tempdir().unwrap();
    let out = skeinhw()
        .args(["sweep", "--sizes", "256", "--out-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.path().join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("name,size,style,"));
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() > 50);
    assert!(rows.iter().all(|r| r.split(',').nth(1) == Some("256")));
    assert!(rows.iter().any(|r| r.ends_with(",true")));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("sweep.json")).unwrap())
            .unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), rows.len());
    let svg = std::fs::read_to_string(dir.path().join("sweep.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Pareto front"));
}

#[test]
fn sweep_bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("out.csv");
    let out = skeinhw()
        .args(["sweep", "--sizes", "384", "--csv"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr_line(&out).contains("384"));
    assert!(!csv.exists());
    // An unwritable destination: a one-line error, and no stray temporary file.
    let missing = dir.path().join("no/such/dir/out.csv");
    let out = skeinhw()
        .args(["sweep", "--sizes", "256", "--csv"])
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    stderr_line(&out);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn calibrate_prints_every_row_and_meets_its_goals() {
    let out = skeinhw().arg("calibrate").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "long-iter-256",
        "ath-8r-8fp",
        "ath-8r-8fp-3sp",
        "shabal-unfold-1",
        "not modelled yet",
        "MAPE fit",
        "MAPE validation (own designs)",
        "34/34 rows agree",
        "goals",
        "up to date",
    ] {
        assert!(text.contains(needle), "missing {needle}:\n{text}");
    }
}

#[test]
fn calibrate_write_rewrites_the_given_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.toml");
    let original = skeinhw_estimator_constants();
    let changed: String = original
        .lines()
        .map(|l| {
            if l.starts_with("slice_packing") {
                "slice_packing = 0.5\n".to_owned()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_ne!(changed, original);
    std::fs::write(&file, changed).unwrap();
    let out = skeinhw()
        .args(["calibrate", "--constants"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("differs from the fit")
    );
    let out = skeinhw()
        .args(["calibrate", "--write", "--constants"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);

    std::fs::write(&file, "[device]\nluts_per_slice = \"four\"\n").unwrap();
    let out = skeinhw()
        .args(["calibrate", "--constants"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr_line(&out).contains("constants"));
}

fn skeinhw_estimator_constants() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../estimator/data/virtex5.toml"
    ))
    .unwrap()
}
