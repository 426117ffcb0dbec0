//! `skeinhw hash` beside GNU coreutils' `b2sum` on the same files: the lines have the same
//! shape (digest and tag masked: the functions differ), each tool reads back its own lists
//! with the same per-file lines, and `--check` with --quiet/--status/--strict/--warn/
//! --ignore-missing gives the same exit status, the same standard output and the same closing
//! warnings on a table of lists (good, mismatched, missing, malformed). The digests themselves
//! are checked against the official vectors in `hash.rs`. Skipped, visibly, without b2sum.

use std::path::Path;
use std::process::{Command, Output};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tool {
    B2sum,
    Skeinhw,
}

const TOOLS: [Tool; 2] = [Tool::B2sum, Tool::Skeinhw];

fn b2sum_installed() -> bool {
    let ok = Command::new("b2sum")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: b2sum (GNU coreutils) is not installed");
    }
    ok
}

fn tool(t: Tool, dir: &Path) -> Command {
    let mut c = match t {
        Tool::B2sum => Command::new("b2sum"),
        Tool::Skeinhw => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_skeinhw"));
            c.arg("hash");
            c
        }
    };
    c.current_dir(dir);
    c
}

/// File names of every awkward kind, with their contents.
fn names() -> Vec<Vec<u8>> {
    vec![
        b"plain".to_vec(),
        b"x\\y".to_vec(),
        b"n\nl".to_vec(),
        b"c\rr".to_vec(),
        b"\xff\xfe not utf-8".to_vec(),
        b" lead and trail ".to_vec(),
        b"-dash".to_vec(),
        b"a) = b (c".to_vec(),
        b"star*".to_vec(),
    ]
}

fn os(name: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(name)
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (i, n) in names().iter().enumerate() {
        std::fs::write(dir.path().join(os(n)), format!("content {i}\n")).unwrap();
    }
    dir
}

/// Runs `t` with `opts`, then `--` and every name.
fn sums(t: Tool, dir: &Path, opts: &[&str]) -> Output {
    let out = tool(t, dir)
        .args(opts)
        .arg("--")
        .args(names().iter().map(|n| os(n)))
        .output()
        .unwrap();
    assert!(out.status.success(), "{t:?} {opts:?}: {out:?}");
    out
}

/// A list line with the digest and the tag masked: `[\]H  name` or `[\]T (name) = H`.
fn mask(line: &[u8]) -> Vec<u8> {
    let (prefix, body) = match line.strip_prefix(b"\\") {
        Some(b) => (&b"\\"[..], b),
        None => (&b""[..], line),
    };
    let mut out = prefix.to_vec();
    if let Some(open) = body.windows(2).position(|w| w == b" (")
        && !body[..open].contains(&b' ')
    {
        let close = body.windows(4).rposition(|w| w == b") = ").unwrap();
        out.extend_from_slice(b"T (");
        out.extend_from_slice(&body[open + 2..close]);
        out.extend_from_slice(b") = H");
    } else {
        let space = body.iter().position(|&b| b == b' ').unwrap();
        out.extend_from_slice(b"H");
        out.extend_from_slice(&body[space..]);
    }
    out
}

fn masked(stdout: &[u8], end: u8) -> Vec<Vec<u8>> {
    stdout
        .split(|&b| b == end)
        .filter(|l| !l.is_empty())
        .map(mask)
        .collect()
}

#[test]
fn lines_have_b2sums_shape() {
    if !b2sum_installed() {
        return;
    }
    let dir = setup();
    for (opts, end) in [
        (&[][..], b'\n'),
        (&["--tag"][..], b'\n'),
        (&["-z"][..], 0),
        (&["--tag", "-z"][..], 0),
    ] {
        let b2 = sums(Tool::B2sum, dir.path(), opts);
        let ours = sums(Tool::Skeinhw, dir.path(), opts);
        let (b2, ours) = (masked(&b2.stdout, end), masked(&ours.stdout, end));
        assert_eq!(b2.len(), names().len());
        assert_eq!(
            ours,
            b2,
            "{opts:?}:\n{}\n{}",
            String::from_utf8_lossy(&ours.concat()),
            String::from_utf8_lossy(&b2.concat())
        );
    }
}

/// Each tool writes a list (GNU lines, or tags, or both mixed) and checks it: the same
/// per-file lines, exit 0.
#[test]
fn each_tool_reads_back_its_own_lists() {
    if !b2sum_installed() {
        return;
    }
    let dir = setup();
    let mut results = Vec::new();
    for t in TOOLS {
        let gnu = sums(t, dir.path(), &[]).stdout;
        let tag = sums(t, dir.path(), &["--tag"]).stdout;
        // Mixed: odd lines GNU, even lines tagged.
        let mixed: Vec<u8> = gnu
            .split_inclusive(|&b| b == b'\n')
            .zip(tag.split_inclusive(|&b| b == b'\n'))
            .enumerate()
            .flat_map(|(i, (g, t))| if i % 2 == 0 { g.to_vec() } else { t.to_vec() })
            .collect();
        let mut per_tool = Vec::new();
        for (kind, list) in [("gnu", gnu), ("tag", tag), ("mixed", mixed)] {
            std::fs::write(dir.path().join(format!("{kind}.list")), &list).unwrap();
            let out = tool(t, dir.path())
                .args(["-c", &format!("{kind}.list")])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{t:?} {kind}: {out:?}");
            per_tool.push(out.stdout);
        }
        results.push(per_tool);
    }
    assert_eq!(results[0], results[1]);
    let ok_lines = results[1][0]
        .split(|&b| b == b'\n')
        .filter(|l| l.ends_with(b": OK"));
    assert_eq!(ok_lines.count(), names().len());
}

/// The list of one scenario, written by `t` itself.
fn scenario_list(t: Tool, dir: &Path, scenario: &str) -> Vec<u8> {
    let good = tool(t, dir)
        .args(["plain", "x\\y"])
        .output()
        .unwrap()
        .stdout;
    let plain_line = good.split(|&b| b == b'\n').next().unwrap().to_vec();
    let missing: Vec<u8> = [&plain_line[..plain_line.len() - 5], b"missing\n"].concat();
    match scenario {
        "good" | "mismatch" => good,
        "missing" => [good, missing].concat(),
        "all-missing" => missing,
        "malformed" => [good, b"this is not a digest line\n".to_vec()].concat(),
        "only-garbage" => b"garbage\n".to_vec(),
        "mixed-bad" => [good, missing, b"garbage\n".to_vec()].concat(),
        _ => unreachable!(),
    }
}

#[test]
fn check_options_behave_as_b2sums() {
    if !b2sum_installed() {
        return;
    }
    let options: [&[&str]; 9] = [
        &[],
        &["--quiet"],
        &["--status"],
        &["--strict"],
        &["--warn"],
        &["--ignore-missing"],
        &["--strict", "--warn"],
        &["--quiet", "--ignore-missing"],
        &["--status", "--strict"],
    ];
    let scenarios = [
        "good",
        "mismatch",
        "missing",
        "all-missing",
        "malformed",
        "only-garbage",
        "mixed-bad",
    ];
    let mut compared = 0;
    for scenario in scenarios {
        for opts in options {
            let mut seen = Vec::new();
            for t in TOOLS {
                let dir = setup();
                let list = scenario_list(t, dir.path(), scenario);
                std::fs::write(dir.path().join("list"), &list).unwrap();
                if scenario == "mismatch" {
                    std::fs::write(dir.path().join("x\\y"), b"changed").unwrap();
                }
                let out = tool(t, dir.path())
                    .args(opts)
                    .args(["-c", "list"])
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                let prefix = match t {
                    Tool::B2sum => "b2sum: ",
                    Tool::Skeinhw => "skeinhw: ",
                };
                let stderr: Vec<String> = stderr
                    .lines()
                    .map(|l| l.strip_prefix(prefix).unwrap_or(l).to_string())
                    .collect();
                seen.push((out.status.code(), out.stdout, stderr));
            }
            let ctx = format!("{scenario} {opts:?}: {seen:?}");
            let (b2, ours) = (&seen[0], &seen[1]);
            assert_eq!(ours.0, b2.0, "exit status, {ctx}");
            assert_eq!(ours.1, b2.1, "standard output, {ctx}");
            assert_eq!(ours.2.len(), b2.2.len(), "standard error lines, {ctx}");
            for (o, b) in ours.2.iter().zip(&b2.2) {
                if b.starts_with("WARNING") {
                    assert_eq!(o, b, "{ctx}");
                } else if b.contains("improperly formatted") {
                    // b2sum: "list: 3: improperly formatted BLAKE2b checksum line"
                    assert!(
                        o.starts_with("list: ") && o.contains("improperly formatted"),
                        "{ctx}"
                    );
                    assert_eq!(o.split(": ").nth(1), b.split(": ").nth(1), "{ctx}");
                } else {
                    // The file or list the message is about comes first.
                    assert_eq!(o.split(": ").next(), b.split(": ").next(), "{ctx}");
                }
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 63);
}

#[test]
fn refusals_where_b2sum_refuses() {
    if !b2sum_installed() {
        return;
    }
    let dir = setup();
    std::fs::write(dir.path().join("list"), b"").unwrap();
    // b2sum exits 1 on usage errors, skeinhw 2 (its usage status); both refuse.
    for opts in [
        &["--status", "plain"][..],
        &["-z", "-c", "list"],
        &["--tag", "-c", "list"],
    ] {
        let b2 = tool(Tool::B2sum, dir.path()).args(opts).output().unwrap();
        let ours = tool(Tool::Skeinhw, dir.path()).args(opts).output().unwrap();
        assert_eq!(b2.status.code(), Some(1), "{opts:?}");
        assert_eq!(ours.status.code(), Some(2), "{opts:?}");
        assert!(ours.stdout.is_empty());
    }
    // skeinhw refuses files beside --hex instead of ignoring them. (Files beside --check are
    // lists, as b2sum reads them: `check_is_a_flag_and_operands_are_lists_as_in_b2sum`.)
    let opts = ["--hex", "00", "plain"];
    let out = tool(Tool::Skeinhw, dir.path()).args(opts).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{opts:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("plain"), "{stderr}");
}

#[test]
fn json_check_and_unreadable_names() {
    let dir = setup();
    let list = tool(Tool::Skeinhw, dir.path())
        .args(["--", "plain"])
        .arg(os(b"\xff\xfe not utf-8"))
        .arg("missing")
        .output()
        .unwrap();
    // One name missing: the others are still hashed, exit 1 at the end, as coreutils.
    assert_eq!(list.status.code(), Some(1));
    assert_eq!(
        list.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        2
    );
    std::fs::write(dir.path().join("list"), &list.stdout).unwrap();
    let out = tool(Tool::Skeinhw, dir.path())
        .args(["--json", "-c", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["result"] == "OK"));
    assert_eq!(results[0]["name"], "plain");
}

#[test]
fn usage_errors_keep_clap_tips_on_one_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_skeinhw"))
        .args(["hash", "--chek", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("'--chek'") && stderr.contains("tip:"),
        "{stderr}"
    );
    assert!(stderr.contains("'--check'"), "{stderr}");
}

/// Runs both tools in fresh directories, each on the `scenario` lists it wrote itself (`list`,
/// and `list2` with the `scenario2` lists), with `args` and `stdin` (the contents of `list`
/// when `stdin_list`), and asserts the same exit status, the same standard output and the
/// same standard error lines: warnings word for word, other lines by the file or list they
/// name first (and the line number of an improperly formatted line).
fn assert_check_as_b2sum(scenario: &str, scenario2: &str, args: &[&str], stdin_list: bool) {
    let mut seen = Vec::new();
    for t in TOOLS {
        let dir = setup();
        let list = scenario_list(t, dir.path(), scenario);
        std::fs::write(dir.path().join("list"), &list).unwrap();
        let list2 = scenario_list(t, dir.path(), scenario2);
        std::fs::write(dir.path().join("list2"), &list2).unwrap();
        if scenario == "mismatch" || scenario2 == "mismatch" {
            std::fs::write(dir.path().join("x\\y"), b"changed").unwrap();
        }
        let mut cmd = tool(t, dir.path());
        cmd.args(args);
        if stdin_list {
            cmd.stdin(std::fs::File::open(dir.path().join("list")).unwrap());
        } else {
            cmd.stdin(std::process::Stdio::null());
        }
        let out = cmd.output().unwrap();
        let prefix = match t {
            Tool::B2sum => "b2sum: ",
            Tool::Skeinhw => "skeinhw: ",
        };
        let stderr: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(|l| l.strip_prefix(prefix).unwrap_or(l).to_string())
            .collect();
        seen.push((out.status.code(), out.stdout, stderr));
    }
    let ctx = format!("{scenario}/{scenario2} {args:?} (stdin: {stdin_list}): {seen:?}");
    let (b2, ours) = (&seen[0], &seen[1]);
    assert_eq!(ours.0, b2.0, "exit status, {ctx}");
    assert_eq!(ours.1, b2.1, "standard output, {ctx}");
    assert_eq!(ours.2.len(), b2.2.len(), "standard error lines, {ctx}");
    for (o, b) in ours.2.iter().zip(&b2.2) {
        if b.starts_with("WARNING") {
            assert_eq!(o, b, "{ctx}");
        } else {
            // The file or list the message is about comes first ('standard input' for
            // standard input, as b2sum says); an improperly formatted line's number second.
            assert_eq!(o.split(": ").next(), b.split(": ").next(), "{ctx}");
            if b.contains("improperly formatted") {
                assert!(o.contains("improperly formatted"), "{ctx}");
                assert_eq!(o.split(": ").nth(1), b.split(": ").nth(1), "{ctx}");
            }
        }
    }
}

/// The table of issue 31: `-c/--check` is a flag, every operand a list, none (or `-`)
/// standard input, options anywhere; each form as b2sum answers it, on every scenario.
#[test]
fn check_is_a_flag_and_operands_are_lists_as_in_b2sum() {
    if !b2sum_installed() {
        return;
    }
    // (arguments, whether `list` is also standard input)
    let forms: [(&[&str], bool); 22] = [
        // The rows of the table.
        (&["-c", "--status", "list"], false),
        (&["-c", "--quiet", "list"], false),
        (&["-c", "--ignore-missing", "list"], false),
        (&["-c"], true),
        (&["-c", "list", "list2"], false),
        // `--check FILE` as before, `-` for standard input.
        (&["--check", "list"], false),
        (&["--check", "-"], true),
        (&["-c", "-", "list2"], true),
        // Options after the operands, between them, and the flag last.
        (&["-c", "list", "--status"], false),
        (&["-c", "list", "--quiet"], false),
        (&["-c", "list", "--ignore-missing"], false),
        (&["list", "--check", "--warn"], false),
        (&["--quiet", "list", "-c"], false),
        (&["-c", "list", "--strict", "list2"], false),
        (&["list2", "--warn", "list", "-c", "--strict"], false),
        (&["--status", "-c"], true),
        (&["--ignore-missing", "-c", "--quiet"], true),
        // A list that cannot be opened is reported and the others still checked.
        (&["-c", "nosuch", "list"], false),
        (&["-c", "list", "nosuch", "--quiet"], false),
        (&["-c", "--", "list", "list2"], false),
        // Flags given twice, as getopt allows.
        (&["-c", "--quiet", "list", "-c", "--quiet"], false),
        (
            &[
                "--strict",
                "-c",
                "list",
                "--strict",
                "-w",
                "-w",
                "--ignore-missing",
                "--ignore-missing",
            ],
            false,
        ),
    ];
    let scenarios = [
        "good",
        "mismatch",
        "missing",
        "all-missing",
        "malformed",
        "only-garbage",
        "mixed-bad",
    ];
    let mut compared = 0;
    for scenario in scenarios {
        // The second list: good where the first is not, and the other way round.
        let scenario2 = if scenario == "good" {
            "mixed-bad"
        } else {
            "good"
        };
        for (args, stdin_list) in forms {
            assert_check_as_b2sum(scenario, scenario2, args, stdin_list);
            compared += 1;
        }
    }
    assert_eq!(compared, 154);
}
