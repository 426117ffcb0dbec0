//! `skeinhw calibrate`: the fit of the constants and the report against the papers.

use super::*;

use skeinhw_estimator::EstimatorError;
use skeinhw_estimator::calibrate::SeedRow;
use skeinhw_estimator::devices::report::device_report;

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
    #[command(flatten)]
    device: DeviceArg,
    /// Fit on your own rows: a CSV with the seed table's columns (see the estimator's
    /// data/README.md) instead of the built-in seed table.
    #[arg(long, value_name = "FILE.csv")]
    data: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The rows to calibrate on: the user's file (one-line errors naming it and the line) or the
/// built-in seed table.
fn seed(data: Option<&Path>) -> Result<Vec<SeedRow>> {
    let Some(path) = data else {
        return Ok(calibrate::seed_rows());
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    calibrate::parse_seed_tables(&text).map_err(|e| match e {
        EstimatorError::SeedTable { line, message } => {
            anyhow::anyhow!("{} line {line}: {message}", path.display())
        }
        e => anyhow::anyhow!("{}: {e}", path.display()),
    })
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
    let rows = seed(args.data.as_deref())?;
    let device = args.device.device;
    let report = device_report(device, &rows, &current);
    let goals = report.goals_met();
    let mut out = std::io::stdout().lock();
    if args.json {
        out.write_all(
            Envelope::new(device.name(), &current, &report)
                .to_json()?
                .as_bytes(),
        )?;
    } else {
        write!(out, "{report}")?;
        writeln!(
            out,
            "goals (leave-one-out <= {}; {}): {}",
            if device == DeviceId::Virtex5 {
                "10% area and 8% period"
            } else {
                "15% area and period"
            },
            if device == DeviceId::Virtex5 {
                "fit MAPE <= 15%, no fit row > 30%, own validation <= 30%, every own throughput checked"
            } else {
                "the device's measured rows"
            },
            if goals { "met" } else { "NOT met" }
        )?;
    }
    let Some(v5) = &report.virtex5 else {
        return Ok(if goals { 0 } else { 1 });
    };
    let fitted = v5.fitted.clone();
    if args.json {
        if args.write {
            bail!("--write with --json: run them apart");
        }
        return Ok(if goals { 0 } else { 1 });
    }
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
    Ok(if goals { 0 } else { 1 })
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
