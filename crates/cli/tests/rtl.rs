//! `skeinhw rtl` and `skeinhw sim` (Icarus only: quick).

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

#[test]
fn rtl_writes_the_design_and_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--schedule", "ath-1r", "-o"])
        .arg(&out)
        .assert()
        .success();
    for f in [
        "skeinhw.v",
        "skeinhw_tb.v",
        "signal_map.json",
        "schedule.json",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let a = skeinhw()
        .args(["rtl", "--schedule", "ath-1r", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("--force"), "{err}");
    skeinhw()
        .args(["rtl", "--schedule", "long-iter-256", "--force", "-o"])
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(out.join("schedule.json")).unwrap();
    assert!(text.contains("long-iter-256"));
}

#[test]
fn sim_prints_the_digest_like_hash_and_diverges_on_an_edited_design() {
    let hash = skeinhw()
        .args(["hash", "--size", "256", "--key", "0011", "--hex", "616263"])
        .output()
        .unwrap();
    let sim = skeinhw()
        .args([
            "sim",
            "--schedule",
            "long-iter-256",
            "--key",
            "0011",
            "--hex",
            "616263",
        ])
        .output()
        .unwrap();
    assert_eq!(
        sim.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    assert_eq!(sim.stdout, hash.stdout);

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--schedule", "long-iter-256", "-o"])
        .arg(&dir)
        .assert()
        .success();
    let v = std::fs::read_to_string(dir.join("skeinhw.v")).unwrap();
    let v = v.replace("// PERM w=1 pi=3", "// edited").replace(
        "permute[64 +: 64] = x[192 +: 64]; // edited",
        "permute[64 +: 64] = x[128 +: 64]; // edited",
    );
    std::fs::write(dir.join("skeinhw.v"), v).unwrap();
    let out = skeinhw()
        .args([
            "sim",
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
    assert!(
        text.contains("first divergence at golden cycle 1"),
        "{text}"
    );
    assert!(text.contains("slot0_state_1"), "{text}");
}

#[test]
fn sim_takes_the_optional_arguments_and_the_output_length() {
    let out = skeinhw()
        .args([
            "sim",
            "--schedule",
            "long-iter-256",
            "--nonce",
            "00",
            "--out-bits",
            "264",
            "--hex",
            "616263",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("identical to the golden trace"), "{err}");
    let params = skeinhw_skein::Params {
        nonce: Some(&[0]),
        ..Default::default()
    };
    let want = skeinhw_skein::hash(256, 264, b"abc", 24, &params).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.split_whitespace().next(),
        Some(hex::encode(want).as_str()),
        "{text}"
    );
}

#[test]
fn bad_combinations_are_one_line_errors() {
    for args in [
        &[
            "sim",
            "--schedule",
            "ath-1r",
            "--out-bits",
            "0",
            "--hex",
            "00",
        ][..],
        &[
            "sim",
            "--schedule",
            "ath-1r",
            "--out-bits",
            "2000000",
            "--hex",
            "00",
        ],
        &[
            "sim",
            "--schedule",
            "ath-1r",
            "--tree",
            "1,1,1",
            "--hex",
            "00",
        ],
        &[
            "sim",
            "--schedule",
            "shabal-unfold-1",
            "--nonce",
            "00",
            "--hex",
            "00",
        ],
        &[
            "rtl",
            "--schedule",
            "shabal-unfold-1",
            "--tree",
            "1,1,2",
            "-o",
            "/nonexistent/x",
        ],
        &[
            "rtl",
            "--schedule",
            "ath-1r",
            "--out-bits",
            "0",
            "-o",
            "/nonexistent/x",
        ],
    ] {
        let out = skeinhw().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn rtl_writes_a_shabal_core() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--schedule", "shabal-unfold-4", "-o"])
        .arg(&out)
        .assert()
        .success();
    let schedule = std::fs::read_to_string(out.join("schedule.json")).unwrap();
    assert!(schedule.contains("\"unfolding\": 4"), "{schedule}");
    let v = std::fs::read_to_string(out.join("skeinhw.v")).unwrap();
    assert!(v.contains("module skeinhw ("));
    let map = std::fs::read_to_string(out.join("signal_map.json")).unwrap();
    assert!(map.contains("\"m_15\""), "{map}");
}

#[test]
fn sim_of_a_shabal_core_prints_the_digest_like_hash_and_diverges_on_an_edited_design() {
    // Shabal-256 (an overridden preset), a bit-length message.
    let hash = skeinhw()
        .args([
            "hash",
            "--alg",
            "shabal-256",
            "--hex",
            "a5e0",
            "--msg-bits",
            "11",
        ])
        .output()
        .unwrap();
    assert_eq!(hash.status.code(), Some(0));
    let sim = skeinhw()
        .args([
            "sim",
            "--schedule",
            "shabal-unfold-3",
            "--set",
            "output_bits=256",
            "--hex",
            "a5e0",
            "--msg-bits",
            "11",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&sim.stderr);
    assert_eq!(sim.status.code(), Some(0), "{err}");
    assert_eq!(sim.stdout, hash.stdout);
    assert!(err.contains("identical to the golden trace"), "{err}");

    // The final addition into A[3] with a wrong C operand: the first pass's last cycle (16 for
    // f = 3) diverges in a_3.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--schedule", "shabal-unfold-3", "-o"])
        .arg(&dir)
        .assert()
        .success();
    let v = std::fs::read_to_string(dir.join("skeinhw.v")).unwrap();
    let edited = v.replace(
        "x_a_3 = x_a_3 + x_c_6 + x_c_2 + x_c_14; // FINAL word=3",
        "x_a_3 = x_a_3 + x_c_7 + x_c_2 + x_c_14; // edited",
    );
    assert_ne!(edited, v);
    std::fs::write(dir.join("skeinhw.v"), edited).unwrap();
    let out = skeinhw()
        .args([
            "sim",
            "--schedule",
            "shabal-unfold-3",
            "--hex",
            "616263",
            "--rtl-dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("first divergence at golden cycle 16"),
        "{text}"
    );
    assert!(text.contains("a_3"), "{text}");
}

#[test]
fn skein_options_on_a_shabal_core_are_one_line_errors() {
    let out = skeinhw()
        .args([
            "sim",
            "--schedule",
            "shabal-unfold-2",
            "--key",
            "00",
            "--hex",
            "00",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Skein option"), "{err}");
    assert_eq!(err.lines().count(), 1);
}
