//! Event alignment when several streams take turns in one pipeline register (the pipelined
//! presets fed several messages): the golden model's own waveform, with the map `map` finds,
//! must diff IDENTICAL, every expected event matched; a golden run of another message on one
//! stream must be DIVERGENT at that stream. Streams share values (every stream's Config tweak,
//! every Output tweak of the same length), and a block comes back into a register many times:
//! the matcher must neither take a repeat for a later event nor miss a stream whose value
//! equals the one before.

use std::path::Path;

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

/// Three streams: five message blocks, then one block each.
fn message_args(second: &str) -> Vec<String> {
    let first = "00".repeat(300);
    ["--hex", &first, "--more", second, "--more", "03"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn run(args: &[&str], messages: &[String]) -> (bool, String) {
    let out = skeinhw().args(args).args(messages).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// The golden VCD of `preset` and the map found in it.
fn golden_vcd_and_map(preset: &str, dir: &Path) -> (String, String) {
    let vcd = dir.join(format!("{preset}.vcd")).display().to_string();
    let map = dir.join(format!("{preset}.json")).display().to_string();
    let messages = message_args("0102");
    let (ok, text) = run(&["trace", "--schedule", preset, "-o", &vcd], &messages);
    assert!(ok, "{preset} trace: {text}");
    let (ok, text) = run(&["map", &vcd, "--schedule", preset, "-o", &map], &messages);
    assert!(ok, "{preset} map: {text}");
    (vcd, map)
}

/// `diff --align event` of the VCD with the map, the second stream's message being `second`.
fn diff_by_event(preset: &str, vcd: &str, map: &str, second: &str) -> (bool, String) {
    run(
        &[
            "diff",
            vcd,
            "--schedule",
            preset,
            "--map",
            map,
            "--align",
            "event",
        ],
        &message_args(second),
    )
}

#[test]
fn interleaved_streams_diff_identical_by_event() {
    let dir = tempfile::tempdir().unwrap();
    for preset in [
        "ath-8r-2fp",
        "ath-8r-3sp",
        "ath-8r-2fp-3sp",
        "ath-8r-4fp",
        "long-pipe-512",
    ] {
        let (vcd, map) = golden_vcd_and_map(preset, dir.path());
        let (ok, text) = diff_by_event(preset, &vcd, &map, "0102");
        let last = text.lines().last().unwrap_or_default();
        assert!(ok, "{preset}: {text}");
        assert!(
            last.starts_with("IDENTICAL (event alignment): "),
            "{preset}: {text}"
        );
        // "N of N expected events matched".
        let counts: Vec<&str> = last
            .trim_start_matches("IDENTICAL (event alignment): ")
            .split(' ')
            .take(3)
            .collect();
        assert_eq!(counts[0], counts[2], "{preset}: {last}");
        assert_eq!(counts[1], "of", "{preset}: {last}");
    }
}

#[test]
fn another_message_on_one_stream_diverges_at_that_stream() {
    let dir = tempfile::tempdir().unwrap();
    for preset in ["ath-8r-2fp", "ath-8r-2fp-3sp"] {
        let (vcd, map) = golden_vcd_and_map(preset, dir.path());
        let (ok, text) = diff_by_event(preset, &vcd, &map, "0104");
        let last = text.lines().last().unwrap_or_default();
        assert!(!ok, "{preset}: {text}");
        assert!(
            last.starts_with("DIVERGENT (event alignment): stream 1, message block 0"),
            "{preset}: {text}"
        );
    }
}
