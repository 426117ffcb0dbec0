//! Issue 33: a Skein word held byte-swapped, mapped as a 64-bit slice with `"byteswap": true`,
//! in both alignments. The waveform is the golden trace's own VCD (`skeinhw trace`, so that
//! cycle alignment applies) with the words of `slot0_state_0` byte-swapped.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::json;

const PRESET: &str = "ath-8r";
const HEX: &str = "616263";

/// The trace of `PRESET` on "abc" as VCD, `slot0_state_0`'s values with their bytes swapped.
fn swapped_trace(dir: &Path) -> PathBuf {
    let vcd = dir.join("trace.vcd");
    Command::cargo_bin("skeinhw")
        .unwrap()
        .args(["trace", "--schedule", PRESET, "--hex", HEX, "-o"])
        .arg(&vcd)
        .assert()
        .success();
    let text = std::fs::read_to_string(&vcd).unwrap();
    let id = text
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 6 && f[..3] == ["$var", "wire", "64"] && f[4] == "slot0_state_0")
                .then(|| f[3].to_string())
        })
        .expect("slot0_state_0 in the trace");
    let mut swapped = 0;
    let out: String = text
        .lines()
        .map(
            |l| match l.strip_prefix('b').and_then(|v| v.split_once(' ')) {
                Some((bits, i)) if i == id => {
                    swapped += 1;
                    let v = u64::from_str_radix(bits, 2).unwrap();
                    format!("b{:b} {id}\n", v.swap_bytes())
                }
                _ => format!("{l}\n"),
            },
        )
        .collect();
    assert!(swapped > 1, "no value of slot0_state_0 swapped");
    let path = dir.join("swapped.vcd");
    std::fs::write(&path, out).unwrap();
    path
}

/// The state's eight words; word 0 as `word0` says.
fn state_map(dir: &Path, name: &str, word0: serde_json::Value) -> PathBuf {
    let mut fields = serde_json::Map::new();
    fields.insert("slot0_state_0".into(), word0);
    for w in 1..8 {
        fields.insert(
            format!("slot0_state_{w}"),
            format!("slot0_state_{w}").into(),
        );
    }
    let path = dir.join(name);
    let map = json!({"clock": "clk", "scope": "skeinhw", "fields": fields});
    std::fs::write(&path, map.to_string()).unwrap();
    path
}

fn diff(vcd: &Path, map: &Path, align: &str) -> (i32, String) {
    let o = Command::cargo_bin("skeinhw")
        .unwrap()
        .arg("diff")
        .arg(vcd)
        .args([
            "--schedule",
            PRESET,
            "--hex",
            HEX,
            "--align",
            align,
            "--map",
        ])
        .arg(map)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text)
}

#[test]
fn a_byte_swapped_64_bit_slice_is_identical_in_both_alignments() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = swapped_trace(dir.path());
    let slice = json!({"signal": "slot0_state_0[63:0]", "byteswap": true});
    let map = state_map(dir.path(), "slice.json", slice);
    for align in ["event", "cycle"] {
        let (code, text) = diff(&vcd, &map, align);
        assert_eq!(code, 0, "{align}: {text}");
        assert!(
            text.lines().any(|l| l.starts_with("IDENTICAL")),
            "{align}: {text}"
        );
    }
}

/// The controls: the whole signal marked byteswap passes by cycle; unmarked, the swapped word
/// is a divergence naming it.
#[test]
fn a_byte_swapped_word_is_read_back_or_named_by_cycle_alignment() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = swapped_trace(dir.path());
    let whole = json!({"signal": "slot0_state_0", "byteswap": true});
    let (code, text) = diff(&vcd, &state_map(dir.path(), "whole.json", whole), "cycle");
    assert_eq!(code, 0, "{text}");
    let plain = state_map(dir.path(), "plain.json", "slot0_state_0".into());
    let (code, text) = diff(&vcd, &plain, "cycle");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("(slot0_state_0)"), "{text}");
}
