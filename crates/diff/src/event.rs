//! Event alignment, for RTL of another schedule or latency (a design someone else wrote): the
//! golden trace is reduced to the architectural events of each UBI block, in the spec's terms,
//! computed with the library's Threefish from the block's key, tweak and output:
//!
//! - *before subkey s*: the state before subkey s is added (the block's input for s = 0, the
//!   state after round 4s-1 otherwise), seen in `slot<i>_state_before_<w>`;
//! - *after subkey s*: the state after subkey s was added, and *feed-forward*: the chaining
//!   value, seen in `slot<i>_state_<w>` (what "state" meant before there were views);
//! - *key* and *tweak*: the block's extended key k_0..k_Nw and tweak t0, t1, t2, or with a
//!   rotating ring (`"key_ring": "rotating"`) the words as the ring holds them at each subkey s,
//!   seen in `slot<i>_key_<w>` and `slot<i>_tweak_<t>`;
//! - each digest block (`out_valid` + `out_data_<w>`) or digest word (`digest_serial`).
//!
//! A register *takes* an event when its value changes to that event's words; each stream's
//! events of one register family must appear in order. A design registers only some kinds
//! (every other subkey at unroll 8): the kinds it was seen to register (closed under their
//! subkey stride) are the ones expected of every block. Config (and Key) blocks are expected
//! only if the design was seen to compute one (`config_precomputed` designs never do).
//!
//! The comparison itself ([`EventComparator`]) takes values edge by edge, so that a waveform
//! file ([`compare_events`]) and a live simulation feed it alike.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;
use skeinhw_sched::sim::{OwnedCycleRecord, Phase, TraceHeader};
use skeinhw_skein::threefish::{KeySchedule, decrypt, inject_subkey, round};

use crate::cycle::CycleOptions;
use crate::error::DiffError;
use crate::map::{self, Alignment, Layout, Ring, SignalMap};
use crate::report::{DiffReport, Divergence, FieldDiff};
use crate::wave::{Bits, Probe, WaveOptions, sample_rising_edges};

mod list;
pub(crate) mod matcher;
pub use list::{GoldenDigest, GoldenEvent};
use matcher::{EventSource, Matcher, ProbeList, Seen, is_one, known};

/// What an event is, in the spec's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The state before subkey s is added (after round 4s-1; the block's input for s = 0).
    BeforeSubkey(u32),
    /// The state after subkey s was added.
    AfterSubkey(u32),
    /// The chaining value after the feed-forward.
    FeedForward,
    /// The key words as the key register holds them at subkey s (s = 0: a fixed ring).
    Key(u32),
    /// The tweak words as the tweak register holds them at subkey s (s = 0: a fixed ring).
    Tweak(u32),
}

impl Kind {
    /// When in a block the event happens: the key and tweak for subkey s, the state before
    /// it, the state after it; the feed-forward last.
    fn order(self) -> (u32, u8) {
        match self {
            Kind::Key(s) | Kind::Tweak(s) => (s, 0),
            Kind::BeforeSubkey(s) => (s, 1),
            Kind::AfterSubkey(s) => (s, 2),
            Kind::FeedForward => (u32::MAX, 0),
        }
    }

    fn subkey(self) -> Option<u32> {
        match self {
            Kind::BeforeSubkey(s) | Kind::AfterSubkey(s) | Kind::Key(s) | Kind::Tweak(s) => Some(s),
            Kind::FeedForward => None,
        }
    }
}

/// The register family an event is seen in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// `slot<i>_state_<w>`: after injection, and the feed-forward.
    State,
    /// `slot<i>_state_before_<w>`.
    StateBefore,
    /// `slot<i>_key_<w>`.
    Key,
    /// `slot<i>_tweak_<t>`.
    Tweak,
}

impl Family {
    const ALL: [Family; 4] = [
        Family::State,
        Family::StateBefore,
        Family::Key,
        Family::Tweak,
    ];

    fn register(self) -> &'static str {
        match self {
            Family::State => "state",
            Family::StateBefore => "state_before",
            Family::Key => "key",
            Family::Tweak => "tweak",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One UBI block of a stream: its place among the stream's blocks and its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    /// Index among all UBI blocks of the stream (the trace's `block`).
    pub block: u64,
    /// Its UBI type.
    pub ubi: Phase,
    /// Index among the stream's blocks of that type ("message block 1").
    pub of_type: u64,
}

impl BlockInfo {
    fn name(&self) -> String {
        format!("{} block {}", self.ubi.as_str(), self.of_type)
    }
}

/// One expected event.
#[derive(Clone, Debug)]
struct Event {
    /// Position of the block in the stream's block list.
    block: usize,
    kind: Kind,
    words: Vec<u64>,
    seen: Option<(u64, u64)>,
    /// Seen only as equal to the event before it (no evidence the design registers the kind).
    implied: bool,
}

/// A value a register took that no event explains, right after event `matched` of the
/// family (or before any): where the next event was expected.
#[derive(Clone, Debug)]
struct Gap {
    matched: Option<usize>,
    view: usize,
    edge: u64,
    time: u64,
    words: Vec<u64>,
}

#[derive(Clone, Debug, Default)]
struct StreamEvents {
    blocks: Vec<BlockInfo>,
    /// Events of each family, in order.
    events: [Vec<Event>; 4],
    next: [usize; 4],
    /// Per family, the gaps: after a match, the first value the register took that was no
    /// event.
    gaps: [Vec<Gap>; 4],
    /// Expected digest blocks (index, words) and how many were seen.
    digests: Vec<(u64, Vec<u64>)>,
    next_digest: usize,
    /// Serial port: digest words seen.
    next_word: usize,
}

/// The events a golden run expects, per stream (value-based: feed blocks and digests).
#[derive(Clone, Debug, Default)]
pub struct Expected {
    words: usize,
    rounds: usize,
    key_ring: Ring,
    tweak_ring: Ring,
    streams: BTreeMap<u32, StreamEvents>,
}

impl Expected {
    /// No events yet, for Threefish with `words` state words and the map's rings.
    pub fn new(words: usize, key_ring: Ring, tweak_ring: Ring) -> Expected {
        Expected {
            words,
            rounds: skeinhw_skein::constants::rounds(words),
            key_ring,
            tweak_ring,
            streams: BTreeMap::new(),
        }
    }

    /// Adds a UBI block of `stream` from its key k_0..k_{Nw-1}, tweak and Threefish output (the
    /// state after the last subkey): every event is computed with the library's Threefish.
    pub fn add_block(
        &mut self,
        stream: u32,
        block: u64,
        ubi: Phase,
        key: &[u64],
        tweak: [u64; 2],
        out: &[u64],
    ) {
        let evs = match self.words {
            4 => threefish_events::<4>(key, tweak, out, self.key_ring, self.tweak_ring),
            8 => threefish_events::<8>(key, tweak, out, self.key_ring, self.tweak_ring),
            _ => threefish_events::<16>(key, tweak, out, self.key_ring, self.tweak_ring),
        };
        let st = self.streams.entry(stream).or_default();
        let of_type = st.blocks.iter().filter(|b| b.ubi == ubi).count() as u64;
        st.blocks.push(BlockInfo {
            block,
            ubi,
            of_type,
        });
        let pos = st.blocks.len() - 1;
        for (family, kind, words) in evs {
            st.events[family.index()].push(Event {
                block: pos,
                kind,
                words,
                seen: None,
                implied: false,
            });
        }
    }

    /// Adds a digest block (Output block `index`'s chaining value) of `stream`.
    pub fn add_digest(&mut self, stream: u32, index: u64, words: &[u64]) {
        let st = self.streams.entry(stream).or_default();
        st.digests.push((index, words.to_vec()));
    }

    /// Reads a golden trace: each block's events, each digest block.
    pub fn from_records<E: std::fmt::Display>(
        header: &TraceHeader,
        golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
        key_ring: Ring,
        tweak_ring: Ring,
    ) -> Result<(Expected, u64), DiffError> {
        let nw = header.words;
        let rounds = header.schedule.rounds();
        let subkeys = header.schedule.subkeys();
        let mut ex = Expected::new(nw, key_ring, tweak_ring);
        let mut cycles = 0;
        let mut seen: std::collections::HashSet<(u32, u64)> = Default::default();
        for r in golden {
            let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            cycles += 1;
            for s in r.slots.iter().filter(|s| s.valid) {
                if s.round == rounds && s.subkey == subkeys && seen.insert((s.stream, s.block)) {
                    ex.add_block(
                        s.stream,
                        s.block,
                        s.phase,
                        &s.key[..nw],
                        [s.tweak[0], s.tweak[1]],
                        &s.state[..nw],
                    );
                }
            }
            if let Some(o) = r.out {
                ex.add_digest(o.stream, o.index, &o.data[..nw]);
            }
        }
        Ok((ex, cycles))
    }
}

fn threefish_events<const N: usize>(
    key: &[u64],
    tweak: [u64; 2],
    out: &[u64],
    key_ring: Ring,
    tweak_ring: Ring,
) -> Vec<(Family, Kind, Vec<u64>)> {
    let key: [u64; N] = key[..N].try_into().expect("N key words");
    let cipher: [u64; N] = out[..N].try_into().expect("N state words");
    let plain = decrypt(&key, tweak, &cipher);
    let ks = KeySchedule::new(&key, tweak);
    let rounds = skeinhw_skein::constants::rounds(N);
    let subkeys = rounds / 4;
    let mut v = Vec::new();
    let ring = |s: usize| -> Vec<u64> { (0..=N).map(|i| ks.key_word((s + i) % (N + 1))).collect() };
    let tring = |s: usize| -> Vec<u64> { (0..3).map(|i| ks.tweak[(s + i) % 3]).collect() };
    match key_ring {
        Ring::Fixed => v.push((Family::Key, Kind::Key(0), ring(0))),
        Ring::Rotating => {
            v.extend((0..=subkeys).map(|s| (Family::Key, Kind::Key(s as u32), ring(s))))
        }
    }
    match tweak_ring {
        Ring::Fixed => v.push((Family::Tweak, Kind::Tweak(0), tring(0))),
        Ring::Rotating => {
            v.extend((0..=subkeys).map(|s| (Family::Tweak, Kind::Tweak(s as u32), tring(s))))
        }
    }
    let mut state = plain;
    for d in 0..rounds {
        if d % 4 == 0 {
            let s = (d / 4) as u32;
            v.push((Family::StateBefore, Kind::BeforeSubkey(s), state.to_vec()));
            inject_subkey(&mut state, &ks, d / 4);
            v.push((Family::State, Kind::AfterSubkey(s), state.to_vec()));
        }
        round(&mut state, d);
    }
    v.push((
        Family::StateBefore,
        Kind::BeforeSubkey(subkeys as u32),
        state.to_vec(),
    ));
    inject_subkey(&mut state, &ks, subkeys);
    v.push((
        Family::State,
        Kind::AfterSubkey(subkeys as u32),
        state.to_vec(),
    ));
    let ff: Vec<u64> = (0..N).map(|i| state[i] ^ plain[i]).collect();
    v.push((Family::State, Kind::FeedForward, ff));
    v
}

impl EventSource for Expected {
    type Family = Family;

    fn stream_ids(&self) -> Vec<u32> {
        self.streams.keys().copied().collect()
    }

    fn words(&self, stream: u32, family: Family, j: usize) -> Option<&[u64]> {
        let e = self.streams.get(&stream)?.events[family.index()].get(j)?;
        Some(&e.words)
    }

    fn next(&self, stream: u32, family: Family) -> usize {
        self.streams
            .get(&stream)
            .map_or(0, |st| st.next[family.index()])
    }

    fn block(&self, stream: u32, family: Family, j: usize) -> Option<usize> {
        Some(
            self.streams.get(&stream)?.events[family.index()]
                .get(j)?
                .block,
        )
    }

    fn seen(&self, stream: u32, family: Family, j: usize) -> bool {
        self.streams
            .get(&stream)
            .and_then(|st| st.events[family.index()].get(j))
            .is_some_and(|e| e.seen.is_some())
    }
}

/// One mapped register view: a family's words in one slot, at positions of the sample list.
pub type View = matcher::View<Family>;

/// Where each mapped thing is in the list of samples handed to [`EventComparator::edge`].
#[derive(Clone, Debug, Default)]
pub struct EventLayout {
    /// Register views.
    pub views: Vec<View>,
    /// Parallel digest port: (valid, [(word, position)]).
    pub digest: Option<(usize, Vec<(usize, usize)>)>,
    /// Serial digest port: (valid, data).
    pub serial: Option<(usize, usize)>,
    /// Map fields left out (a `--partial` map), named in the verdict.
    pub left_out: Vec<String>,
}

impl EventLayout {
    /// The layout and probe list of a validated map for `words` state words.
    pub fn of_map(
        map: &SignalMap,
        words: usize,
        left_out: Vec<String>,
    ) -> (EventLayout, Vec<Probe>) {
        let mut probes = ProbeList::default();
        let views = matcher::views_of_map(map, &mut probes, |field| {
            let (slot, register, w) = map::slot_field(field)?;
            let family = Family::ALL.into_iter().find(|f| f.register() == register)?;
            Some(((slot, family), family, w))
        });
        let digest = matcher::digest_port(map, words, &mut probes);
        let serial = map.digest_serial.as_ref().map(|d| {
            let v = probes.index_of(&d.valid);
            (v, probes.index_of(&d.data))
        });
        let layout = EventLayout {
            views,
            digest,
            serial,
            left_out,
        };
        (layout, probes.0)
    }
}

/// A digest that differed, or was never seen.
#[derive(Clone, Debug)]
struct DigestFault {
    stream: u32,
    edge: u64,
    time: u64,
    expected: Vec<u64>,
    got: Option<Vec<Bits>>,
    what: String,
}

/// The event comparison, fed edge by edge (see the module documentation).
pub struct EventComparator {
    ex: Expected,
    layout: EventLayout,
    matcher: Matcher,
    digest_fault: Option<DigestFault>,
    edges: u64,
    last_time: u64,
    compared_edges: u64,
}

impl EventComparator {
    /// A comparison of `ex` with RTL samples laid out as `layout`.
    pub fn new(ex: Expected, layout: EventLayout) -> EventComparator {
        let matcher = Matcher::new(&ex, &layout.views);
        EventComparator {
            ex,
            layout,
            matcher,
            digest_fault: None,
            edges: 0,
            last_time: 0,
            compared_edges: 0,
        }
    }

    /// One RTL rising edge (after reset) with its samples in layout order.
    pub fn edge(&mut self, edge: u64, time: u64, samples: &[Bits]) {
        self.edges = self.edges.max(edge + 1);
        self.last_time = time;
        self.compared_edges += 1;
        for vi in 0..self.layout.views.len() {
            let family = self.layout.views[vi].family.index();
            match self.matcher.see(&self.ex, &self.layout.views, vi, samples) {
                Seen::Nothing => {}
                Seen::Event(stream, j) => {
                    let st = self.ex.streams.get_mut(&stream).expect("stream");
                    let evs = &mut st.events[family];
                    evs[j].seen = Some((edge, time));
                    // Events of equal words in a row (the output block's feed-forward equals
                    // the state after the last subkey: its input is zero) are one value.
                    let mut last = j;
                    while last + 1 < evs.len()
                        && evs[last + 1].block == evs[j].block
                        && evs[last + 1].words == evs[j].words
                    {
                        last += 1;
                        evs[last].seen = Some((edge, time));
                        evs[last].implied = true;
                    }
                    st.next[family] = last + 1;
                    self.matcher.armed[vi] = Some((stream, last));
                }
                Seen::Other {
                    value,
                    first_change,
                } => {
                    // Before any match, the value is where the first event was expected.
                    let gap = match self.matcher.armed[vi].take() {
                        Some((stream, j)) => Some((stream, Some(j))),
                        None => self
                            .ex
                            .streams
                            .iter()
                            .find(|(_, st)| st.next[family] == 0 && st.gaps[family].is_empty())
                            .map(|(k, _)| (*k, None))
                            .filter(|_| first_change),
                    };
                    if let Some((stream, matched)) = gap {
                        let st = self.ex.streams.get_mut(&stream).expect("stream");
                        st.gaps[family].push(Gap {
                            matched,
                            view: vi,
                            edge,
                            time,
                            words: value,
                        });
                    }
                }
            }
        }
        if self.digest_fault.is_some() {
            return;
        }
        if let Some((valid, ws)) = &self.layout.digest
            && is_one(&samples[*valid])
        {
            let got: Option<Vec<u64>> = ws.iter().map(|&(_, p)| known(&samples[p])).collect();
            let matches = |st: &StreamEvents, got: &[u64]| {
                st.digests
                    .get(st.next_digest)
                    .is_some_and(|(_, d)| ws.iter().zip(got).all(|(&(w, _), g)| d[w] == *g))
            };
            let hit = got.as_ref().and_then(|g| {
                self.ex
                    .streams
                    .iter()
                    .find(|(_, st)| matches(st, g))
                    .map(|(k, _)| *k)
            });
            match hit {
                Some(k) => self.ex.streams.get_mut(&k).expect("stream").next_digest += 1,
                None => {
                    let (stream, expected) = self.first_missing_digest();
                    self.digest_fault = Some(DigestFault {
                        stream,
                        edge,
                        time,
                        expected,
                        got: Some(ws.iter().map(|&(_, p)| samples[p].clone()).collect()),
                        what: "a digest block that is none of the expected ones".into(),
                    });
                }
            }
        }
        if let Some((valid, data)) = self.layout.serial
            && is_one(&samples[valid])
        {
            let got = known(&samples[data]);
            let hit = got.and_then(|g| {
                self.ex.streams.iter().find_map(|(k, st)| {
                    let words: Vec<u64> = st.digests.iter().flat_map(|d| d.1.clone()).collect();
                    (words.get(st.next_word) == Some(&g)).then_some(*k)
                })
            });
            match hit {
                Some(k) => self.ex.streams.get_mut(&k).expect("stream").next_word += 1,
                None => {
                    let (stream, expected) = self.first_missing_word();
                    self.digest_fault = Some(DigestFault {
                        stream,
                        edge,
                        time,
                        expected,
                        got: Some(vec![samples[data].clone()]),
                        what: "a digest word that is not the expected one".into(),
                    });
                }
            }
        }
    }

    fn first_missing_digest(&self) -> (u32, Vec<u64>) {
        self.ex
            .streams
            .iter()
            .find(|(_, st)| st.next_digest < st.digests.len())
            .map(|(k, st)| (*k, st.digests[st.next_digest].1.clone()))
            .unwrap_or_default()
    }

    fn first_missing_word(&self) -> (u32, Vec<u64>) {
        self.ex
            .streams
            .iter()
            .find_map(|(k, st)| {
                let words: Vec<u64> = st.digests.iter().flat_map(|d| d.1.clone()).collect();
                words.get(st.next_word).map(|w| (*k, vec![*w]))
            })
            .unwrap_or_default()
    }

    /// The verdict after the last edge.
    pub fn finish(mut self, golden_cycles: u64) -> Result<DiffReport, DiffError> {
        self.matcher
            .check_compared(&self.layout.views, self.compared_edges, self.edges)?;
        let has_digest = self.layout.digest.is_some() || self.layout.serial.is_some();
        // Missing digests.
        if has_digest && self.digest_fault.is_none() {
            let missing = if self.layout.serial.is_some() {
                let (stream, expected) = self.first_missing_word();
                (!expected.is_empty()).then_some((stream, expected, "the digest word"))
            } else {
                let (stream, expected) = self.first_missing_digest();
                (!expected.is_empty()).then_some((stream, expected, "the digest block"))
            };
            if let Some((stream, expected, what)) = missing {
                self.digest_fault = Some(DigestFault {
                    stream,
                    edge: self.edges,
                    time: self.last_time,
                    expected,
                    got: None,
                    what: format!("{what} never left the design"),
                });
            }
        }
        let families: BTreeSet<Family> = self.layout.views.iter().map(|v| v.family).collect();
        let nsub = (self.ex.rounds / 4) as u32;
        let mut registered: BTreeMap<Family, Registered> = BTreeMap::new();
        for &f in &families {
            registered.insert(f, Registered::of(&self.ex, f, nsub));
        }
        let mut expected_n = 0u64;
        let mut matched_n = 0u64;
        let mut first: Option<(u32, usize, Family, usize)> = None;
        let mut block_lines: Vec<String> = Vec::new();
        for (&stream, st) in &self.ex.streams {
            let computed_config = |ubi: Phase| {
                Family::ALL.iter().any(|f| {
                    st.events[f.index()]
                        .iter()
                        .any(|e| e.seen.is_some() && st.blocks[e.block].ubi == ubi)
                })
            };
            let block_expected = |b: usize| match st.blocks[b].ubi {
                Phase::Config | Phase::Key => computed_config(st.blocks[b].ubi),
                _ => true,
            };
            let mut candidates: Vec<(usize, Family, usize)> = Vec::new();
            for &f in &families {
                let reg = &registered[&f];
                let evs = &st.events[f.index()];
                for (j, e) in evs.iter().enumerate() {
                    if !block_expected(e.block) || !reg.closed.contains(&e.kind) {
                        continue;
                    }
                    expected_n += 1;
                    if e.seen.is_some() {
                        matched_n += 1;
                    } else {
                        candidates.push((e.block, f, j));
                        break;
                    }
                }
                // A value taken right after a match that was no event: the next event of a
                // kind on the design's stride should have been there.
                for gap in &st.gaps[f.index()] {
                    let from = gap.matched.map_or(0, |m| m + 1);
                    // The value is the next event of the design's stride, faulty; or, if it
                    // shares more words with the very next event (one the design was not yet
                    // seen to register, e.g. a faulty feed-forward), that one.
                    let equal = |k: usize| {
                        self.layout.views[gap.view]
                            .words
                            .iter()
                            .zip(&gap.words)
                            .filter(|(wp, v)| evs[k].words[wp.0] == **v)
                            .count()
                    };
                    let on_stride = (from..evs.len())
                        .find(|&k| reg.on_stride(evs[k].kind) && block_expected(evs[k].block));
                    let next = (from < evs.len() && block_expected(evs[from].block))
                        .then_some(from)
                        .filter(|&k| equal(k) > 0);
                    let pick = match (on_stride, next) {
                        (Some(a), Some(b)) if equal(b) > equal(a) => Some(b),
                        (Some(a), _) => Some(a),
                        (None, b) => b,
                    };
                    if let Some(k) = pick
                        && evs[k].seen.is_none()
                    {
                        candidates.push((evs[k].block, f, k));
                    }
                }
                if !reg.evidence(f)
                    && let Some(j) = evs
                        .iter()
                        .position(|e| block_expected(e.block) && mid_block(f, e.kind))
                {
                    candidates.push((evs[j].block, f, j));
                }
            }
            // Every message block must show a state event.
            if families.contains(&Family::State) || families.contains(&Family::StateBefore) {
                for (b, info) in st.blocks.iter().enumerate() {
                    if info.ubi != Phase::Message {
                        continue;
                    }
                    let any = [Family::State, Family::StateBefore].iter().any(|f| {
                        st.events[f.index()]
                            .iter()
                            .any(|e| e.block == b && e.seen.is_some())
                    });
                    if !any {
                        let f = if families.contains(&Family::StateBefore) {
                            Family::StateBefore
                        } else {
                            Family::State
                        };
                        if let Some(j) = st.events[f.index()].iter().position(|e| e.block == b) {
                            candidates.push((b, f, j));
                        }
                    }
                }
            }
            candidates.sort_by_key(|&(b, f, j)| (b, st.events[f.index()][j].kind.order(), f));
            if first.is_none()
                && let Some(&(b, f, j)) = candidates.first()
            {
                first = Some((stream, b, f, j));
            }
            block_lines.extend(seen_lines(stream, st, &families));
        }
        let divergence = match first {
            Some((stream, _, f, j)) => Some(self.event_divergence(stream, f, j, &registered)),
            None => self
                .digest_fault
                .as_ref()
                .map(|d| self.digest_divergence(d)),
        };
        let digests_seen: usize = self.ex.streams.values().map(|s| s.next_digest).sum();
        let words_seen: usize = self.ex.streams.values().map(|s| s.next_word).sum();
        let digest_text = if self.layout.serial.is_some() {
            format!("{words_seen} digest word(s)")
        } else if self.layout.digest.is_some() {
            format!("{digests_seen} digest block(s)")
        } else {
            "no digest port mapped".into()
        };
        Ok(matcher::report(matcher::Tally {
            views: &self.layout.views,
            divergence,
            digest_text,
            digest_fields: self.layout.digest.as_ref().map_or(0, |d| d.1.len() + 1)
                + if self.layout.serial.is_some() { 2 } else { 0 },
            expected: expected_n,
            matched: matched_n,
            edges: self.edges,
            compared_edges: self.compared_edges,
            golden_cycles,
            blocks: block_lines,
            left_out: &self.layout.left_out,
        }))
    }

    fn event_divergence(
        &self,
        stream: u32,
        f: Family,
        j: usize,
        registered: &BTreeMap<Family, Registered>,
    ) -> Divergence {
        let st = &self.ex.streams[&stream];
        let evs = &st.events[f.index()];
        let e = &evs[j];
        let info = st.blocks[e.block];
        let prev = evs[..j].iter().rposition(|p| p.seen.is_some());
        let last = prev.map(|p| {
            let (edge, _) = evs[p].seen.expect("seen");
            format!(
                "{}, {} (RTL edge {edge})",
                st.blocks[evs[p].block].name(),
                kind_text(evs[p].kind)
            )
        });
        // What the register held where the event was expected: the first value after the
        // previous match that was no event.
        let after = st.gaps[f.index()].iter().find(|g| g.matched == prev);
        let view = after
            .map(|a| &self.layout.views[a.view])
            .or_else(|| self.layout.views.iter().find(|v| v.family == f))
            .expect("a view of the family");
        let mut fields = Vec::new();
        for (k, &(w, _)) in view.words.iter().enumerate() {
            let golden = format!("{:016x}", e.words[w]);
            let rtl = after.map_or_else(
                || "(not seen)".to_string(),
                |a| format!("{:016x}", a.words[k]),
            );
            fields.push(FieldDiff {
                field: view.fields[k].clone(),
                unknown: false,
                golden,
                rtl,
            });
        }
        let kinds = registered[&f].text();
        let register = format!("{}*", view.fields[0].trim_end_matches(char::is_numeric));
        let window = match &last {
            Some(l) => format!("; last matching event {l}: the fault lies between"),
            None => "; no earlier event of that register matched".into(),
        };
        let registers = if kinds.is_empty() {
            String::new()
        } else {
            format!(" (the design registers {kinds})")
        };
        let phase = format!(
            "stream {stream}, {}, {}: never seen in {register}{window}{registers}",
            info.name(),
            kind_text(e.kind),
        );
        let (edge, time) = after.map_or((self.edges, self.last_time), |a| (a.edge, a.time));
        Divergence {
            cycle: edge,
            rtl_edge: edge,
            time,
            phase,
            // The phase text names the block by type; slot positions mean nothing here.
            location: Vec::new(),
            fields,
            context: Vec::new(),
        }
    }

    fn digest_divergence(&self, d: &DigestFault) -> Divergence {
        let mut fields = Vec::new();
        for (w, e) in d.expected.iter().enumerate() {
            let got = d.got.as_ref().and_then(|g| g.get(w));
            fields.push(FieldDiff {
                field: if self.layout.serial.is_some() {
                    "digest_serial.data".into()
                } else {
                    format!("out_data_{w}")
                },
                golden: format!("{e:016x}"),
                rtl: got.map_or_else(|| "(not seen)".into(), |b| b.to_hex()),
                unknown: got.is_some_and(|b| b.unknown.is_some()),
            });
        }
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

/// The kinds a design was seen to register in one family, and the set closed under their
/// subkey stride (the kinds expected of every block).
struct Registered {
    kinds: BTreeSet<Kind>,
    closed: BTreeSet<Kind>,
    stride: u32,
    low: u32,
}

impl Registered {
    fn of(ex: &Expected, f: Family, nsub: u32) -> Registered {
        let kinds: BTreeSet<Kind> = ex
            .streams
            .values()
            .flat_map(|st| st.events[f.index()].iter())
            .filter(|e| e.seen.is_some() && !e.implied)
            .map(|e| e.kind)
            .collect();
        let subs: Vec<u32> = kinds.iter().filter_map(|k| k.subkey()).collect();
        let low = subs.first().copied().unwrap_or(0);
        let high = subs.last().copied().unwrap_or(0);
        let stride = subs.windows(2).map(|w| w[1] - w[0]).fold(0, gcd).max(1);
        let mut closed = kinds.clone();
        if let Some(k) = kinds.iter().find(|k| k.subkey().is_some()) {
            for s in (low..=high.min(nsub)).step_by(stride as usize) {
                closed.insert(match k {
                    Kind::BeforeSubkey(_) => Kind::BeforeSubkey(s),
                    Kind::AfterSubkey(_) => Kind::AfterSubkey(s),
                    Kind::Key(_) => Kind::Key(s),
                    Kind::Tweak(_) => Kind::Tweak(s),
                    Kind::FeedForward => Kind::FeedForward,
                });
            }
        }
        Registered {
            kinds,
            closed,
            stride,
            low,
        }
    }

    fn on_stride(&self, k: Kind) -> bool {
        match k.subkey() {
            Some(s) => s >= self.low && (s - self.low).is_multiple_of(self.stride),
            None => self.kinds.contains(&k),
        }
    }

    /// The register was seen to hold a block's state: a block input (before subkey 0) or a
    /// chaining value (the feed-forward, also in the key register) alone is no evidence.
    fn evidence(&self, f: Family) -> bool {
        self.kinds.iter().any(|k| mid_block(f, *k))
    }

    fn text(&self) -> String {
        kinds_text(&self.kinds)
    }
}

/// An event only the block's own computation produces (for the state registers).
fn mid_block(f: Family, k: Kind) -> bool {
    match f {
        Family::State | Family::StateBefore => {
            !matches!(k, Kind::BeforeSubkey(0) | Kind::FeedForward)
        }
        Family::Key | Family::Tweak => true,
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn kind_text(k: Kind) -> String {
    match k {
        Kind::BeforeSubkey(s) => format!("before subkey {s}"),
        Kind::AfterSubkey(s) => format!("after subkey {s}"),
        Kind::FeedForward => "feed-forward".into(),
        Kind::Key(s) => format!("key ring at subkey {s}"),
        Kind::Tweak(s) => format!("tweak ring at subkey {s}"),
    }
}

/// "0,2,4,...,18" for an arithmetic run of four or more, else the list.
fn numbers(v: &[u32]) -> String {
    if v.len() >= 4 && v.windows(2).all(|w| w[1] - w[0] == v[1] - v[0]) {
        format!("{},{},{},...,{}", v[0], v[1], v[2], v[v.len() - 1])
    } else {
        v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    }
}

/// "before subkeys 0,1,2,...,18, key, feed-forward".
fn kinds_text(kinds: &BTreeSet<Kind>) -> String {
    let mut parts = Vec::new();
    let pick =
        |f: fn(Kind) -> Option<u32>| -> Vec<u32> { kinds.iter().filter_map(|k| f(*k)).collect() };
    let groups: [(&str, Vec<u32>); 4] = [
        (
            "before subkeys",
            pick(|k| {
                if let Kind::BeforeSubkey(s) = k {
                    Some(s)
                } else {
                    None
                }
            }),
        ),
        (
            "after subkeys",
            pick(|k| {
                if let Kind::AfterSubkey(s) = k {
                    Some(s)
                } else {
                    None
                }
            }),
        ),
        (
            "key ring at subkeys",
            pick(|k| if let Kind::Key(s) = k { Some(s) } else { None }),
        ),
        (
            "tweak ring at subkeys",
            pick(|k| {
                if let Kind::Tweak(s) = k {
                    Some(s)
                } else {
                    None
                }
            }),
        ),
    ];
    for (name, v) in groups {
        match v.as_slice() {
            [] => {}
            [0] if name.starts_with("key") => parts.push("key".to_string()),
            [0] if name.starts_with("tweak") => parts.push("tweak".to_string()),
            _ => parts.push(format!("{name} {}", numbers(&v))),
        }
    }
    if kinds.contains(&Kind::FeedForward) {
        parts.push("feed-forward".into());
    }
    parts.join(", ")
}

/// Per block, which kinds were seen: "stream 0, message block 0: after subkeys ...", runs of
/// blocks with the same kinds merged.
fn seen_lines(stream: u32, st: &StreamEvents, families: &BTreeSet<Family>) -> Vec<String> {
    let mut lines: Vec<(Phase, u64, u64, String)> = Vec::new();
    for (b, info) in st.blocks.iter().enumerate() {
        let kinds: BTreeSet<Kind> = families
            .iter()
            .flat_map(|f| st.events[f.index()].iter())
            .filter(|e| e.block == b && e.seen.is_some())
            .map(|e| e.kind)
            .collect();
        let text = if kinds.is_empty() {
            "no event".to_string()
        } else {
            kinds_text(&kinds)
        };
        match lines.last_mut() {
            Some(l) if l.0 == info.ubi && l.2 + 1 == info.of_type && l.3 == text => {
                l.2 = info.of_type
            }
            _ => lines.push((info.ubi, info.of_type, info.of_type, text)),
        }
    }
    lines
        .into_iter()
        .map(|(ubi, a, b, text)| {
            let blocks = if a == b {
                format!("{} block {a}", ubi.as_str())
            } else {
                format!("{} blocks {a}-{b}", ubi.as_str())
            };
            format!("stream {stream}, {blocks}: {text}")
        })
        .collect()
}

/// Compares at architectural events (see the module documentation). The map is validated
/// for event alignment first; `partial` accepts a map covering some words of a register.
pub fn compare_events<E: std::fmt::Display>(
    header: &TraceHeader,
    golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
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
    let signals = skeinhw_trace::names::signals(header.words, header.slots);
    let names: Vec<&str> = signals.iter().map(|s| s.name.as_str()).collect();
    let layout = Layout {
        signals: &names,
        words: header.words,
        slots: header.slots.max(1),
    };
    let left_out = map::validate(map, Alignment::Event, &layout, options.partial)?;
    let (ex, golden_cycles) = Expected::from_records(header, golden, map.key_ring, map.tweak_ring)?;
    let (event_layout, probes) = EventLayout::of_map(map, header.words, left_out);
    if event_layout.views.is_empty()
        && event_layout.digest.is_none()
        && event_layout.serial.is_none()
    {
        return Err(DiffError::Invalid(format!(
            "event alignment needs the state words (slot0_state_0..slot0_state_{}), the state \
             before injection, the key or tweak, or the digest in the map",
            header.words - 1
        )));
    }
    let mut wave_options: WaveOptions = options.wave.clone();
    if let Some(c) = &map.clock {
        wave_options.clock = c.clone();
    }
    let mut cmp = EventComparator::new(ex, event_layout);
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
