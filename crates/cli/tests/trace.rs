//! `skeinhw trace`: writes JSONL and VCD traces whose digest is the library's, applies
//! overrides to presets, and on bad input fails with one line, status 2 and no file.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The digest out of the trace's `out` records.
fn digest(records: &[Value]) -> String {
    records
        .iter()
        .filter_map(|r| r.get("out").filter(|o| !o.is_null()))
        .flat_map(|o| o["data"].as_array().unwrap().clone())
        .map(|w| {
            let w = u64::from_str_radix(w.as_str().unwrap(), 16).unwrap();
            hex::encode(w.to_le_bytes())
        })
        .collect()
}

#[test]
fn jsonl_trace_of_a_preset_carries_the_librarys_digest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let assert = skeinhw()
        .args([
            "trace",
            "--schedule",
            "ath-1r",
            "--hex",
            "616263",
            "--summary",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let summary = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(summary.contains("cycles              219"), "{summary}");
    assert!(
        summary.contains("cycles per block    73 (schedule: 73)"),
        "{summary}"
    );
    assert!(summary.contains("adder utilisation"), "{summary}");
    let records = lines(&out);
    assert_eq!(records[0]["schema_version"], 1);
    assert_eq!(records[0]["schedule"]["name"], "ath-1r");
    assert_eq!(records.len(), 1 + 219);
    let want = skeinhw_skein::hash(512, 512, b"abc", 24, &Default::default()).unwrap();
    assert_eq!(digest(&records[1..]), hex::encode(want));
}

#[test]
fn size_and_overrides_change_the_preset() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    skeinhw()
        .args([
            "trace",
            "--schedule",
            "ath-8r",
            "--size",
            "1024",
            "--key",
            "00ff",
            "--out-bits",
            "100",
            "--set",
            "first_subkey_cycle=false",
            "--format",
            "jsonl",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let records = lines(&out);
    let s = &records[0]["schedule"];
    assert_eq!(s["size"], 1024);
    assert_eq!(s["first_subkey_cycle"], false);
    assert_eq!(s["name"], "ath-8r+size=1024,first_subkey_cycle=false");
    // Key, Config, Message, Output: 4 blocks of 80/8 cycles.
    assert_eq!(records.len(), 1 + 4 * 10);
    let params = skeinhw_skein::Params {
        key: &[0x00, 0xff],
        ..Default::default()
    };
    let want = skeinhw_skein::hash(1024, 100, b"", 0, &params).unwrap();
    // The output block is the raw chaining value: the digest is its first 100 bits.
    let raw = hex::decode(&digest(&records[1..])[..26]).unwrap();
    assert_eq!(raw[..12], want[..12]);
    assert_eq!(raw[12] & 0xF0, want[12]);
    // Without --size a 256-bit preset stays 256 bits (the file replaced: --force).
    skeinhw()
        .args(["trace", "--schedule", "long-iter-256", "--force", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(lines(&out)[0]["schedule"]["size"], 256);
}

#[test]
fn vcd_trace_uses_the_documented_signal_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.vcd");
    skeinhw()
        .args([
            "trace",
            "--schedule",
            "ath-8r-2fp",
            "--hex",
            "00",
            "--fill",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    for name in [
        "clk",
        "phase",
        "out_valid",
        "out_data_7",
        "slot1_state_7",
        "slot0_key_8",
        "slot1_tweak_2",
        "busy_mix",
    ] {
        assert!(text.contains(&format!(" {name} $end")), "{name}");
    }
}

#[test]
fn bad_input_fails_with_one_line_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let cases: [&[&str]; 7] = [
        &["--schedule", "ath-1r", "--rounds-per-cycle", "5"],
        &["--schedule", "nope"],
        &["--schedule", "ath-1r", "--hex", "abc"],
        &["--schedule", "ath-1r", "--hex", "00", "--msg-bits", "9"],
        &["--schedule", "long-overlap-256", "--size", "512"],
        &["--schedule", "ath-1r", "--set", "bogus=1"],
        &["--schedule", "ath-1r", "--format", "fsdb"],
    ];
    for args in cases {
        let o = skeinhw()
            .arg("trace")
            .args(args)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{args:?}: file left"
        );
    }
    // A file the user had is not touched by a failing run.
    std::fs::write(&out, "mine").unwrap();
    skeinhw()
        .args([
            "trace",
            "--schedule",
            "ath-1r",
            "--rounds-per-cycle",
            "7",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    // An output directory that does not exist is named.
    let o = skeinhw()
        .args([
            "trace",
            "--schedule",
            "ath-1r",
            "-o",
            "/nonexistent-dir/t.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8(o.stderr)
            .unwrap()
            .contains("/nonexistent-dir/t.jsonl")
    );
}
