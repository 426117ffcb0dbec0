//! The event diff fed one RTL cycle at a time, for a checker that runs inside the simulation
//! (the cocotb `GoldenChecker` with `align="event"`): the same map check, golden events,
//! comparator and [`DiffReport`] as the waveform diff, without a waveform file. A Skein
//! schedule is compared at Threefish events as [`crate::compare_events`] does ([`Expected`],
//! [`EventComparator`]); a Shabal schedule at the state after each round as
//! [`crate::compare_shabal_events`] does ([`ShabalEventComparator`]).

use crate::error::DiffError;
use crate::event::{EventComparator, EventLayout, Expected};
use crate::golden::{Golden, ShabalGolden};
use crate::live::Step;
use crate::map::{self, Alignment, Layout, SignalMap};
use crate::report::DiffReport;
use crate::shabal_event::{self, ShabalEventComparator};
use crate::wave::{Bits, Probe};

/// The comparator of either algorithm's events.
enum Comparator {
    Skein(Box<EventComparator>),
    Shabal(Box<ShabalEventComparator>),
}

/// An event diff in progress.
pub struct LiveEventDiff {
    comparator: Comparator,
    /// What each sample is: a map field, or `when` for a qualifier signal.
    labels: Vec<String>,
    probes: Vec<Probe>,
    fields: usize,
    golden_cycles: u64,
    reset_cycles: u64,
    compared: u64,
}

impl LiveEventDiff {
    /// A diff of the Skein run `golden`'s Threefish events against the RTL signals `map`
    /// names; the map is checked for event alignment first (`partial` accepts a register mapped in part). The golden run
    /// is read whole here: its events are what the RTL's values are looked up in.
    pub fn new(golden: Golden, map: &SignalMap, partial: bool) -> Result<Self, DiffError> {
        let header = golden.header;
        let signals = skeinhw_trace::names::signals(header.words, header.slots);
        let names: Vec<&str> = signals.iter().map(|s| s.name.as_str()).collect();
        let layout = Layout {
            signals: &names,
            words: header.words,
            slots: header.slots.max(1),
        };
        let left_out = map::validate(map, Alignment::Event, &layout, partial)?;
        let (ex, golden_cycles) =
            Expected::from_records(&header, golden.records, map.key_ring, map.tweak_ring)?;
        let (event_layout, probes) = EventLayout::of_map(map, header.words, left_out);
        if event_layout.views.is_empty()
            && event_layout.digest.is_none()
            && event_layout.serial.is_none()
        {
            return Err(DiffError::Invalid(format!(
                "event alignment needs the state words (slot0_state_0..slot0_state_{}), the \
                 state before injection, the key or tweak, or the digest in the map",
                header.words - 1
            )));
        }
        let labels = labels(&event_layout, probes.len());
        let comparator = Comparator::Skein(Box::new(EventComparator::new(ex, event_layout)));
        Ok(Self::of(comparator, labels, probes, golden_cycles, map))
    }

    /// A diff of the Shabal run `golden`'s events (A, B, C after each round, each digest)
    /// against the RTL signals `map` names (`a_<i>`, `b_<i>`, `c_<i>`, `out_valid`,
    /// `out_data_<w>`); the map is checked for Shabal event alignment first (`partial` accepts
    /// a part mapped in part). The golden run is read whole here.
    pub fn shabal(golden: ShabalGolden, map: &SignalMap, partial: bool) -> Result<Self, DiffError> {
        let (comparator, probes, golden_cycles) =
            shabal_event::prepare(&golden.header, golden.records, map, partial)?;
        let labels = comparator.labels(probes.len());
        let comparator = Comparator::Shabal(Box::new(comparator));
        Ok(Self::of(comparator, labels, probes, golden_cycles, map))
    }

    fn of(
        comparator: Comparator,
        labels: Vec<String>,
        probes: Vec<Probe>,
        golden_cycles: u64,
        map: &SignalMap,
    ) -> Self {
        let fields = labels.iter().filter(|l| *l != "when").count();
        LiveEventDiff {
            comparator,
            labels,
            probes,
            fields,
            golden_cycles,
            reset_cycles: map.reset_cycles.unwrap_or(0),
            compared: 0,
        }
    }

    /// What [`LiveEventDiff::step`] takes, in order: each sample's map field (or `when` for a
    /// qualifier) and its RTL signal.
    pub fn probes(&self) -> impl Iterator<Item = (&str, &Probe)> {
        self.labels
            .iter()
            .map(String::as_str)
            .zip(self.probes.iter())
    }

    /// RTL edges compared so far.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// Signals compared (qualifiers not counted).
    pub fn field_count(&self) -> usize {
        self.fields
    }

    /// The golden run's length in cycles.
    pub fn golden_cycles(&self) -> u64 {
        self.golden_cycles
    }

    /// One RTL rising edge: `samples` are the values of [`LiveEventDiff::probes`] after edge
    /// `edge` (counted from the first, reset included) at simulation time `time`. Done once the
    /// mapped digest port has shown every digest (or a wrong one); without a digest port the
    /// caller decides when the run is over.
    pub fn step(&mut self, edge: u64, time: u64, samples: &[Bits]) -> Result<Step, DiffError> {
        if samples.len() != self.probes.len() {
            return Err(DiffError::Invalid(format!(
                "{} values given for {} probed signals",
                samples.len(),
                self.probes.len()
            )));
        }
        // The waveform reader gives a byte-swapped word swapped back; so does this. A Shabal
        // word is 32 bits wide, whatever width the caller gave its int.
        let swapped: Vec<Bits>;
        let samples = if self.probes.iter().any(|p| p.byteswap) {
            let shabal = matches!(self.comparator, Comparator::Shabal(_));
            swapped = samples
                .iter()
                .zip(&self.probes)
                .map(|(b, p)| {
                    let mut b = b.clone();
                    if shabal && p.byteswap && b.words.iter().all(|&w| w >> 32 == 0) {
                        b.width = 32;
                    }
                    p.unswap(&mut b);
                    b
                })
                .collect();
            &swapped
        } else {
            samples
        };
        if edge >= self.reset_cycles {
            match &mut self.comparator {
                Comparator::Skein(c) => c.edge(edge, time, samples),
                Comparator::Shabal(c) => c.edge(edge, time, samples),
            }
            self.compared += 1;
        }
        let settled = match &self.comparator {
            Comparator::Skein(c) => c.digests_settled(),
            Comparator::Shabal(c) => c.digests_settled(),
        };
        Ok(if settled { Step::Done } else { Step::More })
    }

    /// The report; an error when nothing was compared.
    pub fn finish(self) -> Result<DiffReport, DiffError> {
        match self.comparator {
            Comparator::Skein(c) => c.finish(self.golden_cycles),
            Comparator::Shabal(c) => c.finish(self.golden_cycles),
        }
    }
}

/// The map field each sample position stands for.
fn labels(layout: &EventLayout, n: usize) -> Vec<String> {
    let mut labels = vec!["when".to_string(); n];
    for view in &layout.views {
        for (k, &(_, pos)) in view.words.iter().enumerate() {
            labels[pos] = view.fields[k].clone();
        }
    }
    if let Some((valid, words)) = &layout.digest {
        labels[*valid] = "out_valid".into();
        for &(w, pos) in words {
            labels[pos] = format!("out_data_{w}");
        }
    }
    if let Some((valid, data)) = layout.serial {
        labels[valid] = "digest_serial.valid".into();
        labels[data] = "digest_serial.data".into();
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::OwnedJob;
    use crate::report::Verdict;
    use skeinhw_sched::sim::{MemorySink, simulate};
    use skeinhw_trace::names;

    fn job() -> OwnedJob {
        OwnedJob {
            message: b"abc".repeat(30),
            msg_bits: 8 * 90,
            out_bits: 512,
            ..Default::default()
        }
    }

    fn golden() -> Golden {
        let schedule = skeinhw_sched::preset("ath-1r").expect("preset");
        Golden::simulate(schedule, vec![job()]).expect("simulates")
    }

    /// The state and the digest port of the generated design.
    fn map() -> SignalMap {
        let mut fields: Vec<String> = (0..8)
            .map(|w| names::slot(0, &format!("state_{w}")))
            .collect();
        fields.extend((0..8).map(names::out_data));
        fields.push(names::OUT_VALID.to_string());
        SignalMap::identity(fields.iter().map(String::as_str), None)
    }

    /// The golden run of [`job`] on ath-1r, read back independently from a memory sink: the
    /// trace's signals and every cycle's values in the same order.
    fn golden_rows() -> (Vec<names::Signal>, Vec<Vec<u64>>) {
        let schedule = skeinhw_sched::preset("ath-1r").expect("preset");
        let mut sink = MemorySink::new();
        let j = job();
        let borrowed = [skeinhw_sched::sim::Job::bytes(
            &j.message,
            512,
            Default::default(),
        )];
        simulate(&schedule, &borrowed, &mut sink).expect("simulates");
        let header = sink.header.clone().expect("header");
        let rows = sink
            .records
            .iter()
            .map(|r| {
                let mut v = Vec::new();
                names::values(&r.as_record(), &mut v);
                v
            })
            .collect();
        (names::signals(header.words, header.slots), rows)
    }

    /// The RTL is the golden trace itself, read independently from a memory sink: the
    /// events are all matched, then a flipped state bit is found.
    #[test]
    fn the_golden_trace_as_rtl_is_identical_then_a_flip_divergent() {
        let (signals, rows) = golden_rows();
        for flip in [false, true] {
            let mut live = LiveEventDiff::new(golden(), &map(), false).expect("live");
            let at: Vec<usize> = live
                .probes()
                .map(|(f, _)| signals.iter().position(|s| s.name == f).expect("field"))
                .collect();
            let mut done = false;
            for (edge, row) in rows.iter().enumerate() {
                let samples: Vec<Bits> = at
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        let v = row[i] ^ u64::from(flip && edge == 20 && k == 0);
                        Bits::known(vec![v], 64)
                    })
                    .collect();
                if live.step(edge as u64, 0, &samples).expect("step") == Step::Done {
                    done = true;
                    break;
                }
            }
            assert!(done, "the digest ends the run");
            let r = live.finish().expect("report");
            let want = if flip {
                Verdict::Divergent
            } else {
                Verdict::Identical
            };
            assert_eq!(r.verdict, want, "{r}");
            assert!(r.events_matched > 0, "{r}");
        }
    }

    /// A state register held byte-swapped, read back through `"byteswap": true` as the
    /// waveform reader does: IDENTICAL; the same values without the flag are not.
    #[test]
    fn a_byte_swapped_state_is_swapped_back() {
        let (signals, rows) = golden_rows();
        for flag in [true, false] {
            let mut m = map();
            for (f, p) in m.fields.iter_mut() {
                p.byteswap = flag && f.starts_with("slot0_state_");
            }
            let mut live = LiveEventDiff::new(golden(), &m, false).expect("live");
            let at: Vec<(bool, usize)> = live
                .probes()
                .map(|(f, _)| {
                    let i = signals.iter().position(|s| s.name == f).expect("field");
                    (f.starts_with("slot0_state_"), i)
                })
                .collect();
            for (edge, row) in rows.iter().enumerate() {
                let samples: Vec<Bits> = at
                    .iter()
                    .map(|&(state, i)| {
                        let v = if state { row[i].swap_bytes() } else { row[i] };
                        Bits::known(vec![v], 64)
                    })
                    .collect();
                if live.step(edge as u64, 0, &samples).expect("step") == Step::Done {
                    break;
                }
            }
            let r = live.finish().expect("report");
            let want = if flag {
                Verdict::Identical
            } else {
                Verdict::Divergent
            };
            assert_eq!(r.verdict, want, "{r}");
        }
    }

    #[test]
    fn a_map_without_event_fields_is_refused() {
        let map = SignalMap::identity(["phase"], None);
        assert!(LiveEventDiff::new(golden(), &map, false).is_err());
        assert!(LiveEventDiff::new(golden(), &SignalMap::default(), false).is_err());
    }

    #[test]
    fn nothing_compared_is_an_error() {
        let live = LiveEventDiff::new(golden(), &map(), false).expect("live");
        assert!(live.finish().is_err());
    }
}
