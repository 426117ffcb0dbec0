//! The cycle-for-cycle comparison of an RTL VCD with the golden records, as the tests and
//! `skeinhw sim` use it: the diff engine of `skeinhw-diff` with the generated design's identity
//! map (its registers carry the trace's names under `scope`).

use std::path::Path;

use skeinhw_diff::frame::{Frame, skein_frame};
use skeinhw_diff::{CycleOptions, DiffReport, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::sim::{AdderBusy, OwnedCycleRecord, Phase, SlotRecord, TraceHeader};
use skeinhw_trace::names::{self, Signal};

use crate::{RtlError, RunOutput};

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
    let signals = names::trace_signals(header);
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
    // `in_ready_<k>` is bit k of the `in_ready` port, as in the design's signal map.
    let map = SignalMap::identity(
        signals
            .iter()
            .map(|s| s.name.as_str())
            .filter(|n| !omitted.iter().any(|o| o == n)),
        Some(scope),
    )
    .in_ready_on_port(Some(scope));
    let mut options = CycleOptions::default();
    options.wave.clock = format!("{scope}.{}", names::CLK);
    options.wave.strip_prefix = strip_prefix.map(str::to_owned);
    let report = compare_cycles(signals, frames.map(Ok::<_, String>), vcd, &map, &options)
        .map_err(|e| RtlError::Output(e.to_string()))?;
    Ok((report.verdict != Verdict::Identical).then_some(report))
}

/// `golden` followed by `n` idle cycles, the cycles a test bench run with `+trail=n` adds after
/// the last digest: no block in flight (every slot keeps what it last held, `valid` 0), phase
/// idle, no adder busy, no output, every input register free. Comparing them catches a design that does anything after
/// its last digest (a second digest, a block that never leaves, a register that moves).
pub fn with_idle_cycles(golden: &[OwnedCycleRecord], n: u64) -> Vec<OwnedCycleRecord> {
    let mut out = golden.to_vec();
    let Some(last) = golden.last() else {
        return out;
    };
    let mut idle = last.clone();
    idle.phase = Phase::Idle;
    idle.busy = AdderBusy::default();
    idle.out = None;
    idle.in_ready.iter_mut().for_each(|b| *b = true);
    for slot in &mut idle.slots {
        slot.valid = false;
    }
    for i in 1..=n {
        let mut r = idle.clone();
        r.cycle = last.cycle + i;
        out.push(r);
    }
    out
}

/// The registers compared right after reset: those the golden trace cares about while no
/// block is in flight (the phase, `out_valid`, the busy counts, every slot's `valid`); all
/// others are qualified by a valid bit that is 0 then.
pub(crate) fn reset_signals(words: usize, slots: usize) -> Vec<Signal> {
    names::signals(words, slots)
        .into_iter()
        .filter(|s| s.name != names::CLK && s.care_if.is_none())
        .collect()
}

/// The golden values of [`reset_signals`] right after reset: those of a cycle with no block
/// in flight (every slot empty, phase idle, no adder busy, no output).
pub fn reset_expected(words: usize, slots: usize) -> Vec<(String, u64)> {
    let record = OwnedCycleRecord {
        cycle: 0,
        phase: Phase::Idle,
        words,
        slots: vec![SlotRecord::default(); slots],
        busy: AdderBusy::default(),
        out: None,
        in_ready: Vec::new(),
    };
    let mut values = Vec::new();
    names::values(&record.as_record(), &mut values);
    let all = names::signals(words, slots);
    reset_signals(words, slots)
        .into_iter()
        .map(|s| {
            let i = all.iter().position(|a| a.name == s.name).expect("a signal");
            (s.name, values[i])
        })
        .collect()
}

/// A register whose value right after reset is not the golden one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResetDiff {
    /// The register (a trace name).
    pub register: String,
    /// Its golden value.
    pub golden: u64,
    /// What the test bench printed (hex digits, x/z included).
    pub rtl: String,
}

impl std::fmt::Display for ResetDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unknown = if self
            .rtl
            .bytes()
            .any(|c| matches!(c, b'x' | b'X' | b'z' | b'Z'))
        {
            " (X/Z)"
        } else {
            ""
        };
        write!(
            f,
            "{}: golden {:x}, RTL {}{unknown}",
            self.register, self.golden, self.rtl
        )
    }
}

/// Compares the registers the test bench printed right after reset ([`RunOutput::reset`]) with
/// `expected` ([`reset_expected`], [`crate::shabal::reset_expected`]). Every expected register
/// must have been printed: a test bench that printed none (one written before this check) is
/// an error, not a pass.
pub fn compare_reset(
    expected: &[(String, u64)],
    run: &RunOutput,
) -> Result<Vec<ResetDiff>, RtlError> {
    let mut diffs = Vec::new();
    for (name, golden) in expected {
        let Some((_, rtl)) = run.reset.iter().find(|(n, _)| n == name) else {
            return Err(RtlError::Output(format!(
                "the test bench printed no state after reset for '{name}' (a test bench \
                 generated before this check: regenerate it with `skeinhw rtl`)"
            )));
        };
        let same = u128::from_str_radix(rtl, 16).is_ok_and(|v| v == u128::from(*golden));
        if !same {
            diffs.push(ResetDiff {
                register: name.clone(),
                golden: *golden,
                rtl: rtl.clone(),
            });
        }
    }
    Ok(diffs)
}
