//! The cycle-for-cycle comparison of an RTL VCD with the golden records, as the tests and
//! `skeinhw sim` use it: the diff engine of `skeinhw-diff` with the generated design's identity
//! map (its registers carry the trace's names under `scope`).

use std::path::Path;

use skeinhw_diff::frame::{Frame, skein_frame};
use skeinhw_diff::{CycleOptions, DiffReport, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::sim::{OwnedCycleRecord, TraceHeader};
use skeinhw_trace::names::{self, Signal};

use crate::RtlError;

/// Compares the VCD at `vcd` (registers under `scope`, after removing `strip_prefix`) with
/// the golden trace, cycle for cycle from its first rising edge. `Ok(None)`: identical, with
/// the same number of cycles; otherwise the diff's report (divergence or length mismatch).
pub fn compare_vcd(
    header: &TraceHeader,
    golden: &[OwnedCycleRecord],
    vcd: &Path,
    scope: &str,
    strip_prefix: Option<&str>,
) -> Result<Option<DiffReport>, RtlError> {
    compare_vcd_except(header, golden, vcd, scope, strip_prefix, &[])
}

/// [`compare_vcd`] of a design that lacks the trace fields `omitted` (a lean core's
/// [`crate::lean_omitted`]): every other field is compared, those are not.
pub fn compare_vcd_except(
    header: &TraceHeader,
    golden: &[OwnedCycleRecord],
    vcd: &Path,
    scope: &str,
    strip_prefix: Option<&str>,
    omitted: &[String],
) -> Result<Option<DiffReport>, RtlError> {
    let signals = names::signals(header.words, header.slots);
    let frames = golden.iter().map(skein_frame);
    compare_frames_except(&signals, frames, vcd, scope, strip_prefix, omitted)
}

/// The comparison under both algorithms' `compare_vcd`: golden frames over `signals` against
/// the generated design's registers of the same names.
pub(crate) fn compare_frames(
    signals: &[Signal],
    frames: impl Iterator<Item = Frame>,
    vcd: &Path,
    scope: &str,
    strip_prefix: Option<&str>,
) -> Result<Option<DiffReport>, RtlError> {
    compare_frames_except(signals, frames, vcd, scope, strip_prefix, &[])
}

fn compare_frames_except(
    signals: &[Signal],
    frames: impl Iterator<Item = Frame>,
    vcd: &Path,
    scope: &str,
    strip_prefix: Option<&str>,
    omitted: &[String],
) -> Result<Option<DiffReport>, RtlError> {
    let map = SignalMap::identity(
        signals
            .iter()
            .map(|s| s.name.as_str())
            .filter(|n| !omitted.iter().any(|o| o == n)),
        Some(scope),
    );
    let mut options = CycleOptions::default();
    options.wave.clock = format!("{scope}.{}", names::CLK);
    options.wave.strip_prefix = strip_prefix.map(str::to_owned);
    let report = compare_cycles(signals, frames.map(Ok::<_, String>), vcd, &map, &options)
        .map_err(|e| RtlError::Output(e.to_string()))?;
    Ok((report.verdict != Verdict::Identical).then_some(report))
}
