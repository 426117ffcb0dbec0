//! Shabal through the schedule machinery on the command line: the presets are listed, shown
//! and traced (JSONL and VCD); the trace's digest is RustCrypto's `shabal` (an independent
//! implementation); the VCD trace diffs clean against the golden model and a changed value is
//! found at its cycle; Skein-only options are refused in one line.

use std::path::Path;

use assert_cmd::Command;
use rustcrypto_shabal::Digest;
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

/// RustCrypto's Shabal-512.
fn reference_512(message: &[u8]) -> String {
    hex::encode(rustcrypto_shabal::Shabal512::digest(message))
}

#[test]
fn schedules_list_and_show_shabal() {
    let out = skeinhw().args(["schedules", "--json"]).output().unwrap();
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    // Table I: cycles per block 48/f.
    for (f, cycles) in [(1, 48), (2, 24), (3, 16), (4, 12), (6, 8), (8, 6)] {
        let row = rows
            .iter()
            .find(|r| r["name"] == format!("shabal-unfold-{f}"))
            .unwrap_or_else(|| panic!("shabal-unfold-{f} listed"));
        assert_eq!(row["algorithm"], "shabal");
        assert_eq!(row["cycles_per_block"], cycles);
    }
    let out = skeinhw()
        .args(["schedule", "show", "shabal-unfold-3", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unfolding"], 3);
    assert_eq!(v["cycles_per_block"], 16);
}

#[test]
fn jsonl_trace_carries_the_reference_digest_at_48_over_f_cycles_per_block() {
    let dir = tempfile::tempdir().unwrap();
    let message: Vec<u8> = (0..100u8).collect();
    for f in [1u32, 4, 8] {
        let out = dir.path().join(format!("t{f}.jsonl"));
        skeinhw()
            .args(["trace", "--schedule", &format!("shabal-unfold-{f}")])
            .args(["--hex", &hex::encode(&message), "-o"])
            .arg(&out)
            .assert()
            .success();
        let records = lines(&out);
        assert_eq!(records[0]["schedule"]["unfolding"], f);
        let cycles = 48 / f as usize;
        // 2 message blocks (100 bytes + padding) and 3 final passes.
        assert_eq!(records.len() - 1, 5 * cycles);
        let outs: Vec<&Value> = records[1..]
            .iter()
            .filter(|r| !r["out"].is_null())
            .collect();
        assert_eq!(outs.len(), 1);
        assert_eq!(outs[0]["cycle"], 5 * cycles);
        let digest: String = outs[0]["out"]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                let w = u32::from_str_radix(w.as_str().unwrap(), 16).unwrap();
                hex::encode(w.to_le_bytes())
            })
            .collect();
        assert_eq!(digest, reference_512(&message), "f = {f}");
    }
}

#[test]
fn vcd_trace_diffs_clean_and_a_changed_word_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("t.vcd");
    let args = ["--schedule", "shabal-unfold-2", "--hex", "616263"];
    skeinhw()
        .arg("trace")
        .args(args)
        .arg("-o")
        .arg(&vcd)
        .assert()
        .success();
    let ok = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args(args)
        .args(["--strip-prefix", "skeinhw."])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{text}");
    assert!(text.contains("IDENTICAL: 96 cycles"), "{text}");
    // The JSONL trace as the golden side gives the same verdict.
    let jsonl = dir.path().join("t.jsonl");
    skeinhw()
        .arg("trace")
        .args(args)
        .arg("-o")
        .arg(&jsonl)
        .assert()
        .success();
    let ok = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .arg("--golden")
        .arg(&jsonl)
        .args(["--strip-prefix", "skeinhw."])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    // Change the value of a_5 written at the rising edge of cycle 3 (iteration 5 of P with
    // f = 2).
    let text = std::fs::read_to_string(&vcd).unwrap();
    let id = text
        .lines()
        .find(|l| l.starts_with("$var") && l.split_whitespace().nth(4) == Some("a_5"))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap()
        .to_owned();
    let mut out = String::new();
    let mut at = false;
    let mut done = false;
    for line in text.lines() {
        if line.starts_with('#') {
            at = line == "#30";
        }
        if at && !done && line.starts_with('b') && line.ends_with(&format!(" {id}")) {
            let flipped = if line.as_bytes()[1] == b'0' {
                "b1"
            } else {
                "b0"
            };
            out.push_str(&format!("{flipped}{}\n", &line[2..]));
            done = true;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert!(done, "a_5 changes at cycle 3");
    std::fs::write(&vcd, out).unwrap();
    let bad = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args(args)
        .args(["--strip-prefix", "skeinhw.", "--json"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert_eq!(report["verdict"], "divergent");
    assert_eq!(report["first_divergence"]["cycle"], 3);
    assert_eq!(report["first_divergence"]["fields"][0]["field"], "a_5");
}

#[test]
fn skein_options_and_bad_shabal_schedules_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    for (args, expected) in [
        (
            vec!["--schedule", "shabal-unfold-4", "--key", "00"],
            "--key is a Skein option",
        ),
        (
            vec!["--schedule", "shabal-unfold-4", "--rounds-per-cycle", "5"],
            "unfolding = 5 does not divide",
        ),
        (
            vec!["--schedule", "shabal-unfold-4", "--functional-stages", "2"],
            "unknown schedule field `functional_stages`",
        ),
        (
            vec!["--schedule", "shabal-unfold-4", "--out-bits", "256"],
            "disagrees with the Shabal schedule's output_bits = 512",
        ),
    ] {
        let o = skeinhw()
            .arg("trace")
            .args(&args)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!out.exists());
    }
    // --size picks the output size of a Shabal core: Shabal-256's digest.
    skeinhw()
        .args(["trace", "--schedule", "shabal-unfold-4", "--size", "256"])
        .args(["--hex", "616263", "-o"])
        .arg(&out)
        .assert()
        .success();
    let records = lines(&out);
    assert_eq!(records[0]["schedule"]["output_bits"], 256);
    let last = records.last().unwrap();
    assert_eq!(last["out"]["data"].as_array().unwrap().len(), 8);
}
