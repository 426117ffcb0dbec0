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

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use skeinhw_sched::sim::{OwnedCycleRecord, Phase, TraceHeader};
use skeinhw_skein::threefish::{KeySchedule, decrypt, inject_subkey, round};

use crate::engine::matcher::{self, ProbeList};
use crate::engine::queue::{FamilyIndex, Queue, StreamQueue};
use crate::engine::run::{refuse_offset, sample_events};
use crate::error::DiffError;
use crate::map::{self, Alignment, Layout, Ring, SignalMap};
use crate::options::CycleOptions;
use crate::report::DiffReport;
use crate::wave::Probe;

mod comparator;
mod list;
mod ring;
mod verdict;
pub use comparator::EventComparator;
pub use list::{GoldenDigest, GoldenEvent};

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
}

impl FamilyIndex for Family {
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

#[derive(Clone, Debug, Default)]
struct StreamEvents {
    blocks: Vec<BlockInfo>,
    /// Events of each family, in order; per family, the gaps: after a match, the first value
    /// the register took that was no event.
    queue: Queue<Kind>,
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
            st.queue.push(family.index(), pos, kind, words);
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
        // A block ends on one record (its last round and subkey). A stream's block numbers
        // start again with each message queued on it, so blocks are told apart per record only:
        // a set over the whole run dropped the first blocks of every queued message.
        let mut seen: std::collections::HashSet<(u32, u64)> = Default::default();
        for r in golden {
            let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            cycles += 1;
            seen.clear();
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

impl StreamQueue for StreamEvents {
    type Family = Family;
    type Kind = Kind;

    fn queue(&self) -> &Queue<Kind> {
        &self.queue
    }

    fn queue_mut(&mut self) -> &mut Queue<Kind> {
        &mut self.queue
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

/// Compares at architectural events (see the module documentation). The map is validated
/// for event alignment first; `partial` accepts a map covering some words of a register.
pub fn compare_events<E: std::fmt::Display>(
    header: &TraceHeader,
    golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
    wave: &Path,
    map: &SignalMap,
    options: &CycleOptions,
) -> Result<DiffReport, DiffError> {
    refuse_offset(options)?;
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
    let mut cmp = EventComparator::new(ex, event_layout);
    let edges = sample_events(wave, map, options, &probes, |edge, time, samples| {
        cmp.edge(edge, time, samples)
    })?;
    cmp.finish_after(edges, golden_cycles)
}
