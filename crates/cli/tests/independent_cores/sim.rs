//! Simulating the independent cores of `crates/diff/tests/data/cores/` in Icarus, and the
//! messages and expected digests they are checked with (official known-answer file, RustCrypto).

use std::path::{Path, PathBuf};
use std::process::Command;

use rustcrypto_skein::Digest;

pub const CORES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../diff/tests/data/cores");
const KAT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vectors/skein/ShortMsgKAT_512.txt"
);

/// The three cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Core {
    /// `skein512_before.v`: one round per clock, state before injection, rotating rings,
    /// Config computed, serial byte-swapped digest.
    Before,
    /// `skein512_u8.v`: unroll 8, state after every other injection, fixed key and tweak,
    /// hard-coded IV, parallel digest.
    U8,
    /// `skein512_cyc.v`: `ath-8r` cycle for cycle (no subkey-0 cycle, Config precomputed),
    /// state after injection in reverse word order, key and tweak registered whole (k_8, t_2
    /// too), hard-coded IV, parallel big-endian digest.
    Cyc,
}

impl Core {
    pub fn name(self) -> &'static str {
        match self {
            Core::Before => "skein512_before",
            Core::U8 => "skein512_u8",
            Core::Cyc => "skein512_cyc",
        }
    }

    /// The hand-written map beside the core.
    pub fn map(self) -> PathBuf {
        Path::new(CORES).join(format!("{}.map.json", self.name()))
    }

    /// The golden schedule closest to the core, as a user would pick it: a preset and its
    /// overrides for `diff` (`--set`) and for `map` (its own flags).
    pub fn schedule(
        self,
    ) -> (
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
    ) {
        match self {
            Core::Before => ("ath-1r", &[], &[]),
            Core::U8 => (
                "ath-8r",
                &["--set", "config_precomputed=true"],
                &["--config-precomputed", "true"],
            ),
            Core::Cyc => (
                "ath-8r",
                &[
                    "--set",
                    "config_precomputed=true",
                    "--set",
                    "first_subkey_cycle=false",
                ],
                &[
                    "--config-precomputed",
                    "true",
                    "--first-subkey-cycle",
                    "false",
                ],
            ),
        }
    }
}

/// A message the tests hash.
pub struct Message {
    pub what: &'static str,
    pub bytes: Vec<u8>,
}

impl Message {
    pub fn hex(&self) -> String {
        hex::encode(&self.bytes)
    }
}

/// The four messages of issue 33: empty, "abc", 200 bytes (four blocks, the last of 8 bytes),
/// and the official vector of 1024 bits (two full blocks).
pub fn messages() -> Vec<Message> {
    vec![
        Message {
            what: "empty",
            bytes: Vec::new(),
        },
        Message {
            what: "abc",
            bytes: b"abc".to_vec(),
        },
        Message {
            what: "200 bytes",
            bytes: (0..200u32).map(|i| (i * 7 + 3) as u8).collect(),
        },
        Message {
            what: "two full blocks",
            bytes: kat(1024).0,
        },
    ]
}

/// The message and digest of the official vector `Len = bits` (a whole number of bytes).
pub fn kat(bits: usize) -> (Vec<u8>, Vec<u8>) {
    let text = std::fs::read_to_string(KAT).expect("vectors/skein/ShortMsgKAT_512.txt");
    let head = format!("Len = {bits}\n");
    let at = text.find(&head).expect("vector present");
    let mut lines = text[at + head.len()..].lines();
    let field = |line: Option<&str>, name: &str| -> Vec<u8> {
        let line = line.expect("vector line");
        let value = line.strip_prefix(name).expect(name);
        hex::decode(value.trim()).expect("hex")
    };
    let msg = field(lines.next(), "Msg = ");
    let md = field(lines.next(), "MD = ");
    // The file writes "Msg = 00" for the empty message.
    (if bits == 0 { Vec::new() } else { msg }, md)
}

/// RustCrypto's Skein-512-512 digest (independent of this workspace's Skein).
pub fn rustcrypto(msg: &[u8]) -> Vec<u8> {
    rustcrypto_skein::Skein512_512::digest(msg).to_vec()
}

/// Whether Icarus is installed; if not, says so (the tests then skip).
pub fn iverilog() -> bool {
    let ok = Command::new("iverilog").arg("-V").output().is_ok();
    if !ok {
        eprintln!("SKIPPED: iverilog not found (scripts/install-deps.sh installs it)");
    }
    ok
}

/// Compiles `core` with `defines` (a mutant, `RESET_ONES`) and its bench into `dir`.
pub fn compile(core: Core, defines: &[&str], dir: &Path) -> PathBuf {
    let bin = dir.join(format!("{}-{}", core.name(), defines.join("-")));
    let mut c = Command::new("iverilog");
    c.arg("-g2005").arg("-o").arg(&bin);
    for d in defines {
        c.arg(format!("-D{d}"));
    }
    let out = c
        .arg(Path::new(CORES).join(format!("{}.v", core.name())))
        .arg(Path::new(CORES).join(format!("{}_tb.v", core.name())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    bin
}

/// Runs a compiled bench on `msg`; returns the VCD and the digest the core gave.
pub fn run(bin: &Path, msg: &[u8], dir: &Path, tag: &str) -> (PathBuf, Vec<u8>) {
    let blocks = msg.len().div_ceil(64).max(1);
    let last = msg.len() - 64 * (blocks - 1);
    // One block per line, byte 63 first.
    let text: String = (0..blocks)
        .map(|b| {
            let mut block = msg[64 * b..msg.len().min(64 * b + 64)].to_vec();
            block.resize(64, 0);
            block.reverse();
            hex::encode(block) + "\n"
        })
        .collect();
    let file = dir.join(format!("{tag}.hex"));
    std::fs::write(&file, text).unwrap();
    let vcd = dir.join(format!("{tag}.vcd"));
    let out = Command::new("vvp")
        .arg("-n")
        .arg(bin)
        .arg(format!("+blocks={}", file.display()))
        .arg(format!("+nb={blocks}"))
        .arg(format!("+last={last}"))
        .arg(format!("+vcd={}", vcd.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "vvp: {stdout}");
    let digest = stdout
        .lines()
        .find_map(|l| l.strip_prefix("digest "))
        .unwrap_or_else(|| panic!("no digest: {stdout}"));
    (vcd, hex::decode(digest).unwrap())
}
