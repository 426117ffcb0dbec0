//! The DPI-C example bench (examples/dpi): its expected digests against the spec-shaped
//! reference, and the README's commands run as written from a copy of the repository root
//! (Verilator building the bench against the libskeinhw.a of this build) printing PASS; the
//! same bench must fail on a case with one digest digit changed.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use skeinhw_skein::{Params, TreeParams, reference};

/// One line of examples/dpi/cases.txt.
struct Case {
    name: String,
    state_bits: u32,
    out_bits: u64,
    msg_bits: u64,
    msg: Vec<u8>,
    /// key, personalization, public key, key id, nonce (None: absent).
    strings: [Option<Vec<u8>>; 5],
    tree: (u8, u8, u8),
    digest: String,
}

fn example_dir() -> std::path::PathBuf {
    repo_dir().join("examples/dpi")
}

/// "-": absent, ".": present and empty, else hex.
fn field(s: &str) -> Option<Vec<u8>> {
    match s {
        "-" => None,
        "." => Some(Vec::new()),
        hex => Some(hex::decode(hex).unwrap_or_else(|e| panic!("{hex}: {e}"))),
    }
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(example_dir().join("cases.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 14, "{l}");
            let num = |i: usize| f[i].parse::<u64>().unwrap();
            Case {
                name: f[0].into(),
                state_bits: num(1) as u32,
                out_bits: num(2),
                msg_bits: num(3),
                msg: field(f[4]).expect("a message"),
                strings: [5, 6, 7, 8, 9].map(|i| field(f[i])),
                tree: (num(10) as u8, num(11) as u8, num(12) as u8),
                digest: f[13].into(),
            }
        })
        .collect()
}

/// The case's digest by `skeinhw_skein::reference::skein`, as hex.
fn reference_digest(c: &Case) -> String {
    let [key, pers, public_key, key_id, nonce] = &c.strings;
    let params = Params {
        key: key.as_deref().unwrap_or_default(),
        personalization: pers.as_deref(),
        public_key: public_key.as_deref(),
        key_id: key_id.as_deref(),
        nonce: nonce.as_deref(),
        tree: (c.tree != (0, 0, 0)).then(|| TreeParams::new(c.tree.0, c.tree.1, c.tree.2).unwrap()),
    };
    let d = match c.state_bits {
        256 => reference::skein::<4>(c.out_bits, &c.msg, c.msg_bits, &params),
        512 => reference::skein::<8>(c.out_bits, &c.msg, c.msg_bits, &params),
        1024 => reference::skein::<16>(c.out_bits, &c.msg, c.msg_bits, &params),
        other => panic!("{}: state size {other}", c.name),
    };
    hex::encode(d)
}

#[test]
fn every_case_is_the_reference_and_every_option_is_used() {
    let cases = cases();
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let r = reference_digest(c);
            (r != c.digest).then(|| format!("{}: file {}, reference {r}", c.name, c.digest))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let any = |f: &dyn Fn(&Case) -> bool| cases.iter().any(f);
    for (i, what) in ["key", "pers", "public key", "key id", "nonce"]
        .iter()
        .enumerate()
    {
        assert!(any(&|c| c.strings[i].is_some()), "no case with a {what}");
    }
    assert!(any(&|c| c
        .strings
        .iter()
        .any(|s| s.as_ref().is_some_and(Vec::is_empty))));
    assert!(any(&|c| c.tree != (0, 0, 0)), "no tree");
    assert!(any(&|c| c.msg_bits % 8 != 0), "no bit-length message");
    assert!(
        any(&|c| c.out_bits != u64::from(c.state_bits)),
        "no other output length"
    );
    for bits in [256, 512, 1024] {
        assert!(any(&|c| c.state_bits == bits), "no Skein-{bits}");
    }
}

/// The ```sh blocks of crates/capi/README.md that mention examples/dpi, continuation lines
/// joined.
fn readme_blocks() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    readme
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.contains("examples/dpi"))
        .map(|b| b.replace("\\\n", " ").lines().map(str::to_owned).collect())
        .collect()
}

/// A copy of the repository root in which the README's commands run as written: `crates`
/// linked, `examples/dpi` copied (the bench builds there), and `target/release/libskeinhw.a`
/// this test build's library.
fn sandbox() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    std::os::unix::fs::symlink(
        repo_dir().canonicalize().unwrap().join("crates"),
        r.join("crates"),
    )
    .unwrap();
    let ex = r.join("examples/dpi");
    std::fs::create_dir_all(&ex).unwrap();
    for name in ["Makefile", "skeinhw_dpi_example.sv", "cases.txt"] {
        std::fs::copy(example_dir().join(name), ex.join(name)).unwrap();
    }
    std::fs::create_dir_all(r.join("target/release")).unwrap();
    std::os::unix::fs::symlink(static_lib(), r.join("target/release/libskeinhw.a")).unwrap();
    root
}

fn run_block(root: &Path, lines: &[String]) -> String {
    let script: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        // The library is this test build's (linked in the sandbox).
        .filter(|l| *l != "cargo build --release -p skeinhw-capi")
        .collect();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script.join("\n")])
        .current_dir(root)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("MAKEFLAGS")
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the README's commands failed:\n{}\n{stdout}\n{stderr}",
        script.join("\n")
    );
    stdout
}

#[test]
fn readme_commands_build_and_run_the_example_bench() {
    if !have("verilator") || !have("make") {
        return;
    }
    let blocks = readme_blocks();
    assert_eq!(blocks.len(), 2, "the make and the verilator block");
    assert!(
        blocks[0]
            .iter()
            .any(|l| l == "cargo build --release -p skeinhw-capi")
    );
    let main_readme = std::fs::read_to_string(repo_dir().join("README.md")).unwrap();
    assert!(
        main_readme.contains(&blocks[0].join("\n")),
        "README.md shows crates/capi/README.md's commands"
    );
    let n = cases().len();
    let mut roots = Vec::new();
    for block in &blocks {
        let root = sandbox();
        let stdout = run_block(root.path(), block);
        eprintln!("{stdout}");
        let summary = stdout
            .lines()
            .find(|l| l.starts_with("PASS: "))
            .unwrap_or("");
        assert!(summary.starts_with(&format!("PASS: {n} cases")), "{stdout}");
        assert!(!stdout.contains("FAIL"), "{stdout}");
        roots.push(root);
    }

    // One digest digit changed: the bench the make block built must fail on that case.
    let root = &roots[0];
    let text = std::fs::read_to_string(example_dir().join("cases.txt")).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("kat-mac-1023-bits "))
        .unwrap();
    let changed_line = format!("{}0", &line[..line.len() - 1]);
    let changed_line = if changed_line == line {
        format!("{}1", &line[..line.len() - 1])
    } else {
        changed_line
    };
    let cases = root.path().join("changed.txt");
    std::fs::write(&cases, text.replacen(line, &changed_line, 1)).unwrap();
    let out = Command::new(
        root.path()
            .join("examples/dpi/obj_dir/Vskeinhw_dpi_example"),
    )
    .arg(format!("+cases={}", cases.display()))
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("FAIL kat-mac-1023-bits: the streaming Skein"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL kat-mac-1023-bits: the golden model"),
        "{stdout}"
    );
    assert!(stdout.contains("FAIL: 2 of"), "{stdout}");
}

#[test]
fn package_version_is_the_crate_version() {
    let pkg = std::fs::read_to_string(crate_dir().join("sv/skeinhw_dpi_pkg.sv")).unwrap();
    let want = format!(
        "localparam string SKEINHW_VERSION = \"{}\";",
        env!("CARGO_PKG_VERSION")
    );
    assert!(pkg.contains(&want), "sv/skeinhw_dpi_pkg.sv lacks {want}");
}
