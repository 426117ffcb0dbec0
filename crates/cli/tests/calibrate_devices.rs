//! `skeinhw calibrate --device`, `--json` and `--data` from the outside (issue 30).

use std::process::Command;

fn skeinhw() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skeinhw"))
}

#[test]
fn calibrate_each_device_headlines_leave_one_out() {
    for device in ["virtex5", "virtex6", "ecp5", "kintex7"] {
        let out = skeinhw()
            .args(["calibrate", "--device", device])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with(device), "{device}:\n{text}");
        assert!(text.contains("LEAVE-ONE-OUT (headline)"), "{device}");
        assert!(text.contains("stated coverage"), "{device}");
    }
    let out = skeinhw()
        .args(["calibrate", "--device", "virtex4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn calibrate_json_has_the_leave_one_out_errors() {
    let out = skeinhw()
        .args(["calibrate", "--device", "virtex6", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["device"]["name"], "virtex6");
    assert_eq!(v["loo"]["period_rows"], 10);
    assert!(v["loo"]["area"].as_f64().unwrap() <= 15.0);
    assert!(v["coverage"].as_f64().unwrap() > 0.5);
}

#[test]
fn calibrate_data_fits_a_users_rows_and_names_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../estimator/data/seed-tables.csv"
    ))
    .unwrap();
    let good = dir.path().join("mine.csv");
    std::fs::write(&good, &seed).unwrap();
    let out = skeinhw()
        .args(["calibrate", "--device", "virtex6", "--data"])
        .arg(&good)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let bad = dir.path().join("bad.csv");
    let mut lines: Vec<&str> = seed.lines().take(3).collect();
    lines.push("x,y,virtex-5,ath-1r,five,fit,,,,,,,,");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let out = skeinhw()
        .args(["calibrate", "--data"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bad.csv line 4"), "{err}");
}
