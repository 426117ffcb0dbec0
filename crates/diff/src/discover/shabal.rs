//! `skeinhw map` for Shabal: which RTL signal (or 32-bit slice of a wider vector) holds each
//! word of A, B and C and each digest word, found by searching the waveform for the golden
//! run's values, as [`crate::discover`] does for Skein's 64-bit words.
//!
//! The golden words are each cycle's A, B and C (the golden schedule's registers), the state
//! after each round (the events `shabal_event` compares, whatever the design's
//! unfolding) and the digest words. Every value change of every signal of 32 bits or more is
//! cut into 32-bit slices and looked up in both byte orders (a core unaware of Shabal's
//! little-endian words holds them byte-swapped; such a field is written with
//! `"byteswap": true`). Each field then gets the slice that took the most of
//! its round states (a register, and the one that takes them last: not the next-state net
//! that feeds it); each digest word the slice that took it
//! with the fewest other golden values (an output register, not C), and `out_valid` the 1-bit
//! signal high at those edges and at as few others as possible. When the state appears at
//! golden cycle + a constant, that constant is `reset_cycles` (cycle alignment fits).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalTraceHeader};
use skeinhw_shabal::constants::ITERATIONS;
use skeinhw_trace::names;

use super::scope::write_scoped;
use super::search::{Place, Table, search};
use super::signals::{Signals, reset_cycles};
use super::{DiscoverOptions, Discovery, Found};
use crate::error::DiffError;
use crate::map::Part;

/// What a golden word is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Role {
    /// A word of the golden schedule's registers on some cycle.
    State,
    /// A word of the state after a round.
    Round,
    /// A digest word.
    Digest,
}

/// (role, part (0 A, 1 B, 2 C; 0 for the digest), word).
type Key = (Role, u8, u8);

/// Small values (counters, flags) are left out: any register could hold them.
fn distinctive(v: u32) -> bool {
    (v >> 12) != 0 && (!v >> 12) != 0
}

/// The golden words, indexed by value.
struct ShabalTable {
    table: Table<u32, Key>,
    out_words: usize,
    cycles: u64,
}

impl ShabalTable {
    fn build<E: std::fmt::Display>(
        header: &ShabalTraceHeader,
        golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    ) -> Result<ShabalTable, DiffError> {
        let out_words = header.output_words();
        let (table, cycles) = Table::from_records(golden, distinctive, |r, add| {
            let mut push =
                |role, part: usize, word: usize, v| add((role, part as u8, word as u8), v);
            if r.valid {
                let parts: [&[u32]; 3] = [&r.state.a, &r.state.b, &r.state.c];
                let end = r.iteration as usize == ITERATIONS;
                for (p, words) in parts.iter().enumerate() {
                    for (w, &v) in words.iter().enumerate() {
                        push(Role::State, p, w, v);
                        if end {
                            push(Role::Round, p, w, v);
                        }
                    }
                }
            }
            if let Some(o) = r.out {
                for (w, &v) in o.data[..out_words].iter().enumerate() {
                    push(Role::Digest, 0, w, v);
                }
            }
        })?;
        Ok(ShabalTable {
            table,
            out_words,
            cycles,
        })
    }
}

/// Searches `wave` for the golden Shabal run's words (see the module documentation).
pub fn discover_shabal<E: std::fmt::Display>(
    header: &ShabalTraceHeader,
    golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    wave: &Path,
    options: &DiscoverOptions,
) -> Result<Discovery, DiffError> {
    let table = ShabalTable::build(header, golden)?;
    let (file, scan, mut signals) =
        Signals::open(wave, 32, options.strip_prefix.as_deref(), &options.progress)?;
    let candidates = search(&mut signals, scan, &file, &table.table, |_, _, _, _| {})?;
    let clock = signals.clock(options.clock.as_deref(), &file)?;
    let (tracks, rises) = (&signals.tracks, &clock.rises);
    let name_of = |t: u32| signals.name(t);
    let edge_of = |time: u64| clock.edge_of(time);

    // Each (field, place) a place voted for, best first; each field and place taken once.
    struct Pair {
        field: (u8, u8, bool),
        place: Place,
        votes: u32,
        score: f64,
        others: u32,
        net: bool,
        time: u128,
    }
    let mut pairs: Vec<Pair> = Vec::new();
    for (place, c) in &candidates {
        let track = &tracks[place.signal as usize];
        let changes = track.changes.max(1) as f64;
        let total: u32 = c.votes.values().sum();
        for (&key, &votes) in &c.votes {
            let (role, part, word) = key;
            let digest = role == Role::Digest;
            if role == Role::State {
                continue;
            }
            let time: u128 = c
                .hits
                .iter()
                .filter(|(_, t)| t.key == key)
                .map(|(time, _)| u128::from(*time))
                .sum();
            let need = table.table.expected.get(&key).copied().unwrap_or(0);
            // A state word: most of its round states; a digest word: the word itself.
            if !digest && votes * 2 <= need {
                continue;
            }
            let precision = (f64::from(total) / changes).min(1.0);
            pairs.push(Pair {
                field: (part, word, digest),
                place: *place,
                votes,
                score: f64::from(votes) * if digest { 1.0 } else { precision },
                others: total - votes,
                net: track.net,
                time: time / u128::from(votes.max(1)),
            });
        }
    }
    pairs.sort_by(|a, b| {
        // The state first: a register of C also holds the digest words. Then the most round
        // states (digest words: the fewest other golden values), a register, the latest
        // (the register rather than the next-state net that feeds it), the most precise.
        a.field
            .2
            .cmp(&b.field.2)
            .then(b.votes.cmp(&a.votes))
            .then(if a.field.2 {
                a.others.cmp(&b.others)
            } else {
                std::cmp::Ordering::Equal
            })
            .then(a.net.cmp(&b.net))
            .then(b.time.cmp(&a.time))
            .then(b.score.total_cmp(&a.score))
            .then(a.place.cmp(&b.place))
            .then(a.field.cmp(&b.field))
    });
    let mut best: BTreeMap<(u8, u8, bool), (Place, u32)> = BTreeMap::new();
    let mut used: HashSet<Place> = HashSet::new();
    for p in pairs {
        if best.contains_key(&p.field) || used.contains(&p.place) {
            continue;
        }
        used.insert(p.place);
        best.insert(p.field, (p.place, p.votes));
    }

    let probe_text = |place: &Place| -> String {
        let name = name_of(place.signal);
        format!("{name}[{}:{}]", place.offset + 31, place.offset)
    };
    let mut d = Discovery {
        edges: rises.len() as u64,
        golden_cycles: table.cycles,
        ..Discovery::default()
    };
    let mut full: BTreeMap<String, String> = BTreeMap::new();
    for (&(part, word, digest), (place, votes)) in &best {
        let (field, key) = if digest {
            (names::out_data(word as usize), (Role::Digest, 0, word))
        } else {
            let p = [Part::A, Part::B, Part::C][part as usize];
            (format!("{}_{word}", p.prefix()), (Role::Round, part, word))
        };
        if place.swapped {
            d.byteswap.insert(field.clone());
        }
        let expected = table.table.expected.get(&key).copied().unwrap_or(0);
        d.found.push(Found {
            field: field.clone(),
            probe: probe_text(place),
            matched: (*votes).min(expected),
            expected,
        });
        full.insert(field, probe_text(place));
    }
    if !d.byteswap.is_empty() {
        let fields: Vec<&str> = d.byteswap.iter().map(String::as_str).collect();
        d.notes.push(format!(
            "{} word(s) found byte-swapped (written with \"byteswap\": true): {}",
            fields.len(),
            fields.join(", ")
        ));
    }
    d.found.sort_by_key(|f| {
        let (stem, w) = f.field.rsplit_once('_').unwrap_or((&f.field, "0"));
        (
            stem.starts_with("out"),
            stem.to_string(),
            w.parse::<usize>().unwrap_or(0),
        )
    });
    // The digest's valid bit.
    let digest_edges: BTreeSet<u64> = best
        .iter()
        .filter(|(k, _)| k.2)
        .flat_map(|(_, (p, _))| {
            candidates[p]
                .hits
                .iter()
                .filter(|(_, t)| t.key.0 == Role::Digest)
                .map(|(time, _)| edge_of(*time))
        })
        .collect();
    if !digest_edges.is_empty() {
        d.mark_digest(
            &mut full,
            signals.valid_bit(&clock, &digest_edges).map(name_of),
        );
    }

    // Cycle alignment fits when the state shows up at golden cycle + a constant.
    d.reset_cycles = reset_cycles(best.iter().filter(|(k, _)| !k.2).flat_map(
        |(&(part, word, _), (place, _))| {
            candidates[place]
                .hits
                .iter()
                .filter(move |(_, tag)| tag.key == (Role::State, part, word))
                .map(|(time, tag)| edge_of(*time) as i64 - i64::from(tag.record))
        },
    ));

    let state_fields: Vec<&str> = full
        .keys()
        .filter(|f| Part::field(f).is_some())
        .map(String::as_str)
        .collect();
    if !state_fields.is_empty() {
        let parts: Vec<&str> = Part::ALL
            .iter()
            .filter(|p| {
                state_fields
                    .iter()
                    .any(|f| f.starts_with(&format!("{}_", p.prefix())))
            })
            .map(|p| p.prefix())
            .collect();
        d.kinds.push(if d.reset_cycles.is_some() {
            format!(
                "state {} (each cycle of the golden schedule)",
                parts.join(", ")
            )
        } else {
            format!("state {} after each round", parts.join(", "))
        });
    }
    if full.contains_key(names::OUT_VALID) {
        d.kinds.push("digest".into());
    }
    for p in Part::ALL {
        d.missing.extend(
            (0..p.words())
                .map(|w| format!("{}_{w}", p.prefix()))
                .filter(|f| !full.contains_key(f)),
        );
    }
    d.missing.extend(
        (0..table.out_words)
            .map(names::out_data)
            .filter(|f| !full.contains_key(f)),
    );
    if !d.missing.is_empty() && d.missing.len() < 4 {
        d.notes.push(
            "fields not found are left out of the map: diff it with --partial, or find them by \
             hand"
                .into(),
        );
    }
    if full.is_empty() {
        return Err(DiffError::Invalid(format!(
            "{file}: no signal holds any A, B, C or digest word of the golden Shabal run ({} \
             golden cycles, {} rising edges of {}): is it the same message and schedule?",
            table.cycles,
            rises.len(),
            name_of(clock.track)
        )));
    }

    write_scoped(&mut d, &signals, &clock, &full, |f| {
        Part::field(f).is_some()
    });
    Ok(d)
}
