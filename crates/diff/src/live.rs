//! The cycle diff fed one RTL cycle at a time, for a checker that runs inside the simulation
//! (the Python package's cocotb `GoldenChecker`): the same alignment, don't-care rules and
//! [`DiffReport`] as [`crate::compare_cycles`], without a waveform file. The caller reads the
//! mapped signals after every rising edge and hands them to [`LiveDiff::step`].

use std::collections::VecDeque;

use skeinhw_trace::names::{self, Signal};

use crate::error::DiffError;
use crate::frame::Frame;
use crate::golden::GoldenFrames;
use crate::map::SignalMap;
use crate::report::{ContextRow, DiffReport, Divergence, FieldDiff, Verdict};
use crate::wave::{Bits, Probe};

/// What the caller does after a [`LiveDiff::step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Keep going: hand over the next cycle.
    More,
    /// Done: the golden trace has ended, or a divergence and its context are complete; call
    /// [`LiveDiff::finish`].
    Done,
}

/// One compared field: the golden value's index, its width, and the golden 1-bit signal that
/// must be set for it to matter.
struct Compared {
    field: String,
    index: usize,
    width: u32,
    care_if: Option<usize>,
}

struct Raw {
    cycle: u64,
    golden: Vec<u64>,
    rtl: Vec<Bits>,
}

/// A cycle diff in progress.
pub struct LiveDiff {
    fields: Vec<Compared>,
    probes: Vec<Probe>,
    golden: Box<dyn Iterator<Item = Result<Frame, String>> + Send>,
    context: usize,
    compared: u64,
    golden_read: u64,
    edges: u64,
    history: VecDeque<Raw>,
    divergence: Option<Divergence>,
    divergent_fields: Vec<usize>,
    after: usize,
    golden_done: bool,
}

fn hex(v: u64, width: u32) -> String {
    format!("{:0w$x}", v, w = width.div_ceil(4) as usize)
}

fn rtl_text(b: &Bits) -> String {
    match b.unknown {
        Some(c) => format!("{c} (X/Z)"),
        None => b.to_hex(),
    }
}

fn equal(golden: u64, rtl: &Bits) -> bool {
    rtl.unknown.is_none()
        && rtl.words.first().copied().unwrap_or(0) == golden
        && rtl.words.iter().skip(1).all(|w| *w == 0)
}

fn compared_fields(signals: &[Signal], map: &SignalMap) -> Result<Vec<Compared>, DiffError> {
    let index_of = |name: &str| signals.iter().position(|s| s.name == name);
    if let Some(field) = map.fields.keys().find(|f| index_of(f).is_none()) {
        return Err(DiffError::Invalid(format!(
            "the map names field '{field}', which the golden trace does not have"
        )));
    }
    let out: Vec<Compared> = signals
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name != names::CLK && map.fields.contains_key(&s.name))
        .map(|(index, s)| Compared {
            field: s.name.clone(),
            index,
            width: s.width,
            care_if: s.care_if.as_deref().and_then(index_of),
        })
        .collect();
    if out.is_empty() {
        return Err(DiffError::Invalid(
            "no field to compare: the map covers none of the trace's signals".into(),
        ));
    }
    Ok(out)
}

impl LiveDiff {
    /// A diff of `golden` against the RTL signals `map` names, showing `context` cycles around
    /// the first divergence.
    pub fn new(golden: GoldenFrames, map: &SignalMap, context: usize) -> Result<Self, DiffError> {
        let fields = compared_fields(&golden.signals, map)?;
        let probes = fields
            .iter()
            .map(|c| map.fields[&c.field].clone())
            .collect();
        Ok(LiveDiff {
            fields,
            probes,
            golden: golden.frames,
            context,
            compared: 0,
            golden_read: 0,
            edges: 0,
            history: VecDeque::new(),
            divergence: None,
            divergent_fields: Vec::new(),
            after: 0,
            golden_done: false,
        })
    }

    /// The compared fields and the RTL signal (and slice) of each, in the order
    /// [`LiveDiff::step`] takes their values.
    pub fn probes(&self) -> impl Iterator<Item = (&str, &Probe)> {
        self.fields
            .iter()
            .map(|c| c.field.as_str())
            .zip(self.probes.iter())
    }

    /// Cycles compared so far.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// Fields compared per cycle.
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// Whether a divergence has been found.
    pub fn diverged(&self) -> bool {
        self.divergence.is_some()
    }

    /// Compares the next golden cycle with one RTL cycle: `samples` are the values of
    /// [`LiveDiff::probes`] after rising edge `edge` (at simulation time `time`).
    pub fn step(&mut self, edge: u64, time: u64, samples: &[Bits]) -> Result<Step, DiffError> {
        if samples.len() != self.fields.len() {
            return Err(DiffError::Invalid(format!(
                "{} values given for {} compared fields",
                samples.len(),
                self.fields.len()
            )));
        }
        self.edges += 1;
        let record = match self.golden.next() {
            None => {
                self.golden_done = true;
                return Ok(Step::Done);
            }
            Some(Err(e)) => return Err(DiffError::Invalid(format!("golden trace: {e}"))),
            Some(Ok(r)) => r,
        };
        self.golden_read += 1;
        let fields = &self.fields;
        let values = &record.values;
        let row = |which: &[usize]| ContextRow {
            cycle: record.cycle,
            values: which
                .iter()
                .map(|&i| {
                    let c = &fields[i];
                    (
                        c.field.clone(),
                        hex(values[c.index], c.width),
                        rtl_text(&samples[i]),
                    )
                })
                .collect(),
        };
        if let Some(d) = self.divergence.as_mut() {
            d.context.push(row(&self.divergent_fields));
            self.after += 1;
            return Ok(if self.after < self.context {
                Step::More
            } else {
                Step::Done
            });
        }
        self.compared += 1;
        let diffs: Vec<usize> = fields
            .iter()
            .enumerate()
            .filter(|(_, c)| c.care_if.is_none_or(|cond| values[cond] & 1 != 0))
            .filter(|(i, c)| !equal(values[c.index], &samples[*i]))
            .map(|(i, _)| i)
            .collect();
        if diffs.is_empty() {
            if self.context > 0 {
                if self.history.len() == self.context {
                    self.history.pop_front();
                }
                self.history.push_back(Raw {
                    cycle: record.cycle,
                    golden: values.clone(),
                    rtl: samples.to_vec(),
                });
            }
            return Ok(Step::More);
        }
        let mut context: Vec<ContextRow> = self
            .history
            .drain(..)
            .map(|h| ContextRow {
                cycle: h.cycle,
                values: diffs
                    .iter()
                    .map(|&i| {
                        let c = &fields[i];
                        (
                            c.field.clone(),
                            hex(h.golden[c.index], c.width),
                            rtl_text(&h.rtl[i]),
                        )
                    })
                    .collect(),
            })
            .collect();
        context.push(row(&diffs));
        self.divergence = Some(Divergence {
            cycle: record.cycle,
            rtl_edge: edge,
            time,
            phase: record.phase.to_string(),
            location: record.location.clone(),
            fields: diffs
                .iter()
                .map(|&i| {
                    let c = &fields[i];
                    FieldDiff {
                        field: c.field.clone(),
                        golden: hex(values[c.index], c.width),
                        rtl: rtl_text(&samples[i]),
                        unknown: samples[i].unknown.is_some(),
                    }
                })
                .collect(),
            context,
        });
        self.divergent_fields = diffs;
        Ok(if self.context > 0 {
            Step::More
        } else {
            Step::Done
        })
    }

    /// The report: IDENTICAL only when every golden cycle was compared and agreed; an error
    /// when nothing was compared. Cycles the RTL runs after the golden trace are not counted
    /// against it (a test bench idles on).
    pub fn finish(mut self) -> Result<DiffReport, DiffError> {
        let mut golden_left = 0u64;
        if self.divergence.is_none() && !self.golden_done {
            for r in self.golden.by_ref() {
                r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
                golden_left += 1;
            }
        }
        let golden_cycles = self.golden_read + golden_left;
        let compared = self.compared;
        if compared == 0 && self.divergence.is_none() {
            return Err(DiffError::Invalid(format!(
                "nothing compared: the golden trace has {golden_cycles} cycles and the RTL gave {} \
                 rising edges",
                self.edges
            )));
        }
        let fields = self.fields.len();
        let (verdict, summary) = if let Some(d) = &self.divergence {
            let names: Vec<&str> = d.fields.iter().map(|x| x.field.as_str()).collect();
            (
                Verdict::Divergent,
                format!(
                    "DIVERGENT at golden cycle {}: {} field(s) differ ({}); {} cycle(s) identical before it",
                    d.cycle,
                    names.len(),
                    names.join(", "),
                    compared - 1
                ),
            )
        } else if golden_left > 0 {
            (
                Verdict::LengthMismatch,
                format!(
                    "LENGTH MISMATCH: the RTL run ends after {compared} compared cycles, the \
                     golden trace has {golden_cycles}"
                ),
            )
        } else {
            (
                Verdict::Identical,
                format!("IDENTICAL: {compared} cycles x {fields} fields"),
            )
        };
        Ok(DiffReport {
            verdict,
            compared_cycles: compared,
            golden_cycles,
            rtl_edges: self.edges,
            fields,
            first_divergence: self.divergence,
            events_expected: 0,
            events_matched: 0,
            blocks: Vec::new(),
            left_out: Vec::new(),
            summary,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::{Golden, OwnedJob};

    fn golden() -> GoldenFrames {
        let schedule = skeinhw_sched::preset("ath-1r").expect("preset");
        let job = OwnedJob {
            message: b"abc".to_vec(),
            msg_bits: 24,
            out_bits: 512,
            ..Default::default()
        };
        Golden::simulate(schedule, vec![job])
            .expect("simulates")
            .into_frames()
    }

    fn identity(g: &GoldenFrames) -> SignalMap {
        SignalMap::identity(
            g.signals
                .iter()
                .filter(|s| s.name != names::CLK)
                .map(|s| s.name.as_str()),
            None,
        )
    }

    /// An independent replay: the golden values themselves as the RTL, then one field flipped.
    #[test]
    fn identical_then_divergent() {
        let reference: Vec<Frame> = golden().frames.map(|f| f.expect("frame")).collect();
        let g = golden();
        let map = identity(&g);
        let mut live = LiveDiff::new(g, &map, 2).expect("live");
        let indices: Vec<usize> = live.fields.iter().map(|c| c.index).collect();
        for (edge, frame) in reference.iter().enumerate() {
            let samples: Vec<Bits> = indices
                .iter()
                .map(|&i| Bits::known(vec![frame.values[i]], 64))
                .collect();
            assert_eq!(
                live.step(edge as u64, 0, &samples).expect("step"),
                Step::More
            );
        }
        let report = live.finish().expect("report");
        assert_eq!(report.verdict, Verdict::Identical);
        assert_eq!(report.compared_cycles, reference.len() as u64);

        let g = golden();
        let mut live = LiveDiff::new(g, &map, 0).expect("live");
        let phase = live
            .fields
            .iter()
            .position(|c| c.field == names::PHASE)
            .expect("phase compared");
        let samples: Vec<Bits> = indices
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let v = reference[0].values[i] ^ u64::from(k == phase);
                Bits::known(vec![v], 64)
            })
            .collect();
        assert_eq!(live.step(0, 0, &samples).expect("step"), Step::Done);
        let report = live.finish().expect("report");
        assert_eq!(report.verdict, Verdict::Divergent);
        assert_eq!(
            report.first_divergence.expect("diverged").fields[0].field,
            "phase"
        );
    }

    #[test]
    fn nothing_compared_is_an_error() {
        let g = golden();
        let map = identity(&g);
        let live = LiveDiff::new(g, &map, 3).expect("live");
        assert!(live.finish().is_err());
        let g = golden();
        let empty = SignalMap::default();
        assert!(LiveDiff::new(g, &empty, 3).is_err());
    }
}
