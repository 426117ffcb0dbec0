//! A cycle-for-cycle comparison of an RTL VCD with golden records, used by the tests and by
//! `skeinhw sim` until the diff engine of `skeinhw-diff` offers its `compare`: it samples the
//! VCD at each rising edge with `skeinhw_diff::wave` and reports the first cycle where any
//! trace register differs.

use std::path::Path;

use skeinhw_diff::wave::{Bits, Probe, WaveOptions, sample_rising_edges};
use skeinhw_sched::sim::OwnedCycleRecord;
use skeinhw_trace::names;

use crate::RtlError;

/// One register that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    /// The trace name, e.g. `slot0_state_3`.
    pub name: String,
    /// The golden value.
    pub golden: u64,
    /// The RTL value (hex, or the X/Z state).
    pub rtl: String,
}

/// The first cycle where the RTL differs from the golden trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Golden cycle number (from 1).
    pub cycle: u64,
    /// Every register that differs in that cycle.
    pub fields: Vec<FieldDiff>,
    /// Cycles compared before it.
    pub compared: u64,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "first divergence at cycle {} ({} cycles agreed):",
            self.cycle, self.compared
        )?;
        for d in &self.fields {
            writeln!(
                f,
                "  {:<24} golden {:016x}  rtl {}",
                d.name, d.golden, d.rtl
            )?;
        }
        Ok(())
    }
}

/// The golden value of every signal of `names::signals` (clock excluded) per cycle, with the
/// out_* lines holding their value while `out_valid` is 0.
fn golden_values(r: &OwnedCycleRecord, held: &mut [u64]) -> Vec<u64> {
    let nw = r.words;
    let mut v = vec![u64::from(r.phase.code())];
    match &r.out {
        Some(o) => {
            v.push(1);
            held[0] = u64::from(o.stream);
            held[1] = o.index;
            held[2..2 + nw].copy_from_slice(&o.data[..nw]);
        }
        None => v.push(0),
    }
    v.extend_from_slice(&held[..2 + nw]);
    v.extend([
        u64::from(r.busy.mix),
        u64::from(r.busy.subkey),
        u64::from(r.busy.key_schedule),
        u64::from(r.busy.first_subkey),
    ]);
    for s in &r.slots {
        v.push(u64::from(s.valid));
        v.push(u64::from(s.stream));
        v.push(u64::from(s.phase.code()));
        v.push(s.block);
        v.push(u64::from(s.round));
        v.push(u64::from(s.subkey));
        v.extend_from_slice(&s.state[..nw]);
        v.extend_from_slice(&s.key[..=nw]);
        v.extend_from_slice(&s.tweak);
    }
    v
}

/// Compares the VCD at `vcd` (registers under `scope`, after removing `strip_prefix`) with
/// `golden`, cycle for cycle from its first rising edge. `Ok(None)`: identical, and the same
/// number of cycles. A different number of cycles is a divergence at the first cycle one of
/// them lacks.
pub fn compare_vcd(
    golden: &[OwnedCycleRecord],
    vcd: &Path,
    scope: &str,
    strip_prefix: Option<&str>,
) -> Result<Option<Divergence>, RtlError> {
    let Some(first) = golden.first() else {
        return Err(RtlError::Input("the golden trace has no cycles".into()));
    };
    let words = first.words;
    let slots = first.slots.len();
    let sigs: Vec<_> = names::signals(words, slots)
        .into_iter()
        .filter(|s| s.name != names::CLK)
        .collect();
    let probes: Vec<Probe> = sigs
        .iter()
        .map(|s| Probe {
            signal: format!("{scope}.{}", s.name),
            slice: None,
        })
        .collect();
    let options = WaveOptions {
        clock: format!("{scope}.{}", names::CLK),
        strip_prefix: strip_prefix.map(str::to_owned),
    };
    let mut held = vec![0u64; 2 + words];
    let mut found: Option<Divergence> = None;
    let mut compared = 0u64;
    let stats = sample_rising_edges(vcd, &options, &probes, |edge, _time, samples| {
        let Some(rec) = golden.get(edge as usize) else {
            found = Some(Divergence {
                cycle: edge + 1,
                fields: vec![FieldDiff {
                    name: "(cycle count)".into(),
                    golden: golden.len() as u64,
                    rtl: "more cycles".into(),
                }],
                compared,
            });
            return false;
        };
        let expected = golden_values(rec, &mut held);
        let mut fields = Vec::new();
        for ((sig, want), got) in sigs.iter().zip(&expected).zip(samples) {
            if !equal(got, *want) {
                fields.push(FieldDiff {
                    name: sig.name.clone(),
                    golden: *want,
                    rtl: got.to_hex(),
                });
            }
        }
        if !fields.is_empty() {
            found = Some(Divergence {
                cycle: rec.cycle,
                fields,
                compared,
            });
            return false;
        }
        compared += 1;
        true
    })
    .map_err(|e| RtlError::Output(e.to_string()))?;
    if found.is_none() && stats.edges < golden.len() as u64 {
        found = Some(Divergence {
            cycle: stats.edges + 1,
            fields: vec![FieldDiff {
                name: "(cycle count)".into(),
                golden: golden.len() as u64,
                rtl: format!("{} cycles", stats.edges),
            }],
            compared,
        });
    }
    Ok(found)
}

fn equal(got: &Bits, want: u64) -> bool {
    got.unknown.is_none()
        && got.words.first().copied().unwrap_or(0) == want
        && got.words.iter().skip(1).all(|&w| w == 0)
}
