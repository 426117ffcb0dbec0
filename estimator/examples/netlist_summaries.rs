//! Synthesizes the generated Verilog of presets with Yosys (one at a time) and writes their
//! netlist summaries to `estimator/data/netlists/`.
//!
//! ```text
//! cargo run --release -p skeinhw-estimator --example netlist_summaries [-- [--from DIR] [PRESET...]]
//! ```
//!
//! With no preset, every preset. `--from DIR` reads netlists made earlier with the same
//! script (`DIR/<preset>.json`, the Yosys log beside it as `<preset>.json.log`) instead of
//! running Yosys.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skeinhw_estimator::netlist::summary::{self, NetlistSummary};
use skeinhw_estimator::netlist::yosys;

/// CPU seconds from the last line of a Yosys log (`CPU: user 26.73s system 0.48s`).
fn log_seconds(log: &Path) -> f64 {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let Some(line) = text.lines().rev().find(|l| l.contains("CPU: user")) else {
        return 0.0;
    };
    let mut words = line.split_whitespace();
    let mut total = 0.0;
    while let Some(w) = words.next() {
        if (w == "user" || w == "system")
            && let Some(v) = words.next()
        {
            total += v.trim_end_matches(['s', ',']).parse::<f64>().unwrap_or(0.0);
        }
    }
    total
}

fn run() -> Result<(), String> {
    let mut from: Option<PathBuf> = None;
    let mut presets = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--from" {
            from = Some(args.next().ok_or("--from needs a directory")?.into());
        } else {
            presets.push(a);
        }
    }
    if presets.is_empty() {
        presets = skeinhw_sched::preset_names().map(str::to_owned).collect();
    }
    let work = std::env::temp_dir().join(format!("skeinhw-netlists-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    for p in &presets {
        let verilog = summary::verilog_path(p);
        let (json, seconds) = match &from {
            Some(dir) => {
                let json = dir.join(format!("{p}.json"));
                let secs = log_seconds(&dir.join(format!("{p}.json.log")));
                (json, secs)
            }
            None => {
                let json = work.join(format!("{p}.json"));
                let t = yosys::synthesize(std::slice::from_ref(&verilog), summary::TOP, &json)
                    .map_err(|e| e.to_string())?;
                (json, t.as_secs_f64())
            }
        };
        let s = NetlistSummary::make(p, &verilog, &json, seconds).map_err(|e| e.to_string())?;
        let out = summary::summary_path(p);
        s.save(&out).map_err(|e| e.to_string())?;
        eprintln!(
            "{p:<18} {:>6} LUTs {:>6} FFs {:>5} CARRY4 period {:.2} ns ({:.0} s of Yosys) -> {}",
            s.luts,
            s.ffs,
            s.carry4,
            s.period_ns,
            s.yosys_seconds,
            out.display()
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
