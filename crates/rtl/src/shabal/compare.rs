//! The cycle-for-cycle comparison of a Shabal core's VCD with the golden records: the diff
//! engine of `skeinhw-diff` on Shabal frames, with the identity map (the core's registers
//! carry the trace's names under `scope`).

use std::path::Path;

use skeinhw_diff::frame::shabal_frame;
use skeinhw_diff::{CycleOptions, DiffReport, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalTraceHeader};
use skeinhw_trace::names;

use crate::RtlError;

/// Compares the VCD at `vcd` (registers under `scope`, after removing `strip_prefix`) with
/// the golden Shabal trace, cycle for cycle from its first rising edge. `Ok(None)`: identical,
/// with the same number of cycles; otherwise the diff's report.
pub fn compare_vcd(
    header: &ShabalTraceHeader,
    golden: &[ShabalCycleRecord],
    vcd: &Path,
    scope: &str,
    strip_prefix: Option<&str>,
) -> Result<Option<DiffReport>, RtlError> {
    let out_words = header.output_words();
    let signals = skeinhw_trace::shabal::signals(out_words);
    let map = SignalMap::identity(signals.iter().map(|s| s.name.as_str()), Some(scope));
    let mut options = CycleOptions::default();
    options.wave.clock = format!("{scope}.{}", names::CLK);
    options.wave.strip_prefix = strip_prefix.map(str::to_owned);
    let frames = golden
        .iter()
        .map(|r| Ok::<_, String>(shabal_frame(r, out_words)));
    let report = compare_cycles(&signals, frames, vcd, &map, &options)
        .map_err(|e| RtlError::Output(e.to_string()))?;
    Ok((report.verdict != Verdict::Identical).then_some(report))
}
