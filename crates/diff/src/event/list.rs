//! The golden event list as data, for callers outside the diff (the Python package's
//! `skeinhw.events`, and the live event diff's end): the very events [`Expected`] builds and
//! the comparator matches, never a second computation of them.

use super::{BlockInfo, EventComparator, Expected, Family, Kind};
use crate::engine::queue::{Event, FamilyIndex};

/// One architectural event a golden run expects (see the module documentation of
/// [`crate::event`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoldenEvent {
    /// The stream (message) it belongs to.
    pub stream: u32,
    /// The UBI block it belongs to.
    pub block: BlockInfo,
    /// What the event is.
    pub kind: Kind,
    /// The register family it is seen in: `state`, `state_before`, `key` or `tweak`.
    pub register: &'static str,
    /// Its words (Nw state words, Nw + 1 key words, 3 tweak words).
    pub words: Vec<u64>,
}

/// One digest block a golden run expects at the output port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoldenDigest {
    /// The stream (message) it belongs to.
    pub stream: u32,
    /// The Output block's index (its counter value).
    pub index: u64,
    /// Its Nw words.
    pub words: Vec<u64>,
}

impl Expected {
    /// Every expected event, stream by stream, block by block, in the order a block computes
    /// them (key and tweak for subkey s, the state before it, after it; the feed-forward last).
    pub fn events(&self) -> Vec<GoldenEvent> {
        let mut out = Vec::new();
        for (&stream, st) in &self.streams {
            let mut all: Vec<(Family, &Event<Kind>)> = Family::ALL
                .iter()
                .flat_map(|&f| st.queue.events(f.index()).iter().map(move |e| (f, e)))
                .collect();
            all.sort_by_key(|(f, e)| (e.block, e.kind.order(), *f));
            out.extend(all.into_iter().map(|(f, e)| GoldenEvent {
                stream,
                block: st.blocks[e.block],
                kind: e.kind,
                register: f.register(),
                words: e.words.clone(),
            }));
        }
        out
    }

    /// Every expected digest block, stream by stream, in output order.
    pub fn digests(&self) -> Vec<GoldenDigest> {
        self.streams
            .iter()
            .flat_map(|(&stream, st)| {
                st.digests.iter().map(move |(index, words)| GoldenDigest {
                    stream,
                    index: *index,
                    words: words.clone(),
                })
            })
            .collect()
    }
}

impl EventComparator {
    /// The mapped digest port has shown every expected digest (or a wrong one): later edges
    /// cannot change the verdict, so a live caller may stop. False without a digest port.
    pub fn digests_settled(&self) -> bool {
        if self.engine.digest_fault.is_some() {
            return true;
        }
        let streams = self.ex.streams.values();
        if self.layout.serial.is_some() {
            let mut streams = streams;
            return streams
                .all(|st| st.next_word >= st.digests.iter().map(|d| d.1.len()).sum::<usize>());
        }
        if self.layout.digest.is_some() {
            let mut streams = streams;
            return streams.all(|st| st.next_digest >= st.digests.len());
        }
        false
    }
}
