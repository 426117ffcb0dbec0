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
use skeinhw_shabal::constants::{A_WORDS, BLOCK_WORDS, ITERATIONS};
use skeinhw_shabal::perm::{self, State};

use crate::cycle::CycleOptions;
use crate::error::DiffError;
use crate::event::matcher::{self, EventSource, Matcher, ProbeList, Seen, is_one, known};
use crate::map::{self, SignalMap};
use crate::report::{DiffReport, Divergence, FieldDiff};
use crate::wave::{Bits, Probe, WaveOptions, sample_rising_edges};

/// A part of the Shabal state a register view holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// A, 12 words (`a_<i>`).
    A,
    /// B, 16 words (`b_<i>`).
    B,
    /// C, 16 words (`c_<i>`).
    C,
}

impl Part {
    /// A, B, C.
    pub const ALL: [Part; 3] = [Part::A, Part::B, Part::C];

    /// The trace's prefix of the part's words.
    pub fn prefix(self) -> &'static str {
        match self {
            Part::A => "a",
            Part::B => "b",
            Part::C => "c",
        }
    }

    /// Words of the part.
    pub fn words(self) -> usize {
        match self {
            Part::A => A_WORDS,
            Part::B | Part::C => BLOCK_WORDS,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn of(s: &State, part: Part) -> Vec<u64> {
        let w: &[u32] = match part {
            Part::A => &s.a,
            Part::B => &s.b,
            Part::C => &s.c,
        };
        w.iter().map(|&x| u64::from(x)).collect()
    }

    /// `a_3` -> (A, 3); `None` for any other name.
    pub fn field(name: &str) -> Option<(Part, usize)> {
        let (p, w) = name.split_once('_')?;
        let part = Part::ALL.into_iter().find(|x| x.prefix() == p)?;
        Some((part, w.parse().ok()?))
    }
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

#[derive(Clone, Debug)]
struct Event {
    words: Vec<u64>,
    seen: Option<(u64, u64)>,
}

/// The value a register took in place of the next event: the closest one (most words equal
/// to the event) after event `matched` (or before any).
#[derive(Clone, Debug)]
struct Gap {
    matched: Option<usize>,
    view: usize,
    edge: u64,
    time: u64,
    words: Vec<u64>,
    equal: usize,
}

#[derive(Clone, Debug, Default)]
struct StreamEvents {
    passes: Vec<PassInfo>,
    /// Per part: one event per pass.
    events: [Vec<Event>; 3],
    next: [usize; 3],
    gaps: [Vec<Gap>; 3],
    /// The digest (the last words of C after the last final round) and whether it was seen.
    digest: Vec<u64>,
    digest_seen: bool,
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
                for part in Part::ALL {
                    st.events[part.index()].push(Event {
                        words: Part::of(s, part),
                        seen: None,
                    });
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
                    words: &st.events[part.index()][pass].words,
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

impl EventSource for ShabalExpected {
    type Family = Part;

    fn stream_ids(&self) -> Vec<u32> {
        self.streams.keys().copied().collect()
    }

    fn words(&self, stream: u32, part: Part, j: usize) -> Option<&[u64]> {
        let e = self.streams.get(&stream)?.events[part.index()].get(j)?;
        Some(&e.words)
    }

    fn next(&self, stream: u32, part: Part) -> usize {
        self.streams
            .get(&stream)
            .map_or(0, |st| st.next[part.index()])
    }

    /// One event per message round: each is a block of its own.
    fn block(&self, stream: u32, part: Part, j: usize) -> Option<usize> {
        self.words(stream, part, j).map(|_| j)
    }

    fn seen(&self, stream: u32, part: Part, j: usize) -> bool {
        self.streams
            .get(&stream)
            .and_then(|st| st.events[part.index()].get(j))
            .is_some_and(|e| e.seen.is_some())
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

/// A digest that differed or never came.
#[derive(Clone, Debug)]
struct DigestFault {
    stream: u32,
    edge: u64,
    time: u64,
    expected: Vec<u64>,
    got: Option<Vec<Bits>>,
    what: &'static str,
}

/// The Shabal event comparison, fed edge by edge.
pub struct ShabalEventComparator {
    ex: ShabalExpected,
    layout: Layout,
    matcher: Matcher,
    /// The digest lines at the previous edge with out_valid high (a held digest counts once).
    last_digest: Option<Vec<u64>>,
    digest_fault: Option<DigestFault>,
    edges: u64,
    last_time: u64,
    compared_edges: u64,
}

impl ShabalEventComparator {
    fn new(ex: ShabalExpected, layout: Layout) -> ShabalEventComparator {
        let matcher = Matcher::new(&ex, &layout.views);
        ShabalEventComparator {
            ex,
            layout,
            matcher,
            last_digest: None,
            digest_fault: None,
            edges: 0,
            last_time: 0,
            compared_edges: 0,
        }
    }

    /// One RTL rising edge (after reset) with its samples in layout order.
    pub(crate) fn edge(&mut self, edge: u64, time: u64, samples: &[Bits]) {
        self.edges = self.edges.max(edge + 1);
        self.last_time = time;
        self.compared_edges += 1;
        for vi in 0..self.layout.views.len() {
            self.view_edge(vi, edge, time, samples);
        }
        self.digest_edge(edge, time, samples);
    }

    fn view_edge(&mut self, vi: usize, edge: u64, time: u64, samples: &[Bits]) {
        let part = self.layout.views[vi].family.index();
        let seen = self.matcher.see(&self.ex, &self.layout.views, vi, samples);
        let view = &self.layout.views[vi];
        match seen {
            Seen::Nothing => {}
            Seen::Event(stream, j) => {
                let st = self.ex.streams.get_mut(&stream).expect("stream");
                st.events[part][j].seen = Some((edge, time));
                st.next[part] = j + 1;
                self.matcher.armed[vi] = Some((stream, j));
            }
            Seen::Other { value, .. } => {
                // In place of the next event of the stream last matched (or of the first
                // stream, before any match): keep the closest value.
                let target = match self.matcher.armed[vi] {
                    Some((stream, j)) => Some((stream, Some(j))),
                    None => self.ex.streams.keys().next().map(|k| (*k, None)),
                };
                if let Some((stream, matched)) = target {
                    let st = self.ex.streams.get_mut(&stream).expect("stream");
                    let next = matched.map_or(0, |j| j + 1);
                    if let Some(e) = st.events[part].get(next) {
                        let equal = view
                            .words
                            .iter()
                            .zip(&value)
                            .filter(|(wp, v)| e.words[wp.0] == **v)
                            .count();
                        let gaps = &mut st.gaps[part];
                        match gaps.iter_mut().find(|g| g.matched == matched) {
                            Some(g) if g.equal >= equal => {}
                            Some(g) => {
                                *g = Gap {
                                    matched,
                                    view: vi,
                                    edge,
                                    time,
                                    words: value,
                                    equal,
                                }
                            }
                            None => gaps.push(Gap {
                                matched,
                                view: vi,
                                edge,
                                time,
                                words: value,
                                equal,
                            }),
                        }
                    }
                }
            }
        }
    }

    fn digest_edge(&mut self, edge: u64, time: u64, samples: &[Bits]) {
        let Some((valid, ws)) = &self.layout.digest else {
            return;
        };
        if self.digest_fault.is_some() {
            return;
        }
        if !is_one(&samples[*valid]) {
            self.last_digest = None;
            return;
        }
        let got: Option<Vec<u64>> = ws.iter().map(|&(_, p)| known(&samples[p])).collect();
        if got.is_some() && got == self.last_digest {
            return;
        }
        let hit = got.as_ref().and_then(|g| {
            self.ex
                .streams
                .iter()
                .find(|(_, st)| {
                    !st.digest_seen
                        && !st.digest.is_empty()
                        && ws.iter().zip(g).all(|(&(w, _), v)| st.digest[w] == *v)
                })
                .map(|(k, _)| *k)
        });
        match hit {
            Some(k) => {
                self.ex.streams.get_mut(&k).expect("stream").digest_seen = true;
                self.last_digest = got;
            }
            None => {
                let (stream, expected) = self.first_missing_digest();
                self.digest_fault = Some(DigestFault {
                    stream,
                    edge,
                    time,
                    expected,
                    got: Some(ws.iter().map(|&(_, p)| samples[p].clone()).collect()),
                    what: "a digest that is none of the expected ones",
                });
            }
        }
    }

    /// The mapped digest port has shown every expected digest (or a wrong one): later edges
    /// cannot change the verdict, so a live caller may stop. False without a digest port.
    pub(crate) fn digests_settled(&self) -> bool {
        self.layout.digest.is_some()
            && (self.digest_fault.is_some()
                || self
                    .ex
                    .streams
                    .values()
                    .all(|st| st.digest_seen || st.digest.is_empty()))
    }

    /// The map field each sample position stands for (`when` for a qualifier signal), for a
    /// live caller that reads the signals itself.
    pub(crate) fn labels(&self, n: usize) -> Vec<String> {
        let mut labels = vec!["when".to_string(); n];
        for view in &self.layout.views {
            for (k, &(_, pos)) in view.words.iter().enumerate() {
                labels[pos] = view.fields[k].clone();
            }
        }
        if let Some((valid, words)) = &self.layout.digest {
            labels[*valid] = "out_valid".into();
            for &(w, pos) in words {
                labels[pos] = format!("out_data_{w}");
            }
        }
        labels
    }

    fn first_missing_digest(&self) -> (u32, Vec<u64>) {
        self.ex
            .streams
            .iter()
            .find(|(_, st)| !st.digest_seen && !st.digest.is_empty())
            .map(|(k, st)| (*k, st.digest.clone()))
            .unwrap_or_default()
    }

    /// The verdict after the last edge.
    pub(crate) fn finish(mut self, golden_cycles: u64) -> Result<DiffReport, DiffError> {
        self.matcher
            .check_compared(&self.layout.views, self.compared_edges, self.edges)?;
        if self.layout.digest.is_some() && self.digest_fault.is_none() {
            let (stream, expected) = self.first_missing_digest();
            if !expected.is_empty() {
                self.digest_fault = Some(DigestFault {
                    stream,
                    edge: self.edges,
                    time: self.last_time,
                    expected,
                    got: None,
                    what: "the digest never left the design",
                });
            }
        }
        let mut expected_n = 0u64;
        let mut matched_n = 0u64;
        let mut first: Option<(u32, usize, usize)> = None;
        let mut lines = Vec::new();
        for (&stream, st) in &self.ex.streams {
            for view in &self.layout.views {
                let evs = &st.events[view.family.index()];
                expected_n += evs.len() as u64;
                matched_n += evs.iter().filter(|e| e.seen.is_some()).count() as u64;
                if let Some(j) = evs.iter().position(|e| e.seen.is_none())
                    && first.is_none_or(|(s, fj, fvi)| {
                        (stream, j, vi_of(&self.layout, view.family)) < (s, fj, fvi)
                    })
                {
                    first = Some((stream, j, vi_of(&self.layout, view.family)));
                }
            }
            lines.extend(seen_lines(stream, st, &self.layout));
        }
        let divergence = match first {
            Some((stream, j, vi)) => Some(self.event_divergence(stream, j, vi)),
            None => self
                .digest_fault
                .as_ref()
                .map(|d| self.digest_divergence(d)),
        };
        let digests = self.ex.streams.values().filter(|s| s.digest_seen).count();
        let digest_text = if self.layout.digest.is_some() {
            format!("{digests} digest(s)")
        } else {
            "no digest port mapped".into()
        };
        Ok(matcher::report(matcher::Tally {
            views: &self.layout.views,
            divergence,
            digest_text,
            digest_fields: self.layout.digest.as_ref().map_or(0, |d| d.1.len() + 1),
            expected: expected_n,
            matched: matched_n,
            edges: self.edges,
            compared_edges: self.compared_edges,
            golden_cycles,
            blocks: lines,
            left_out: &self.layout.left_out,
        }))
    }

    fn event_divergence(&self, stream: u32, j: usize, vi: usize) -> Divergence {
        let view = &self.layout.views[vi];
        let st = &self.ex.streams[&stream];
        let evs = &st.events[view.family.index()];
        let e = &evs[j];
        let prev = evs[..j].iter().rposition(|p| p.seen.is_some());
        let gap = st.gaps[view.family.index()]
            .iter()
            .find(|g| g.matched == prev && g.view == vi);
        let fields = view
            .words
            .iter()
            .enumerate()
            .map(|(k, &(w, _))| FieldDiff {
                field: view.fields[k].clone(),
                golden: format!("{:08x}", e.words[w]),
                rtl: gap.map_or_else(|| "(not seen)".into(), |g| format!("{:08x}", g.words[k])),
                unknown: false,
            })
            .collect();
        let window = match prev {
            Some(p) => {
                let (edge, _) = evs[p].seen.expect("seen");
                format!(
                    "; last matching event {}, after the round (RTL edge {edge}): the fault lies \
                     between",
                    st.passes[p].name()
                )
            }
            None => "; no earlier event of that register matched".into(),
        };
        let shown = match gap {
            Some(g) => format!(
                "; closest value taken in its place at RTL edge {} ({} of {} words equal)",
                g.edge,
                g.equal,
                view.words.len()
            ),
            None => String::new(),
        };
        let phase = format!(
            "stream {stream}, {}, after the round: never seen in {}_*{window}{shown}",
            st.passes[j].name(),
            view.family.prefix()
        );
        let (edge, time) = gap.map_or((self.edges, self.last_time), |g| (g.edge, g.time));
        Divergence {
            cycle: edge,
            rtl_edge: edge,
            time,
            phase,
            location: Vec::new(),
            fields,
            context: Vec::new(),
        }
    }

    fn digest_divergence(&self, d: &DigestFault) -> Divergence {
        let fields = d
            .expected
            .iter()
            .enumerate()
            .map(|(w, e)| {
                let got = d.got.as_ref().and_then(|g| g.get(w));
                FieldDiff {
                    field: format!("out_data_{w}"),
                    golden: format!("{e:08x}"),
                    rtl: got.map_or_else(|| "(not seen)".into(), Bits::to_hex),
                    unknown: got.is_some_and(|b| b.unknown.is_some()),
                }
            })
            .collect();
        Divergence {
            cycle: d.edge,
            rtl_edge: d.edge,
            time: d.time,
            phase: format!(
                "stream {}: {} (every mapped state event matched)",
                d.stream, d.what
            ),
            location: Vec::new(),
            fields,
            context: Vec::new(),
        }
    }
}

fn vi_of(layout: &Layout, part: Part) -> usize {
    layout
        .views
        .iter()
        .position(|v| v.family == part)
        .expect("a view of the part")
}

/// Per run of passes of one type with the same parts seen: "stream 0, message blocks 0-1:
/// a, b, c after the round".
fn seen_lines(stream: u32, st: &StreamEvents, layout: &Layout) -> Vec<String> {
    let mut runs: Vec<(ShabalPhase, u64, u64, String, usize)> = Vec::new();
    for (j, info) in st.passes.iter().enumerate() {
        let parts: Vec<&str> = layout
            .views
            .iter()
            .filter(|v| st.events[v.family.index()][j].seen.is_some())
            .map(|v| v.family.prefix())
            .collect();
        let text = if parts.is_empty() {
            "no event".to_string()
        } else {
            format!("{} after the round", parts.join(", "))
        };
        match runs.last_mut() {
            Some(r) if r.0 == info.phase && r.2 + 1 == info.of_type && r.3 == text => {
                r.2 = info.of_type;
                r.4 = j;
            }
            _ => runs.push((info.phase, info.of_type, info.of_type, text, j)),
        }
    }
    runs.into_iter()
        .map(|(phase, a, b, text, last)| {
            let what = match phase {
                ShabalPhase::Final => "final round",
                _ => "message block",
            };
            let passes = if a == b {
                format!("{what} {a}")
            } else {
                format!("{what}s {a}-{b}")
            };
            let digest = if st.digest_seen && last + 1 == st.passes.len() {
                ", digest"
            } else {
                ""
            };
            format!("stream {stream}, {passes}: {text}{digest}")
        })
        .collect()
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
    if options.offset != 0 {
        return Err(DiffError::Invalid(
            "--offset lines up cycles; event alignment has no cycles to line up (use \
             --reset-cycles to skip the first RTL edges)"
                .into(),
        ));
    }
    let (mut cmp, probes, golden_cycles) = prepare(header, golden, map, options.partial)?;
    let mut wave_options: WaveOptions = options.wave.clone();
    if let Some(c) = &map.clock {
        wave_options.clock = c.clone();
    }
    let stats = sample_rising_edges(wave, &wave_options, &probes, |edge, time, samples| {
        if edge >= options.reset_cycles {
            cmp.edge(edge, time, samples);
        }
        true
    })?;
    if stats.edges == 0 {
        return Err(DiffError::Invalid(format!(
            "{}: no rising edge of clock '{}'",
            wave.display(),
            wave_options.clock
        )));
    }
    cmp.edges = stats.edges;
    cmp.finish(golden_cycles)
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
