//! The Threefish verdict: which kinds the design registers (closed under their subkey stride),
//! the first event never seen, and the per-block lines of the report.

use std::collections::{BTreeMap, BTreeSet};

use skeinhw_sched::sim::Phase;

use super::{EventComparator, Expected, Family, Kind, StreamEvents};
use crate::engine::matcher;
use crate::engine::queue::FamilyIndex;
use crate::engine::run::{divergence, hex};
use crate::error::DiffError;
use crate::report::{DiffReport, Divergence, FieldDiff};

impl EventComparator {
    /// The verdict after the last edge.
    pub fn finish(mut self, golden_cycles: u64) -> Result<DiffReport, DiffError> {
        self.engine.check_compared(&self.layout.views)?;
        self.engine
            .settle(&mut self.ex.streams, &self.layout.views, true);
        // Missing digests.
        if self.layout.serial.is_some() {
            let (stream, expected) = self.first_missing_word();
            self.engine
                .digest_missing(Some((stream, expected, "the digest word".into())));
        } else if self.layout.digest.is_some() {
            let (stream, expected) = self.first_missing_digest();
            self.engine
                .digest_missing(Some((stream, expected, "the digest block".into())));
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
            // Seen to compute a Config (Key) block: one of its events that is not all zeros
            // (the key's parity word aside) was seen. The Config block's key is 0, what a key
            // register holds after reset: a core with a hard-coded IV shows it without
            // computing the block (issue 33).
            let nw = self.ex.words;
            let computed_config = |ubi: Phase| {
                Family::ALL.iter().any(|f| {
                    st.queue.events(f.index()).iter().any(|e| {
                        e.seen.is_some()
                            && st.blocks[e.block].ubi == ubi
                            && e.words.iter().take(nw).any(|w| *w != 0)
                    })
                })
            };
            let block_expected = |b: usize| match st.blocks[b].ubi {
                Phase::Config | Phase::Key => computed_config(st.blocks[b].ubi),
                _ => true,
            };
            let mut candidates: Vec<(usize, Family, usize)> = Vec::new();
            for &f in &families {
                let reg = &registered[&f];
                let evs = &st.queue.events(f.index());
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
                // Values taken after a match that were no event: the next event of a kind on
                // the design's stride should have been among them; or, if one of them shares
                // more words with a later event of that block (the design registers every
                // other subkey, or a faulty feed-forward), that one: the value in the event's
                // place (issue 33).
                let gaps = st.queue.gaps(f.index());
                // A register never seen to hold a block's state has taught no stride: the
                // value in an event's place is then the closest event alone (a core that never
                // registers the state after subkey 0, faulty from its first value).
                let evidence = reg.evidence(f);
                let mut placed = false;
                let mut groups: Vec<Option<usize>> = gaps.iter().map(|g| g.matched).collect();
                groups.dedup();
                for matched in groups {
                    let from = matched.map_or(0, |m| m + 1);
                    let equal = |k: usize| {
                        gaps.iter()
                            .filter(|g| g.matched == matched)
                            .map(|g| equal_words(&self.layout.views[g.view], &g.words, &evs[k]))
                            .max()
                            .unwrap_or(0)
                    };
                    let on_stride = (from..evs.len())
                        .find(|&k| reg.on_stride(evs[k].kind) && block_expected(evs[k].block))
                        .filter(|_| evidence);
                    let closest = (from < evs.len() && block_expected(evs[from].block))
                        .then(|| {
                            (from..evs.len())
                                .take_while(|&k| evs[k].block == evs[from].block)
                                // Before any match (the reset value among the values), a
                                // design with a stride is held to its kinds: a reset 0 equal in
                                // some words to an unregistered event is none of them.
                                .filter(|&k| {
                                    matched.is_some()
                                        || !evidence
                                        || reg.closed.contains(&evs[k].kind)
                                })
                                .map(|k| (equal(k), std::cmp::Reverse(k)))
                                .max()
                                .map(|(_, k)| k.0)
                        })
                        .flatten()
                        .filter(|&k| equal(k) > 0);
                    let pick = match (on_stride, closest) {
                        (Some(a), Some(b))
                            if equal(b) > equal(a) || (equal(b) == equal(a) && b < a) =>
                        {
                            Some(b)
                        }
                        (Some(a), _) => Some(a),
                        (None, b) => b,
                    };
                    if let Some(k) = pick
                        && evs[k].seen.is_none()
                    {
                        candidates.push((evs[k].block, f, k));
                        placed = true;
                    }
                }
                if !evidence
                    && !placed
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
                        st.queue
                            .events(f.index())
                            .iter()
                            .any(|e| e.block == b && e.seen.is_some())
                    });
                    // A state event of the block already placed (the closest to a faulty
                    // value) names the block's fault better than its first event.
                    let placed = candidates.iter().any(|&(cb, cf, _)| {
                        cb == b && matches!(cf, Family::State | Family::StateBefore)
                    });
                    if !any && !placed {
                        let f = if families.contains(&Family::StateBefore) {
                            Family::StateBefore
                        } else {
                            Family::State
                        };
                        if let Some(j) =
                            st.queue.events(f.index()).iter().position(|e| e.block == b)
                        {
                            candidates.push((b, f, j));
                        }
                    }
                }
            }
            candidates.sort_by_key(|&(b, f, j)| (b, st.queue.events(f.index())[j].kind.order(), f));
            if first.is_none()
                && let Some(&(b, f, j)) = candidates.first()
            {
                first = Some((stream, b, f, j));
            }
            block_lines.extend(seen_lines(stream, st, &families, block_expected));
        }
        let divergence = match first {
            Some((stream, _, f, j)) => Some(self.event_divergence(stream, f, j, &registered)),
            None => self.rotated_fixed_ring().or_else(|| {
                self.engine.digest_fault.as_ref().map(|d| {
                    let serial = self.layout.serial.is_some();
                    d.divergence(
                        |w| {
                            if serial {
                                "digest_serial.data".into()
                            } else {
                                format!("out_data_{w}")
                            }
                        },
                        16,
                    )
                })
            }),
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
            edges: self.engine.edges,
            compared_edges: self.engine.compared_edges,
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
        let evs = &st.queue.events(f.index());
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
        // What the register held where the event was expected: of the values after the
        // previous match that were no event, the one closest to it (the first on a tie).
        let after = st
            .queue
            .gaps(f.index())
            .iter()
            .filter(|g| g.matched == prev)
            .fold(
                None,
                |best: Option<(usize, &crate::engine::queue::Gap)>, g| {
                    let n = equal_words(&self.layout.views[g.view], &g.words, e);
                    match best {
                        Some((b, _)) if b >= n => best,
                        _ => Some((n, g)),
                    }
                },
            )
            .map(|(_, g)| g);
        let view = after
            .map(|a| &self.layout.views[a.view])
            .or_else(|| self.layout.views.iter().find(|v| v.family == f))
            .expect("a view of the family");
        let mut fields = Vec::new();
        for (k, &(w, _)) in view.words.iter().enumerate() {
            let golden = hex(e.words[w], 16);
            let rtl = after.map_or_else(|| "(not seen)".to_string(), |a| hex(a.words[k], 16));
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
        let at = after.map_or(self.engine.end(), |a| (a.edge, a.time));
        divergence(at, phase, fields)
    }
}

/// How many of the view's words `value` shares with event `e`.
fn equal_words(view: &super::View, value: &[u64], e: &crate::engine::queue::Event<Kind>) -> usize {
    view.words
        .iter()
        .zip(value)
        .filter(|(wp, v)| e.words[wp.0] == **v)
        .count()
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
            .flat_map(|st| st.queue.events(f.index()).iter())
            .filter(|e| e.seen.is_some() && !e.implied)
            .map(|e| e.kind)
            .collect();
        let mut subs: Vec<u32> = kinds.iter().filter_map(|k| k.subkey()).collect();
        // A ring holds a block's key (tweak) from subkey 0 on: a ring read one word off, first
        // matching at subkey 1, still owes subkey 0 (issue 33).
        if matches!(f, Family::Key | Family::Tweak) && subs.first().is_some_and(|&s| s > 0) {
            subs.insert(0, 0);
        }
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
fn seen_lines(
    stream: u32,
    st: &StreamEvents,
    families: &BTreeSet<Family>,
    expected: impl Fn(usize) -> bool,
) -> Vec<String> {
    let mut lines: Vec<(Phase, u64, u64, String)> = Vec::new();
    for (b, info) in st.blocks.iter().enumerate() {
        let kinds: BTreeSet<Kind> = families
            .iter()
            .flat_map(|f| st.queue.events(f.index()).iter())
            .filter(|e| e.block == b && e.seen.is_some())
            .map(|e| e.kind)
            .collect();
        let text = if kinds.is_empty() {
            "no event".to_string()
        } else if !expected(b) {
            // Seen only as zeros (a key register's reset value): no block of the design.
            "not computed by the design (only all-zero values seen)".to_string()
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
