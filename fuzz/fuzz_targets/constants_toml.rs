//! The estimator's constants TOML (`--constants FILE`), and rewriting it (`calibrate --write`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use skeinhw_estimator::Constants;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(constants) = Constants::parse(text, "fuzz.toml") {
        let rewritten = constants
            .rewrite(text)
            .expect("a file that parsed can be rewritten");
        let again = Constants::parse(&rewritten, "rewritten").expect("the rewrite parses");
        assert_eq!(format!("{again:?}"), format!("{constants:?}"));
    }
});
