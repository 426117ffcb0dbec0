//! `skeinhw estimate`, `skeinhw sweep` and `skeinhw calibrate`: the Virtex-5 estimator of
//! `skeinhw-estimator` on the command line.
//!
//! Output files are written whole or not at all: each goes to a temporary file beside its
//! destination and is renamed into place only when it is complete.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use skeinhw_estimator::calibrate::{self, Report};
use skeinhw_estimator::constants::SOURCE_PATH;
use skeinhw_estimator::sweep::{self, SweepConfig};
use skeinhw_estimator::{Constants, CoreStyle, Estimate, Flow, Options, estimate, plot};
use skeinhw_sched::{RoundDatapath, Schedule};

use crate::Status;

/// Arguments of `estimate`.
#[derive(Args)]
pub struct EstimateArgs {
    /// Preset name or schedule JSON file.
    #[arg(long, value_name = "NAME|FILE.json")]
    schedule: String,
    /// Override the state size (256, 512, 1024).
    #[arg(long, value_name = "N")]
    size: Option<u32>,
    /// Override k, the rounds per pass (unroll factor).
    #[arg(long, value_name = "K")]
    rounds_per_cycle: Option<u32>,
    /// Override p, the functional pipeline stages.
    #[arg(long, value_name = "P")]
    functional_stages: Option<u32>,
    /// Override s, the structural pipeline stages.
    #[arg(long, value_name = "S")]
    structural_stages: Option<u32>,
    /// Override Long's register-per-round pipeline.
    #[arg(long, value_name = "BOOL")]
    round_pipeline: Option<bool>,
    /// Override the round datapath (baseline, half_subkey_adders, ...).
    #[arg(long, value_name = "NAME")]
    round_datapath: Option<RoundDatapath>,
    /// Override Long 3.4.1's shared key-schedule adder.
    #[arg(long, value_name = "BOOL")]
    shared_key_schedule_adder: Option<bool>,
    /// Override Athanasiou's first-subkey cycle.
    #[arg(long, value_name = "BOOL")]
    first_subkey_cycle: Option<bool>,
    /// Override whether the Config UBI is precomputed.
    #[arg(long, value_name = "BOOL")]
    config_precomputed: Option<bool>,
    /// Override any schedule field: `--set FIELD=VALUE` (repeatable).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    sets: Vec<String>,
    /// Core style (default: hash_core when the schedule runs Config, else ubi_core).
    #[arg(long, value_name = "STYLE")]
    style: Option<CoreStyle>,
    /// Tool flow whose routing delays apply.
    #[arg(long, value_name = "FLOW", default_value = "ise13")]
    flow: Flow,
    /// Compute throughput and latency at this clock instead of the estimated one.
    #[arg(long, value_name = "F")]
    freq_mhz: Option<f64>,
    /// Constants file (default: the built-in calibrated constants).
    #[arg(long, value_name = "FILE")]
    constants: Option<PathBuf>,
    /// Count cells of a Yosys JSON netlist (not yet available).
    #[arg(long, value_name = "FILE.json", conflicts_with = "synth")]
    netlist: Option<PathBuf>,
    /// Generate the Verilog and run Yosys on it (not yet available).
    #[arg(long)]
    synth: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Arguments of `sweep`.
#[derive(Args)]
pub struct SweepArgs {
    /// State sizes to sweep.
    #[arg(long, value_delimiter = ',', default_value = "256,512,1024")]
    sizes: Vec<u32>,
    /// Core styles to sweep.
    #[arg(long, value_delimiter = ',', default_value = "hash_core,ubi_core")]
    styles: Vec<CoreStyle>,
    /// Tool flow whose routing delays apply.
    #[arg(long, value_name = "FLOW", default_value = "ise13")]
    flow: Flow,
    /// Write sweep.csv, sweep.json and sweep.svg into this directory.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["csv", "json", "svg"])]
    out_dir: Option<PathBuf>,
    /// Write the points as CSV.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write the points as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the SVG plot (throughput against slices, Pareto front, papers' points).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Constants file (default: the built-in calibrated constants).
    #[arg(long, value_name = "FILE")]
    constants: Option<PathBuf>,
}

/// Arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Rewrite the constants file with the fitted values (comments are kept).
    #[arg(long)]
    write: bool,
    /// The constants file to compare with and rewrite (default: the estimator's own).
    #[arg(long, value_name = "FILE")]
    constants: Option<PathBuf>,
}

fn load_constants(path: Option<&Path>) -> Result<Constants> {
    Ok(match path {
        Some(path) => Constants::from_file(path)?,
        None => Constants::built_in(),
    })
}

/// The schedule named on the command line with its overrides applied and validated again.
fn schedule(args: &EstimateArgs) -> Result<Schedule> {
    let base = Schedule::from_name_or_file(&args.schedule)?;
    let mut overrides: Vec<(String, String)> = Vec::new();
    let mut add = |field: &str, value: Option<String>| {
        if let Some(value) = value {
            overrides.push((field.to_owned(), value));
        }
    };
    add("size", args.size.map(|v| v.to_string()));
    add(
        "rounds_per_cycle",
        args.rounds_per_cycle.map(|v| v.to_string()),
    );
    add(
        "functional_stages",
        args.functional_stages.map(|v| v.to_string()),
    );
    add(
        "structural_stages",
        args.structural_stages.map(|v| v.to_string()),
    );
    add("round_pipeline", args.round_pipeline.map(|v| v.to_string()));
    add("round_datapath", args.round_datapath.map(|v| v.to_string()));
    add(
        "shared_key_schedule_adder",
        args.shared_key_schedule_adder.map(|v| v.to_string()),
    );
    add(
        "first_subkey_cycle",
        args.first_subkey_cycle.map(|v| v.to_string()),
    );
    add(
        "config_precomputed",
        args.config_precomputed.map(|v| v.to_string()),
    );
    for set in &args.sets {
        let Some((field, value)) = set.split_once('=') else {
            bail!("--set {set}: expected FIELD=VALUE");
        };
        overrides.push((field.trim().to_owned(), value.trim().to_owned()));
    }
    if overrides.is_empty() {
        return Ok(base);
    }
    let mut spec = base.into_spec();
    let original = spec.name.clone();
    for (field, value) in &overrides {
        spec.set(field, value)?;
    }
    if !overrides.iter().any(|(f, _)| f == "name") {
        let changed: Vec<String> = overrides.iter().map(|(f, v)| format!("{f}={v}")).collect();
        spec.name = format!("{original}+{}", changed.join("+"));
    }
    Ok(spec.build()?)
}

/// Estimates one schedule.
pub fn run_estimate(args: EstimateArgs) -> Result<Status> {
    if args.netlist.is_some() || args.synth {
        bail!(
            "--netlist and --synth are not yet available: the Yosys netlist path comes with \
             the Verilog generator; use the model (no flag) for now"
        );
    }
    if let Some(f) = args.freq_mhz
        && !(f.is_finite() && f > 0.0)
    {
        bail!("--freq-mhz {f}: expected a positive clock frequency in MHz");
    }
    let constants = load_constants(args.constants.as_deref())?;
    let schedule = schedule(&args)?;
    let options = Options {
        style: args.style,
        flow: args.flow,
    };
    let e = estimate(&schedule, options, &constants, args.freq_mhz);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &e)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", table(&schedule, &e, args.freq_mhz.is_some()))?;
    }
    Ok(0)
}

fn table(schedule: &Schedule, e: &Estimate, given_clock: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let a = &e.adders;
    let cp = &e.critical_path;
    let clock = if given_clock {
        format!("{:.1} MHz (given)", e.clock_mhz)
    } else {
        format!("{:.1} MHz (estimated)", e.clock_mhz)
    };
    let rows: Vec<(&str, String)> = vec![
        ("schedule", e.schedule.clone()),
        (
            "shape",
            format!(
                "Skein-{}, k={} p={} s={}, {}",
                e.size,
                schedule.rounds_per_cycle(),
                schedule.functional_stages(),
                schedule.structural_stages(),
                schedule.round_datapath()
            ),
        ),
        ("style / flow", format!("{} / {}", e.style, e.flow)),
        (
            "adders (64-bit)",
            format!(
                "{} = mix {} + subkey {} + key schedule {} + first subkey {}",
                a.total, a.mix, a.subkey, a.key_schedule, a.first_subkey
            ),
        ),
        ("rotation sets", e.rotation_sets.to_string()),
        ("LUTs", e.luts.to_string()),
        ("CARRY4s", e.carry4.to_string()),
        ("flip-flops", e.ffs.to_string()),
        ("LUT-FF pairs", e.lut_ff_pairs.to_string()),
        ("slices", e.slices.to_string()),
        ("clock period", format!("{:.2} ns", e.period_ns)),
        ("frequency", format!("{:.1} MHz", e.freq_mhz)),
        (
            "critical path",
            format!(
                "{:?} stage {}: {} adders, {} LUT levels, {} MUXF, {} nets = {:.2} logic + {:.2} route ns",
                cp.path,
                cp.stage,
                cp.chain.adders,
                cp.chain.lut_levels,
                cp.chain.muxf,
                cp.chain.nets(),
                cp.logic_ns,
                cp.route_ns
            ),
        ),
        ("cycles per block", e.cycles_per_block.to_string()),
        ("blocks in flight", e.blocks_in_flight.to_string()),
        ("clock used", clock),
        ("latency per block", format!("{:.1} ns", e.latency_ns)),
        ("throughput", format!("{:.1} Mbit/s", e.throughput_mbps)),
        (
            "throughput / area",
            format!(
                "{:.4} Mbit/s per LUT-FF pair, {:.3} Mbit/s per slice",
                e.mbps_per_pair, e.mbps_per_slice
            ),
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "{k:<18} {v}");
    }
    let top: Vec<String> = e
        .lut_breakdown
        .iter()
        .take(6)
        .map(|r| format!("{:?} {}", r.role, r.luts))
        .collect();
    let _ = writeln!(s, "{:<18} {}", "largest LUT roles", top.join(", "));
    s
}

/// Writes `contents` to `path` through a temporary file in the same directory, renamed into
/// place only when complete.
fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.write_all(contents)
        .with_context(|| format!("cannot write {}", path.display()))?;
    // A temporary file is private; the result is an ordinary output file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Sweeps.
pub fn run_sweep(args: SweepArgs) -> Result<Status> {
    for &size in &args.sizes {
        if !skeinhw_sched::ALLOWED_SIZES.contains(&size) {
            bail!("--sizes: {size} is not a Skein state size; allowed: 256, 512, 1024");
        }
    }
    if args.styles.is_empty() {
        bail!("--styles: at least one style is needed");
    }
    let constants = load_constants(args.constants.as_deref())?;
    let (csv, json, svg) = match &args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            (
                Some(dir.join("sweep.csv")),
                Some(dir.join("sweep.json")),
                Some(dir.join("sweep.svg")),
            )
        }
        None => (args.csv.clone(), args.json.clone(), args.svg.clone()),
    };
    let config = SweepConfig {
        sizes: args.sizes.clone(),
        styles: args.styles.clone(),
        flow: args.flow,
    };
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} candidates {elapsed}")
                .expect("valid template"),
        );
        Some(bar)
    } else {
        None
    };
    let result = sweep::sweep(&config, &constants, &mut |done, total| {
        if let Some(bar) = &bar {
            if done == 1 {
                bar.set_length(total as u64);
            }
            if done % 64 == 0 || done == total {
                bar.set_position(done as u64);
            }
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }

    // Render everything before writing anything.
    let csv_text = csv.as_ref().map(|_| sweep::to_csv(&result));
    let json_text = match &json {
        Some(_) => Some(serde_json::to_string_pretty(&result)? + "\n"),
        None => None,
    };
    let svg_text = match &svg {
        Some(_) => Some(plot::svg(&result, &plot::paper_points())?),
        None => None,
    };
    for (path, text) in [(&csv, &csv_text), (&json, &json_text), (&svg, &svg_text)] {
        if let (Some(path), Some(text)) = (path, text) {
            write_atomic(path, text.as_bytes())?;
        }
    }

    let mut out = std::io::stdout().lock();
    let front: Vec<_> = result.points.iter().filter(|p| p.pareto).collect();
    writeln!(
        out,
        "{} schedules estimated ({} candidates rejected by validation), {} on the Pareto front",
        result.points.len(),
        result.rejected,
        front.len()
    )?;
    writeln!(
        out,
        "{:<44} {:>8} {:>8} {:>9} {:>12} {:>10}",
        "Pareto front", "slices", "LUTs", "MHz", "Mbit/s", "Mbit/s/sl"
    )?;
    let mut front = front;
    front.sort_by_key(|p| p.estimate.slices);
    for p in front {
        let e = &p.estimate;
        writeln!(
            out,
            "{:<44} {:>8} {:>8} {:>9.1} {:>12.1} {:>10.3}",
            p.spec.name, e.slices, e.luts, e.freq_mhz, e.throughput_mbps, e.mbps_per_slice
        )?;
    }
    for (what, path) in [("CSV", &csv), ("JSON", &json), ("SVG", &svg)] {
        if let Some(path) = path {
            writeln!(out, "wrote {what} {}", path.display())?;
        }
    }
    Ok(0)
}

/// Calibrates.
pub fn run_calibrate(args: CalibrateArgs) -> Result<Status> {
    let path = args
        .constants
        .clone()
        .unwrap_or_else(|| PathBuf::from(SOURCE_PATH));
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read constants file {}", path.display()))?;
    let current = Constants::parse(&text, &path.display().to_string())?;
    let fitted = calibrate::fit(&current);
    let report: Report = calibrate::report(&fitted);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Fitted on the role=fit rows of seed-tables.csv (coordinate search, deterministic):"
    )?;
    write!(out, "{}", calibrate::describe_fitted(&fitted))?;
    writeln!(out, "{report}")?;
    let checks = calibrate::arithmetic_checks();
    let bad: Vec<_> = checks.iter().filter(|c| !c.ok()).collect();
    writeln!(
        out,
        "throughput arithmetic (block bits x blocks in flight x f / cycles, with each table's own clock): {}/{} rows agree",
        checks.len() - bad.len(),
        checks.len()
    )?;
    for c in &bad {
        writeln!(
            out,
            "  {}: table {} vs computed {:.1}",
            c.design, c.paper, c.computed
        )?;
    }
    let goals = calibrate::goals_met(&report);
    writeln!(
        out,
        "goals (fit MAPE <= 15% area and period, no fit row > 30%, own validation <= 25%): {}",
        if goals { "met" } else { "NOT met" }
    )?;
    if args.write {
        let new = fitted.rewrite(&text)?;
        write_atomic(&path, new.as_bytes())?;
        writeln!(out, "wrote {}", path.display())?;
    } else if fitted == current {
        writeln!(out, "{} is up to date", path.display())?;
    } else {
        writeln!(
            out,
            "{} differs from the fit; run `skeinhw calibrate --write` to store it",
            path.display()
        )?;
    }
    Ok(if goals && bad.is_empty() { 0 } else { 1 })
}
