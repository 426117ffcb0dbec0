//! The cycle-for-cycle comparison of a Shabal core's VCD with the golden records: the diff
//! engine of `skeinhw-diff` on Shabal frames, with the identity map (the core's registers
//! carry the trace's names under `scope`).

use std::path::Path;

use skeinhw_diff::DiffReport;
use skeinhw_diff::frame::shabal_frame;
use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalTraceHeader};

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
    let frames = golden.iter().map(|r| shabal_frame(r, out_words));
    crate::compare::compare_frames(&signals, frames, vcd, scope, strip_prefix)
}
