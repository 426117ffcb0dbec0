//! `--viewer DIR` of `diff` and `sim`: the first divergence opened where engineers look at
//! waves. The golden trace is written as an FST (a temporary file), then
//! [`skeinhw_trace::write_viewer_dir`] merges it with the RTL waveform and writes the GTKWave
//! save file and the Surfer command file: the clocks, the diverging fields (golden beside
//! RTL), then the other compared fields, the cursor on the first divergent edge.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

use skeinhw_sched::shabal::sim::ShabalSink;
use skeinhw_sched::sim::TraceSink;
use skeinhw_trace::names::{self, SCOPE};
use skeinhw_trace::shabal::ShabalFstWriter;
use skeinhw_trace::{Divergence, FstWriter, PERIOD, ViewerFiles};

use crate::error::DiffError;
use crate::golden::AnyGolden;
use crate::map::SignalMap;
use crate::report::DiffReport;

/// Edges the viewers show around the cursor.
const WINDOW_EDGES: u64 = 24;

/// Where the viewer files go and how the RTL waveform names the mapped signals.
#[derive(Clone, Copy, Debug)]
pub struct ViewerRequest<'a> {
    /// The output directory (see [`skeinhw_trace::write_viewer_dir`]).
    pub dir: &'a Path,
    /// Replace the files an earlier run wrote there.
    pub force: bool,
    /// The RTL waveform the diff read.
    pub rtl: &'a Path,
    /// The prefix the diff stripped from the RTL's names (`--strip-prefix`, Verilator's
    /// `TOP.`): put back where the file has it.
    pub rtl_prefix: Option<&'a str>,
    /// The RTL clock as the diff sampled it.
    pub rtl_clock: &'a str,
    /// The map the diff compared with (trace field -> RTL signal).
    pub map: &'a SignalMap,
}

fn failed(what: impl std::fmt::Display) -> DiffError {
    DiffError::Invalid(format!("--viewer: {what}"))
}

/// Checks `dir` before a long diff: refused as [`write_viewer`] would refuse it.
pub fn check_viewer(dir: &Path, force: bool) -> Result<(), DiffError> {
    skeinhw_trace::check_viewer_dir(dir, force).map_err(failed)
}

/// The golden trace as an FST at `path`; returns the names of its signals.
fn golden_fst(golden: AnyGolden, path: &Path) -> Result<Vec<String>, DiffError> {
    let file = File::create(path).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    let out = BufWriter::new(file);
    let io_err = |e: io::Error| failed(format!("the golden FST: {e}"));
    let signals = match golden {
        AnyGolden::Skein(g) => {
            let mut w = FstWriter::new(out);
            w.begin(&g.header).map_err(io_err)?;
            for r in g.records {
                w.cycle(&r.map_err(failed)?.as_record()).map_err(io_err)?;
            }
            TraceSink::finish(&mut w).map_err(io_err)?;
            skeinhw_trace::wave_signals(&g.header)
        }
        AnyGolden::Shabal(g) => {
            let mut w = ShabalFstWriter::new(out);
            w.begin(&g.header).map_err(io_err)?;
            for r in g.records {
                w.cycle(&r.map_err(failed)?).map_err(io_err)?;
            }
            ShabalSink::finish(&mut w).map_err(io_err)?;
            skeinhw_trace::shabal::signals(g.header.output_words())
        }
    };
    Ok(signals.into_iter().map(|s| s.name).collect())
}

/// Writes the viewer files of the report's first divergence into `req.dir`; `None` (nothing
/// written) when there is none (an identical run, a length mismatch alone).
pub fn write_viewer(
    req: &ViewerRequest<'_>,
    golden: AnyGolden,
    report: &DiffReport,
) -> Result<Option<ViewerFiles>, DiffError> {
    let Some(d) = &report.first_divergence else {
        return Ok(None);
    };
    let temp = tempfile::Builder::new()
        .prefix("skeinhw-golden-")
        .suffix(".fst")
        .tempfile()
        .map_err(|e| failed(format!("a temporary file: {e}")))?;
    let golden_names = golden_fst(golden, temp.path())?;
    // A field is shown where both sides have a signal for it (event maps name registers such
    // as `state_before` that the golden trace has no signal for).
    let pair = |field: &str| {
        let probe = req.map.fields.get(field)?;
        golden_names
            .iter()
            .any(|n| n == field)
            .then(|| (format!("{SCOPE}.{field}"), probe.signal.clone()))
    };
    let differs: Vec<&str> = d
        .fields
        .iter()
        .filter(|f| f.unknown || f.golden != f.rtl)
        .map(|f| f.field.as_str())
        .collect();
    let diverging: Vec<(String, String)> = differs.iter().filter_map(|f| pair(f)).collect();
    // The other compared fields, in the trace's order (the clock is on top already).
    let context: Vec<(String, String)> = golden_names
        .iter()
        .filter(|f| *f != names::CLK && !differs.contains(&f.as_str()))
        .filter_map(|f| pair(f))
        .collect();
    let top = [(format!("{SCOPE}.{}", names::CLK), req.rtl_clock.to_owned())];
    // The RTL's clock period, from the edge's time and index (reset edges included).
    let period = d.time / d.rtl_edge.max(1);
    let own_scope = format!("{SCOPE}.");
    let shown = Divergence {
        golden: temp.path(),
        rtl: req.rtl,
        // A trace `skeinhw trace` wrote answers to its names below its scope (as the diff
        // reads it); the prefix is tried first, then the name as given.
        rtl_prefix: Some(req.rtl_prefix.unwrap_or(&own_scope)),
        top: &top,
        diverging: &diverging,
        context: &context,
        rtl_time: d.time,
        golden_time: (!d.event).then_some(d.cycle * PERIOD),
        window: period.max(1) * WINDOW_EDGES,
    };
    skeinhw_trace::write_viewer_dir(&shown, req.dir, req.force)
        .map(Some)
        .map_err(failed)
}
