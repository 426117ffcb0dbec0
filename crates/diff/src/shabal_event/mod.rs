//! Event alignment for Shabal: the golden trace is reduced to the state (A, B, C) after each
//! round, computed with the library's Shabal round (`skeinhw_shabal::perm`) from each pass's
//! message block, and to each digest. The RTL's mapped registers (`a_<i>`, `b_<i>`, `c_<i>`,
//! the trace's names) must take those states in order, whatever the design's unfolding or
//! latency; `out_valid` + `out_data_<w>` must carry each digest.
//!
//! The events of a message of n padded blocks: *message block 0..n-1, after the round* (B += M,
//! A xor W, P, C -= M, the B/C swap and W += 1, the counter staying on the last block), then
//! *final round 0..2, after the round* (the same round on the last block, W unchanged). A
//! register *takes* an event when its value changes to that event's words. Every event of every
//! mapped part is expected (a Shabal core keeps A, B and C across rounds); the first one never
//! seen is the divergence, shown beside the value the register took in its place that comes
//! closest (most equal words).

use std::collections::BTreeMap;
use std::path::Path;

use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalPhase, ShabalTraceHeader};
use skeinhw_shabal::constants::{BLOCK_WORDS, ITERATIONS};
use skeinhw_shabal::perm::{self, State};

use crate::engine::matcher::{self, ProbeList};
use crate::engine::queue::{FamilyIndex, Queue, StreamQueue};
use crate::engine::run::{refuse_offset, sample_events};
use crate::error::DiffError;
pub use crate::map::Part;
use crate::map::{self, SignalMap};
use crate::options::CycleOptions;
use crate::report::DiffReport;
use crate::wave::Probe;

mod comparator;
pub use comparator::ShabalEventComparator;

impl FamilyIndex for Part {
    fn index(self) -> usize {
        self as usize
    }
}

/// The words of `part` of a state, widened to the engine's 64-bit words.
fn part_words(s: &State, part: Part) -> Vec<u64> {
    let w: &[u32] = match part {
        Part::A => &s.a,
        Part::B => &s.b,
        Part::C => &s.c,
    };
    w.iter().map(|&x| u64::from(x)).collect()
}

/// One pass over a block: a message block or a final round, and its index among those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PassInfo {
    phase: ShabalPhase,
    of_type: u64,
}

impl PassInfo {
    fn name(&self) -> String {
        match self.phase {
            ShabalPhase::Final => format!("final round {}", self.of_type),
            _ => format!("message block {}", self.of_type),
        }
    }
}

#[derive(Clone, Debug, Default)]
struct StreamEvents {
    passes: Vec<PassInfo>,
    /// Per part: one event per pass (its block: the pass), and the closest value taken in
    /// place of each event never seen.
    queue: Queue<()>,
    /// The digest (the last words of C after the last final round) and whether it was seen.
    digest: Vec<u64>,
    digest_seen: bool,
}

impl StreamQueue for StreamEvents {
    type Family = Part;
    type Kind = ();

    fn queue(&self) -> &Queue<()> {
        &self.queue
    }

    fn queue_mut(&mut self) -> &mut Queue<()> {
        &mut self.queue
    }
}

/// The events a golden Shabal run expects, per stream.
#[derive(Clone, Debug, Default)]
pub struct ShabalExpected {
    streams: BTreeMap<u32, StreamEvents>,
}

impl ShabalExpected {
    /// Reads a golden Shabal trace: at the last cycle of each pass, the round is recomputed
    /// with the library from the state after the previous one (the initial value first) and
    /// the pass's block M, and checked against the trace (a trace that disagrees is refused);
    /// the digest likewise. Returns the events and the golden cycles read.
    pub fn from_records<E: std::fmt::Display>(
        header: &ShabalTraceHeader,
        golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    ) -> Result<(ShabalExpected, u64), DiffError> {
        let out_bits = u64::from(header.schedule.output_bits());
        let out_words = header.output_words();
        let iv = *perm::initial_state(out_bits).ok_or_else(|| {
            DiffError::Invalid(format!("golden trace: Shabal has no {out_bits}-bit output"))
        })?;
        let mut ex = ShabalExpected::default();
        let mut state: BTreeMap<u32, State> = BTreeMap::new();
        let mut cycles = 0;
        for r in golden {
            let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            cycles += 1;
            if r.valid && r.iteration as usize == ITERATIONS {
                let s = state.entry(r.stream).or_insert(iv);
                s.m = r.state.m;
                // The counter moves after every message block but the last.
                if r.phase == ShabalPhase::Message && r.state.w != s.w {
                    perm::message_round(s);
                } else {
                    perm::final_round(s);
                }
                let (a, b, c) = (s.a, s.b, s.c);
                if (a, b, c) != (r.state.a, r.state.b, r.state.c) {
                    return Err(DiffError::Invalid(format!(
                        "golden trace: cycle {}: the state after stream {} pass {} is not the \
                         library's Shabal round of its block",
                        r.cycle, r.stream, r.block
                    )));
                }
                let st = ex.streams.entry(r.stream).or_default();
                let of_type = st.passes.iter().filter(|p| p.phase == r.phase).count() as u64;
                st.passes.push(PassInfo {
                    phase: r.phase,
                    of_type,
                });
                let pass = st.passes.len() - 1;
                for part in Part::ALL {
                    st.queue.push(part.index(), pass, (), part_words(s, part));
                }
            }
            if let Some(o) = r.out {
                let s = state.get(&o.stream).copied().unwrap_or(iv);
                let digest: Vec<u64> = s.c[BLOCK_WORDS - out_words..]
                    .iter()
                    .map(|&w| u64::from(w))
                    .collect();
                let traced: Vec<u64> = o.data[..out_words].iter().map(|&w| w.into()).collect();
                if digest != traced {
                    return Err(DiffError::Invalid(format!(
                        "golden trace: cycle {}: the digest of stream {} is not the last words \
                         of C after its final rounds",
                        r.cycle, o.stream
                    )));
                }
                ex.streams.entry(o.stream).or_default().digest = digest;
            }
        }
        Ok((ex, cycles))
    }
}

/// An expected event as a reader outside the comparator sees it (the Python binding's
/// `skeinhw.events`): part `part` of the state of `stream` after its pass `pass`, the
/// `of_type`-th pass of its `phase` (a message block or a final round).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShabalEvent<'a> {
    /// The stream (message) number.
    pub stream: u32,
    /// The pass's position among all passes of the stream.
    pub pass: usize,
    /// [`ShabalPhase::Message`] or [`ShabalPhase::Final`].
    pub phase: ShabalPhase,
    /// The pass's index among the passes of its phase.
    pub of_type: u64,
    /// A, B or C.
    pub part: Part,
    /// The part's 32-bit words.
    pub words: &'a [u64],
}

impl ShabalExpected {
    /// Every event, stream by stream, pass by pass, A, B, C in each pass: the order the
    /// comparator expects them in.
    pub fn events(&self) -> impl Iterator<Item = ShabalEvent<'_>> {
        self.streams.iter().flat_map(|(&stream, st)| {
            st.passes.iter().enumerate().flat_map(move |(pass, info)| {
                Part::ALL.into_iter().map(move |part| ShabalEvent {
                    stream,
                    pass,
                    phase: info.phase,
                    of_type: info.of_type,
                    part,
                    words: &st.queue.events(part.index())[pass].words,
                })
            })
        })
    }

    /// Each stream's digest (32-bit words, the last words of C), for the streams whose digest
    /// the golden trace carried.
    pub fn digests(&self) -> impl Iterator<Item = (u32, &[u64])> {
        self.streams
            .iter()
            .filter(|(_, st)| !st.digest.is_empty())
            .map(|(&k, st)| (k, st.digest.as_slice()))
    }
}

/// One mapped part: its words at positions of the sample list.
type View = matcher::View<Part>;

/// Where each mapped thing is in the samples.
#[derive(Clone, Debug, Default)]
struct Layout {
    views: Vec<View>,
    /// out_valid and the digest words (word, position).
    digest: Option<(usize, Vec<(usize, usize)>)>,
    left_out: Vec<String>,
}

impl Layout {
    fn of_map(map: &SignalMap, out_words: usize, left_out: Vec<String>) -> (Layout, Vec<Probe>) {
        let mut probes = ProbeList::default();
        let views = matcher::views_of_map(map, &mut probes, |field| {
            let (part, w) = Part::field(field)?;
            Some((part, part, w))
        });
        let digest = matcher::digest_port(map, out_words, &mut probes);
        (
            Layout {
                views,
                digest,
                left_out,
            },
            probes.0,
        )
    }
}

/// The map check, the golden events and the comparator of a Shabal event diff, shared by the
/// waveform diff ([`compare_shabal_events`]) and the live one
/// ([`crate::live_event::LiveEventDiff::shabal`]): returns the comparator, the probes it takes
/// samples of, in order, and the golden cycles read.
pub(crate) fn prepare<E: std::fmt::Display>(
    header: &ShabalTraceHeader,
    golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    map: &SignalMap,
    partial: bool,
) -> Result<(ShabalEventComparator, Vec<Probe>, u64), DiffError> {
    let out_words = header.output_words();
    let left_out = map::validate_shabal_events(map, out_words, partial)?;
    let (ex, golden_cycles) = ShabalExpected::from_records(header, golden)?;
    let (layout, probes) = Layout::of_map(map, out_words, left_out);
    if layout.views.is_empty() && layout.digest.is_none() {
        return Err(DiffError::Invalid(
            "Shabal event alignment needs A, B or C words (a_<i>, b_<i>, c_<i>) or the digest \
             (out_valid, out_data_<w>) in the map"
                .into(),
        ));
    }
    Ok((
        ShabalEventComparator::new(ex, layout),
        probes,
        golden_cycles,
    ))
}

/// Compares a Shabal golden trace with a waveform at events (see the module documentation).
/// The map is validated for Shabal event alignment first; `partial` accepts a part mapped in
/// part.
pub fn compare_shabal_events<E: std::fmt::Display>(
    header: &ShabalTraceHeader,
    golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    wave: &Path,
    map: &SignalMap,
    options: &CycleOptions,
) -> Result<DiffReport, DiffError> {
    refuse_offset(options)?;
    let (mut cmp, probes, golden_cycles) = prepare(header, golden, map, options.partial)?;
    let edges = sample_events(wave, map, options, &probes, |edge, time, samples| {
        cmp.edge(edge, time, samples)
    })?;
    cmp.finish_after(edges, golden_cycles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::{OwnedShabalJob, ShabalGolden};

    /// Shabal-512 of the empty message, the NIST submission's `ShortMsgKAT_512.txt` (`Len = 0`,
    /// vectors/shabal/kat.txt).
    const EMPTY_512: &str = "fc2d5dff5d70b7f6b1f8c2fcc8c1f9fe9934e54257eded0cf2b539a2ef0a19cc\
                             ffa84f8d9fa135e4bd3c09f590f3a927ebd603ac29eb729e6f2a9af031ad8dc6";

    #[test]
    fn accessors_list_every_pass_and_the_known_digest() {
        let schedule = skeinhw_sched::shabal::preset("shabal-unfold-1").expect("preset");
        let jobs = vec![OwnedShabalJob {
            message: Vec::new(),
            msg_bits: 0,
        }];
        let golden = ShabalGolden::simulate(schedule, jobs).expect("simulate");
        let (ex, _) = ShabalExpected::from_records(&golden.header, golden.records).expect("read");
        let events: Vec<ShabalEvent<'_>> = ex.events().collect();
        // One padded block, then three final rounds; A, B, C after each.
        assert_eq!(events.len(), 3 * 4);
        let passes: Vec<(ShabalPhase, u64)> = events
            .iter()
            .step_by(3)
            .map(|e| (e.phase, e.of_type))
            .collect();
        assert_eq!(
            passes,
            [
                (ShabalPhase::Message, 0),
                (ShabalPhase::Final, 0),
                (ShabalPhase::Final, 1),
                (ShabalPhase::Final, 2)
            ]
        );
        let digests: Vec<(u32, &[u64])> = ex.digests().collect();
        assert_eq!(digests.len(), 1);
        let bytes: String = digests[0]
            .1
            .iter()
            .map(|&w| {
                (w as u32)
                    .to_le_bytes()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            })
            .collect();
        assert_eq!(bytes, EMPTY_512);
        let last_c = events.last().expect("events");
        assert_eq!(last_c.part, Part::C);
        assert_eq!(last_c.words, digests[0].1);
    }
}
