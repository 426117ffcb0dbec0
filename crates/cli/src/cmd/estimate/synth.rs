//! `estimate --synth`: the schedule's Verilog through Yosys.

use super::*;

/// Generates the schedule's Verilog into `dir` (or a temporary directory), synthesizes it with
/// Yosys and reads the netlist. Yosys is looked for first, so a machine without it gets the
/// install hint before any work is done.
pub(super) fn synthesize(
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
