//! `skeinhw schedules` and `skeinhw schedule show`: the preset table, JSON for scripts, and
//! one-line errors for bad schedules.

use assert_cmd::Command;
use serde_json::Value;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = skeinhw().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The one-line error of a failing command; asserts exit status 2.
fn error(args: &[&str]) -> String {
    let out = skeinhw().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[test]
fn the_table_lists_every_preset_with_its_cycles() {
    let text = stdout(&["schedules"]);
    assert!(text.starts_with("name"));
    let row = text.lines().find(|l| l.starts_with("ath-8r-4fp ")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[1..5], ["skein", "512", "40", "4"]);
    assert!(row.contains("Athanasiou"));
    let row = text
        .lines()
        .find(|l| l.starts_with("shabal-unfold-6 "))
        .unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[1..5], ["shabal", "512", "8", "1"]);
    // 20 Skein designs of Long and Athanasiou, 6 Shabal designs of Table I.
    assert_eq!(text.lines().count(), 1 + 20 + 6);
}

#[test]
fn json_lists_name_source_cycles_and_blocks_in_flight() {
    let rows: Vec<Value> = serde_json::from_str(&stdout(&["schedules", "--json"])).unwrap();
    assert_eq!(rows.len(), 26);
    let ath = rows.iter().find(|r| r["name"] == "ath-1r").unwrap();
    assert_eq!(ath["cycles_per_block"], 73);
    assert_eq!(ath["blocks_in_flight"], 1);
    assert!(ath["source"].as_str().unwrap().contains("Athanasiou"));
}

#[test]
fn show_prints_a_preset_and_a_file() {
    let v: Value =
        serde_json::from_str(&stdout(&["schedule", "show", "ath-8r-3sp", "--json"])).unwrap();
    assert_eq!(v["name"], "ath-8r-3sp");
    assert_eq!(v["size"], 512);
    assert_eq!(v["cycles_per_block"], 9);
    assert_eq!(v["blocks_in_flight"], 3);
    assert!(stdout(&["schedule", "show", "long-outshare-256"]).contains("cycles per block     90"));

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.json");
    std::fs::write(
        &path,
        r#"{"name": "mine", "size": 1024, "rounds_per_cycle": 4,
            "first_subkey_cycle": false, "config_precomputed": true}"#,
    )
    .unwrap();
    let v: Value = serde_json::from_str(&stdout(&[
        "schedule",
        "show",
        path.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        (
            v["cycles_per_block"].as_u64(),
            v["blocks_in_flight"].as_u64()
        ),
        (Some(20), Some(1))
    );
}

#[test]
fn bad_schedules_are_one_line_errors_naming_the_field() {
    let err = error(&["schedule", "show", "no-such-preset"]);
    assert!(
        err.contains("unknown schedule preset `no-such-preset`"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    for (json, field) in [
        (
            r#"{"name":"x","size":512,"rounds_per_cycle":5,"first_subkey_cycle":false,"config_precomputed":true}"#,
            "rounds_per_cycle",
        ),
        (
            r#"{"name":"x","size":512,"rounds_per_cycle":1,"first_subkey_cycle":false}"#,
            "config_precomputed",
        ),
        (
            r#"{"name":"x","size":512,"rounds_per_cycle":1,"first_subkey_cycle":false,"config_precomputed":true,"bogus":1}"#,
            "bogus",
        ),
        (
            r#"{"name":"x","size":512,"rounds_per_cycle":8,"functional_stages":0,"first_subkey_cycle":false,"config_precomputed":true}"#,
            "functional_stages",
        ),
    ] {
        let path = dir.path().join("bad.json");
        std::fs::write(&path, json).unwrap();
        let err = error(&["schedule", "show", path.to_str().unwrap()]);
        assert!(err.contains(field), "{field}: {err}");
        assert!(err.contains("bad.json"), "{err}");
    }
}
