//! `skeinhw sweep`: estimates over sizes and styles, to CSV, JSON and SVG.

use super::*;

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
    #[command(flatten)]
    device: DeviceArg,
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
    /// Write the SVG plot (throughput against slices, one Pareto front per size with its
    /// designs named, the papers' points of the swept sizes, the device's size; `-`: standard
    /// output).
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
        device: args.device.device,
        capacity: Some(sweep::DeviceCapacity::of(args.device.device)),
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
        Some(_) => Some(Envelope::new(args.device.device.name(), &constants, &result).to_json()?),
        None => None,
    };
    let svg_text = svg.as_ref().map(|_| {
        plot::svg(
            &result,
            &plot::PlotOptions::for_device(&result, args.device.device),
        )
    });
    let to_stdout = outputs.to_stdout();
    outputs.write([csv_text, json_text, svg_text])?;

    // The summary goes to standard error when standard output carries a file.
    let mut out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    };
    write!(out, "{}", summary(&result))?;
    for (what, path) in [("CSV", &csv), ("JSON", &json), ("SVG", &svg)] {
        if let Some(path) = path.as_ref().filter(|p| p.as_os_str() != "-") {
            writeln!(out, "wrote {what} {}", path.display())?;
        }
    }
    Ok(0)
}

/// What a sweep prints: counts, the designs larger than the device, each size's front.
fn summary(result: &sweep::Sweep) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut front: Vec<_> = result.points.iter().filter(|p| p.pareto).collect();
    let _ = writeln!(
        s,
        "{} schedules estimated ({} candidates rejected by validation), {} on the Pareto fronts \
         (one per state size)",
        result.points.len(),
        result.rejected,
        front.len()
    );
    if let Some(c) = &result.device_capacity {
        let over = result.points.iter().filter(|p| p.exceeds_device).count();
        let _ = writeln!(
            s,
            "{over} of them larger than the largest {}, {} ({} slices): marked \
             \"> device\" below, exceeds_device in CSV and JSON, hollow in the plot",
            c.family,
            c.part,
            plot::number(f64::from(c.slices))
        );
    }
    let _ = writeln!(
        s,
        "{:<44} {:>8} {:>8} {:>9} {:>12} {:>10}",
        "Pareto front", "slices", "LUTs", "MHz", "Mbit/s", "Mbit/s/sl"
    );
    front.sort_by_key(|p| (p.spec.size, p.estimate.slices));
    for p in front {
        let e = &p.estimate;
        let _ = writeln!(
            s,
            "{:<44} {:>8} {:>8} {:>9.1} {:>12.1} {:>10.3}{}",
            p.spec.name,
            e.slices,
            e.luts,
            e.freq_mhz,
            e.throughput_mbps,
            e.mbps_per_slice,
            if p.exceeds_device { "  > device" } else { "" }
        );
    }
    s
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
