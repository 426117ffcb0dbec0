//! Damaged, truncated and hostile input files through the `skeinhw` command line (issue 16):
//! each ends in exit 2 with one line on standard error naming the file, within a time and a
//! memory bound; never a panic (exit 101), an abort, a hang or a runaway allocation. The files
//! under `tests/data/malformed/` are the fuzzer's crashes (see the README there).

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

/// Address space the command may take: far below what the crashes took (4.7 GB and more).
const MEMORY_KB: u64 = 2 << 20;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/malformed")
        .join(name)
}

/// `skeinhw ARGS` under a memory limit and a timeout.
fn bounded(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KB}; exec \"$0\" \"$@\""))
        .arg(assert_cmd::cargo::cargo_bin("skeinhw"))
        .args(args)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap()
}

/// Exit 2 and exactly one line on stderr that names `file` and contains `says`.
fn refused(out: &std::process::Output, file: &Path, says: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}: {err}", file.display());
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(&file.display().to_string()),
        "names the file: {err}"
    );
    assert!(err.contains(says), "says '{says}': {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn golden(dir: &Path, format: &str) -> PathBuf {
    let out = dir.join(format!("small.{format}"));
    Command::cargo_bin("skeinhw")
        .unwrap()
        .args([
            "trace",
            "--schedule",
            "ath-8r",
            "--hex",
            "00",
            "--format",
            format,
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    out
}

fn diff(wave: &Path, golden: &Path, map: &Path) -> std::process::Output {
    bounded(&[
        "diff".as_ref(),
        wave.as_os_str(),
        "--golden".as_ref(),
        golden.as_os_str(),
        "--map".as_ref(),
        map.as_os_str(),
    ])
}

#[test]
fn waveforms_that_crashed_the_readers() {
    let dir = tempfile::tempdir().unwrap();
    let small = golden(dir.path(), "jsonl");
    for (file, says) in [
        ("w1-badchar.vcd", "malformed"),
        ("w2-dupversion.vcd", "malformed"),
        ("w3-duptimescale.vcd", "malformed"),
        ("w6-fourstate.vcd", "malformed"),
        ("w7-utf8.vcd", "malformed"),
        ("f1-todo.fst", "FST block"),
        ("f2-assert.fst", "FST block"),
        ("f3-timeout.fst", "FST block"),
        // Found by fuzz/'s `wave` target: a geometry block declaring 6 GB of signals.
        ("f4-geometry-oom.fst", "FST block"),
        // Also found by `wave`: a time table of 844 trillion steps (a 6 PB allocation).
        ("f5-timetable-oom.fst", "time steps"),
        // And a value-change chain of 28 PB.
        ("f6-chain-oom.fst", "value-change chain"),
    ] {
        let wave = data(file);
        refused(&diff(&wave, &small, &data("map.json")), &wave, says);
    }
    let wide = data("w8-wide.vcd");
    refused(
        &diff(&wide, &small, &data("widemap.json")),
        &wide,
        "4294967295 bits wide",
    );
}

#[test]
fn golden_header_that_disagrees_with_its_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = golden(dir.path(), "vcd");
    let header = data("slots-min.jsonl");
    let out = bounded(&[
        "diff".as_ref(),
        vcd.as_os_str(),
        "--golden".as_ref(),
        header.as_os_str(),
    ]);
    refused(&out, &header, "slots = 99999999999");
}

/// Issue 33, item 13: the header's `in_ready` sized the signal list before any record was read
/// (18.7 GB); it must be 0 or the run's streams.
#[test]
fn golden_header_with_a_huge_in_ready() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = golden(dir.path(), "vcd");
    let header = data("inready-huge.jsonl");
    let out = bounded(&[
        "diff".as_ref(),
        vcd.as_os_str(),
        "--golden".as_ref(),
        header.as_os_str(),
    ]);
    refused(&out, &header, "in_ready = 333333331");
}

#[test]
fn a_vcd_cut_in_a_value_line_is_truncated_not_divergent() {
    let dir = tempfile::tempdir().unwrap();
    let small = golden(dir.path(), "jsonl");
    let vcd = golden(dir.path(), "vcd");
    let text = std::fs::read(&vcd).unwrap();
    // Cut inside the last multi-bit value line ("b0101... ?").
    let last_vector = text.iter().rposition(|&b| b == b'b').unwrap();
    let cut = dir.path().join("cut.vcd");
    std::fs::write(&cut, &text[..last_vector + 5]).unwrap();
    let out = bounded(&[
        "diff".as_ref(),
        cut.as_os_str(),
        "--golden".as_ref(),
        small.as_os_str(),
        "--strip-prefix".as_ref(),
        "skeinhw.".as_ref(),
    ]);
    refused(&out, &cut, "truncated");
    // The whole file still compares identical: the check looks only at the cut.
    let out = bounded(&[
        "diff".as_ref(),
        vcd.as_os_str(),
        "--golden".as_ref(),
        small.as_os_str(),
        "--strip-prefix".as_ref(),
        "skeinhw.".as_ref(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const HEAD: &str = "$timescale 1ns $end\n";

#[test]
fn time_going_backwards_and_zero_width_are_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let small = golden(dir.path(), "jsonl");
    let map = data("map.json");
    let backwards = dir.path().join("backwards.vcd");
    std::fs::write(
        &backwards,
        format!("{HEAD}$var wire 1 ! clk $end\n$enddefinitions $end\n#10\n0!\n#20\n0!\n#5\n1!\n"),
    )
    .unwrap();
    refused(
        &diff(&backwards, &small, &map),
        &backwards,
        "time goes backwards",
    );
    let zero = dir.path().join("zero.vcd");
    std::fs::write(
        &zero,
        format!("{HEAD}$var wire 0 ! clk $end\n$enddefinitions $end\n#10\n1!\n"),
    )
    .unwrap();
    refused(&diff(&zero, &small, &map), &zero, "0 bits wide");
}

#[test]
fn an_oversized_schedule_file_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.json");
    let mut text = String::from("{\"name\":\"");
    text.push_str(&"x".repeat(2 << 20));
    text.push_str("\"}");
    std::fs::write(&big, text).unwrap();
    let out = bounded(&[
        "trace".as_ref(),
        "--schedule".as_ref(),
        big.as_os_str(),
        "--hex".as_ref(),
        "00".as_ref(),
        "-o".as_ref(),
        dir.path().join("t.jsonl").as_os_str(),
    ]);
    refused(&out, &big, "larger than");
}

#[test]
fn an_oversized_constants_file_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    std::fs::write(&big, format!("x = \"{}\"\n", "a".repeat(2 << 20))).unwrap();
    let out = bounded(&[
        "estimate".as_ref(),
        "--schedule".as_ref(),
        "ath-8r".as_ref(),
        "--constants".as_ref(),
        big.as_os_str(),
    ]);
    refused(&out, &big, "larger than");
}
