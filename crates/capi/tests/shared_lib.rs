//! The shared library's SONAME (libskeinhw.so.MAJOR, by build.rs) and the header's version
//! macros against `skeinhw_version()`: tests/c/hello.c linked against libskeinhw.so finds it
//! at run time through the SONAME link, as an installed library is found.

mod common;

use std::process::Command;

use common::*;

fn soname() -> String {
    format!("libskeinhw.so.{}", env!("CARGO_PKG_VERSION_MAJOR"))
}

#[test]
fn shared_library_has_the_soname() {
    if !have("readelf") {
        return;
    }
    let out = Command::new("readelf")
        .arg("-d")
        .arg(lib_dir().join("libskeinhw.so"))
        .output()
        .expect("run readelf");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("Library soname: [{}]", soname())),
        "{text}"
    );
}

#[test]
fn a_program_linked_through_the_soname_runs_and_the_versions_agree() {
    if !have("cc") || !have("readelf") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    // What an installation does: the file under its SONAME, the link name for the linker.
    std::fs::copy(lib_dir().join("libskeinhw.so"), lib.join(soname())).unwrap();
    std::os::unix::fs::symlink(soname(), lib.join("libskeinhw.so")).unwrap();
    let exe = tmp.path().join("hello");
    let status = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c/hello.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-lskeinhw")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("run cc");
    assert!(status.success(), "cc failed");
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(&exe)
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic.contains(&format!("Shared library: [{}]", soname())),
        "{dynamic}"
    );
    let out = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Skein-512-256("abc") by the independent RustCrypto implementation.
    use rustcrypto_skein::Digest;
    let want = hex::encode(rustcrypto_skein::Skein512_256::digest(b"abc"));
    assert_eq!(
        stdout.trim(),
        format!("{want} {}", env!("CARGO_PKG_VERSION"))
    );
}
