//! `skeinhw map`: the map found by searching a waveform, against the map the generator writes
//! beside its Verilog (a separate code path: the generator names its registers) and against
//! the layout of an independent hand-written core; the digest of that core against RustCrypto.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use rustcrypto_skein::Digest;
use serde_json::Value;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

const HEX: &str = "616263";

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Generates `preset`, simulates it in Icarus with its VCD kept, runs `map` on it; returns
/// (the directory, the generator's map, the map found).
fn generated(preset: &str, tmp: &Path) -> (PathBuf, Value, Value) {
    let rtl = tmp.join(format!("rtl-{preset}"));
    skeinhw()
        .args(["rtl", "--schedule", preset, "-o"])
        .arg(&rtl)
        .assert()
        .success();
    let vcd = tmp.join(format!("{preset}.vcd"));
    skeinhw()
        .args(["sim", "--schedule", preset, "--hex", HEX, "--rtl-dir"])
        .arg(&rtl)
        .arg("--vcd")
        .arg(&vcd)
        .assert()
        .success();
    let map = tmp.join(format!("{preset}.map.json"));
    skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", preset, "--hex", HEX, "-o"])
        .arg(&map)
        .assert()
        .success();
    (vcd, json(&rtl.join("signal_map.json")), json(&map))
}

/// Every field found is the generator's; the state, the digest and its valid bit are found;
/// the scope, the clock and reset_cycles agree.
fn check_against_generator(preset: &str, written: &Value, found: &Value) {
    let fields = found["fields"].as_object().unwrap();
    for (field, probe) in fields {
        assert_eq!(
            Some(probe),
            written["fields"].get(field),
            "{preset}: {field}"
        );
    }
    let words = fields.keys().filter(|f| f.starts_with("out_data_")).count();
    assert!(words >= 4, "{preset}: {fields:?}");
    for w in 0..words {
        assert!(
            fields.contains_key(&format!("slot0_state_{w}")),
            "{preset}: state word {w}"
        );
        assert!(
            fields.contains_key(&format!("slot0_key_{w}")),
            "{preset}: key word {w}"
        );
    }
    assert!(fields.contains_key("out_valid"), "{preset}");
    // Word 1 by its values; word 0 (the position: small numbers) by their order.
    assert!(fields.contains_key("slot0_tweak_1"), "{preset}");
    assert!(fields.contains_key("slot0_tweak_0"), "{preset}");
    for k in ["scope", "clock", "reset_cycles"] {
        assert_eq!(found[k], written[k], "{preset}: {k}");
    }
}

/// `diff --map` with the map found, in both alignments. `reset_cycles` goes on the command
/// line: the map parser of this branch does not read it yet (the diff branch adds it).
fn diff_identical(preset: &str, vcd: &Path, found: &Value, tmp: &Path) {
    let mut map = found.clone();
    let reset = map.as_object_mut().unwrap().remove("reset_cycles").unwrap();
    let path = tmp.join(format!("{preset}.stripped.json"));
    std::fs::write(&path, map.to_string()).unwrap();
    for align in ["cycle", "event"] {
        let a = skeinhw()
            .arg("diff")
            .arg(vcd)
            .args(["--schedule", preset, "--hex", HEX, "--align", align])
            // A whole map: no --partial; `sim` runs 4 idle cycles after the last digest.
            .args([
                "--reset-cycles",
                &reset.to_string(),
                "--allow-trailing",
                "--map",
            ])
            .arg(&path)
            .assert()
            .success();
        let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
        // The event report lists the blocks first; the verdict is its own line.
        assert!(
            out.lines().any(|l| l.starts_with("IDENTICAL")),
            "{preset} {align}: {out}"
        );
    }
}

#[test]
fn map_recovers_the_generated_maps() {
    let tmp = tempfile::tempdir().unwrap();
    // Every preset with SKEINHW_SLOW=1; a one-slot, a pipelined and a 256-bit one otherwise.
    let presets: Vec<String> = if std::env::var_os("SKEINHW_SLOW").is_some() {
        skeinhw_sched::presets()
            .iter()
            .map(|p| p.name().to_string())
            .collect()
    } else {
        ["ath-8r", "ath-8r-2fp", "long-iter-256"]
            .map(String::from)
            .to_vec()
    };
    for preset in &presets {
        let (vcd, written, found) = generated(preset, tmp.path());
        check_against_generator(preset, &written, &found);
        diff_identical(preset, &vcd, &found, tmp.path());
    }
}

/// The map file as `map` wrote it (with `reset_cycles`), read by `diff`: a whole map (the
/// tweak's position word found by the order of its values), so no `--partial` is needed.
#[test]
fn the_map_found_is_read_by_diff_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (vcd, _, _) = generated("ath-8r", tmp.path());
    let out = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args(["--schedule", "ath-8r", "--hex", HEX])
        .args(["--allow-trailing", "--map"]) // `sim` runs 4 idle cycles after the last digest
        .arg(tmp.path().join("ath-8r.map.json"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("IDENTICAL"), "{stdout}");
    assert!(!stdout.contains("partial"), "{stdout}");
}

const CORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../diff/tests/data/map");

/// Simulates the independent core on "abc" in `dir`; returns its VCD.
fn run_core(dir: &Path) -> PathBuf {
    run_core_with(dir, &format!("{CORE}/mapcore512_tb.v"))
}

/// The core's test bench dumping only its own level, where `xs` holds the core's state
/// register `x` with the eight bytes of every word in the other order.
fn byteswapping_bench(dir: &Path) -> PathBuf {
    let tb = std::fs::read_to_string(format!("{CORE}/mapcore512_tb.v")).unwrap();
    let swap = "    wire [511:0] xs;\n    genvar g;\n    generate for (g = 0; g < 64; g = g + 1) \
                begin : sw\n        assign xs[8 * g +: 8] = core.x[8 * ((g / 8) * 8 + 7 - g % 8) +: 8];\n    \
                end endgenerate\n";
    let tb = tb
        .replace("$dumpvars(0, mapcore512_tb)", "$dumpvars(1, mapcore512_tb)")
        .replace("    always #5", &format!("{swap}    always #5"));
    let path = dir.join("swapped_tb.v");
    std::fs::write(&path, tb).unwrap();
    path
}

fn run_core_with(dir: &Path, tb: &str) -> PathBuf {
    let mut hex = String::from("0000000000000003\n0000000000636261\n");
    hex.push_str(&"0000000000000000\n".repeat(7));
    std::fs::write(dir.join("msg.hex"), hex).unwrap();
    let ok = Process::new("iverilog")
        .current_dir(dir)
        .args(["-o", "core"])
        .arg(format!("{CORE}/mapcore512.v"))
        .arg(tb)
        .status()
        .unwrap();
    assert!(ok.success());
    let out = Process::new("vvp")
        .current_dir(dir)
        .args(["-n", "core"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // The core is right: its digest words (little-endian) are RustCrypto's digest.
    let printed: Vec<u8> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.len() == 16)
        .flat_map(|l| u64::from_str_radix(l, 16).unwrap().to_le_bytes())
        .collect();
    let expected = rustcrypto_skein::Skein512_512::digest(b"abc");
    assert_eq!(hex::encode(printed), hex::encode(expected));
    dir.join("core.vcd")
}

#[test]
fn map_finds_an_independent_core_laid_out_unlike_ours() {
    let tmp = tempfile::tempdir().unwrap();
    let vcd = run_core(tmp.path());
    let map = tmp.path().join("core.map.json");
    let a = skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", "long-unroll4-512", "--hex", HEX, "-o"])
        .arg(&map)
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    let found = json(&map);
    assert_eq!(found["scope"], "mapcore512_tb.core", "{found}");
    assert_eq!(found["clock"], "clk");
    // The state register holds the state before injection: all eight words of `x`.
    for w in 0..8 {
        assert_eq!(
            found["fields"][format!("slot0_state_before_{w}")],
            format!("x[{}:{}]", 64 * w + 63, 64 * w),
            "{found}"
        );
    }
    assert_eq!(found["digest_serial"]["data"], "dout[63:0]");
    assert_eq!(found["digest_serial"]["valid"], "dout_valid");
    // Another latency than the golden schedule's: no cycle alignment offered.
    assert!(found.get("reset_cycles").is_none(), "{found}");
    assert!(out.contains("kr: a key ring that rotates"), "{out}");
    assert!(out.contains("tr: a tweak ring that rotates"), "{out}");
    assert!(out.contains("serial digest"), "{out}");
    // The rings are written by position, as the core's comment lays them out: ring word i in
    // bits 64i+63:64i (key words 0..8, tweak words 0..2).
    assert_eq!(found["key_ring"], "rotating", "{found}");
    assert_eq!(found["tweak_ring"], "rotating", "{found}");
    for (what, n) in [("key", 9), ("tweak", 3)] {
        let ring = if what == "key" { "kr" } else { "tr" };
        for i in 0..n {
            assert_eq!(
                found["fields"][format!("slot0_{what}_{i}")],
                format!("{ring}[{}:{}]", 64 * i + 63, 64 * i),
                "{found}"
            );
        }
    }
}

#[test]
fn the_independent_core_diffs_identical_with_the_map_found() {
    let tmp = tempfile::tempdir().unwrap();
    let vcd = run_core(tmp.path());
    let map = tmp.path().join("core.map.json");
    skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", "long-unroll4-512", "--hex", HEX, "-o"])
        .arg(&map)
        .assert()
        .success();
    skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args(["--schedule", "long-unroll4-512", "--hex", HEX])
        .args(["--align", "event", "--map"])
        .arg(&map)
        .assert()
        .success();
}

/// A word held byte-swapped is written with `"byteswap": true`; the diff reads it so
/// (IDENTICAL against the library's Threefish) and, told the bytes are in order, diverges.
#[test]
fn byte_swapped_words_are_mapped_and_compared() {
    let tmp = tempfile::tempdir().unwrap();
    let tb = byteswapping_bench(tmp.path());
    let vcd = run_core_with(tmp.path(), tb.to_str().unwrap());
    let map = tmp.path().join("core.map.json");
    skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", "long-unroll4-512", "--hex", HEX, "-o"])
        .arg(&map)
        .assert()
        .success();
    let mut found = json(&map);
    for w in 0..8 {
        let field = &found["fields"][format!("slot0_state_before_{w}")];
        assert_eq!(
            field["signal"],
            format!("xs[{}:{}]", 64 * w + 63, 64 * w),
            "{found}"
        );
        assert_eq!(field["byteswap"], true, "{found}");
    }
    let diff = |map: &Path| {
        skeinhw()
            .arg("diff")
            .arg(&vcd)
            .args(["--schedule", "long-unroll4-512", "--hex", HEX])
            .args(["--align", "event", "--map"])
            .arg(map)
            .assert()
    };
    let out = diff(&map).success();
    let out = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(out.contains("IDENTICAL"), "{out}");
    for w in 0..8 {
        found["fields"][format!("slot0_state_before_{w}")]["byteswap"] = false.into();
    }
    let unswapped = tmp.path().join("unswapped.json");
    std::fs::write(&unswapped, found.to_string()).unwrap();
    let out = diff(&unswapped).code(1);
    let out = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(out.contains("state_before"), "{out}");
}

#[test]
fn map_of_another_message_finds_nothing_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let vcd = run_core(tmp.path());
    let map = tmp.path().join("m.json");
    let a = skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", "long-unroll4-512", "--hex", "616264", "-o"])
        .arg(&map)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("no signal holds"), "{err}");
    assert!(!map.exists());
}

#[test]
fn map_never_replaces_a_file_without_force_nor_a_non_file() {
    let tmp = tempfile::tempdir().unwrap();
    let vcd = run_core(tmp.path());
    let map = tmp.path().join("m.json");
    std::fs::write(&map, "mine").unwrap();
    let run = |force: bool, out: &Path| {
        let mut c = skeinhw();
        c.arg("map")
            .arg(&vcd)
            .args(["--schedule", "long-unroll4-512", "--hex", HEX, "-o"])
            .arg(out);
        if force {
            c.arg("--force");
        }
        c.assert()
    };
    let err = run(false, &map).code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&err).contains("--force"));
    assert_eq!(std::fs::read_to_string(&map).unwrap(), "mine");
    run(true, &map).success();
    assert!(json(&map)["fields"].is_object());
    #[cfg(unix)]
    {
        let link = tmp.path().join("link.json");
        std::os::unix::fs::symlink(&map, &link).unwrap();
        run(true, &link).code(2);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
