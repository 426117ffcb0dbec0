//! Where the RTL's run of the golden schedule starts (issue 33): the rising edges whose
//! sampled fields equal the golden run's first cycle, read once from the waveform. These are
//! the only `reset_cycles` that can make cycle alignment IDENTICAL, so a wrong
//! `--reset-cycles` is answered by trying them, however long the design's reset (what
//! `skeinhw map` writes is the edge of the golden run's first cycle, which this finds).

use std::path::Path;

use skeinhw_trace::names::Signal;

use crate::cycle::{CycleComparator, CycleOptions};
use crate::error::DiffError;
use crate::frame::Frame;
use crate::map::SignalMap;
use crate::wave::sample_rising_edges;

/// The rising edges (from 0, before `limit`) at which every field the map compares equals
/// the golden run's first frame, in order; at most `most` of them.
pub fn first_cycle_edges<E: std::fmt::Display>(
    signals: &[Signal],
    mut golden: impl Iterator<Item = Result<Frame, E>>,
    wave: &Path,
    map: &SignalMap,
    options: &CycleOptions,
    (limit, most): (u64, usize),
) -> Result<Vec<u64>, DiffError> {
    let Some(first) = golden.next() else {
        return Ok(Vec::new());
    };
    let first = first.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
    let (fresh, probes) = CycleComparator::new(signals, map, options)?;
    let mut wave_options = options.wave.clone();
    if let Some(clock) = &map.clock {
        wave_options.clock = clock.clone();
    }
    let mut edges = Vec::new();
    sample_rising_edges(wave, &wave_options, &probes, |edge, time, samples| {
        if edge >= limit || edges.len() >= most {
            return false;
        }
        let mut cmp = fresh.clone();
        cmp.compare(edge, time, &first, samples);
        if !cmp.diverged() {
            edges.push(edge);
        }
        true
    })?;
    Ok(edges)
}
