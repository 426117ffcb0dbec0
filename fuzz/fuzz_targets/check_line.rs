//! `hash --check` list lines (coreutils and BSD style) through `skeinhw_sumfile::parse_line`.
//! Built only with `--features sumfile` (the crate comes from the `hash` branch).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    #[cfg(feature = "sumfile")]
    let _ = skeinhw_sumfile::parse_line(data);
    #[cfg(not(feature = "sumfile"))]
    let _ = data;
});
