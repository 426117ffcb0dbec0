//! What the cycle diff compares: a golden trace as a list of signals and, per cycle, one value
//! for each (a *frame*), whatever the algorithm. Skein and Shabal records become frames here;
//! the comparison itself ([`crate::compare_cycles`]) knows neither.

use skeinhw_sched::shabal::sim::ShabalCycleRecord;
use skeinhw_sched::sim::{CycleRecord, OwnedCycleRecord};
use skeinhw_trace::{names, shabal};

use crate::report::SlotWhere;

/// One golden cycle: its values in the order of the trace's signal list, and where in the
/// computation it is (for the report).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Golden cycle number.
    pub cycle: u64,
    /// Controller phase.
    pub phase: &'static str,
    /// What each busy pipeline register holds.
    pub location: Vec<SlotWhere>,
    /// One value per signal.
    pub values: Vec<u64>,
}

/// A Skein record as a frame over [`names::signals`].
pub fn skein_frame(r: &OwnedCycleRecord) -> Frame {
    let mut values = Vec::new();
    let mut location = Vec::new();
    let (cycle, phase) = skein_parts(&r.as_record(), &mut values, &mut location);
    Frame {
        cycle,
        phase,
        location,
        values,
    }
}

/// A Skein record's frame in parts: its values into `values` (cleared first), its busy
/// slots appended to `location`; answers the cycle and phase. Lets a batch of frames share
/// its buffers, and takes the simulator's borrowed record (no copy of it per cycle).
pub(crate) fn skein_parts(
    r: &CycleRecord<'_>,
    values: &mut Vec<u64>,
    location: &mut Vec<SlotWhere>,
) -> (u64, &'static str) {
    names::values(r, values);
    location.extend(
        r.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.valid)
            .map(|(i, s)| SlotWhere {
                slot: i,
                stream: s.stream,
                phase: s.phase.as_str(),
                block: s.block,
                round: s.round,
                subkey: s.subkey,
            }),
    );
    (r.cycle, r.phase.as_str())
}

/// A Shabal record as a frame over [`shabal::signals`]; its one "slot" is the datapath, and
/// `round` counts the iterations of P done in the pass.
pub fn shabal_frame(r: &ShabalCycleRecord, out_words: usize) -> Frame {
    let mut values = Vec::new();
    let mut location = Vec::new();
    let (cycle, phase) = shabal_parts(r, out_words, &mut values, &mut location);
    Frame {
        cycle,
        phase,
        location,
        values,
    }
}

/// [`shabal_frame`] in parts, as [`skein_parts`].
pub(crate) fn shabal_parts(
    r: &ShabalCycleRecord,
    out_words: usize,
    values: &mut Vec<u64>,
    location: &mut Vec<SlotWhere>,
) -> (u64, &'static str) {
    shabal::values(r, out_words, values);
    if r.valid {
        location.push(SlotWhere {
            slot: 0,
            stream: r.stream,
            phase: r.phase.as_str(),
            block: r.block,
            round: r.iteration,
            subkey: 0,
        });
    }
    (r.cycle, r.phase.as_str())
}
