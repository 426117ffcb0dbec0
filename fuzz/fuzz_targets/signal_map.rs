//! The diff's signal-map JSON (`--map FILE`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use skeinhw_diff::SignalMap;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = SignalMap::from_json(text, "fuzz.json");
    }
});
