//! `skeinhw calibrate`: the fit of the constants and the report against the papers.

use super::*;

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
