//! Finding the built C library and the system tools for the tests that compile against it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The native libraries a program linking `libskeinhw.a` needs (rustc's
/// `--print native-static-libs` on Linux).
pub const NATIVE_LIBS: [&str; 7] = [
    "-lgcc_s",
    "-lutil",
    "-lrt",
    "-lpthread",
    "-lm",
    "-ldl",
    "-lc",
];

/// The directory holding the `libskeinhw.a` and `libskeinhw.so` that cargo built for this test
/// run: the test binary's own directory (`target/<profile>/deps`).
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory").to_owned();
    for dir in [deps.clone(), deps.parent().unwrap().to_owned()] {
        if dir.join("libskeinhw.a").is_file() {
            return dir;
        }
    }
    panic!(
        "libskeinhw.a is not in {} (cargo builds it with the tests)",
        deps.display()
    );
}

pub fn static_lib() -> PathBuf {
    lib_dir().join("libskeinhw.a")
}

pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn repo_dir() -> PathBuf {
    crate_dir().join("../..")
}

/// Whether `tool --version` runs; if not, the caller skips, saying so on stderr.
pub fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: `{tool}` is not installed (scripts/install-deps.sh installs it)");
    }
    ok
}
