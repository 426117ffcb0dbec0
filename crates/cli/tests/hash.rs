//! `skeinhw hash` end to end: the official vectors through the command line (as `--check`
//! lists, so that thousands of entries cost a few process starts), the b2sum-style output, and
//! every kind of bad input.

use std::collections::BTreeMap;
use std::io::Write;

use assert_cmd::Command;
use skeinhw_skein::kat::{parse_golden, parse_nist};

fn vectors(name: &str) -> String {
    let path = format!("{}/../../vectors/skein/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn hex_name(msg: &[u8], bits: u64) -> String {
    if bits == msg.len() as u64 * 8 {
        format!("hex:{}", hex::encode(msg))
    } else {
        format!("hex:{}/{bits}", hex::encode(msg))
    }
}

/// Runs `skeinhw hash --check` on a list and asserts every line is OK.
fn check_list(options: &[String], lines: &[String]) {
    let mut list = tempfile::NamedTempFile::new().unwrap();
    for l in lines {
        writeln!(list, "{l}").unwrap();
    }
    let out = skeinhw()
        .arg("hash")
        .args(options)
        .arg("--check")
        .arg(list.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "options {options:?}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(": OK")).count(),
        lines.len()
    );
}

#[test]
fn golden_kat_through_the_command_line() {
    // Group entries by the options they need; each group is one --check run.
    let mut groups: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    let entries = parse_golden(&vectors("skein_golden_kat.txt"));
    for e in &entries {
        let mut opts = vec![
            format!("--size={}", e.state_bits),
            format!("--out-bits={}", e.out_bits),
        ];
        if !e.key.is_empty() {
            opts.push(format!("--key={}", hex::encode(&e.key)));
        }
        if let Some(t) = e.tree {
            opts.push(format!("--tree={},{},{}", t.leaf, t.fan_out, t.max_height));
        }
        let line = format!(
            "{}  {}",
            hex::encode(&e.result),
            hex_name(&e.message, e.msg_bits)
        );
        groups.entry(opts).or_default().push(line);
    }
    let total: usize = groups.values().map(Vec::len).sum();
    assert_eq!(total, 491);
    for (opts, lines) in &groups {
        check_list(opts, lines);
    }
}

#[test]
fn nist_short_message_files_through_the_command_line() {
    for (file, size, out_bits) in [
        ("ShortMsgKAT_224.txt", 512, 224),
        ("ShortMsgKAT_256.txt", 512, 256),
        ("ShortMsgKAT_384.txt", 512, 384),
        ("ShortMsgKAT_512.txt", 512, 512),
        ("ShortMsgKAT_1024.txt", 1024, 1024),
    ] {
        let lines: Vec<String> = parse_nist(&vectors(file))
            .iter()
            .map(|e| format!("{}  {}", hex::encode(&e.md), hex_name(&e.msg, e.len)))
            .collect();
        assert_eq!(lines.len(), 2048, "{file}");
        check_list(
            &[format!("--size={size}"), format!("--out-bits={out_bits}")],
            &lines,
        );
    }
}

#[test]
fn prints_like_b2sum_for_files_stdin_and_hex() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.bin");
    std::fs::write(&a, [0xFFu8, 0xFE, 0xFD]).unwrap();
    // Skein-512-512 of the three bytes FF FE FD is the golden file's 24-bit 'incrementing'
    // entry; compute the expected value with the library, which the vectors test.
    let expected = hex::encode(
        skeinhw_skein::hash(512, 512, &[0xFF, 0xFE, 0xFD], 24, &Default::default()).unwrap(),
    );
    skeinhw()
        .arg("hash")
        .arg(&a)
        .assert()
        .success()
        .stdout(format!("{expected}  {}\n", a.display()));
    skeinhw()
        .args(["hash", "-"])
        .write_stdin(vec![0xFFu8, 0xFE, 0xFD])
        .assert()
        .success()
        .stdout(format!("{expected}  -\n"));
    skeinhw()
        .args(["hash", "--hex", "fffefd"])
        .assert()
        .success()
        .stdout(format!("{expected}  hex:fffefd\n"));
    let out = skeinhw()
        .args(["hash", "--json", "--hex", "fffefd"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["digest"], expected);
    assert_eq!(v["msg_bits"], 24);
    assert_eq!(v["size"], 512);
}

#[test]
fn a_missing_file_among_several_still_hashes_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::write(&a, b"abc").unwrap();
    let out = skeinhw()
        .arg("hash")
        .arg(dir.path().join("missing"))
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.ends_with(&format!("  {}\n", a.display())),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("missing: cannot open"), "{stderr}");
}

#[test]
fn check_reports_mismatch_and_malformed_lines() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::write(&a, b"abc").unwrap();
    let good = skeinhw()
        .args(["hash", "--size", "256"])
        .arg(&a)
        .output()
        .unwrap();
    let list = dir.path().join("list");
    std::fs::write(&list, &good.stdout).unwrap();
    skeinhw()
        .args(["hash", "--size", "256", "--check"])
        .arg(&list)
        .assert()
        .success()
        .stdout(format!("{}: OK\n", a.display()));
    // A different message: mismatch, exit 1.
    std::fs::write(&a, b"abd").unwrap();
    skeinhw()
        .args(["hash", "--size", "256", "--check"])
        .arg(&list)
        .assert()
        .code(1)
        .stdout(format!("{}: FAILED\n", a.display()));
    // A list without one digest line: exit 1 as b2sum (coreutils 9.1) gives, naming the
    // list; with --warn, the line too.
    std::fs::write(&list, "this is not a digest line\n").unwrap();
    let out = skeinhw()
        .args(["hash", "--warn", "--check"])
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(": 1: improperly formatted"), "{stderr}");
    assert!(
        stderr.contains("no properly formatted checksum lines found"),
        "{stderr}"
    );
}

#[test]
fn bad_input_is_one_line_and_nonzero() {
    let cases: &[(&[&str], &str)] = &[
        (&["hash", "--hex", "xyz0"], "not a hex digit"),
        (&["hash", "--hex", "abc"], "odd number of digits"),
        (
            &["hash", "--hex", "00", "--msg-bits", "9"],
            "beyond the 8 bits",
        ),
        (
            &["hash", "--hex", "00", "--out-bits", "0"],
            "at least 1 bit",
        ),
        (
            &["hash", "--size", "384", "--hex", "00"],
            "allowed: 256, 512, 1024",
        ),
        (&["hash", "--tree", "0,1,2", "--hex", "00"], "impossible"),
        (
            &["hash", "--tree", "1,1", "--hex", "00"],
            "LEAF,FANOUT,MAXHEIGHT",
        ),
        (&["hash", "--key", "0g", "--hex", "00"], "--key"),
        (&["hash", "/nonexistent/file"], "cannot open"),
        (&["hash", "--check", "/nonexistent/list"], "cannot open"),
    ];
    for (args, needle) in cases {
        let out = skeinhw().args(*args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn shabal_known_answers_through_the_command_line() {
    // vectors/shabal/kat.txt: `<out_bits> <msg_bits> <message hex> <digest hex> <source>`.
    let text = std::fs::read_to_string(format!(
        "{}/../../vectors/shabal/kat.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bits: u64 = f[1].parse().unwrap();
        let msg = if bits == 0 {
            vec![]
        } else {
            hex::decode(f[2]).unwrap()
        };
        groups
            .entry(format!("--alg=shabal-{}", f[0]))
            .or_default()
            .push(format!("{}  {}", f[3], hex_name(&msg, bits)));
    }
    assert_eq!(groups.len(), 5, "all five output sizes have vectors");
    for (alg, lines) in &groups {
        check_list(std::slice::from_ref(alg), lines);
    }
    // Skein-only options are refused rather than ignored.
    let out = skeinhw()
        .args(["hash", "--alg", "shabal-256", "--key", "00", "--hex", ""])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--key is a Skein option"));
}

#[test]
fn many_files_batched_and_tree_parallel_agree_with_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (i, len) in [0usize, 1, 63, 64, 65, 1000, 5000, 70_000, 3]
        .iter()
        .enumerate()
    {
        let p = dir.path().join(format!("f{i}"));
        let data: Vec<u8> = (0..*len).map(|j| (j * 7 + i) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        paths.push((p, data));
    }
    for size in ["256", "512", "1024"] {
        let out = skeinhw()
            .args(["hash", "--jobs", "2", "--size", size])
            .args(paths.iter().map(|(p, _)| p))
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let bits: usize = size.parse().unwrap();
        for ((p, data), line) in paths.iter().zip(text.lines()) {
            let d = skeinhw_skein::hash(
                bits,
                bits as u64,
                data,
                data.len() as u64 * 8,
                &Default::default(),
            )
            .unwrap();
            assert_eq!(line, format!("{}  {}", hex::encode(d), p.display()));
        }
    }
    // Tree mode through the parallel path equals the library's sequential tree.
    let (p, data) = &paths[7];
    let tree = skeinhw_skein::TreeParams::new(1, 1, 3).unwrap();
    let params = skeinhw_skein::Params {
        tree: Some(tree),
        ..Default::default()
    };
    let d = skeinhw_skein::hash(512, 512, data, data.len() as u64 * 8, &params).unwrap();
    skeinhw()
        .args(["hash", "--jobs", "2", "--tree", "1,1,3"])
        .arg(p)
        .assert()
        .success()
        .stdout(format!("{}  {}\n", hex::encode(d), p.display()));
}

#[test]
fn long_outputs_stream_the_golden_results() {
    // Outputs longer than the largest state stream from the output transform: the golden
    // file's 1032- and 2056-bit entries through the plain line and through --raw.
    let entries = parse_golden(&vectors("skein_golden_kat.txt"));
    let long: Vec<_> = entries.iter().filter(|e| e.out_bits > 1024).collect();
    assert_eq!(long.len(), 24);
    for e in long {
        let mut args = vec![
            "hash".to_string(),
            format!("--size={}", e.state_bits),
            format!("--out-bits={}", e.out_bits),
            format!("--hex={}", hex::encode(&e.message)),
            format!("--msg-bits={}", e.msg_bits),
        ];
        if !e.key.is_empty() {
            args.push(format!("--key={}", hex::encode(&e.key)));
        }
        if let Some(t) = e.tree {
            args.push(format!("--tree={},{},{}", t.leaf, t.fan_out, t.max_height));
        }
        let line = skeinhw().args(&args).output().unwrap();
        assert!(line.status.success());
        let text = String::from_utf8(line.stdout).unwrap();
        assert_eq!(
            text.split_once("  ").unwrap().0,
            hex::encode(&e.result),
            "{args:?}"
        );
        let raw = skeinhw().args(&args).arg("--raw").output().unwrap();
        assert!(raw.status.success());
        assert_eq!(raw.stdout, e.result, "{args:?}");
    }
}
