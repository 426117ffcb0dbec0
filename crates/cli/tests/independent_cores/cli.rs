//! Running the `skeinhw` binary on the cores' waveforms: `map` alone, `diff` with a map, as a
//! user would with the schedule closest to each core.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::sim::{Core, compile, messages, run, rustcrypto};

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

/// What a `skeinhw` run gave: exit status, stdout, stderr.
pub struct Outcome {
    pub code: i32,
    pub out: String,
    pub err: String,
}

impl Outcome {
    pub fn identical(&self) -> bool {
        self.code == 0 && self.out.lines().any(|l| l.starts_with("IDENTICAL"))
    }

    pub fn text(&self) -> String {
        format!("exit {}\n{}{}", self.code, self.out, self.err)
    }
}

fn outcome(c: &mut Command) -> Outcome {
    let o = c.output().unwrap();
    Outcome {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `skeinhw diff VCD --align ALIGN --map MAP` against the core's golden schedule.
pub fn diff(core: Core, vcd: &Path, hex: &str, map: &Path, align: &str) -> Outcome {
    diff_with(core, vcd, hex, map, align, &[])
}

/// [`diff`] with `extra` arguments (`--partial`).
pub fn diff_with(
    core: Core,
    vcd: &Path,
    hex: &str,
    map: &Path,
    align: &str,
    extra: &[&str],
) -> Outcome {
    let (preset, set, _) = core.schedule();
    outcome(
        skeinhw()
            .arg("diff")
            .arg(vcd)
            .args(["--schedule", preset])
            .args(set)
            .args(["--hex", hex, "--align", align, "--map"])
            .arg(map)
            .args(extra),
    )
}

/// `skeinhw map VCD` with the flags a user would give for the core; the map written, if any.
pub fn map_alone(core: Core, vcd: &Path, hex: &str, out: &Path) -> (Outcome, Option<Value>) {
    let (preset, _, flags) = core.schedule();
    let o = outcome(
        skeinhw()
            .arg("map")
            .arg(vcd)
            .args(["--schedule", preset])
            .args(flags)
            .args(["--hex", hex, "-o"])
            .arg(out)
            .arg("--force"),
    );
    let map = std::fs::read_to_string(out)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (o, map)
}

pub fn read_map(core: Core) -> Value {
    serde_json::from_str(&std::fs::read_to_string(core.map()).unwrap()).unwrap()
}

pub fn write_json(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

/// The core (with `defines`), simulated on each of the four messages: (message, hex, VCD).
pub fn simulated(core: Core, defines: &[&str], dir: &Path) -> Vec<(&'static str, String, PathBuf)> {
    let bin = compile(core, defines, dir);
    messages()
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let (vcd, digest) = run(&bin, &m.bytes, dir, &format!("m{i}"));
            assert_eq!(hex::encode(digest), hex::encode(rustcrypto(&m.bytes)));
            (m.what, m.hex(), vcd)
        })
        .collect()
}

/// The field's signal, whether written as a string or as an object.
pub fn signal(map: &Value, field: &str) -> Option<String> {
    let f = &map["fields"][field];
    f.as_str()
        .or_else(|| f["signal"].as_str())
        .map(str::to_string)
}

pub fn slice(sig: &str, w: usize) -> String {
    format!("{sig}[{}:{}]", 64 * w + 63, 64 * w)
}

/// The hand-written map as the mutant and wrong-map tests use it: for the before-injection
/// core without its serial digest port (no mutant acts there first, and the registers alone
/// must catch each).
pub fn base_map(core: Core) -> Value {
    let mut map = read_map(core);
    map.as_object_mut().unwrap().remove("digest_serial");
    map
}
