//! Running Yosys: Verilog files in, a JSON netlist for the Virtex-5 out.
//!
//! The script is the issue's, with two additions that do not change the logic: cell library
//! black boxes are deleted before `write_json` (they would add 9 MB of module stubs to every
//! netlist; the reader knows the pins of the cells it counts), and `stat` is printed to the log;
//! and one option that does, `-nowidelut`.
//!
//! Why `-nowidelut`: without it, `abc` maps onto "LUTs" of 7 and 8 inputs (LUT6 pairs and
//! quads joined by MUXF7/MUXF8) whenever its area costs tie, and its area recovery then swings
//! the LUT count by a quarter between designs with the same structure: the generated RTL of
//! `ath-1r` and `long-iter-512` (the same Threefish-512 round unit, one differing only in the
//! first-subkey cycle) came out at 12,188 and 15,225 LUTs (2,104 and 5,683 MUXF7s, 711 and
//! 2,501 MUXF8s, 0 and 1,410 LUT1 route-throughs). With `-nowidelut` (LUT6 only) they are
//! 9,913 and 10,099 LUTs, a count a structural model can predict, and closer to what ISE
//! makes of the same logic. It is still `synth_xilinx -family xc5v` (CARRY4, FDRE, LUT1-6),
//! and faster: Yosys CPU time over the 14 presets synthesized both ways fell by 2% to 37%
//! (`ath-8r` 61.0 to 47.0 s, `long-unroll4-512` 56.3 to 35.5 s, `long-iter-512` 34.3 to
//! 27.3 s). Profiled with `yosys -d`, no pass dominates: `abc` takes a quarter of the time,
//! `opt_expr` a sixth, `opt_clean`, `techmap` and `clean` 5-10% each, `read_verilog` 5%;
//! `-noiopad`, `-nodsp` and `-nobram` change nothing measurable on these designs (no memories,
//! no multipliers), so they are not used.
//! Debian's Yosys 0.23 accepts `-family xc5v` (listed as experimental: it maps to LUT6,
//! CARRY4, MUXF7/F8 and FDRE/FDSE/FDCE/FDPE like the 7-series flow, which is what a Virtex-5
//! slice has); older releases spelled it `-arch`, which 0.23 no longer lists.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::error::EstimatorError;

/// How to install Yosys, for the error when it is missing.
pub const INSTALL_HINT: &str =
    "install it with `apt-get install yosys` or `./scripts/install-deps.sh`";

/// The Yosys program (`$SKEINHW_YOSYS` or `yosys` on the PATH).
pub fn program() -> PathBuf {
    std::env::var_os("SKEINHW_YOSYS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("yosys"))
}

/// The Yosys version line, or `None` when Yosys cannot be run.
pub fn version() -> Option<String> {
    let out = Command::new(program()).arg("-V").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The Yosys script that synthesizes `verilog` (top module `top`) into `out`.
pub fn script(verilog: &[PathBuf], top: &str, out: &Path) -> String {
    let files: Vec<String> = verilog.iter().map(|p| quote(p)).collect();
    format!(
        "read_verilog {}; synth_xilinx -family xc5v -flatten -nowidelut -top {top}; \
         delete =A:blackbox; \
         stat; write_json {}",
        files.join(" "),
        quote(out)
    )
}

fn quote(p: &Path) -> String {
    let s = p.display().to_string();
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s
    } else {
        format!("\"{}\"", s.replace('"', "\\\""))
    }
}

/// Synthesizes `verilog` with top module `top` into the JSON netlist `out`; the Yosys log goes
/// to `out` with `.log` appended. Returns how long Yosys ran.
pub fn synthesize(verilog: &[PathBuf], top: &str, out: &Path) -> Result<Duration, EstimatorError> {
    let prog = program();
    let log = {
        let mut s = out.as_os_str().to_owned();
        s.push(".log");
        PathBuf::from(s)
    };
    let start = Instant::now();
    let result = Command::new(&prog)
        .arg("-q")
        .arg("-l")
        .arg(&log)
        .arg("-p")
        .arg(script(verilog, top, out))
        .output();
    let output = match result {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(EstimatorError::Yosys(format!(
                "`{}` not found: {INSTALL_HINT}",
                prog.display()
            )));
        }
        Err(e) => {
            return Err(EstimatorError::Yosys(format!(
                "cannot run `{}`: {e}",
                prog.display()
            )));
        }
    };
    let elapsed = start.elapsed();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with("ERROR"))
            .or_else(|| stderr.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or("no message");
        return Err(EstimatorError::Yosys(format!(
            "synthesis of `{top}` failed ({}): {first} (log: {})",
            output.status,
            log.display()
        )));
    }
    Ok(elapsed)
}
