//! `skeinhw estimate`, `skeinhw sweep` and `skeinhw calibrate`: the Virtex-5 estimator of
//! `skeinhw-estimator` on the command line.
//!
//! Output files and directories go through `skeinhw-outfile`: written whole or not at all,
//! an existing file replaced only with `--force`, a directory only if it holds nothing but
//! skeinhw's files (its manifest).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skeinhw_estimator::calibrate::{self, Report};
use skeinhw_estimator::constants::{BUILT_IN, SOURCE_PATH};
use skeinhw_estimator::netlist::summary::{is_datapath_register, is_state_register};
use skeinhw_estimator::netlist::{NetlistPath, yosys};
use skeinhw_estimator::shabal::{self as shabal_model, ShabalEstimate};
use skeinhw_estimator::sweep::{self, SweepConfig};
use skeinhw_estimator::{
    Constants, CoreStyle, Estimate, Flow, Netlist, NetlistEstimate, Options, estimate, plot,
};
use skeinhw_outfile::{Options as OutOptions, OutDir, OutFile};
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::{AnySchedule, Schedule};

use crate::Status;
use crate::schedule_args::ScheduleArgs;

/// Arguments of `estimate`.
#[derive(Args)]
pub struct EstimateArgs {
    #[command(flatten)]
    schedule: ScheduleArgs,
    /// Override the state size (256, 512, 1024).
    #[arg(long, value_name = "N")]
    size: Option<usize>,
    /// Core style (default: hash_core when the schedule runs Config, else ubi_core;
    /// `generated` is the RTL of `skeinhw rtl`, to compare with --synth).
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
    /// Also read a Yosys JSON netlist of the design (`synth_xilinx -family xc5v -flatten`):
    /// its cells, slices and bit-level critical path, beside the model's numbers.
    #[arg(long, value_name = "FILE.json", conflicts_with = "synth")]
    netlist: Option<PathBuf>,
    /// The netlist's top module (default: the module marked top).
    #[arg(long, value_name = "NAME")]
    top: Option<String>,
    /// Generate the schedule's Verilog, synthesize it with Yosys and read the netlist (slow:
    /// seconds to minutes).
    #[arg(long)]
    synth: bool,
    /// With --synth: keep the Verilog, the netlist and the Yosys log in this directory, and
    /// reuse the netlist there when the Verilog and the script are unchanged. Created if
    /// missing (its parent must exist); an existing one must hold only files skeinhw wrote
    /// there (listed in its .skeinhw-manifest), which are rewritten; anything else is refused.
    #[arg(long, value_name = "DIR", requires = "synth")]
    synth_dir: Option<PathBuf>,
    /// With --synth: synthesize the lean core (`skeinhw rtl --lean`: without the registers
    /// only the trace reads). The model's estimate is of the full core.
    #[arg(long, requires = "synth")]
    lean: bool,
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
    /// Write sweep.csv, sweep.json and sweep.svg into this directory (created, its parent
    /// must exist; an existing one only with --force, holding nothing but a previous sweep's
    /// files, listed in its .skeinhw-manifest).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["csv", "json", "svg"])]
    out_dir: Option<PathBuf>,
    /// Write the points as CSV (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write the points as JSON (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the SVG plot (throughput against slices, Pareto front, papers' points; `-`:
    /// standard output).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Replace existing --csv/--json/--svg files, or the files a previous sweep wrote in
    /// --out-dir.
    #[arg(long)]
    force: bool,
    /// Constants file (default: the built-in calibrated constants).
    #[arg(long, value_name = "FILE")]
    constants: Option<PathBuf>,
}

/// Arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Rewrite the constants file with the fitted values (comments are kept): the --constants
    /// FILE, or the estimator's data/virtex5.toml when the binary runs beside its source tree.
    /// The file is replaced atomically, keeping its mode; --write is the consent to replace it.
    #[arg(long)]
    write: bool,
    /// The constants file to compare with and rewrite (default: the estimator's
    /// data/virtex5.toml in the source tree if present, else the copy built into the binary,
    /// which can be compared with but not rewritten).
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
fn schedule(args: &EstimateArgs) -> Result<AnySchedule> {
    args.schedule.build_any(args.size)
}

/// Estimates a Shabal schedule (the model only: there is no Shabal netlist path).
fn run_shabal(
    args: &EstimateArgs,
    schedule: &ShabalSchedule,
    constants: &Constants,
) -> Result<Status> {
    if args.netlist.is_some() || args.synth {
        bail!(
            "{}: --netlist and --synth take Skein schedules only (the Shabal estimate is the model's)",
            schedule.name()
        );
    }
    if let Some(style) = args.style {
        bail!(
            "{}: --style {style} is a Skein core style; a Shabal schedule has none",
            schedule.name()
        );
    }
    let e = shabal_model::estimate(schedule, args.flow, constants, args.freq_mhz);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &e)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", shabal_table(&e, args.freq_mhz.is_some()))?;
    }
    Ok(0)
}

fn shabal_table(e: &ShabalEstimate, given_clock: bool) -> String {
    use std::fmt::Write as _;
    let cp = &e.critical_path;
    let mut rows: Vec<(&str, String)> = vec![
        ("schedule", e.schedule.clone()),
        (
            "shape",
            format!(
                "Shabal-{}, f={} iterations of P per cycle",
                e.output_bits, e.unfolding
            ),
        ),
        ("flow", e.flow.to_string()),
        ("adders (32-bit)", e.adders.to_string()),
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
                "A chain through {} iterations: {} full + {} chained adders, {} LUT levels, {} nets = {:.2} logic + {:.2} route ns",
                cp.iterations,
                cp.full_adders,
                cp.chained_adders,
                cp.lut_levels,
                cp.nets,
                cp.logic_ns,
                cp.route_ns
            ),
        ),
    ];
    rows.extend(performance_rows(
        clock_text(e.clock_mhz, given_clock),
        e.cycles_per_block,
        e.blocks_in_flight,
        e.latency_ns,
        e.throughput_mbps,
        (e.mbps_per_pair, e.mbps_per_slice),
    ));
    let mut s = String::new();
    for (k, v) in rows {
        let _ = writeln!(s, "{k:<18} {v}");
    }
    s
}

/// The clock the throughput is computed at, and where it comes from.
fn clock_text(mhz: f64, given: bool) -> String {
    let how = if given { "given" } else { "estimated" };
    format!("{mhz:.1} MHz ({how})")
}

/// The rows both algorithms' tables end with: what the design does at the clock used;
/// `per_area` is Mbit/s per LUT-FF pair and per slice.
fn performance_rows(
    clock: String,
    cycles_per_block: u32,
    blocks_in_flight: u32,
    latency_ns: f64,
    throughput_mbps: f64,
    per_area: (f64, f64),
) -> [(&'static str, String); 6] {
    [
        ("cycles per block", cycles_per_block.to_string()),
        ("blocks in flight", blocks_in_flight.to_string()),
        ("clock used", clock),
        ("latency per block", format!("{latency_ns:.1} ns")),
        ("throughput", format!("{throughput_mbps:.1} Mbit/s")),
        (
            "throughput / area",
            format!(
                "{:.4} Mbit/s per LUT-FF pair, {:.3} Mbit/s per slice",
                per_area.0, per_area.1
            ),
        ),
    ]
}

/// The netlist's numbers with the schedule's cycle counts: what the design does at the
/// netlist's clock (or the one given).
#[derive(Serialize)]
struct NetlistReport {
    #[serde(flatten)]
    netlist: NetlistEstimate,
    /// Clock used for the throughput: the netlist's or the one given, MHz.
    clock_mhz: f64,
    cycles_per_block: u32,
    blocks_in_flight: u32,
    latency_ns: f64,
    throughput_mbps: f64,
    mbps_per_pair: f64,
    mbps_per_slice: f64,
    /// Seconds Yosys ran (with --synth; 0 when a kept netlist of the same Verilog was reused).
    #[serde(skip_serializing_if = "Option::is_none")]
    yosys_seconds: Option<f64>,
    /// With --synth: the latest path from the round datapath's registers into the state
    /// registers, paths from the input buffers, stream registers and issue logic left out
    /// (`is_datapath_register`): where the round itself limits the clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    round_path: Option<NetlistPath>,
}

/// The model's estimate, with the netlist's beside it when there is one.
#[derive(Serialize)]
struct EstimateReport<'a> {
    #[serde(flatten)]
    model: &'a Estimate,
    #[serde(skip_serializing_if = "Option::is_none")]
    netlist: Option<NetlistReport>,
}

/// Estimates one schedule.
pub fn run_estimate(args: EstimateArgs) -> Result<Status> {
    if let Some(f) = args.freq_mhz
        && !(f.is_finite() && f > 0.0)
    {
        bail!("--freq-mhz {f}: expected a positive clock frequency in MHz");
    }
    let constants = load_constants(args.constants.as_deref())?;
    if let AnySchedule::Shabal(s) = schedule(&args)? {
        return run_shabal(&args, &s, &constants);
    }
    let schedule = args.schedule.build(args.size)?;
    let options = Options {
        style: args.style,
        flow: args.flow,
    };
    let e = estimate(&schedule, options, &constants, args.freq_mhz);
    let netlist = if let Some(path) = &args.netlist {
        let n = Netlist::from_file(path, args.top.as_deref())?;
        Some((n.analyse(args.flow, &constants), None, None))
    } else if args.synth {
        let (n, secs) = synthesize(
            &schedule,
            args.synth_dir.as_deref(),
            args.top.as_deref(),
            args.lean,
        )?;
        let analysed = n.analyse(args.flow, &constants);
        let round = n.critical_path_between(
            &analysed,
            &constants,
            &is_datapath_register,
            &is_state_register,
        );
        Some((analysed, secs.or(Some(0.0)), round))
    } else {
        None
    };
    let netlist = netlist.map(|(n, secs, round_path)| {
        let clock = args.freq_mhz.unwrap_or(n.freq_mhz);
        let throughput = schedule.throughput_mbps(clock);
        NetlistReport {
            clock_mhz: clock,
            cycles_per_block: schedule.cycles_per_block(),
            blocks_in_flight: schedule.blocks_in_flight(),
            latency_ns: f64::from(schedule.block_latency()) * 1000.0 / clock,
            throughput_mbps: throughput,
            mbps_per_pair: throughput / f64::from(n.lut_ff_pairs.max(1)),
            mbps_per_slice: throughput / f64::from(n.slices.max(1)),
            yosys_seconds: secs,
            round_path,
            netlist: n,
        }
    });
    if let Some(n) = &netlist {
        for w in &n.netlist.warnings {
            eprintln!("skeinhw: warning: {}", one_line(w));
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let report = EstimateReport { model: &e, netlist };
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", table(&schedule, &e, args.freq_mhz.is_some()))?;
        if let Some(n) = &netlist {
            write!(out, "{}", netlist_table(&e, n))?;
        }
    }
    Ok(0)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Generates the schedule's Verilog into `dir` (or a temporary directory), synthesizes it with
/// Yosys and reads the netlist. Yosys is looked for first, so a machine without it gets the
/// install hint before any work is done.
fn synthesize(
    schedule: &Schedule,
    dir: Option<&Path>,
    top: Option<&str>,
    lean: bool,
) -> Result<(Netlist, Option<f64>)> {
    if yosys::version().is_none() {
        bail!(
            "--synth needs Yosys, and `{}` cannot be run: {}",
            yosys::program().display(),
            yosys::INSTALL_HINT
        );
    }
    let tmp;
    // A kept directory is skeinhw's own (its manifest): rewritten without --force.
    let mut kept = dir.map(|d| OutDir::open(d, true)).transpose()?;
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => {
            tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
            tmp.path().to_path_buf()
        }
    };
    let (files, generated_top) = rtl::generate(schedule, &dir, kept.as_mut(), lean)?;
    let top = top.unwrap_or(&generated_top);
    let json_name = format!("{top}.json");
    let stamp_name = format!("{json_name}.stamp");
    let json = dir.join(&json_name);
    if let Some(kept) = &mut kept {
        // Listed before Yosys writes them, so that a later run knows them as skeinhw's.
        kept.claim(&[&json_name, &format!("{json_name}.log"), &stamp_name])?;
    }
    // A netlist made by the same script from the same Verilog is reused (a kept --synth-dir).
    let stamp_path = dir.join(&stamp_name);
    let mut stamp = yosys::script(&files, top, &json);
    for f in &files {
        let text = std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?;
        stamp.push_str(&format!(
            "\n{} {:016x}",
            f.display(),
            skeinhw_estimator::netlist::summary::fnv1a64(&text)
        ));
    }
    let cached =
        json.exists() && std::fs::read_to_string(&stamp_path).is_ok_and(|old| old == stamp);
    let secs = if cached {
        None
    } else {
        let _ = std::fs::remove_file(&stamp_path);
        let elapsed = yosys::synthesize(&files, top, &json)?;
        match &mut kept {
            Some(kept) => kept.write_files(&[(&stamp_name, stamp.as_bytes())])?,
            None => std::fs::write(&stamp_path, &stamp)
                .with_context(|| format!("cannot write {}", stamp_path.display()))?,
        }
        Some(elapsed.as_secs_f64())
    };
    let netlist = Netlist::from_file(&json, Some(top))?;
    Ok((netlist, secs))
}

/// The Verilog generator, behind one function.
mod rtl {
    use std::path::{Path, PathBuf};

    use anyhow::Result;
    use skeinhw_outfile::OutDir;
    use skeinhw_sched::Schedule;

    /// The generated design's top module.
    pub(super) const TOP: &str = "skeinhw";

    /// Writes the design for `schedule` into `dir` (design, test bench, signal map), through
    /// `kept` when it is the user's --synth-dir; returns the Verilog to synthesize (the design
    /// alone) and its top module.
    pub(super) fn generate(
        schedule: &Schedule,
        dir: &Path,
        kept: Option<&mut OutDir>,
        lean: bool,
    ) -> Result<(Vec<PathBuf>, String)> {
        let design = skeinhw_rtl::generate_with(schedule, skeinhw_rtl::Options { lean })?;
        match kept {
            Some(kept) => {
                let files = design.files();
                let refs: Vec<(&str, &[u8])> =
                    files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
                kept.write_files(&refs)?;
            }
            None => design.write_into(dir)?,
        }
        Ok((vec![dir.join(skeinhw_rtl::DESIGN_FILE)], TOP.to_owned()))
    }
}

/// The netlist's numbers beside the model's.
fn netlist_table(e: &Estimate, n: &NetlistReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let nl = &n.netlist;
    let p = &nl.critical_path;
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "netlist {} (top {}){}",
        nl.origin,
        nl.top,
        match n.yosys_seconds {
            Some(t) if t > 0.0 => format!(", Yosys ran {t:.1} s"),
            Some(_) => ", the kept netlist of the same Verilog".to_owned(),
            None => String::new(),
        }
    );
    let _ = writeln!(
        s,
        "{:<18} {:>10} {:>10} {:>8}",
        "", "model", "netlist", "model/nl"
    );
    let ratio = |m: f64, x: f64| {
        if x > 0.0 {
            format!("{:+.1}%", (m / x - 1.0) * 100.0)
        } else {
            "-".to_owned()
        }
    };
    let rows: [(&str, f64, f64, usize); 7] = [
        ("LUTs", f64::from(e.luts), f64::from(nl.luts), 0),
        (
            "CARRY4s",
            f64::from(e.carry4),
            f64::from(nl.cells.carry4),
            0,
        ),
        ("flip-flops", f64::from(e.ffs), f64::from(nl.ffs), 0),
        (
            "LUT-FF pairs",
            f64::from(e.lut_ff_pairs),
            f64::from(nl.lut_ff_pairs),
            0,
        ),
        ("slices", f64::from(e.slices), f64::from(nl.slices), 0),
        ("clock period ns", e.period_ns, nl.period_ns, 2),
        ("throughput Mbit/s", e.throughput_mbps, n.throughput_mbps, 1),
    ];
    for (name, m, x, prec) in rows {
        let _ = writeln!(
            s,
            "{name:<18} {m:>10.prec$} {x:>10.prec$} {:>8}",
            ratio(m, x)
        );
    }
    let c = &nl.cells;
    let luts: Vec<String> = c
        .lut_by_inputs
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| format!("LUT{} {n}", i + 1))
        .collect();
    let _ = writeln!(
        s,
        "{:<18} {}; MUXF7 {}, MUXF8 {}, SRL {}, I/O {}, other {}",
        "netlist cells",
        luts.join(", "),
        c.muxf7,
        c.muxf8,
        c.srls,
        c.io,
        c.other
    );
    let _ = writeln!(
        s,
        "{:<18} {} -> {}: LUT depth {}, {} carry chain(s) ({} CARRY4, {} carry bits), {} MUXF, {} nets = {:.2} logic + {:.2} route ns",
        "netlist path",
        p.from,
        p.to,
        p.lut_depth,
        p.carry_chains,
        p.carry4,
        p.carry_bits,
        p.muxf,
        p.nets,
        p.logic_ns,
        p.route_ns
    );
    if !p.through.is_empty() {
        let _ = writeln!(s, "{:<18} {}", "path through", p.through.join(", "));
    }
    if let Some(r) = &n.round_path {
        let _ = writeln!(
            s,
            "{:<18} {:.2} ns: {} -> {}: LUT depth {}, {} carry chain(s) (from the datapath's \
             registers into the state; paths from the issue logic left out)",
            "round path", r.period_ns, r.from, r.to, r.lut_depth, r.carry_chains
        );
        if !r.through.is_empty() {
            let _ = writeln!(s, "{:<18} {}", "round through", r.through.join(", "));
        }
    }
    let _ = writeln!(
        s,
        "{:<18} Yosys's alumacc merges a subkey add chained into a MIX add (one carry chain \
         for two adds): compare adders and CARRY4s knowingly",
        "note"
    );
    s
}

fn table(schedule: &Schedule, e: &Estimate, given_clock: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let a = &e.adders;
    let cp = &e.critical_path;
    let mut rows: Vec<(&str, String)> = vec![
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
    ];
    rows.extend(performance_rows(
        clock_text(e.clock_mhz, given_clock),
        e.cycles_per_block,
        e.blocks_in_flight,
        e.latency_ns,
        e.throughput_mbps,
        (e.mbps_per_pair, e.mbps_per_slice),
    ));
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
    let config = SweepConfig {
        sizes: args.sizes.clone(),
        styles: args.styles.clone(),
        flow: args.flow,
    };
    let count = sweep::candidate_count(&config);
    if count > sweep::MAX_CANDIDATES {
        bail!(
            "--sizes/--styles: {count} candidates is beyond the sweep's limit of {} \
             (give each size and style once)",
            sweep::MAX_CANDIDATES
        );
    }
    let constants = load_constants(args.constants.as_deref())?;
    // Every destination is checked before the sweep runs.
    let outputs = SweepOutputs::open(&args)?;
    let (csv, json, svg) = match &args.out_dir {
        Some(dir) => (
            Some(dir.join("sweep.csv")),
            Some(dir.join("sweep.json")),
            Some(dir.join("sweep.svg")),
        ),
        None => (args.csv.clone(), args.json.clone(), args.svg.clone()),
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
    let to_stdout = outputs.to_stdout();
    outputs.write([csv_text, json_text, svg_text])?;

    // The summary goes to standard error when standard output carries a file.
    let mut out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    };
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
        if let Some(path) = path.as_ref().filter(|p| p.as_os_str() != "-") {
            writeln!(out, "wrote {what} {}", path.display())?;
        }
    }
    Ok(0)
}

/// Where a sweep's CSV, JSON and SVG go: one output directory, or up to three files.
enum SweepOutputs {
    Dir(OutDir),
    Files(Box<[Option<OutFile>; 3]>),
}

impl SweepOutputs {
    /// Opens every destination (errors before any work is done).
    fn open(args: &SweepArgs) -> Result<SweepOutputs> {
        if let Some(dir) = &args.out_dir {
            return Ok(SweepOutputs::Dir(OutDir::open(dir, args.force)?));
        }
        let paths = [&args.csv, &args.json, &args.svg];
        if paths
            .iter()
            .filter(|p| p.as_ref().is_some_and(|p| p.as_os_str() == "-"))
            .count()
            > 1
        {
            bail!("-: only one of --csv, --json and --svg can go to standard output");
        }
        let options = OutOptions::new().force(args.force).stdout(true);
        let mut files = [None, None, None];
        for (slot, path) in files.iter_mut().zip(paths) {
            *slot = path
                .as_ref()
                .map(|p| OutFile::create(p, options))
                .transpose()?;
        }
        Ok(SweepOutputs::Files(Box::new(files)))
    }

    fn to_stdout(&self) -> bool {
        match self {
            SweepOutputs::Dir(_) => false,
            SweepOutputs::Files(files) => files.iter().flatten().any(OutFile::is_stdout),
        }
    }

    /// Writes the rendered CSV, JSON and SVG.
    fn write(self, texts: [Option<String>; 3]) -> Result<()> {
        match self {
            SweepOutputs::Dir(mut dir) => {
                let names = ["sweep.csv", "sweep.json", "sweep.svg"];
                let files: Vec<(&str, &[u8])> = names
                    .iter()
                    .zip(&texts)
                    .filter_map(|(n, t)| t.as_ref().map(|t| (*n, t.as_bytes())))
                    .collect();
                dir.write_files(&files)?;
            }
            SweepOutputs::Files(files) => {
                for (file, text) in (*files).into_iter().zip(texts) {
                    if let (Some(mut file), Some(text)) = (file, text) {
                        file.write_all(text.as_bytes())
                            .with_context(|| format!("{}: cannot write", file.path().display()))?;
                        file.commit()?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The constants file `calibrate` reads and may rewrite: the one given, else the source
/// tree's when it is there (a binary run from its checkout), else none (an installed binary:
/// the built-in copy is read, and there is nothing to rewrite).
fn constants_path(given: Option<PathBuf>, source: &Path) -> Option<PathBuf> {
    given.or_else(|| source.is_file().then(|| source.to_owned()))
}

/// Calibrates.
pub fn run_calibrate(args: CalibrateArgs) -> Result<Status> {
    // The given file; else the source tree's, when this binary runs beside it; else the
    // built-in copy (an installed binary), which cannot be rewritten.
    let path = constants_path(args.constants.clone(), Path::new(SOURCE_PATH));
    let (text, name) = match &path {
        Some(path) => (
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read constants file {}", path.display()))?,
            path.display().to_string(),
        ),
        None => {
            if args.write {
                bail!(
                    "--write: this binary has no constants file beside it (only the built-in \
                     copy); give --constants FILE to rewrite"
                );
            }
            (BUILT_IN.to_owned(), "the built-in constants".to_owned())
        }
    };
    let current = Constants::parse(&text, &name)?;
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
    match &path {
        Some(path) if args.write => {
            let new = fitted.rewrite(&text)?;
            // --write names this file: the consent to replace it (mode kept).
            skeinhw_outfile::write_file(path, new.as_bytes(), OutOptions::new().force(true))?;
            writeln!(out, "wrote {}", path.display())?;
        }
        _ if fitted == current => writeln!(out, "{name} is up to date")?,
        Some(_) => writeln!(
            out,
            "{name} differs from the fit; run `skeinhw calibrate --write` to store it"
        )?,
        None => writeln!(
            out,
            "{name} differ from the fit; run `skeinhw calibrate --write --constants FILE` on a copy to store it"
        )?,
    }
    Ok(if goals && bad.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_binary_reads_the_built_in_constants() {
        let gone = Path::new("/nonexistent/skeinhw-source/estimator/data/virtex5.toml");
        assert_eq!(constants_path(None, gone), None);
        let given = PathBuf::from("mine.toml");
        assert_eq!(constants_path(Some(given.clone()), gone), Some(given));
        let here = Path::new(SOURCE_PATH);
        assert_eq!(constants_path(None, here), Some(here.to_owned()));
        // The built-in copy is the checked-in file, and it parses.
        assert_eq!(BUILT_IN, std::fs::read_to_string(here).unwrap());
        Constants::parse(BUILT_IN, "built-in").unwrap();
    }
}
