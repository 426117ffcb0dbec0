//! The C test program (tests/c/test_capi.c) compiled with the system `cc` against the
//! `libskeinhw.a` of this build and run on the official golden KAT file; and the same program
//! failing on a KAT file with one result byte changed (the comparison can fail).

mod common;

use std::process::Command;

use common::*;

fn build(out: &std::path::Path) {
    let status = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c/test_capi.c"))
        .arg(static_lib())
        .args(NATIVE_LIBS)
        .arg("-o")
        .arg(out)
        .status()
        .expect("run cc");
    assert!(status.success(), "cc failed to build the C test program");
}

#[test]
fn c_program_passes_the_golden_kat_and_fails_a_changed_one() {
    if !have("cc") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("test_capi");
    build(&exe);
    let kat = repo_dir().join("vectors/skein/skein_golden_kat.txt");
    let out = Command::new(&exe).arg(&kat).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the C test program failed");
    assert!(
        stdout.starts_with("PASS: 491 golden KAT entries"),
        "{stdout}"
    );

    // One result byte changed: the program must notice.
    let text = std::fs::read_to_string(&kat).unwrap();
    let changed = text.replacen("C8 87 70 87", "C8 87 70 88", 1);
    assert_ne!(changed, text);
    let bad = tmp.path().join("changed_kat.txt");
    std::fs::write(&bad, changed).unwrap();
    let out = Command::new(&exe).arg(&bad).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("KAT line 2: digest differs"), "{stderr}");
}
