//! The Threefish event comparison fed edge by edge: the register views go through the shared
//! engine; the digest ports (a parallel block, a serial word stream) are read here.

use super::{EventLayout, Expected, StreamEvents};
use crate::engine::matcher::{is_one, known};
use crate::engine::queue::{FamilyIndex, Gap};
use crate::engine::run::Engine;
use crate::wave::Bits;

/// Values that were no event kept after each match: more than a block's rounds between two
/// registered events (one round per clock, 80 rounds for Threefish-1024).
const GAPS_KEPT: usize = 96;

/// Values kept before a register's first match: the reset value, then the first states of a
/// block (a register that never holds the state after subkey 0, faulty from its first value).
const GAPS_BEFORE_MATCH: usize = 8;

/// The event comparison, fed edge by edge (see the module documentation).
pub struct EventComparator {
    pub(super) ex: Expected,
    pub(super) layout: EventLayout,
    pub(super) engine: Engine,
}

impl EventComparator {
    /// A comparison of `ex` with RTL samples laid out as `layout`.
    pub fn new(ex: Expected, layout: EventLayout) -> EventComparator {
        let engine = Engine::new(&ex.streams, &layout.views);
        EventComparator { ex, layout, engine }
    }

    /// One RTL rising edge (after reset) with its samples in layout order.
    pub fn edge(&mut self, edge: u64, time: u64, samples: &[Bits]) {
        let views = &self.layout.views;
        self.engine.views_edge(
            &mut self.ex.streams,
            views,
            (edge, time),
            samples,
            true,
            true,
            |streams, t| {
                let family = views[t.vi].family.index();
                // Before any match, the first values (the first compared edge's too: after
                // `reset_cycles` it may already be the block's first state) are where the
                // first events were expected; the report takes the closest.
                // Every value after a match (up to GAPS_KEPT) is kept: the next event's place
                // is among them, and the report compares the register there (issue 33).
                let kept = |stream: &u32, j: usize| {
                    streams[stream]
                        .queue
                        .gaps(family)
                        .iter()
                        .filter(|g| g.matched == Some(j))
                        .count()
                        < GAPS_KEPT
                };
                let gap = match t.armed.or(t.last_match) {
                    Some((stream, j)) => kept(&stream, j).then_some((stream, Some(j))),
                    None => streams
                        .iter()
                        .find(|(_, st)| {
                            st.queue.next(family) == 0
                                && st.queue.gaps(family).len() < GAPS_BEFORE_MATCH
                        })
                        .map(|(k, _)| (*k, None)),
                };
                if let Some((stream, matched)) = gap {
                    let st = streams.get_mut(&stream).expect("stream");
                    st.queue.gaps_mut(family).push(Gap {
                        matched,
                        view: t.vi,
                        edge,
                        time,
                        words: t.value,
                        equal: 0,
                    });
                }
            },
        );
        if self.engine.digest_fault.is_some() {
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
                    let missing = self.first_missing_digest();
                    self.engine.wrong_digest(
                        missing,
                        (edge, time),
                        ws.iter().map(|&(_, p)| samples[p].clone()).collect(),
                        "a digest block that is none of the expected ones",
                    );
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
                    let missing = self.first_missing_word();
                    self.engine.wrong_digest(
                        missing,
                        (edge, time),
                        vec![samples[data].clone()],
                        "a digest word that is not the expected one",
                    );
                }
            }
        }
    }

    pub(super) fn first_missing_digest(&self) -> (u32, Vec<u64>) {
        self.ex
            .streams
            .iter()
            .find(|(_, st)| st.next_digest < st.digests.len())
            .map(|(k, st)| (*k, st.digests[st.next_digest].1.clone()))
            .unwrap_or_default()
    }

    pub(super) fn first_missing_word(&self) -> (u32, Vec<u64>) {
        self.ex
            .streams
            .iter()
            .find_map(|(k, st)| {
                let words: Vec<u64> = st.digests.iter().flat_map(|d| d.1.clone()).collect();
                words.get(st.next_word).map(|w| (*k, vec![*w]))
            })
            .unwrap_or_default()
    }

    /// The verdict after the waveform's last edge: `edges` rising edges in all.
    pub(super) fn finish_after(
        mut self,
        edges: u64,
        golden_cycles: u64,
    ) -> Result<crate::report::DiffReport, crate::error::DiffError> {
        self.engine.edges = edges;
        self.finish(golden_cycles)
    }
}
