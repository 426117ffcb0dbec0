//! The cycle-for-cycle comparison of a Shabal core's VCD with the golden records: the diff
//! engine of `skeinhw-diff` on Shabal frames, with the identity map (the core's registers
//! carry the trace's names under `scope`).

use std::path::Path;

use skeinhw_diff::DiffReport;
use skeinhw_diff::frame::shabal_frame;
use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalPhase, ShabalTraceHeader};

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

/// `golden` followed by `n` idle cycles (a test bench run with `+trail=n`): no block in the
/// core (`valid` 0, phase idle), no output, every other register as the last cycle left it.
pub fn with_idle_cycles(golden: &[ShabalCycleRecord], n: u64) -> Vec<ShabalCycleRecord> {
    let mut out = golden.to_vec();
    let Some(last) = golden.last() else {
        return out;
    };
    for i in 1..=n {
        out.push(ShabalCycleRecord {
            cycle: last.cycle + i,
            valid: false,
            phase: ShabalPhase::Idle,
            out: None,
            ..*last
        });
    }
    out
}

/// The registers of a Shabal core compared right after reset: the phase, `out_valid` and
/// `valid` (the core leaves its state registers unreset: a message's first pass loads them).
pub(crate) fn reset_signals(out_words: usize) -> Vec<skeinhw_trace::names::Signal> {
    use skeinhw_trace::names;
    skeinhw_trace::shabal::signals(out_words)
        .into_iter()
        .filter(|s| {
            [names::PHASE, names::OUT_VALID, skeinhw_trace::shabal::VALID]
                .contains(&s.name.as_str())
        })
        .collect()
}

/// The golden values of [`reset_signals`] right after reset: no block (phase idle, `valid`
/// and `out_valid` 0).
pub fn reset_expected(out_words: usize) -> Vec<(String, u64)> {
    let idle = ShabalCycleRecord {
        cycle: 0,
        valid: false,
        stream: 0,
        phase: ShabalPhase::Idle,
        block: 0,
        iteration: 0,
        state: Default::default(),
        out: None,
    };
    let mut values = Vec::new();
    skeinhw_trace::shabal::values(&idle, out_words, &mut values);
    let all = skeinhw_trace::shabal::signals(out_words);
    reset_signals(out_words)
        .into_iter()
        .map(|s| {
            let i = all.iter().position(|a| a.name == s.name).expect("a signal");
            (s.name, values[i])
        })
        .collect()
}
