//! `hash --check` list lines (coreutils and BSD style) through `skeinhw_sumfile::parse_line`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = skeinhw_sumfile::parse_line(data);
});
