//! `estimate --netlist/--synth` against a design unlike the model's: a generated core of
//! another state size is refused in one line, another style is named in a warning, and
//! --synth without --style compares the generated style (and says so).

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

/// The add64 fixture dressed as a generated core of `bits` state bits: a `slot0_st` net of
/// that width (the name `skeinhw rtl` gives a slot's state).
fn generated_core(dir: &std::path::Path, bits: usize) -> std::path::PathBuf {
    let fixture = format!(
        "{}/../../estimator/tests/data/add64.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let module = &mut v["modules"]["add64"];
    let some_bits = module["netnames"]
        .as_object()
        .unwrap()
        .values()
        .find_map(|n| n["bits"].as_array().filter(|b| b.len() == 64).cloned())
        .unwrap();
    let st: Vec<serde_json::Value> = some_bits.iter().cycle().take(bits).cloned().collect();
    module["netnames"]["slot0_st"] =
        serde_json::json!({"hide_name": 0, "bits": st, "attributes": {}});
    let path = dir.join(format!("gen{bits}.json"));
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path
}

#[test]
fn a_netlist_of_another_state_size_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let netlist = generated_core(dir.path(), 512);
    // long-iter-256 is Skein-256.
    let out = skeinhw()
        .args(["estimate", "--schedule", "long-iter-256", "--netlist"])
        .arg(&netlist)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("gen512.json") && err.contains("Skein-512") && err.contains("Skein-256"),
        "{err}"
    );
    // --size 512 makes them alike.
    let out = skeinhw()
        .args([
            "estimate",
            "--schedule",
            "long-iter-256",
            "--size",
            "512",
            "--style",
            "generated",
            "--json",
            "--netlist",
        ])
        .arg(&netlist)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_generated_netlist_against_another_style_is_a_warning_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let netlist = generated_core(dir.path(), 512);
    let out = skeinhw()
        .args(["estimate", "--schedule", "ath-1r", "--json", "--netlist"])
        .arg(&netlist)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("warning") && err.contains("hash_core") && err.contains("generated"),
        "{err}"
    );
    // A netlist of unknown origin (not a generated core) gets no word.
    let other = format!(
        "{}/../../estimator/tests/data/tf256_round.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = skeinhw()
        .args([
            "estimate",
            "--schedule",
            "ath-1r",
            "--json",
            "--netlist",
            &other,
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn yosys_installed() -> bool {
    std::process::Command::new("yosys")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn synth_compares_the_generated_style_unless_told_and_says_so() {
    if !yosys_installed() {
        eprintln!("SKIPPED: yosys not installed: --synth's style not tested");
        return;
    }
    // The kept --synth-dir of tests/estimate.rs (same preset, same Verilog): Yosys runs once.
    let parent = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("synth-dirs");
    std::fs::create_dir_all(&parent).unwrap();
    let run = |extra: &[&str]| {
        let out = skeinhw()
            .args([
                "estimate",
                "--schedule",
                "ath-1r",
                "--synth",
                "--json",
                "--synth-dir",
            ])
            .arg(parent.join("ath-1r"))
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v, String::from_utf8(out.stderr).unwrap())
    };
    let (v, err) = run(&[]);
    assert_eq!(v["style"], "generated");
    assert!(
        err.contains("note") && err.contains("generated style"),
        "{err}"
    );
    let (v, err) = run(&["--style", "hash_core"]);
    assert_eq!(v["style"], "hash_core");
    assert!(
        err.contains("warning") && err.contains("hash_core") && err.contains("generated"),
        "{err}"
    );
    let (_, err) = run(&["--style", "generated"]);
    assert!(err.is_empty(), "{err}");
}
