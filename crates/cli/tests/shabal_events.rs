//! `diff --align event` and `map` on Shabal: the generated Shabal Verilog simulated in Icarus
//! (`skeinhw sim --vcd`; skipped, and said so, without iverilog) against the golden model of
//! the same or another unfolding; a flipped state bit named at its block and word; wrong maps
//! refused. The digests `sim` prints are checked against the Shabal KATs and RustCrypto's
//! `shabal` first, so the runs compared are of a correct hash.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rustcrypto_shabal::Digest as _;
use serde_json::Value;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn iverilog() -> bool {
    let ok = std::process::Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok();
    if !ok {
        eprintln!("SKIPPED: iverilog not found (scripts/install-deps.sh installs it)");
    }
    ok
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Shabal-512 KAT digest of a message (hex) from `vectors/shabal/kat.txt`.
fn kat_512(message_hex: &str, bits: usize) -> String {
    let text = std::fs::read_to_string(workspace().join("vectors/shabal/kat.txt")).unwrap();
    let msg = if bits == 0 { "00" } else { message_hex };
    text.lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() >= 4 && w[0] == "512" && w[1] == bits.to_string() && w[2] == msg)
                .then(|| w[3].to_string())
        })
        .expect("a KAT line")
}

/// 150 bytes: three padded blocks.
fn long_hex() -> String {
    (0..150u8).map(|b| format!("{b:02x}")).collect()
}

/// Simulates the generated Verilog of `preset` on the messages (the first, then `--more`),
/// keeps its VCD and checks the digests `sim` prints against `expected`.
fn simulate(preset: &str, messages: &[&str], expected: &[String], tmp: &Path) -> PathBuf {
    let vcd = tmp.join(format!("{preset}-{}.vcd", messages.len()));
    let mut cmd = skeinhw();
    cmd.args(["sim", "--schedule", preset, "--hex", messages[0]]);
    for m in &messages[1..] {
        cmd.args(["--more", m]);
    }
    let a = cmd
        .arg("--rtl-dir")
        .arg(workspace().join("crates/rtl/generated").join(preset))
        .arg("--vcd")
        .arg(&vcd)
        .arg("--force")
        .assert()
        .success();
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    let digests: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(digests, expected, "{preset}: {out}");
    vcd
}

/// `diff --align event` of `vcd` against the golden `preset` on the messages; (exit, stdout
/// and stderr).
fn diff(vcd: &Path, preset: &str, messages: &[&str], extra: &[&str]) -> (i32, String) {
    let mut cmd = skeinhw();
    cmd.arg("diff").arg(vcd).args([
        "--schedule",
        preset,
        "--hex",
        messages[0],
        "--align",
        "event",
    ]);
    for m in &messages[1..] {
        cmd.args(["--more", m]);
    }
    let out = cmd.args(extra).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

const STRIP: [&str; 2] = ["--strip-prefix", "skeinhw_tb.dut."];

#[test]
fn generated_shabal_verilog_is_identical_by_events() {
    if !iverilog() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let long = long_hex();
    let long_digest = hex::encode(rustcrypto_shabal::Shabal512::digest(
        (0..150u8).collect::<Vec<u8>>(),
    ));
    let presets: Vec<&str> = if std::env::var_os("SKEINHW_SLOW").is_some() {
        vec![
            "shabal-unfold-1",
            "shabal-unfold-2",
            "shabal-unfold-3",
            "shabal-unfold-4",
            "shabal-unfold-6",
            "shabal-unfold-8",
        ]
    } else {
        vec!["shabal-unfold-1", "shabal-unfold-4"]
    };
    for preset in presets {
        let vcd = simulate(
            preset,
            &[&long],
            std::slice::from_ref(&long_digest),
            tmp.path(),
        );
        // The same schedule and another unfolding (another latency) as the golden model.
        for golden in [preset, "shabal-unfold-6"] {
            let (code, out) = diff(&vcd, golden, &[&long], &STRIP);
            assert_eq!(code, 0, "{preset} vs {golden}: {out}");
            assert!(
                out.contains(
                    "IDENTICAL (event alignment): 18 of 18 expected events matched, 1 digest(s)"
                ),
                "{out}"
            );
            assert!(
                out.contains("stream 0, message blocks 0-2: a, b, c after the round"),
                "{out}"
            );
            assert!(
                out.contains("stream 0, final rounds 0-2: a, b, c after the round, digest"),
                "{out}"
            );
        }
    }
}

#[test]
fn several_messages_back_to_back_are_identical_by_events() {
    if !iverilog() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Three KAT messages: one stream each, back to back.
    let messages = ["1f877c", "", "1f877c"];
    let expected = [kat_512("1f877c", 24), kat_512("", 0), kat_512("1f877c", 24)];
    let vcd = simulate("shabal-unfold-3", &messages, &expected, tmp.path());
    let (code, out) = diff(&vcd, "shabal-unfold-8", &messages, &STRIP);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("IDENTICAL (event alignment): 36 of 36 expected events matched, 3 digest(s)"),
        "{out}"
    );
    assert!(out.contains("stream 2, final rounds 0-2"), "{out}");
    // The golden side with one message fewer: the third digest is none of the expected ones.
    let (code, out) = diff(&vcd, "shabal-unfold-8", &messages[..2], &STRIP);
    assert_eq!(code, 1, "{out}");
}

/// Flips bit `bit` of the `nth` value change of `signal` in a VCD (a vector value line).
fn flip(vcd: &Path, signal: &str, nth: usize, bit: usize, out: &Path) {
    let text = std::fs::read_to_string(vcd).unwrap();
    let id = text
        .lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"$var") && w.get(4) == Some(&signal)).then(|| w[3].to_string())
        })
        .expect("the signal is declared");
    let mut n = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let Some((value, ident)) = l.strip_prefix('b').and_then(|r| r.split_once(' ')) else {
                return l.to_string();
            };
            if ident != id || value.contains(['x', 'z', 'X', 'Z']) {
                return l.to_string();
            }
            n += 1;
            if n != nth + 1 {
                return l.to_string();
            }
            let mut bits: Vec<u8> = format!("{value:0>32}").into_bytes();
            let i = bits.len() - 1 - bit;
            bits[i] ^= 1;
            format!("b{} {ident}", String::from_utf8(bits).unwrap())
        })
        .collect();
    assert!(n > nth, "{signal} changes {n} times");
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_flipped_state_bit_is_named_at_its_block_and_word() {
    if !iverilog() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let long = long_hex();
    let digest = hex::encode(rustcrypto_shabal::Shabal512::digest(
        (0..150u8).collect::<Vec<u8>>(),
    ));
    let vcd = simulate("shabal-unfold-4", &[&long], &[digest], tmp.path());
    // C changes once per pass (P only reads it): after X at time 0, the reset value, then the
    // state after each pass. Change 3: after message block 2.
    let bad = tmp.path().join("bad.vcd");
    flip(&vcd, "c_5", 3, 17, &bad);
    let (code, out) = diff(&bad, "shabal-unfold-1", &[&long], &STRIP);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "DIVERGENT (event alignment): stream 0, message block 2, after the round: never seen \
             in c_*; last matching event message block 1"
        ),
        "{out}"
    );
    let marked: Vec<&str> = out.lines().filter(|l| l.ends_with("<-- differs")).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(marked[0].trim_start().starts_with("c_5 "), "{out}");
    // The same fault in cycle alignment, on the same schedule.
    let a = skeinhw()
        .arg("diff")
        .arg(&bad)
        .args(["--schedule", "shabal-unfold-4", "--hex", &long])
        .args(STRIP)
        .arg("--allow-trailing")
        .assert()
        .code(1);
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(out.contains("c_5"), "{out}");
}

#[test]
fn wrong_or_empty_maps_exit_2_naming_the_field() {
    if !iverilog() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let vcd = simulate(
        "shabal-unfold-4",
        &["1f877c"],
        &[kat_512("1f877c", 24)],
        tmp.path(),
    );
    let generated: Value = serde_json::from_str(
        &std::fs::read_to_string(
            workspace().join("crates/rtl/generated/shabal-unfold-4/signal_map.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let write = |name: &str, map: &Value| -> PathBuf {
        let p = tmp.path().join(name);
        std::fs::write(&p, map.to_string()).unwrap();
        p
    };
    // The generator's map names fields event alignment cannot use (phase, m_0, w, ...).
    let path = write("generated.json", &generated);
    let (code, out) = diff(
        &vcd,
        "shabal-unfold-4",
        &["1f877c"],
        &["--map", path.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("map field '") && out.contains("cycle alignment only"),
        "{out}"
    );

    // Its A, B, C and digest part is a good map.
    let mut good = generated.clone();
    good["fields"].as_object_mut().unwrap().retain(|f, _| {
        f.starts_with("out_data_")
            || f == "out_valid"
            || ["a_", "b_", "c_"].iter().any(|p| f.starts_with(p))
    });
    good.as_object_mut()
        .unwrap()
        .remove("strip_prefix_verilator");
    let path = write("good.json", &good);
    let (code, out) = diff(
        &vcd,
        "shabal-unfold-4",
        &["1f877c"],
        &["--map", path.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{out}");

    type Change = Box<dyn Fn(&mut Value)>;
    let cases: [(&str, Change, &str); 5] = [
        (
            "unknown field",
            Box::new(|m| m["fields"]["z_0"] = "a_0[31:0]".into()),
            "map field 'z_0'",
        ),
        (
            "missing signal",
            Box::new(|m| m["fields"]["b_4"] = "no_such_reg[31:0]".into()),
            "no_such_reg",
        ),
        (
            "one word missing",
            Box::new(|m| {
                m["fields"].as_object_mut().unwrap().remove("c_9");
            }),
            "map field 'c_9'",
        ),
        (
            "a Skein view",
            Box::new(|m| m["fields"]["slot0_state_0"] = "a_0[31:0]".into()),
            "map field 'slot0_state_0'",
        ),
        (
            "empty",
            Box::new(|m| m["fields"] = serde_json::json!({})),
            "no fields",
        ),
    ];
    for (what, change, says) in cases {
        let mut m = good.clone();
        change(&mut m);
        let path = write("case.json", &m);
        let (code, out) = diff(
            &vcd,
            "shabal-unfold-4",
            &["1f877c"],
            &["--map", path.to_str().unwrap()],
        );
        assert_eq!(code, 2, "{what}: {out}");
        assert!(out.contains(says), "{what}: {out}");
        assert_eq!(out.trim().lines().count(), 1, "{what}: one line: {out}");
    }

    // Words reversed, or B mapped to C's registers: a divergence, never IDENTICAL.
    let mut reversed = good.clone();
    for i in 0..16 {
        reversed["fields"][format!("b_{i}")] = format!("b_{}[31:0]", 15 - i).into();
    }
    let path = write("reversed.json", &reversed);
    let (code, out) = diff(
        &vcd,
        "shabal-unfold-4",
        &["1f877c"],
        &["--map", path.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{out}");
    let mut swapped = good.clone();
    for i in 0..16 {
        swapped["fields"][format!("b_{i}")] = format!("c_{i}[31:0]").into();
    }
    let path = write("swapped.json", &swapped);
    let (code, out) = diff(
        &vcd,
        "shabal-unfold-4",
        &["1f877c"],
        &["--map", path.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn map_finds_the_generated_shabal_maps_and_the_diff_with_them_is_identical() {
    if !iverilog() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let long = long_hex();
    let digest = hex::encode(rustcrypto_shabal::Shabal512::digest(
        (0..150u8).collect::<Vec<u8>>(),
    ));
    for preset in ["shabal-unfold-2", "shabal-unfold-8"] {
        let vcd = simulate(preset, &[&long], std::slice::from_ref(&digest), tmp.path());
        let written: Value = serde_json::from_str(
            &std::fs::read_to_string(
                workspace()
                    .join("crates/rtl/generated")
                    .join(preset)
                    .join("signal_map.json"),
            )
            .unwrap(),
        )
        .unwrap();
        // The golden model of the same schedule (cycle alignment fits) and of another one.
        for golden in [preset, "shabal-unfold-4"] {
            let map = tmp.path().join(format!("{preset}-{golden}.json"));
            let a = skeinhw()
                .arg("map")
                .arg(&vcd)
                .args(["--schedule", golden, "--hex", &long, "-o"])
                .arg(&map)
                .assert()
                .success();
            let report = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
            let found: Value =
                serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
            let fields = found["fields"].as_object().unwrap();
            // 12 + 16 + 16 state words, 16 digest words and out_valid, each the generator's.
            assert_eq!(fields.len(), 61, "{preset}/{golden}: {report}");
            for (field, probe) in fields {
                assert_eq!(
                    Some(probe),
                    written["fields"].get(field),
                    "{preset}/{golden}: {field}"
                );
            }
            for k in ["scope", "clock"] {
                assert_eq!(found[k], written[k], "{preset}/{golden}: {k}");
            }
            if golden == preset {
                assert_eq!(found["reset_cycles"], written["reset_cycles"], "{report}");
            } else {
                assert!(found.get("reset_cycles").is_none(), "{report}");
            }
            let (code, out) = diff(&vcd, golden, &[&long], &["--map", map.to_str().unwrap()]);
            assert_eq!(code, 0, "{preset}/{golden}: {out}");
            assert!(out.contains("18 of 18 expected events matched"), "{out}");
            if golden == preset {
                let a = skeinhw()
                    .arg("diff")
                    .arg(&vcd)
                    .args([
                        "--schedule",
                        golden,
                        "--hex",
                        &long,
                        "--allow-trailing",
                        "--map",
                    ])
                    .arg(&map)
                    .assert()
                    .success();
                let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
                assert!(out.starts_with("IDENTICAL"), "{out}");
            }
        }
    }
    // Another message: nothing found, nothing written, exit 2.
    let vcd = tmp.path().join("shabal-unfold-2-1.vcd");
    let map = tmp.path().join("none.json");
    skeinhw()
        .arg("map")
        .arg(&vcd)
        .args(["--schedule", "shabal-unfold-2", "--hex", "616263", "-o"])
        .arg(&map)
        .assert()
        .code(2);
    assert!(!map.exists());
}
