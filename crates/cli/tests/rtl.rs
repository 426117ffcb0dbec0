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
        "core.json",
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

/// Writes the design of `schedule` into a temporary directory with `edits` (from, to) applied
/// to skeinhw.v, each of which must change it.
fn mutant(schedule: &str, edits: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    skeinhw()
        .args(["rtl", "--schedule", schedule, "-o"])
        .arg(tmp.path().join("d"))
        .assert()
        .success();
    let path = tmp.path().join("d").join("skeinhw.v");
    let mut v = std::fs::read_to_string(&path).unwrap();
    for (from, to) in edits {
        assert_eq!(v.matches(from).count(), 1, "{from}");
        v = v.replace(from, to);
    }
    std::fs::write(&path, v).unwrap();
    tmp
}

fn sim_in(dir: &tempfile::TempDir, schedule: &str, extra: &[&str]) -> std::process::Output {
    skeinhw()
        .args([
            "sim",
            "--schedule",
            schedule,
            "--hex",
            "616263",
            "--rtl-dir",
        ])
        .arg(dir.path().join("d"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn fill_feeds_every_stream_several_messages_with_the_digests_of_hash() {
    let out = skeinhw()
        .args([
            "sim",
            "--schedule",
            "ath-8r-2fp",
            "--key",
            "0011",
            "--hex",
            "616263",
            "--more",
            "",
            "--fill",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // Two streams, three messages each; every digest is that of `hash` on the same message.
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    for line in text.lines() {
        let (_, name) = line.split_once("  hex:").unwrap();
        let hash = skeinhw()
            .args(["hash", "--key", "0011", "--hex", name])
            .output()
            .unwrap();
        let want = String::from_utf8(hash.stdout).unwrap();
        assert_eq!(
            line.split(' ').next(),
            want.split(' ').next(),
            "{line} vs {want}"
        );
    }
    assert!(err.contains("6 digest(s)"), "{err}");
    assert!(err.contains("4 idle after the last digest"), "{err}");
    assert!(err.contains("in_ready of 2 stream(s) included"), "{err}");
}

#[test]
fn in_ready_is_identical_with_optional_arguments_an_output_length_and_trees() {
    // The feed model (skeinhw_sched::sim::feed) against the test bench in Icarus: the optional
    // arguments' blocks come through the same port, Output blocks do not, a tree's nodes carry
    // returned results; six streams fed three messages each, or a tree on two streams.
    let tree_message = "ab".repeat(700);
    let runs: [&[&str]; 3] = [
        &[
            "--schedule",
            "ath-8r-2fp-3sp",
            "--fill",
            "--key",
            "0011",
            "--personalization",
            "6162636465666768",
            "--nonce",
            "01020304",
        ],
        &[
            "--schedule",
            "ath-4r",
            "--hex",
            "6162",
            "--out-bits",
            "1100",
            "--public-key",
            "99",
            "--key-id",
            "77",
        ],
        &[
            "--schedule",
            "ath-8r-2fp",
            "--hex",
            &tree_message,
            "--tree",
            "1,1,4",
            "--fill",
        ],
    ];
    for (args, streams) in runs.iter().zip([6, 1, 2]) {
        let out = skeinhw().arg("sim").args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {err}{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            err.contains(&format!("in_ready of {streams} stream(s) included")),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn stream_mutants_survive_one_message_and_die_with_fill() {
    // Stream 1's blocks issued as stream 0's (never used by one message on stream 0), and
    // stream 0's block counter not reset after its Output block (needs a second message).
    for (edit, field) in [
        (
            (
                "iss_stream = (grant[1] ? 32'd1 : 32'd0);",
                "iss_stream = 32'd0;",
            ),
            "stream",
        ),
        (
            (
                "s0_sq <= SQ_IDLE; s0_blk <= 64'd0;",
                "s0_sq <= SQ_IDLE; s0_blk <= s0_blk;",
            ),
            "block",
        ),
    ] {
        let dir = mutant("ath-8r-2fp", &[edit]);
        let one = sim_in(&dir, "ath-8r-2fp", &[]);
        assert_eq!(
            one.status.code(),
            Some(0),
            "{:?} {}",
            edit,
            String::from_utf8_lossy(&one.stdout)
        );
        let fill = sim_in(&dir, "ath-8r-2fp", &["--fill"]);
        let text = String::from_utf8_lossy(&fill.stdout);
        assert_eq!(fill.status.code(), Some(1), "{edit:?}: {text}");
        assert!(text.contains("DIVERGENT at golden cycle"), "{text}");
        assert!(text.contains(&format!("_{field}")), "{edit:?}: {text}");
    }
}

#[test]
fn a_hung_design_stops_at_the_golden_length_plus_the_margin() {
    let dir = mutant(
        "ath-1r",
        &[(
            "out_valid <= c_valid && c_phase == PH_OUTPUT;",
            "out_valid <= 1'b0;",
        )],
    );
    let started = std::time::Instant::now();
    let out = sim_in(&dir, "ath-1r", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // 3 blocks of 73 cycles, 4 idle cycles, then the margin of 256.
    assert!(
        text.contains("design hung: no digest by cycle 479 (0 of 1 digest(s) out"),
        "{text}"
    );
    assert!(
        text.contains("DIVERGENT at golden cycle 219") && text.contains("out_valid"),
        "{text}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn x_on_the_digest_is_a_divergence_naming_cycle_and_register() {
    let dir = mutant(
        "ath-8r-2fp",
        &[("out_data_3 <= c_chain[192 +: 64];", "out_data_3 <= 64'bx;")],
    );
    let out = sim_in(&dir, "ath-8r-2fp", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text} {err}");
    assert!(text.contains("X/Z on the digest lines"), "{text}");
    assert!(text.contains("DIVERGENT at golden cycle 60"), "{text}");
    assert!(text.contains("out_data_3"), "{text}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn shabal_fill_runs_three_messages_and_compares_the_idle_tail() {
    let out = skeinhw()
        .args([
            "sim",
            "--schedule",
            "shabal-unfold-4",
            "--hex",
            "616263",
            "--fill",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    assert!(err.contains("3 digest(s)"), "{err}");
}

#[test]
fn the_idle_cycles_after_the_last_digest_are_compared() {
    let clean = skeinhw()
        .args(["sim", "--schedule", "shabal-unfold-4", "--hex", "616263"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&clean.stderr);
    assert_eq!(clean.status.code(), Some(0), "{err}");
    let cycles: u64 = err
        .split("reset and ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    // A core that shows a wrong phase only while it waits for a block: never before the last
    // digest (the stimulus has no gaps), so only the idle tail can catch it, at its first cycle.
    let dir = mutant(
        "shabal-unfold-4",
        &[(
            "valid <= 1'b0; phase <= PH_IDLE;\n",
            "valid <= 1'b0; phase <= PH_FINAL;\n",
        )],
    );
    let out = sim_in(&dir, "shabal-unfold-4", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let first_idle = cycles - 4 + 1;
    assert!(
        text.contains(&format!(
            "DIVERGENT at golden cycle {first_idle}: 1 field(s) differ (phase)"
        )),
        "{text}"
    );
}

#[test]
fn the_state_right_after_reset_is_compared() {
    // A busy count that reset leaves at 5 and an out_valid that reset leaves unknown: both are
    // overwritten at the first edge, so only the check after reset sees them.
    let dir = mutant(
        "ath-1r",
        &[
            ("busy_mix <= 16'd0;", "busy_mix <= 16'd5;"),
            ("phase <= PH_IDLE; out_valid <= 1'b0;", "phase <= PH_IDLE;"),
        ],
    );
    let out = sim_in(&dir, "ath-1r", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("DIVERGENT right after reset (before golden cycle 1): "),
        "{text}"
    );
    assert!(text.contains("out_valid: golden 0, RTL x (X/Z)"), "{text}");
    assert!(text.contains("busy_mix: golden 0, RTL 0005"), "{text}");
    // Nothing else differs: the cycle comparison is clean.
    assert!(!text.contains("DIVERGENT at golden cycle"), "{text}");
}

#[test]
fn in_ready_is_compared_bit_by_bit() {
    // Stream 1's ready bit stuck at 0: with one message stream 1 is never fed, so nothing else
    // changes; only the comparison of in_ready with the golden run and the feed rule sees it.
    let dir = mutant(
        "ath-8r-2fp",
        &[(
            "assign in_ready = rst ? 2'd0 : ~{b1_full, b0_full};",
            "assign in_ready = rst ? 2'd0 : ~{1'b1, b0_full};",
        )],
    );
    let out = sim_in(&dir, "ath-8r-2fp", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("DIVERGENT at golden cycle 1: 1 field(s) differ (in_ready_1)"),
        "{text}"
    );
}

/// Issue 33, item 14: a directory says what it holds (`core.json`), and `sim --rtl-dir` refuses
/// another core or schedule with the difference named, before simulating anything (a wrong
/// option is never reported as a design bug).
#[test]
fn sim_refuses_a_directory_built_for_another_core_naming_the_difference() {
    let tmp = tempfile::tempdir().unwrap();
    let build = |dir: &str, extra: &[&str]| {
        skeinhw()
            .args(["rtl", "--schedule", "ath-1r", "-o"])
            .arg(tmp.path().join(dir))
            .args(extra)
            .assert()
            .success();
    };
    build("lean", &["--lean"]);
    build("full", &[]);
    build("out128", &["--out-bits", "128"]);
    let sim = |dir: &str, schedule: &str, extra: &[&str]| {
        let out = skeinhw()
            .args([
                "sim",
                "--schedule",
                schedule,
                "--hex",
                "616263",
                "--rtl-dir",
            ])
            .arg(tmp.path().join(dir))
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), err)
    };
    let cases: [(&str, &str, &[&str], &str); 5] = [
        (
            "lean",
            "ath-1r",
            &[],
            "it holds a lean core (--lean), the command asks for a full core",
        ),
        (
            "full",
            "ath-1r",
            &["--lean"],
            "it holds a full core, the command asks for a lean core",
        ),
        (
            "out128",
            "ath-1r",
            &[],
            "built for --out-bits 128, the command asks for 512",
        ),
        (
            "full",
            "ath-1r",
            &["--tree", "1,1,2"],
            "built for no tree, the command asks for --tree 1,1,2",
        ),
        ("full", "ath-4r", &[], "is not the schedule ath-4r"),
    ];
    for (dir, schedule, extra, expected) in cases {
        let (code, err) = sim(dir, schedule, extra);
        assert_eq!(code, Some(2), "{dir} {extra:?}: {err}");
        assert!(err.contains(expected), "{dir} {extra:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!err.contains("DIVERGENT"), "{err}");
    }
    // The options it was built with pass.
    for (dir, extra) in [
        ("lean", &["--lean"][..]),
        ("out128", &["--out-bits", "128"][..]),
    ] {
        let (code, err) = sim(dir, "ath-1r", extra);
        assert_eq!(code, Some(0), "{dir}: {err}");
    }
}
