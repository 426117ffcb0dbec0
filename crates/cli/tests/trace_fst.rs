//! `skeinhw trace -o t.fst`: an FST whose values the diff reads as the golden trace's
//! (IDENTICAL against the JSON lines of the same run), the same bytes through `-o -`, and,
//! where GTKWave's `fst2vcd` is installed, GTKWave's own reader agreeing.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn trace(dir: &Path, schedule: &str, file: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(file);
    skeinhw()
        .args(["trace", "--schedule", schedule, "--hex", &"5a".repeat(300)])
        .args(extra)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    out
}

fn diff_code(wave: &Path, golden: &Path) -> Option<i32> {
    let o = skeinhw()
        .arg("diff")
        .arg(wave)
        .arg("--golden")
        .arg(golden)
        .args(["--strip-prefix", "skeinhw."])
        .output()
        .unwrap();
    if o.status.code() != Some(0) {
        eprintln!("{}", String::from_utf8_lossy(&o.stdout));
        eprintln!("{}", String::from_utf8_lossy(&o.stderr));
    }
    o.status.code()
}

#[test]
fn fst_trace_diffs_identical_against_its_golden_trace() {
    let dir = tempfile::tempdir().unwrap();
    for schedule in ["ath-1r", "ath-8r-2fp-3sp"] {
        let fst = trace(dir.path(), schedule, &format!("{schedule}.fst"), &[]);
        let jsonl = trace(dir.path(), schedule, &format!("{schedule}.jsonl"), &[]);
        let bytes = std::fs::read(&fst).unwrap();
        assert_eq!(
            bytes[0], 0,
            "{schedule}: an FST starts with its header block"
        );
        assert_eq!(diff_code(&fst, &jsonl), Some(0), "{schedule}");
        // Another message's golden trace diverges: the FST's values are read, not skipped.
        let other = dir.path().join(format!("{schedule}-other.jsonl"));
        skeinhw()
            .args(["trace", "--schedule", schedule, "--hex", "00", "-o"])
            .arg(&other)
            .assert()
            .success();
        assert_eq!(diff_code(&fst, &other), Some(1), "{schedule} other");
    }
    // --format fst to standard output: the same bytes; the extension or --format chooses it.
    let file = dir.path().join("ath-1r.fst");
    let o = skeinhw()
        .args(["trace", "--schedule", "ath-1r", "--hex", &"5a".repeat(300)])
        .args(["--format", "fst", "-o", "-"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(o.stdout, std::fs::read(&file).unwrap());
    let named = trace(dir.path(), "ath-1r", "t.wave", &["--format", "fst"]);
    assert_eq!(std::fs::read(named).unwrap(), o.stdout);
    // No spool file is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn shabal_fst_trace_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let fst = trace(dir.path(), "shabal-unfold-8", "s.fst", &[]);
    let vcd = trace(dir.path(), "shabal-unfold-8", "s.vcd", &[]);
    let jsonl = trace(dir.path(), "shabal-unfold-8", "s.jsonl", &[]);
    assert_eq!(diff_code(&vcd, &jsonl), Some(0));
    assert_eq!(diff_code(&fst, &jsonl), Some(0));
}

/// GTKWave's `fst2vcd` (Debian package gtkwave) converts our FST back to a VCD that the diff
/// finds identical to the golden trace. Skipped, saying so, where it is not installed.
#[test]
fn gtkwave_reads_our_fst() {
    if Process::new("fst2vcd").arg("--help").output().is_err() {
        eprintln!("SKIPPED: fst2vcd (package gtkwave) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fst = trace(dir.path(), "ath-1r", "t.fst", &[]);
    let jsonl = trace(dir.path(), "ath-1r", "t.jsonl", &[]);
    let back = dir.path().join("back.vcd");
    let o = Process::new("fst2vcd")
        .arg(&fst)
        .arg("-o")
        .arg(&back)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&back).unwrap();
    assert!(text.contains("$scope module skeinhw $end"), "scope");
    assert!(text.contains(" slot0_state_7 $end"), "names");
    assert_eq!(diff_code(&back, &jsonl), Some(0));
}
