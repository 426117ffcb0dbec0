//! The cycle diff fed one RTL cycle at a time, for a checker that runs inside the simulation
//! (the Python package's cocotb `GoldenChecker`): the same map check, alignment, don't-care
//! rules, `when` qualifiers and [`DiffReport`] as [`crate::compare_cycles`] — both drive one
//! [`CycleComparator`] — without a waveform file. The caller reads the mapped signals after
//! every rising edge and hands them to [`LiveDiff::step`].

use crate::cycle::{CycleComparator, CycleOptions};
use crate::error::DiffError;
use crate::frame::Frame;
use crate::golden::GoldenFrames;
use crate::map::SignalMap;
use crate::report::DiffReport;
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

/// A cycle diff in progress: the golden frames and the comparator they are fed to.
pub struct LiveDiff {
    comparator: CycleComparator,
    /// What each sample is: a compared field's name, or `when` for a qualifier signal.
    labels: Vec<String>,
    probes: Vec<Probe>,
    golden: Box<dyn Iterator<Item = Result<Frame, String>> + Send>,
    edges: u64,
    golden_done: bool,
}

impl LiveDiff {
    /// A diff of `golden` against the RTL signals `map` names, showing `context` cycles around
    /// the first divergence. Edges after the golden trace's last cycle are not held against
    /// the RTL (a test bench idles on).
    pub fn new(golden: GoldenFrames, map: &SignalMap, context: usize) -> Result<Self, DiffError> {
        let options = CycleOptions {
            context,
            allow_trailing: true,
            ..CycleOptions::default()
        };
        let (comparator, probes) = CycleComparator::new(&golden.signals, map, &options)?;
        let labels = comparator
            .field_names()
            .map(str::to_owned)
            .chain(std::iter::repeat("when".to_owned()))
            .take(probes.len())
            .collect();
        Ok(LiveDiff {
            comparator,
            labels,
            probes,
            golden: golden.frames,
            edges: 0,
            golden_done: false,
        })
    }

    /// What [`LiveDiff::step`] takes, in order: each compared field's name and its RTL signal
    /// (and slice), then any `when` qualifier signals (labelled `when`).
    pub fn probes(&self) -> impl Iterator<Item = (&str, &Probe)> {
        self.labels
            .iter()
            .map(String::as_str)
            .zip(self.probes.iter())
    }

    /// Cycles compared so far.
    pub fn compared(&self) -> u64 {
        self.comparator.compared()
    }

    /// Fields compared per cycle.
    pub fn field_count(&self) -> usize {
        self.comparator.field_names().count()
    }

    /// Whether a divergence has been found.
    pub fn diverged(&self) -> bool {
        self.comparator.diverged()
    }

    /// Compares the next golden cycle with one RTL cycle: `samples` are the values of
    /// [`LiveDiff::probes`] after rising edge `edge` (at simulation time `time`).
    pub fn step(&mut self, edge: u64, time: u64, samples: &[Bits]) -> Result<Step, DiffError> {
        if samples.len() != self.probes.len() {
            return Err(DiffError::Invalid(format!(
                "{} values given for {} probed signals",
                samples.len(),
                self.probes.len()
            )));
        }
        let swapped: Vec<Bits>;
        let samples = if self.probes.iter().any(|p| p.byteswap) {
            swapped = samples
                .iter()
                .zip(&self.probes)
                .map(|(b, p)| {
                    let mut b = b.clone();
                    p.unswap(&mut b);
                    b
                })
                .collect();
            &swapped
        } else {
            samples
        };
        self.edges += 1;
        let more = match self.golden.next() {
            None => {
                self.golden_done = true;
                self.comparator.trailing_edge();
                false
            }
            Some(Err(e)) => return Err(DiffError::Invalid(format!("golden trace: {e}"))),
            Some(Ok(frame)) => self.comparator.compare(edge, time, &frame, samples),
        };
        Ok(if more { Step::More } else { Step::Done })
    }

    /// The report: IDENTICAL only when every golden cycle was compared and agreed; an error
    /// when nothing was compared.
    pub fn finish(mut self) -> Result<DiffReport, DiffError> {
        let mut golden_left = 0u64;
        if !self.comparator.diverged() && !self.golden_done {
            for r in self.golden.by_ref() {
                r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
                golden_left += 1;
            }
        }
        self.comparator.finish(golden_left, self.edges, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::{Golden, OwnedJob};
    use crate::report::Verdict;
    use skeinhw_trace::names;

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

    fn reference_signals() -> Vec<names::Signal> {
        golden().signals
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
        let indices: Vec<usize> = live
            .probes()
            .map(|(field, _)| {
                reference_signals()
                    .iter()
                    .position(|s| s.name == field)
                    .expect("a trace field")
            })
            .collect();
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
            .probes()
            .position(|(field, _)| field == names::PHASE)
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
