//! The library's version at run time, to compare with the header's `SKEINHW_VERSION` macros
//! (a program built against one header and run against another library).

use std::ffi::c_char;

/// This crate's version, "MAJOR.MINOR.PATCH".
const VERSION: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
) {
    Ok(v) => v,
    Err(_) => panic!("the package version holds a NUL"),
};

/// The library's version, "MAJOR.MINOR.PATCH" (the header's `SKEINHW_VERSION` when they
/// match). A static string: never freed.
#[unsafe(no_mangle)]
pub extern "C" fn skeinhw_version() -> *const c_char {
    VERSION.as_ptr()
}
