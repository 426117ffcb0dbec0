//! `skeinhw rtl --lean` and `skeinhw sim --lean` (Icarus only: quick).

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

#[test]
fn rtl_lean_writes_a_map_without_the_trace_only_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--lean", "--schedule", "ath-8r-2fp", "-o"])
        .arg(&out)
        .assert()
        .success();
    let map: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("signal_map.json")).unwrap())
            .unwrap();
    let fields = map["fields"].as_object().unwrap();
    for gone in [
        "phase",
        "busy_mix",
        "slot0_block",
        "slot1_round",
        "slot1_subkey",
    ] {
        assert!(!fields.contains_key(gone), "{gone}");
    }
    for kept in ["out_valid", "slot0_valid", "slot1_state_7", "slot1_key_8"] {
        assert!(fields.contains_key(kept), "{kept}");
    }
    let v = std::fs::read_to_string(out.join("skeinhw.v")).unwrap();
    assert!(!v.contains("output reg  [15:0] busy_mix"));
}

#[test]
fn sim_lean_prints_the_digest_like_hash_and_names_what_it_does_not_compare() {
    let hash = skeinhw()
        .args(["hash", "--size", "512", "--key", "0011", "--hex", "616263"])
        .output()
        .unwrap();
    let sim = skeinhw()
        .args([
            "sim",
            "--lean",
            "--schedule",
            "ath-4r",
            "--key",
            "0011",
            "--hex",
            "616263",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&sim.stderr);
    assert_eq!(sim.status.code(), Some(0), "{err}");
    assert_eq!(sim.stdout, hash.stdout);
    assert!(
        err.contains("trace fields not compared")
            && err.contains("phase, busy_mix, busy_subkey, busy_key_schedule, busy_first_subkey, slot0_block, slot0_round, slot0_subkey"),
        "{err}"
    );
    assert!(err.contains("identical to the golden trace"), "{err}");
}

#[test]
fn sim_lean_diverges_on_an_edited_lean_design() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--lean", "--schedule", "long-iter-256", "-o"])
        .arg(&dir)
        .assert()
        .success();
    let v = std::fs::read_to_string(dir.join("skeinhw.v")).unwrap();
    let edited = v.replace(
        "permute[64 +: 64] = x[192 +: 64]; // PERM w=1 pi=3",
        "permute[64 +: 64] = x[128 +: 64]; // PERM w=1 pi=3",
    );
    assert_ne!(edited, v);
    std::fs::write(dir.join("skeinhw.v"), edited).unwrap();
    let out = skeinhw()
        .args([
            "sim",
            "--lean",
            "--schedule",
            "long-iter-256",
            "--hex",
            "616263",
            "--rtl-dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("slot0_state_1"), "{text}");
}

#[test]
fn sim_lean_of_a_shabal_core_is_a_one_line_error() {
    let out = skeinhw()
        .args([
            "sim",
            "--lean",
            "--schedule",
            "shabal-unfold-1",
            "--hex",
            "00",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--lean takes Skein schedules only"), "{err}");
    assert_eq!(err.lines().count(), 1);
}
