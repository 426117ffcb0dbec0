//! `skeinhw completions SHELL` and `skeinhw man DIR`: generated from the clap definitions for
//! every subcommand. The subcommands are read from `skeinhw --help`, not from the code that
//! generates, so a page or completion that goes missing fails here.

use std::path::Path;
use std::process::{Command, Output};

fn skeinhw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skeinhw"))
        .args(args)
        .output()
        .unwrap()
}

/// The subcommands `skeinhw --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let out = skeinhw(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    for expected in [
        "hash",
        "trace",
        "diff",
        "rtl",
        "estimate",
        "completions",
        "man",
    ] {
        assert!(
            listed.iter().any(|n| n == expected),
            "{expected}: {listed:?}"
        );
    }
    listed
}

#[test]
fn completions_name_every_subcommand_in_every_shell() {
    let subs = subcommands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = skeinhw(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {out:?}");
        let script = String::from_utf8(out.stdout).unwrap();
        for sub in &subs {
            assert!(script.contains(sub.as_str()), "{shell}: no '{sub}'");
        }
        // Options of a subcommand are there too: hash's --check and --ignore-missing.
        assert!(script.contains("ignore-missing"), "{shell}");
        assert!(script.contains("check"), "{shell}");
    }
    let out = skeinhw(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn man_pages_for_every_subcommand() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man");
    let out = skeinhw(&["man", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let page = |name: &str| {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let top = page("skeinhw.1");
    assert!(top.contains(".TH skeinhw 1"), "{top}");
    for sub in subcommands() {
        let text = page(&format!("skeinhw-{sub}.1"));
        assert!(
            text.contains(&format!(".TH skeinhw-{sub} 1")),
            "{sub}: {text}"
        );
        assert!(top.contains(&sub), "skeinhw.1 does not name {sub}");
    }
    // A nested subcommand has its page too.
    page("skeinhw-schedule-show.1");
    let hash = page("skeinhw-hash.1");
    for option in ["check", "ignore\\-missing", "status"] {
        assert!(hash.contains(option), "skeinhw-hash.1: no {option}");
    }
    assert!(!dir.join("skeinhw-help.1").exists());
    // Written through skeinhw-outfile: no overwrite without --force.
    let again = skeinhw(&["man", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let forced = skeinhw(&["man", "--force", dir.to_str().unwrap()]);
    assert_eq!(forced.status.code(), Some(0), "{forced:?}");
    // A directory holding a user's file is refused, even with --force, and left alone.
    let user = tmp.path().join("user");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join("notes.txt"), "mine").unwrap();
    let refused = skeinhw(&["man", "--force", user.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert_eq!(std::fs::read_dir(&user).unwrap().count(), 1);
    assert!(!Path::new(&user.join("skeinhw.1")).exists());
}
