//! The shared library's SONAME (libskeinhw.so.MAJOR), so that programs linked against it
//! record the ABI they were built for and a newer incompatible library is not picked up.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libskeinhw.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
