//! Golden JSONL traces of both algorithms, as the diff reads them (`--golden FILE.jsonl`):
//! header checked against its schedule, every record against the header.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use skeinhw_diff::AnyGolden;

fuzz_target!(|data: &[u8]| {
    let Ok(golden) = AnyGolden::from_reader(Cursor::new(data.to_vec()), "fuzz.jsonl") else {
        return;
    };
    let frames = golden.into_frames();
    let signals = frames.signals.len();
    for frame in frames.frames.take(10_000) {
        if let Ok(frame) = frame {
            assert_eq!(
                frame.values.len(),
                signals,
                "a frame has one value per signal"
            );
        }
    }
});
