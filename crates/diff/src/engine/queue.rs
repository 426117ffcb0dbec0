//! The per-stream expected-event queue: per register family, the events in the order the
//! stream must show them, the next one expected, and the values a register took in an event's
//! place (the gaps). Matching in order is decided here, in [`Queue::take`], for both
//! algorithms.

use std::collections::BTreeMap;

use super::matcher::EventSource;

/// A register family (Threefish's state, state before, key, tweak; Shabal's A, B, C), as the
/// index of its queue.
pub(crate) trait FamilyIndex: Copy {
    /// The family's position among its algorithm's families.
    fn index(self) -> usize;
}

/// One expected event.
#[derive(Clone, Debug)]
pub(crate) struct Event<K> {
    /// Position of its block (a UBI block, a Shabal pass) among the stream's.
    pub(crate) block: usize,
    /// What it is (Threefish: the kind; Shabal: nothing more than its pass).
    pub(crate) kind: K,
    pub(crate) words: Vec<u64>,
    /// (RTL edge, time) where it was seen.
    pub(crate) seen: Option<(u64, u64)>,
    /// Seen only as equal to the event before it (no evidence the design registers the kind).
    pub(crate) implied: bool,
}

/// A value a register took that no event explains, right after event `matched` of the family
/// (or before any): where the next event was expected.
#[derive(Clone, Debug)]
pub(crate) struct Gap {
    pub(crate) matched: Option<usize>,
    pub(crate) view: usize,
    pub(crate) edge: u64,
    pub(crate) time: u64,
    pub(crate) words: Vec<u64>,
    /// Words equal to the next event's (kept by Shabal: the closest value wins).
    pub(crate) equal: usize,
}

/// One stream's expected events, per family.
#[derive(Clone, Debug)]
pub(crate) struct Queue<K> {
    events: Vec<Vec<Event<K>>>,
    next: Vec<usize>,
    gaps: Vec<Vec<Gap>>,
}

impl<K> Default for Queue<K> {
    fn default() -> Self {
        Queue {
            events: Vec::new(),
            next: Vec::new(),
            gaps: Vec::new(),
        }
    }
}

impl<K> Queue<K> {
    fn grow(&mut self, family: usize) {
        if self.events.len() <= family {
            self.events.resize_with(family + 1, Vec::new);
            self.next.resize(family + 1, 0);
            self.gaps.resize_with(family + 1, Vec::new);
        }
    }

    /// Appends an event of `family` (in the order the stream computes them).
    pub(crate) fn push(&mut self, family: usize, block: usize, kind: K, words: Vec<u64>) {
        self.grow(family);
        self.events[family].push(Event {
            block,
            kind,
            words,
            seen: None,
            implied: false,
        });
    }

    /// The events of `family`, in order.
    pub(crate) fn events(&self, family: usize) -> &[Event<K>] {
        self.events.get(family).map_or(&[], Vec::as_slice)
    }

    /// The index of the next event of `family` expected.
    pub(crate) fn next(&self, family: usize) -> usize {
        self.next.get(family).copied().unwrap_or(0)
    }

    /// The gaps of `family`.
    pub(crate) fn gaps(&self, family: usize) -> &[Gap] {
        self.gaps.get(family).map_or(&[], Vec::as_slice)
    }

    /// The gaps of `family`, to add to.
    pub(crate) fn gaps_mut(&mut self, family: usize) -> &mut Vec<Gap> {
        self.grow(family);
        &mut self.gaps[family]
    }

    /// Event `j` of `family` was taken at (`edge`, `time`): it is seen and the next expected
    /// follows it. With `runs`, the events of equal words right after it in its block (the
    /// Output block's feed-forward equals the state after the last subkey: its input is zero)
    /// are one value, seen with it. Returns the last event marked.
    pub(crate) fn take(
        &mut self,
        family: usize,
        j: usize,
        edge: u64,
        time: u64,
        runs: bool,
    ) -> usize {
        self.grow(family);
        let evs = &mut self.events[family];
        evs[j].seen = Some((edge, time));
        let mut last = j;
        while runs
            && last + 1 < evs.len()
            && evs[last + 1].block == evs[j].block
            && evs[last + 1].words == evs[j].words
        {
            last += 1;
            evs[last].seen = Some((edge, time));
            evs[last].implied = true;
        }
        self.next[family] = last + 1;
        last
    }
}

/// A stream of one algorithm's expected events: its queue, and what the queue's families are.
pub(crate) trait StreamQueue {
    /// The register families.
    type Family: FamilyIndex;
    /// What an event is, beyond its block.
    type Kind;
    /// The stream's queue.
    fn queue(&self) -> &Queue<Self::Kind>;
    /// The stream's queue, to mark events in.
    fn queue_mut(&mut self) -> &mut Queue<Self::Kind>;
}

impl<S: StreamQueue> EventSource for BTreeMap<u32, S> {
    type Family = S::Family;

    fn stream_ids(&self) -> Vec<u32> {
        self.keys().copied().collect()
    }

    fn words(&self, stream: u32, family: S::Family, j: usize) -> Option<&[u64]> {
        let e = self.get(&stream)?.queue().events(family.index()).get(j)?;
        Some(&e.words)
    }

    fn next(&self, stream: u32, family: S::Family) -> usize {
        self.get(&stream)
            .map_or(0, |st| st.queue().next(family.index()))
    }

    fn block(&self, stream: u32, family: S::Family, j: usize) -> Option<usize> {
        let e = self.get(&stream)?.queue().events(family.index()).get(j)?;
        Some(e.block)
    }

    fn seen(&self, stream: u32, family: S::Family, j: usize) -> bool {
        self.get(&stream)
            .and_then(|st| st.queue().events(family.index()).get(j))
            .is_some_and(|e| e.seen.is_some())
    }
}
