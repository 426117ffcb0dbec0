//! The command line's hex and numeric arguments (`--hex`, `--key`, `--size`, `--tree`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use skeinhw_trace::args::{decode_hex, parse_size, parse_tree};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(bytes) = decode_hex("--hex", text) {
        // What decoded is the text's digits, two per byte.
        let digits = text.strip_prefix("0x").unwrap_or(text);
        assert_eq!(bytes.len() * 2, digits.len());
    }
    let _ = parse_size(text);
    let _ = parse_tree(text);
});
