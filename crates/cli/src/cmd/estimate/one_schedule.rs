//! `skeinhw estimate`: one schedule, the model and optionally a netlist.

use super::*;

/// Arguments of `estimate`.
#[derive(Args)]
pub struct EstimateArgs {
    #[command(flatten)]
    schedule: ScheduleArgs,
    /// Override the state size (256, 512, 1024).
    #[arg(long, value_name = "N")]
    size: Option<usize>,
    /// Core style (default: generated with --synth, the design the netlist is of; else
    /// hash_core when the schedule runs Config, else ubi_core).
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
    #[command(flatten)]
    device: DeviceArg,
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
    if args.device.device != DeviceId::Virtex5 {
        bail!(
            "{}: --device {}: the Shabal model is of Virtex-5 only",
            schedule.name(),
            args.device.device
        );
    }
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
        out.write_all(
            Envelope::new(DeviceId::Virtex5.name(), constants, &e)
                .to_json()?
                .as_bytes(),
        )?;
    } else {
        write!(out, "{}", shabal_table(&e, args.freq_mhz.is_some()))?;
    }
    Ok(0)
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
    let device = args.device.device;
    if device != DeviceId::Virtex5 && (args.netlist.is_some() || args.synth) {
        bail!(
            "--device {device}: --netlist and --synth read a Virtex-5 netlist (Yosys synth_xilinx \
             -family xc5v); for {} figures run `skeinhw explore` with its flows",
            device.info().family
        );
    }
    let options = Options {
        style: mismatch::model_style(args.style, args.synth),
        flow: args.flow,
    };
    let e = estimate_on(device, &schedule, options, &constants, args.freq_mhz);
    let mut notes: Vec<String> = mismatch::style_note(args.style, args.synth)
        .into_iter()
        .collect();
    let netlist = if let Some(path) = &args.netlist {
        let n = Netlist::from_file(path, args.top.as_deref())?;
        let bits = mismatch::generated_state_bits(n.net_names());
        mismatch::check_size(path, bits, &schedule)?;
        notes.extend(mismatch::style_warning(e.style, bits.is_some(), &n.origin));
        Some((n.analyse(args.flow, &constants), None, None))
    } else if args.synth {
        let (n, secs) = synthesize(
            &schedule,
            args.synth_dir.as_deref(),
            args.top.as_deref(),
            args.lean,
        )?;
        notes.extend(mismatch::style_warning(e.style, true, &n.origin));
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
    for note in notes {
        eprintln!("skeinhw: {note}");
    }
    if let Some(n) = &netlist {
        for w in &n.netlist.warnings {
            eprintln!("skeinhw: warning: {}", one_line(w));
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let report = EstimateReport { model: &e, netlist };
        let json = Envelope::new(device.name(), &constants, report).to_json()?;
        out.write_all(json.as_bytes())?;
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
