//! Naming what the Skein search found: each field from its best place (the state before or
//! after injection, whichever register holds it better; a rotating key or tweak ring by its
//! positions; the serial digest; the tweak's position word), the digest's valid bit,
//! `reset_cycles`, and the kinds and missing fields of the report.

use std::collections::{BTreeMap, BTreeSet};

use skeinhw_trace::names;

use super::{FieldKey, Role, SERIAL, Search};
use crate::discover::scope::{siblings, write_scoped};
use crate::discover::search::{Candidate, Candidates, Place};
use crate::discover::signals::reset_cycles;
use crate::discover::timing::misfit;
use crate::discover::when::{Class, qualifiers};
use crate::discover::{Discovery, Found};
use crate::error::DiffError;

impl Search {
    /// The discovery of `best` (per field: score, place, votes).
    pub(super) fn write(
        self,
        best: BTreeMap<FieldKey, (f64, Place, u32)>,
    ) -> Result<Discovery, DiffError> {
        let Search {
            table,
            signals,
            clock,
            candidates,
            position_seen,
            file,
            wave,
        } = self;
        let tracks = &signals.tracks;
        let name_of = |t: u32| signals.name(t);
        let edge_of = |time: u64| clock.edge_of(time);
        let rises = &clock.rises;
        let mut d = Discovery {
            edges: rises.len() as u64,
            golden_cycles: table.cycles,
            ..Discovery::default()
        };
        let probe_text = |place: &Place| -> String {
            let name = name_of(place.signal);
            if tracks[place.signal as usize].width == 64 && place.offset == 0 {
                format!("{name}[63:0]")
            } else {
                format!("{name}[{}:{}]", place.offset + 63, place.offset)
            }
        };
        let nw = table.words;
        let any_state = best.keys().any(|k| k.0 == Role::State);
        debug_assert!(!any_state || !best.keys().any(|k| k.0 == Role::AfterSubkey));
        let mut full: BTreeMap<String, String> = BTreeMap::new();
        // Where each register field sits (for its `when` qualifier).
        let mut placed: BTreeMap<String, Place> = BTreeMap::new();
        let mut serial: Option<Place> = None;
        let mut key_rings: BTreeSet<(u32, bool)> = BTreeSet::new();
        let mut tweak_rings: BTreeSet<(u32, bool)> = BTreeSet::new();
        // A register that matched the golden schedule's state but, at the subkey boundaries,
        // holds the state before injection and never the state after: the before-injection
        // register of another design (issue 33); named so, and no cycle alignment from it.
        let before_register = |key: &FieldKey, place: &Place| {
            let votes = |r: Role| {
                candidates[place]
                    .votes
                    .get(&(r, 0, key.2))
                    .copied()
                    .unwrap_or(0)
            };
            key.0 == Role::State
                && key.1 == 0
                && votes(Role::BeforeSubkey) >= 2
                // (A block whose subkey words are 0, the Config block's zero key, adds nothing:
                // there the two are equal, hence a margin, not none.)
                && votes(Role::AfterSubkey) * 2 < votes(Role::BeforeSubkey)
        };
        for (key, (_, place, votes)) in &best {
            let (role, slot, word) = *key;
            let c = &candidates[place];
            let field = match role {
                Role::State if before_register(key, place) => {
                    names::slot(0, &format!("state_before_{word}"))
                }
                Role::State | Role::AfterSubkey
                    if best
                        .get(&(Role::BeforeSubkey, 0, word))
                        .is_some_and(|b| slot == 0 && b.0 > best[key].0) =>
                {
                    continue;
                }
                Role::State => names::slot(slot.into(), &format!("state_{word}")),
                Role::AfterSubkey if !any_state => names::slot(0, &format!("state_{word}")),
                Role::BeforeSubkey => {
                    // The state before or after injection, whichever register holds it better.
                    let score = |r: Role| best.get(&(r, 0, word)).map_or(0.0, |b| b.0);
                    if score(Role::State).max(score(Role::AfterSubkey)) >= best[key].0 {
                        continue;
                    }
                    names::slot(0, &format!("state_before_{word}"))
                }
                Role::Key => {
                    let words: BTreeSet<u8> = c
                        .votes
                        .iter()
                        .filter(|(k, v)| k.0 == Role::Key && **v * 10 >= *votes)
                        .map(|(k, _)| k.2)
                        .collect();
                    if words.len() >= 3 {
                        let note = format!(
                            "{}: a key ring that rotates its words (a slice holds key words \
                             {words:?} in turn)",
                            name_of(place.signal)
                        );
                        if !d.notes.contains(&note) {
                            d.notes.push(note);
                        }
                        key_rings.insert((place.signal, place.swapped));
                        continue;
                    }
                    names::slot(slot.into(), &format!("key_{word}"))
                }
                Role::Tweak => {
                    let alone = tweak_words_held_alone(c);
                    if alone.len() >= 2 {
                        let note = format!(
                            "{}: a tweak ring that rotates its words",
                            name_of(place.signal)
                        );
                        if !d.notes.contains(&note) {
                            d.notes.push(note);
                        }
                        tweak_rings.insert((place.signal, place.swapped));
                        continue;
                    }
                    // Only values that were also another tweak word (t_1 = t_2 where t_0 is 0):
                    // no evidence for this word (a slice across t_0 and t_1 can show one).
                    if !alone.contains(&word) {
                        continue;
                    }
                    names::slot(slot.into(), &format!("tweak_{word}"))
                }
                Role::Digest if word == SERIAL => {
                    serial = Some(*place);
                    continue;
                }
                Role::Digest => names::out_data(word.into()),
                Role::AfterSubkey | Role::FeedForward => continue,
            };
            if place.swapped {
                d.notes.push(format!(
                    "{field}: found byte-swapped in {} (written with \"byteswap\": true)",
                    probe_text(place)
                ));
                d.byteswap.insert(field.clone());
            }
            let expected = table.table.expected.get(key).copied().unwrap_or(0);
            d.found.push(Found {
                field: field.clone(),
                probe: probe_text(place),
                matched: (*votes).min(expected),
                expected,
            });
            placed.insert(field.clone(), *place);
            full.insert(field, probe_text(place));
        }

        // A rotating ring's words, written by ring position (what the diff's `"rotating"` rings
        // compare): position p holds word p when the block's key (tweak) is loaded.
        for (role, rings, len, what) in [
            (Role::Key, &key_rings, nw + 1, "key"),
            (Role::Tweak, &tweak_rings, 3, "tweak"),
        ] {
            let Some(&ring) = rings.iter().next() else {
                continue;
            };
            // The key and tweak of another message of the same length can be the same: a ring
            // is written only beside a state found.
            if !full.keys().any(|f| f.contains("_state_")) {
                continue;
            }
            let name = name_of(ring.0);
            match ring_places(&candidates, tracks[ring.0 as usize].width, role, ring, len) {
                Some(places) if rings.len() == 1 => {
                    for (p, place) in places.iter().enumerate() {
                        let field = names::slot(0, &format!("{what}_{p}"));
                        let c = &candidates.get(place);
                        let expected: u32 = table
                            .table
                            .expected
                            .iter()
                            .filter(|(k, _)| k.0 == role && k.1 == 0)
                            .map(|(_, n)| *n)
                            .sum();
                        let matched = c.map_or(0, |c| {
                            c.votes
                                .iter()
                                .filter(|(k, _)| k.0 == role)
                                .map(|(_, v)| *v)
                                .sum()
                        });
                        d.found.push(Found {
                            field: field.clone(),
                            probe: probe_text(place),
                            matched: matched.min(expected),
                            expected,
                        });
                        placed.insert(field.clone(), *place);
                        full.insert(field, probe_text(place));
                    }
                    match role {
                        Role::Key => d.key_ring_rotating = true,
                        _ => d.tweak_ring_rotating = true,
                    }
                }
                _ => d.notes.push(format!(
                    "{name}: the {what} ring's word positions are unclear: not written"
                )),
            }
        }

        // A digest's valid bit: high at every edge a digest word was seen there, and at as few
        // others as possible.
        let valid_of = |places: &[Place]| -> Option<u32> {
            let edges: BTreeSet<u64> = places
                .iter()
                .flat_map(|p| {
                    candidates[p]
                        .hits
                        .iter()
                        .filter(|(_, t)| t.key.0 == Role::Digest)
                        .map(|(time, _)| edge_of(*time))
                })
                .collect();
            signals.valid_bit(&clock, &edges)
        };
        let parallel: Vec<Place> = best
            .iter()
            .filter(|(k, _)| k.0 == Role::Digest && k.2 != SERIAL)
            .map(|(_, (_, p, _))| *p)
            .collect();
        if !parallel.is_empty() {
            d.mark_digest(&mut full, valid_of(&parallel).map(name_of));
        }
        if let Some(serial) = serial {
            match valid_of(&[serial]) {
                Some(v) => {
                    d.digest_serial = Some((probe_text(&serial), name_of(v).to_string()));
                    if serial.swapped {
                        d.digest_serial_byteswap = true;
                        d.notes.push(format!(
                            "digest_serial: {} carries the digest words byte-swapped (written \
                             with \"byteswap\": true)",
                            probe_text(&serial)
                        ));
                    }
                }
                None => d.notes.push(format!(
                    "{}: carries the digest one word at a time, but no valid bit was found",
                    probe_text(&serial)
                )),
            }
        }

        // The tweak's position word: the slice that followed every position of the golden run in
        // order (with one position, the slice below word 1 in its register), a register in the scope of the tweak's word 1 if several did
        // (ports and test-bench copies carry it too). Only beside a state and a tweak word found:
        // the positions of another message of the same length are the same.
        for (slot, positions) in table.positions.iter().enumerate() {
            let tweak_0 = names::slot(slot, "tweak_0");
            let beside = best
                .get(&(Role::Tweak, slot as u8, 1))
                .map(|b| b.1)
                .filter(|t1| !t1.swapped);
            let any_state_found = full.keys().any(|f| f.contains("_state_"));
            if let (Some(t1), true, false, false, true) = (
                beside,
                any_state_found,
                d.tweak_ring_rotating,
                full.contains_key(&tweak_0),
                !positions.is_empty(),
            ) {
                // Loaded with the tweak's word 1: the most of its changes at times word 1 changed.
                let t1_times: BTreeSet<u64> = candidates[&t1].hits.iter().map(|h| h.0).collect();
                let mut followed: Vec<(usize, Place)> = position_seen
                    .iter()
                    .filter(|((s, _), _)| *s == slot)
                    .filter_map(|((_, p), times)| {
                        let times = times.as_ref().filter(|t| t.len() == positions.len())?;
                        Some((times.iter().filter(|t| t1_times.contains(t)).count(), *p))
                    })
                    .collect();
                // One position (the empty message's Output block: 8) could be any small number
                // in any register: only the slice right below word 1 in its register is taken.
                let below_t1 = |p: &Place| p.signal == t1.signal && p.offset + 64 == t1.offset;
                if positions.len() == 1 {
                    followed.retain(|f| f.0 > 0 && below_t1(&f.1));
                }
                let most = followed.iter().map(|f| f.0).max().unwrap_or(0);
                followed.retain(|f| f.0 == most);
                let mut followed: Vec<Place> = followed.into_iter().map(|f| f.1).collect();
                followed.sort();
                let near: Vec<Place> = followed
                    .iter()
                    .filter(|p| {
                        let track = &tracks[p.signal as usize];
                        !track.net
                            && track.width == tracks[t1.signal as usize].width
                            && siblings(name_of(p.signal), name_of(t1.signal))
                    })
                    .copied()
                    .collect();
                let chosen =
                    match (followed.as_slice(), near.as_slice()) {
                        ([one], _) => Some(*one),
                        _ => followed.iter().find(|p| below_t1(p)).copied().or(
                            match near.as_slice() {
                                [one] => Some(*one),
                                _ => None,
                            },
                        ),
                    };
                match chosen {
                    Some(place) => {
                        let n = positions.len() as u32;
                        d.found.push(Found {
                            field: tweak_0.clone(),
                            probe: probe_text(&place),
                            matched: n,
                            expected: n,
                        });
                        placed.insert(tweak_0.clone(), place);
                        full.insert(tweak_0, probe_text(&place));
                    }
                    None if followed.len() > 1 => d.notes.push(format!(
                        "{tweak_0}: {} slices take the tweak positions in order ({}); not written",
                        followed.len(),
                        followed
                            .iter()
                            .map(&probe_text)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    None => {}
                }
            }
        }

        // Cycle alignment fits when the state shows up at golden cycle + a constant.
        d.reset_cycles = reset_cycles(
            best.iter()
                .filter(|(k, (_, p, _))| k.0 == Role::State && !before_register(k, p))
                .flat_map(|(key, (_, place, _))| {
                    candidates[place]
                        .hits
                        .iter()
                        .filter(move |(_, tag)| tag.key == *key)
                        .map(|(time, tag)| edge_of(*time) as i64 - i64::from(tag.record))
                }),
        );

        if d.reset_cycles.is_none() {
            let state: Vec<(&FieldKey, &Place)> = best
                .iter()
                .filter(|(k, _)| k.0 == Role::State)
                .map(|(k, (_, p, _))| (k, p))
                .collect();
            let before = state
                .iter()
                .find(|(k, p)| before_register(k, p))
                .map(|(_, p)| name_of(p.signal).to_string());
            if !state.is_empty() {
                let hits = state.iter().flat_map(|(key, place)| {
                    candidates[place]
                        .hits
                        .iter()
                        .filter(move |(_, tag)| tag.key == **key)
                        .map(|(time, tag)| (tag.record, edge_of(*time)))
                });
                d.misfit = Some(misfit(&table.blocks, hits, before.as_deref()));
            }
        }

        // Kinds, scope, missing fields.
        let has = |p: &str| full.keys().any(|f| f.starts_with(p) || f.contains(p));
        if full
            .keys()
            .any(|f| f.contains("_state_") && !f.contains("before"))
        {
            d.kinds.push(if any_state {
                "state (each cycle of the golden schedule)".into()
            } else {
                "state after subkey injection".into()
            });
        }
        if has("state_before_") {
            d.kinds.push("state before subkey injection".into());
        }
        if has("_key_") {
            d.kinds.push("key".into());
        }
        if has("_tweak_") {
            d.kinds.push("tweak".into());
        }
        if has("out_data_") {
            d.kinds.push("digest".into());
        }
        if d.digest_serial.is_some() {
            d.kinds.push("serial digest".into());
        }
        let state_found = |w: usize| {
            full.contains_key(&names::slot(0, &format!("state_{w}")))
                || full.contains_key(&names::slot(0, &format!("state_before_{w}")))
        };
        d.missing.extend(
            (0..nw)
                .filter(|&w| !state_found(w))
                .map(|w| names::slot(0, &format!("state_{w}"))),
        );
        if d.digest_serial.is_none() {
            d.missing.extend(
                (0..nw)
                    .map(names::out_data)
                    .filter(|f| !full.contains_key(f)),
            );
        }
        for (w, what) in [(0usize, "position"), (1, "type and flags")] {
            let f = names::slot(0, &format!("tweak_{w}"));
            if !full.contains_key(&f) {
                d.missing.push(format!("{f} ({what})"));
            }
        }
        if full.is_empty() && d.digest_serial.is_none() {
            return Err(DiffError::Invalid(format!(
                "{file}: no signal holds any state, key, tweak or digest word of the golden run \
                 ({} golden cycles, {} rising edges of {}): is it the same message and schedule?",
                table.cycles,
                rises.len(),
                name_of(clock.track)
            )));
        }

        // Registers that hold other values between their golden ones: a `when` qualifier.
        placed.retain(|f, _| {
            ["_state_", "_key_", "_tweak_"]
                .iter()
                .any(|k| f.contains(k))
        });
        let until = placed
            .values()
            .filter_map(|p| candidates.get(p))
            .flat_map(|c| c.hits.iter().map(|(time, _)| edge_of(*time)))
            .max()
            .unwrap_or(0);
        let qualified = qualifiers(&wave, &file, &signals, &clock, &placed, until, |v| {
            if table.table.contains(v) {
                Class::Golden
            } else if super::distinctive(v) {
                Class::Other
            } else {
                Class::Neutral
            }
        })?;
        for q in qualified {
            let fields: Vec<&String> = placed
                .iter()
                .filter(|(_, p)| p.signal == q.register)
                .map(|(f, _)| f)
                .collect();
            let edges = q.other_edges.len();
            let first = q.other_edges[0];
            let register = name_of(q.register);
            match q.when {
                Some(w) => {
                    for f in &fields {
                        d.when.insert((*f).clone(), name_of(w).to_string());
                    }
                    d.notes.push(format!(
                        "{register}: holds values that are no golden word on {edges} edge(s) \
                         between its golden ones (first at edge {first}); compared only when {} \
                         is 1 (written as \"when\")",
                        name_of(w)
                    ));
                }
                None => d.notes.push(format!(
                    "{register}: holds values that are no golden word on {edges} edge(s) \
                     between its golden ones (first at edge {first}), and no 1-bit signal is 0 \
                     there and 1 where it takes golden values: no \"when\" written"
                )),
            }
        }

        write_scoped(&mut d, &signals, &clock, &full, |f| f.contains("_state_"));
        d.notes.dedup();
        Ok(d)
    }
}

/// The places of a rotating ring's positions 0..len in signal `ring`: the slices that took
/// their first word of `role` at the earliest time (the load, when position p holds word p)
/// fix where position 0 sits; the positions follow it 64 bits apart. `None` when they
/// disagree or the ring leaves the signal (a swapped ring is not written either).
fn ring_places(
    candidates: &Candidates<u64, FieldKey>,
    width: u32,
    role: Role,
    (signal, swapped): (u32, bool),
    len: usize,
) -> Option<Vec<Place>> {
    if swapped {
        return None;
    }
    let first: Vec<(u64, u8, u32)> = candidates
        .iter()
        .filter(|(p, _)| p.signal == signal && p.swapped == swapped)
        .filter_map(|(p, c)| {
            c.hits
                .iter()
                .find(|(_, t)| t.key.0 == role)
                .map(|(time, t)| (*time, t.key.2, p.offset))
        })
        .collect();
    let load = first.iter().map(|f| f.0).min()?;
    let bases: BTreeSet<i64> = first
        .iter()
        .filter(|f| f.0 == load)
        .map(|f| i64::from(f.2) - 64 * i64::from(f.1))
        .collect();
    let &[base] = bases.iter().copied().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    (0..len as i64)
        .map(|p| {
            let offset = u32::try_from(base + 64 * p).ok()?;
            (u64::from(offset) + 64 <= u64::from(width)).then_some(Place {
                signal,
                offset,
                swapped,
            })
        })
        .collect()
}

/// The tweak words a place took each on an edge where its value was no other tweak word: a
/// ring rotates distinct words through each slice, while a tweak register's t_1 and t_2 are
/// equal in a block whose t_0 (the position) is 0, the empty message's, and both are taken by
/// either slice there (issue 33: the register taken for a ring, no tweak written).
fn tweak_words_held_alone(c: &Candidate<u64, FieldKey>) -> BTreeSet<u8> {
    let mut by_time: BTreeMap<u64, BTreeSet<u8>> = BTreeMap::new();
    for (time, tag) in c.hits.iter().filter(|(_, t)| t.key.0 == Role::Tweak) {
        by_time.entry(*time).or_default().insert(tag.key.2);
    }
    by_time
        .into_values()
        .filter(|w| w.len() == 1)
        .flatten()
        .collect()
}
