//! The simulator runners: Icarus Verilog (`iverilog -g2005`, `vvp -n`) and Verilator
//! (`verilator --binary --trace`), building a design directory's `skeinhw.v` and
//! `skeinhw_tb.v`, running the test bench on an input file and reading its digests.
//!
//! Builds can be cached by content: [`build_cached`] keys a build directory by a hash of the
//! two Verilog files and the simulator, so that tests share one Verilator build per design.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{DESIGN_FILE, RtlError, TESTBENCH_FILE};

/// A Verilog simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simulator {
    /// Icarus Verilog: `iverilog -g2005`, then `vvp -n`.
    Icarus,
    /// Verilator: `verilator --binary --trace` (a C++ model), then the binary.
    Verilator,
}

impl Simulator {
    /// The name on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Simulator::Icarus => "icarus",
            Simulator::Verilator => "verilator",
        }
    }

    /// The prefix the simulator's VCD puts before the test bench's scope.
    pub const fn vcd_prefix(self) -> Option<&'static str> {
        match self {
            Simulator::Icarus => None,
            Simulator::Verilator => Some(crate::VERILATOR_PREFIX),
        }
    }
}

impl std::str::FromStr for Simulator {
    type Err = RtlError;
    fn from_str(s: &str) -> Result<Self, RtlError> {
        match s {
            "icarus" | "iverilog" => Ok(Simulator::Icarus),
            "verilator" => Ok(Simulator::Verilator),
            _ => Err(RtlError::Input(format!(
                "'{s}' is not a simulator; allowed: icarus, verilator"
            ))),
        }
    }
}

/// A built simulation: how to run it.
#[derive(Clone, Debug)]
pub struct Built {
    /// The simulator.
    pub simulator: Simulator,
    /// The build directory.
    pub dir: PathBuf,
    program: PathBuf,
    args: Vec<String>,
}

/// What a run printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOutput {
    /// Per output: stream, golden cycle, the digest's words (bytes: each word little-endian).
    pub digests: Vec<(u32, u64, Vec<u64>)>,
    /// The cycle of the last output.
    pub cycles: u64,
    /// Everything the simulation printed.
    pub log: String,
    /// The cycle at which the test bench gave up (`+max_cycles`) with digests still missing:
    /// the design hung.
    pub timeout: Option<u64>,
    /// Digest lines with X or Z in them (left out of `digests`; the VCD comparison names the
    /// register and the cycle).
    pub unknown_digests: Vec<String>,
    /// The registers right after reset, as the test bench printed them: (name, hex digits,
    /// x/z included).
    pub reset: Vec<(String, String)>,
}

/// How long a run may go: the test bench's plusargs `+max_cycles` and `+trail`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunLimits {
    /// Stop at this cycle if the digests are not all out (`timeout N`); `None`: the test
    /// bench's `MAX_CYCLES` (100 million).
    pub max_cycles: Option<u64>,
    /// Idle cycles to run after the last digest (their registers are compared too).
    pub trail: u64,
}

impl RunOutput {
    /// The digest of `stream` as bytes.
    pub fn digest_bytes(&self, stream: u32) -> Option<Vec<u8>> {
        self.digests
            .iter()
            .find(|(s, _, _)| *s == stream)
            .map(|(_, _, w)| w.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
}

impl RunOutput {
    /// The digest of `stream` of `out_bits` bits: its Output blocks in the order printed, cut to
    /// ceil(out_bits / 8) bytes, a partial last byte's unused low bits zeroed (as the library
    /// returns it); `None` if the run printed fewer Output blocks than that takes.
    pub fn output_bytes(&self, stream: u32, out_bits: u64) -> Option<Vec<u8>> {
        let mut out: Vec<u8> = self
            .digests
            .iter()
            .filter(|(s, _, _)| *s == stream)
            .flat_map(|(_, _, w)| w.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        let len = usize::try_from(out_bits.div_ceil(8)).ok()?;
        if out.len() < len {
            return None;
        }
        out.truncate(len);
        if let Some(last) = out.last_mut().filter(|_| !out_bits.is_multiple_of(8)) {
            *last &= 0xFF << (8 - out_bits % 8);
        }
        Some(out)
    }
}

fn tool(cmd: &mut Command, name: &str) -> Result<String, RtlError> {
    let out = cmd.output().map_err(|e| RtlError::Tool {
        tool: name.into(),
        message: format!("cannot run it ({e}); install it (scripts/install-deps.sh)"),
    })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        let head: Vec<&str> = text.lines().take(20).collect();
        return Err(RtlError::Tool {
            tool: name.into(),
            message: format!("failed ({}): {}", out.status, head.join(" | ")),
        });
    }
    Ok(text)
}

/// `verilator --lint-only -Wall` on the design file of `dir`.
pub fn lint(dir: &Path) -> Result<String, RtlError> {
    tool(
        Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "skeinhw"])
            .arg(dir.join(DESIGN_FILE)),
        "verilator --lint-only",
    )
}

/// Builds the design and test bench of `src` with `simulator` into `out` (created).
/// `max_blocks` sizes the test bench's block memory (its default is 4096).
pub fn build(
    simulator: Simulator,
    src: &Path,
    out: &Path,
    max_blocks: Option<usize>,
) -> Result<Built, RtlError> {
    std::fs::create_dir_all(out).map_err(|e| RtlError::io(out, e))?;
    let design = src.join(DESIGN_FILE);
    let tb = src.join(TESTBENCH_FILE);
    for f in [&design, &tb] {
        if !f.is_file() {
            return Err(RtlError::io(
                f.clone(),
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            ));
        }
    }
    match simulator {
        Simulator::Icarus => {
            let vvp = out.join("skeinhw_tb.vvp");
            let mut cmd = Command::new("iverilog");
            cmd.args(["-g2005", "-s", "skeinhw_tb", "-o"]).arg(&vvp);
            if let Some(m) = max_blocks {
                cmd.arg(format!("-Pskeinhw_tb.MAX_BLOCKS={m}"));
            }
            cmd.arg(&design).arg(&tb);
            tool(&mut cmd, "iverilog")?;
            Ok(Built {
                simulator,
                dir: out.to_owned(),
                program: PathBuf::from("vvp"),
                args: vec!["-n".into(), vvp.display().to_string()],
            })
        }
        Simulator::Verilator => {
            let obj = out.join("obj");
            let mut cmd = Command::new("verilator");
            cmd.args([
                "--binary",
                "-O1",
                "-j",
                "2",
                "--trace",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "--top-module",
                "skeinhw_tb",
                "-o",
                "Vskeinhw_tb",
                "--Mdir",
            ])
            .arg(&obj)
            // The C++ optimiser costs more build time than the short test runs win back.
            .arg("-CFLAGS")
            .arg("-O0");
            if let Some(m) = max_blocks {
                cmd.arg(format!("-GMAX_BLOCKS={m}"));
            }
            cmd.arg(&design).arg(&tb);
            tool(&mut cmd, "verilator")?;
            Ok(Built {
                simulator,
                dir: out.to_owned(),
                program: obj.join("Vskeinhw_tb"),
                args: Vec::new(),
            })
        }
    }
}

/// Builds into `cache_root/<simulator>-<hash of the sources>` unless that build exists; safe
/// when several threads or processes ask for the same build (each builds in a temporary
/// directory and renames it into place).
pub fn build_cached(
    simulator: Simulator,
    src: &Path,
    cache_root: &Path,
) -> Result<Built, RtlError> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    simulator.hash(&mut h);
    for f in [DESIGN_FILE, TESTBENCH_FILE] {
        let p = src.join(f);
        std::fs::read(&p)
            .map_err(|e| RtlError::io(p, e))?
            .hash(&mut h);
    }
    let key = format!("{}-{:016x}", simulator.as_str(), h.finish());
    let dir = cache_root.join(&key);
    let done = dir.join("built");
    if !done.is_file() {
        std::fs::create_dir_all(cache_root).map_err(|e| RtlError::io(cache_root, e))?;
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{key}-"))
            .tempdir_in(cache_root)
            .map_err(|e| RtlError::io(cache_root, e))?;
        // Verilator bakes no absolute paths into the binary; Icarus's .vvp is self-contained.
        build(simulator, src, tmp.path(), None)?;
        std::fs::write(tmp.path().join("built"), b"").map_err(|e| RtlError::io(tmp.path(), e))?;
        let tmp_path = tmp.keep();
        if std::fs::rename(&tmp_path, &dir).is_err() {
            // Another build won the race: use it.
            let _ = std::fs::remove_dir_all(&tmp_path);
        }
    }
    let built = match simulator {
        Simulator::Icarus => Built {
            simulator,
            dir: dir.clone(),
            program: PathBuf::from("vvp"),
            args: vec![
                "-n".into(),
                dir.join("skeinhw_tb.vvp").display().to_string(),
            ],
        },
        Simulator::Verilator => Built {
            simulator,
            dir: dir.clone(),
            program: dir.join("obj").join("Vskeinhw_tb"),
            args: Vec::new(),
        },
    };
    Ok(built)
}

/// Runs a built simulation on `input` (a [`crate::stimulus`] file), writing its VCD to `vcd`.
pub fn run(built: &Built, input: &Path, vcd: &Path) -> Result<RunOutput, RtlError> {
    run_limited(built, input, vcd, RunLimits::default())
}

/// [`run`] within `limits`: a design that has not put out every digest by
/// `limits.max_cycles` stops there ([`RunOutput::timeout`]), and `limits.trail` idle cycles
/// follow the last digest.
pub fn run_limited(
    built: &Built,
    input: &Path,
    vcd: &Path,
    limits: RunLimits,
) -> Result<RunOutput, RtlError> {
    let mut cmd = Command::new(&built.program);
    cmd.args(&built.args)
        .arg(format!("+input={}", input.display()))
        .arg(format!("+vcd={}", vcd.display()));
    if let Some(m) = limits.max_cycles {
        // The test bench counts in a 32-bit integer.
        cmd.arg(format!("+max_cycles={}", m.min(i32::MAX as u64)));
    }
    if limits.trail > 0 {
        cmd.arg(format!("+trail={}", limits.trail.min(i32::MAX as u64)));
    }
    let log = tool(&mut cmd, built.simulator.as_str())?;
    parse_output(&log)
}

fn parse_output(log: &str) -> Result<RunOutput, RtlError> {
    let mut out = RunOutput {
        log: log.to_owned(),
        ..RunOutput::default()
    };
    let mut finished = false;
    for line in log.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("error: ") {
            return Err(RtlError::Output(format!("the test bench says: {rest}")));
        }
        if let Some(rest) = line.strip_prefix("reset ") {
            let mut it = rest.split_whitespace();
            if let (Some(name), Some(value), None) = (it.next(), it.next(), it.next()) {
                out.reset.push((name.to_owned(), value.to_owned()));
                continue;
            }
            return Err(RtlError::Output(format!("bad reset line '{line}'")));
        }
        if let Some(rest) = line.strip_prefix("digest ") {
            if rest.bytes().any(|c| matches!(c, b'x' | b'X' | b'z' | b'Z')) {
                out.unknown_digests.push(line.to_owned());
                continue;
            }
            let mut it = rest.split_whitespace();
            let bad = || RtlError::Output(format!("bad digest line '{line}'"));
            let stream: u32 = it.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
            let cycle: u64 = it.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
            let words: Vec<u64> = it
                .map(|w| u64::from_str_radix(w, 16))
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            out.digests.push((stream, cycle, words));
        } else if let Some(rest) = line.strip_prefix("cycles ") {
            out.cycles = rest
                .trim()
                .parse()
                .map_err(|_| RtlError::Output(format!("bad line '{line}'")))?;
            finished = true;
        } else if let Some(rest) = line.strip_prefix("timeout ") {
            out.timeout = Some(
                rest.trim()
                    .parse()
                    .map_err(|_| RtlError::Output(format!("bad line '{line}'")))?,
            );
            finished = true;
        }
    }
    if !finished {
        let tail: Vec<&str> = log.lines().rev().take(5).collect();
        return Err(RtlError::Output(format!(
            "the simulation ended without its 'cycles' line: {}",
            tail.join(" | ")
        )));
    }
    Ok(out)
}
