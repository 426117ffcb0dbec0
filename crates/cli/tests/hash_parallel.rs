//! `skeinhw hash` on many files at once and `--tree` on streams: digests against RustCrypto
//! `skein` (plain) and the library's sequential tree (itself checked against the official
//! tree vectors), printed in argument order with an unreadable file reported at its place;
//! a bad `SKEINHW_LANES` is a usage error.

use assert_cmd::Command;
use rustcrypto_skein::Digest;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn data(len: usize, seed: usize) -> Vec<u8> {
    (0..len).map(|j| (j * 13 + j / 1000 + seed) as u8).collect()
}

#[test]
fn many_files_in_argument_order_with_an_error_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    // Two files over the read-whole limit (1 MiB) stream on the threads beside the batch.
    let lens = [3 << 20, 0, 5, (1 << 20) + 1, 100_000];
    let mut names = Vec::new();
    let mut expected = Vec::new();
    for (i, len) in lens.iter().enumerate() {
        let p = dir.path().join(format!("f{i}"));
        let d = data(*len, i);
        std::fs::write(&p, &d).unwrap();
        expected.push(format!(
            "{}  {}",
            hex::encode(rustcrypto_skein::Skein512_512::digest(&d)),
            p.display()
        ));
        names.push(p.clone());
        if i == 2 {
            names.push(dir.path().join("missing"));
        }
    }
    for jobs in ["1", "2"] {
        let out = skeinhw()
            .args(["hash", "--jobs", jobs])
            .args(&names)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "a file is missing");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().collect::<Vec<_>>(), expected, "--jobs {jobs}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("missing: cannot open"), "{err}");
    }
}

#[test]
fn tree_streams_files_and_standard_input() {
    // More than one read-ahead buffer (2 MiB), not a whole number of leaves.
    let d = data((3 << 20) + 777, 1);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big");
    std::fs::write(&p, &d).unwrap();
    for (spec, (l, f, h)) in [("5,2,255", (5, 2, 255)), ("1,1,3", (1, 1, 3))] {
        let params = skeinhw_skein::Params {
            tree: Some(skeinhw_skein::TreeParams::new(l, f, h).unwrap()),
            ..Default::default()
        };
        let want =
            hex::encode(skeinhw_skein::hash(512, 512, &d, d.len() as u64 * 8, &params).unwrap());
        for read in [&[][..], &["--no-mmap"][..]] {
            skeinhw()
                .args(["hash", "--jobs", "2", "--tree", spec])
                .args(read)
                .arg(&p)
                .assert()
                .success()
                .stdout(format!("{want}  {}\n", p.display()));
        }
        skeinhw()
            .args(["hash", "--tree", spec])
            .write_stdin(d.clone())
            .assert()
            .success()
            .stdout(format!("{want}  -\n"));
    }
}

/// `--check` with `--tree` hashes each listed file as `hash --tree` does (the parallel tree,
/// mapped or read): the library's sequential tree digest verifies, one wrong digit fails.
#[test]
fn tree_check_verifies_listed_files() {
    let d = data((3 << 20) + 777, 2);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big");
    std::fs::write(&p, &d).unwrap();
    let want =
        hex::encode(skeinhw_skein::hash(512, 512, &d, d.len() as u64 * 8, &tree_params()).unwrap());
    let mut wrong = want.clone().into_bytes();
    wrong[0] = if wrong[0] == b'0' { b'1' } else { b'0' };
    let wrong = String::from_utf8(wrong).unwrap();
    for read in [&[][..], &["--no-mmap"][..]] {
        for (digest, ok) in [(&want, true), (&wrong, false)] {
            let list = dir.path().join("list");
            std::fs::write(&list, format!("{digest}  {}\n", p.display())).unwrap();
            let verdict = if ok { "OK" } else { "FAILED" };
            let run = skeinhw()
                .args(["hash", "--jobs", "2", "--tree", "5,2,255", "-c"])
                .arg(&list)
                .args(read)
                .assert()
                .stdout(format!("{}: {verdict}\n", p.display()));
            if ok {
                run.success();
            } else {
                run.code(1);
            }
        }
    }
}

/// A file that `--tree` has mapped and another program shrinks: one line naming it and exit
/// 1 (not death by SIGBUS, and one line even when both hashing threads fault at once), the
/// digests before it printed; with `--no-mmap` it is hashed as far as it was read. The file
/// is truncated once `/proc/PID/maps` shows it mapped (sparse, 64 GiB: seconds to hash). A
/// round of windows is mapped only as far as the file reaches when it starts, so a shrink
/// that lands between two rounds is read as `--no-mmap` reads it (exit 0, the digest of what
/// was there); on a fast machine a round takes a few milliseconds, so the mapped case is tried
/// until one shrink lands inside a round.
#[cfg(target_os = "linux")]
#[test]
fn tree_file_shrinking_while_mapped_is_a_one_line_error() {
    use std::process::{Command as Process, Output, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    std::fs::write(&small, b"abc").unwrap();
    let big = dir.path().join("big");
    let first = format!(
        "{}  {}\n",
        hex::encode(skeinhw_skein::hash(512, 512, b"abc", 24, &tree_params()).unwrap()),
        small.display()
    );
    let shrunk_line = format!(
        "skeinhw: {}: the file shrank while it was being hashed (it is mapped into memory; \
         --no-mmap reads it instead)\n",
        big.display()
    );
    let attempt = |options: &[&str], mapped: bool| -> (Output, String, String) {
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(64 << 30).unwrap();
        let child = Process::new(assert_cmd::cargo::cargo_bin("skeinhw"))
            .args(["hash", "--jobs", "2", "--tree", "5,2,255"])
            .args(options)
            .arg(&small)
            .arg(&big)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let maps = format!("/proc/{}/maps", child.id());
        let io = format!("/proc/{}/io", child.id());
        let start = Instant::now();
        // Mapped: until the big file is in the maps. Read: until 64 MiB have been read.
        let hashing = || {
            if mapped {
                std::fs::read_to_string(&maps).is_ok_and(|m| m.contains(big.to_str().unwrap()))
            } else {
                std::fs::read_to_string(&io).is_ok_and(|s| {
                    s.lines()
                        .find_map(|l| l.strip_prefix("rchar: "))
                        .is_some_and(|n| n.trim().parse::<u64>().unwrap() > 64 << 20)
                })
            }
        };
        while !hashing() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "{options:?}: never hashing"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        file.set_len(4096).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        let stderr = String::from_utf8(out.stderr.clone()).unwrap();
        assert!(stdout.starts_with(&first), "{options:?}: {stdout}");
        (out, stdout, stderr)
    };
    let mut caught = false;
    for _ in 0..20 {
        let (out, stdout, stderr) = attempt(&[], true);
        match out.status.code() {
            Some(1) => {
                assert_eq!(stdout, first);
                assert_eq!(stderr, shrunk_line);
                caught = true;
                break;
            }
            // The shrink fell between two rounds: read as far as the file went.
            Some(0) => assert!(
                stdout.ends_with(&format!("  {}\n", big.display())),
                "{stdout}"
            ),
            _ => panic!("mapped: {:?}, {stderr}", out.status),
        }
    }
    assert!(caught, "no shrink landed inside a mapped round in 20 tries");
    let (out, stdout, stderr) = attempt(&["--no-mmap"], false);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.ends_with(&format!("  {}\n", big.display())),
        "{stdout}"
    );
}

fn tree_params() -> skeinhw_skein::Params<'static> {
    skeinhw_skein::Params {
        tree: Some(skeinhw_skein::TreeParams::new(5, 2, 255).unwrap()),
        ..Default::default()
    }
}

#[test]
fn bad_lanes_variable_is_a_usage_error() {
    for bad in ["avx3", "neon"] {
        let out = skeinhw()
            .env("SKEINHW_LANES", bad)
            .args(["hash", "--hex", "00"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("SKEINHW_LANES"), "{err}");
    }
    // A usable one is accepted.
    skeinhw()
        .env("SKEINHW_LANES", "scalar")
        .args(["hash", "--hex", "00"])
        .assert()
        .success();
}

#[test]
fn large_files_stream_through_every_lane_backend() {
    // Files over the read-whole limit (1 MiB) stream through the lanes side by side: more
    // files than lanes, lengths that are not whole blocks, one that is, standard input among
    // them, a directory and a small file at their places.
    let dir = tempfile::tempdir().unwrap();
    let lens = [
        (1 << 20) + 1,
        (1 << 20) + 777,
        (1 << 20) + 64 * 1000,
        (1 << 20) + 5,
        (1 << 20) + 3,
        (1 << 20) + 200_000,
        (1 << 20) + 17,
        (1 << 20) + 9999,
        (1 << 20) + 1,
        1000,
    ];
    let stdin = data((1 << 20) + 12_345, 99);
    // (Slow in a debug build: about 10 MiB hashed per run, 8 runs.)
    let mut names = vec![std::ffi::OsString::from("-")];
    let mut expected = vec![format!(
        "{}  -",
        hex::encode(rustcrypto_skein::Skein512_512::digest(&stdin))
    )];
    for (i, len) in lens.iter().enumerate() {
        let p = dir.path().join(format!("f{i}"));
        let d = data(*len, i);
        std::fs::write(&p, &d).unwrap();
        expected.push(format!(
            "{}  {}",
            hex::encode(rustcrypto_skein::Skein512_512::digest(&d)),
            p.display()
        ));
        names.push(p.clone().into());
        if i == 4 {
            names.push(dir.path().into());
        }
    }
    for backend in skeinhw_skein::batch::Backend::ALL {
        if !backend.is_available() {
            println!("skipping backend {backend}: not available on this machine");
            continue;
        }
        for jobs in ["1", "2"] {
            let out = skeinhw()
                .env("SKEINHW_LANES", backend.name())
                .args(["hash", "--jobs", jobs])
                .args(&names)
                .write_stdin(stdin.clone())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "a directory is not hashed");
            let text = String::from_utf8(out.stdout).unwrap();
            assert_eq!(
                text.lines().collect::<Vec<_>>(),
                expected,
                "{backend}, --jobs {jobs}"
            );
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("is a directory"), "{err}");
        }
    }
}
