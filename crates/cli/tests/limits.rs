//! Bounded resources: every size a user can type (`--out-bits`, `--msg-bits`, `--msg-file`,
//! tree parameters, schedule fields, sweep ranges, check-list lines) ends in a one-line error
//! (exit 2) naming the limit, or streams in constant memory. Each child's peak memory comes
//! from `wait4` (its own `ru_maxrss`) and must stay under 100 MB; a watchdog kills any child
//! still running after 30 s, which fails the test.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Peak memory allowed to any child, in kilobytes (Linux's ru_maxrss unit).
const MAX_RSS_KB: i64 = 100 * 1024;

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    max_rss_kb: i64,
}

/// Runs `skeinhw args`, reading at most `stdout_limit` bytes of its output (then closing the
/// pipe, as `| head -c` does), and returns its exit code and peak memory.
// The child is reaped by wait4 (for its own rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(args: &[&str], stdout_limit: usize) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skeinhw"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        (&mut out)
            .take(stdout_limit as u64)
            .read_to_end(&mut buf)
            .unwrap();
        drop(out);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    let done = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    {
        let (done, killed) = (done.clone(), killed.clone());
        std::thread::spawn(move || {
            for _ in 0..300 {
                std::thread::sleep(Duration::from_millis(100));
                if done.load(Ordering::SeqCst) {
                    return;
                }
            }
            killed.store(true, Ordering::SeqCst);
            // SAFETY: kill(2) on our own child, not reaped yet (done is false).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        });
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child's pid, with valid pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    done.store(true, Ordering::SeqCst);
    assert_eq!(r, pid, "wait4 failed");
    assert!(
        !killed.load(Ordering::SeqCst),
        "{args:?}: still running after 30 s"
    );
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let run = Run {
        code,
        stdout: reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
        max_rss_kb: usage.ru_maxrss,
    };
    assert!(
        run.max_rss_kb < MAX_RSS_KB,
        "{args:?}: peak memory {} kB",
        run.max_rss_kb
    );
    run
}

/// A one-line error with exit 2 holding every needle.
fn refused(args: &[&str], needles: &[&str]) {
    let r = run(args, 1 << 20);
    assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
    assert_eq!(
        r.stderr.trim_end().lines().count(),
        1,
        "{args:?}: {}",
        r.stderr
    );
    for n in needles {
        assert!(r.stderr.contains(n), "{args:?}: {}", r.stderr);
    }
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn huge_hash_outputs_stream_in_constant_memory() {
    // 10^14 bits: the first 4 MiB of the hex line, then the reader closes the pipe.
    let r = run(
        &["hash", "--out-bits", "99999999999999", "--hex", "00"],
        4 << 20,
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout.len(), 4 << 20);
    assert!(r.stdout.iter().all(u8::is_ascii_hexdigit));
    let r = run(
        &[
            "hash",
            "--out-bits",
            "1000000000000",
            "--raw",
            "--hex",
            "00",
        ],
        4 << 20,
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout.len(), 4 << 20);
    // Skein's largest output, 2^64 - 1 bits, starts streaming too.
    let r = run(
        &[
            "hash",
            "--out-bits",
            "18446744073709551615",
            "--raw",
            "--hex",
            "00",
        ],
        1 << 20,
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

#[test]
fn outputs_that_must_be_read_back_have_a_limit() {
    let huge = "99999999999999";
    refused(
        &["hash", "--out-bits", huge, "--tag", "--hex", "00"],
        &["1048576"],
    );
    refused(
        &["hash", "--out-bits", huge, "--json", "--hex", "00"],
        &["1048576"],
    );
    refused(&["hash", "--out-bits", huge, "--check", "-"], &["1048576"]);
    refused(
        &["hash", "--out-bits", "18446744073709551616"],
        &["--out-bits"],
    );
}

#[test]
fn traces_of_huge_outputs_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let out = out.to_str().unwrap();
    for bits in ["99999999999", "18446744073709551615", "1048577"] {
        refused(
            &[
                "trace",
                "--schedule",
                "ath-8r",
                "--out-bits",
                bits,
                "-o",
                out,
            ],
            &["1048576", "MAX_OUT_BITS"],
        );
    }
    // Refused before anything was written: no trace, no temporary file.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn message_sizes_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let out = out.to_str().unwrap();
    refused(
        &[
            "trace",
            "--schedule",
            "ath-8r",
            "--msg-file",
            "/dev/zero",
            "-o",
            out,
        ],
        &["/dev/zero", "16777216"],
    );
    refused(
        &[
            "trace",
            "--schedule",
            "ath-8r",
            "--hex",
            "00",
            "--msg-bits",
            "99999999999",
            "-o",
            out,
        ],
        &["--msg-bits 99999999999", "8 bits"],
    );
    refused(
        &["hash", "--hex", "00", "--msg-bits", "18446744073709551615"],
        &["beyond the 8 bits"],
    );
}

#[test]
fn tree_parameters_beyond_skein_are_refused_and_the_largest_are_cheap() {
    refused(&["hash", "--tree", "256,1,2", "--hex", "00"], &["0 to 255"]);
    refused(
        &["hash", "--tree", "1,1,1", "--hex", "00"],
        &["max height >= 2"],
    );
    let r = run(&["hash", "--tree", "255,255,255", "--hex", "0011"], 1 << 20);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let r = run(
        &[
            "trace",
            "--schedule",
            "ath-8r",
            "--tree",
            "255,255,255",
            "--hex",
            "0011",
            "-o",
            out.to_str().unwrap(),
        ],
        1 << 20,
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

#[test]
fn schedule_fields_that_size_the_design_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let out = out.to_str().unwrap();
    let skein = |fields: &str| {
        format!(
            r#"{{"name":"x","size":512,{fields},"first_subkey_cycle":false,"config_precomputed":false}}"#
        )
    };
    let cases = [
        (
            skein(r#""rounds_per_cycle":4294967295"#),
            "rounds_per_cycle",
        ),
        (
            skein(r#""rounds_per_cycle":72,"functional_stages":4294967295"#),
            "functional_stages",
        ),
        (
            skein(r#""rounds_per_cycle":1,"structural_stages":4294967295"#),
            "structural_stages",
        ),
        (
            r#"{"algorithm":"shabal","name":"x","output_bits":512,"unfolding":4294967295}"#
                .to_string(),
            "unfolding",
        ),
    ];
    for (i, (json, field)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("s{i}.json"));
        std::fs::write(&path, json).unwrap();
        refused(
            &[
                "trace",
                "--schedule",
                path.to_str().unwrap(),
                "--hex",
                "00",
                "-o",
                out,
            ],
            &[field, "allowed"],
        );
    }
}

#[test]
fn sweep_ranges_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("sweep.csv");
    let sizes = vec!["512"; 200].join(",");
    refused(
        &["sweep", "--sizes", &sizes, "--csv", csv.to_str().unwrap()],
        &["100000"],
    );
    assert!(!csv.exists());
}

#[test]
fn a_check_list_line_without_end_is_read_in_bounded_memory() {
    // 48 MB of hex digits and no newline: one improperly formatted line and nothing usable,
    // exit 1 as b2sum ("no properly formatted checksum lines found").
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list");
    let mut f = std::fs::File::create(&list).unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..48 {
        f.write_all(&chunk).unwrap();
    }
    drop(f);
    let r = run(&["hash", "--check", list.to_str().unwrap()], 1 << 20);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("no properly formatted checksum lines found"),
        "{}",
        r.stderr
    );
}
