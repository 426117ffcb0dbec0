//! The Shabal event comparison fed edge by edge: the parts' views go through the shared engine
//! (a value that is no event: the closest one is kept), the digest port is read here, and the
//! verdict expects every event of every mapped part.

use std::collections::BTreeMap;

use skeinhw_sched::shabal::sim::ShabalPhase;

use super::{Layout, Part, ShabalExpected, StreamEvents, View};
use crate::engine::matcher::{self, is_one, known};
use crate::engine::queue::{FamilyIndex, Gap};
use crate::engine::run::{Engine, Taken, divergence, hex};
use crate::error::DiffError;
use crate::report::{DiffReport, Divergence, FieldDiff};
use crate::wave::Bits;

/// The Shabal event comparison, fed edge by edge.
pub struct ShabalEventComparator {
    ex: ShabalExpected,
    layout: Layout,
    engine: Engine,
    /// The digest lines at the previous edge with out_valid high (a held digest counts once).
    last_digest: Option<Vec<u64>>,
}

impl ShabalEventComparator {
    pub(super) fn new(ex: ShabalExpected, layout: Layout) -> ShabalEventComparator {
        let engine = Engine::new(&ex.streams, &layout.views);
        ShabalEventComparator {
            ex,
            layout,
            engine,
            last_digest: None,
        }
    }

    /// One RTL rising edge (after reset) with its samples in layout order.
    pub(crate) fn edge(&mut self, edge: u64, time: u64, samples: &[Bits]) {
        let views = &self.layout.views;
        self.engine.views_edge(
            &mut self.ex.streams,
            views,
            (edge, time),
            samples,
            false,
            false,
            |streams, t| keep_closest(streams, &views[t.vi], t),
        );
        self.digest_edge(edge, time, samples);
    }

    fn digest_edge(&mut self, edge: u64, time: u64, samples: &[Bits]) {
        let Some((valid, ws)) = &self.layout.digest else {
            return;
        };
        if self.engine.digest_fault.is_some() {
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
                let missing = self.first_missing_digest();
                self.engine.wrong_digest(
                    missing,
                    (edge, time),
                    ws.iter().map(|&(_, p)| samples[p].clone()).collect(),
                    "a digest that is none of the expected ones",
                );
            }
        }
    }

    /// The mapped digest port has shown every expected digest (or a wrong one): later edges
    /// cannot change the verdict, so a live caller may stop. False without a digest port.
    pub(crate) fn digests_settled(&self) -> bool {
        self.layout.digest.is_some()
            && (self.engine.digest_fault.is_some()
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
    /// The verdict after the waveform's last edge: `edges` rising edges in all.
    pub(super) fn finish_after(
        mut self,
        edges: u64,
        golden_cycles: u64,
    ) -> Result<DiffReport, DiffError> {
        self.engine.edges = edges;
        self.finish(golden_cycles)
    }

    /// The verdict after the last edge.
    pub(crate) fn finish(mut self, golden_cycles: u64) -> Result<DiffReport, DiffError> {
        self.engine.check_compared(&self.layout.views)?;
        self.engine
            .settle(&mut self.ex.streams, &self.layout.views, false);
        if self.layout.digest.is_some() {
            let (stream, expected) = self.first_missing_digest();
            self.engine
                .digest_missing(Some((stream, expected, "the digest".into())));
        }
        let mut expected_n = 0u64;
        let mut matched_n = 0u64;
        let mut first: Option<(u32, usize, usize)> = None;
        let mut lines = Vec::new();
        for (&stream, st) in &self.ex.streams {
            for view in &self.layout.views {
                let evs = &st.queue.events(view.family.index());
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
                .engine
                .digest_fault
                .as_ref()
                .map(|d| d.divergence(|w| format!("out_data_{w}"), 8)),
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
            edges: self.engine.edges,
            compared_edges: self.engine.compared_edges,
            golden_cycles,
            blocks: lines,
            left_out: &self.layout.left_out,
        }))
    }

    fn event_divergence(&self, stream: u32, j: usize, vi: usize) -> Divergence {
        let view = &self.layout.views[vi];
        let st = &self.ex.streams[&stream];
        let evs = &st.queue.events(view.family.index());
        let e = &evs[j];
        let prev = evs[..j].iter().rposition(|p| p.seen.is_some());
        let gap = st
            .queue
            .gaps(view.family.index())
            .iter()
            .find(|g| g.matched == prev && g.view == vi);
        let fields = view
            .words
            .iter()
            .enumerate()
            .map(|(k, &(w, _))| FieldDiff {
                field: view.fields[k].clone(),
                golden: hex(e.words[w], 8),
                rtl: gap.map_or_else(|| "(not seen)".into(), |g| hex(g.words[k], 8)),
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
        let at = gap.map_or(self.engine.end(), |g| (g.edge, g.time));
        divergence(at, phase, fields)
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
            .filter(|v| st.queue.events(v.family.index())[j].seen.is_some())
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

/// A value a part took in place of the next event of the stream last matched (or of the first
/// stream, before any match): the closest one (most words equal to the event) is kept.
fn keep_closest(streams: &mut BTreeMap<u32, StreamEvents>, view: &View, t: Taken) {
    let part = view.family.index();
    let target = match t.armed {
        Some((stream, j)) => Some((stream, Some(j))),
        None => streams.keys().next().map(|k| (*k, None)),
    };
    let Some((stream, matched)) = target else {
        return;
    };
    let st = streams.get_mut(&stream).expect("stream");
    let next = matched.map_or(0, |j| j + 1);
    let Some(e) = st.queue.events(part).get(next) else {
        return;
    };
    let equal = view
        .words
        .iter()
        .zip(&t.value)
        .filter(|(wp, v)| e.words[wp.0] == **v)
        .count();
    let gap = Gap {
        matched,
        view: t.vi,
        edge: t.edge,
        time: t.time,
        words: t.value,
        equal,
    };
    let gaps = st.queue.gaps_mut(part);
    match gaps.iter_mut().find(|g| g.matched == matched) {
        Some(g) if g.equal >= equal => {}
        Some(g) => *g = gap,
        None => gaps.push(gap),
    }
}
