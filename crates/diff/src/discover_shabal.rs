//! `skeinhw map` for Shabal: which RTL signal (or 32-bit slice of a wider vector) holds each
//! word of A, B and C and each digest word, found by searching the waveform for the golden
//! run's values, as [`crate::discover`] does for Skein's 64-bit words.
//!
//! The golden words are each cycle's A, B and C (the golden schedule's registers), the state
//! after each round (the events [`crate::shabal_event`] compares, whatever the design's
//! unfolding) and the digest words. Every value change of every signal of 32 bits or more is
//! cut into 32-bit slices and looked up in both byte orders (a core unaware of Shabal's
//! little-endian words holds them byte-swapped; such a field is written with
//! `"byteswap": true`). Each field then gets the slice that took the most of
//! its round states (a register, and the one that takes them last: not the next-state net
//! that feeds it); each digest word the slice that took it
//! with the fewest other golden values (an output register, not C), and `out_valid` the 1-bit
//! signal high at those edges and at as few others as possible. When the state appears at
//! golden cycle + a constant, that constant is `reset_cycles` (cycle alignment fits).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use skeinhw_sched::shabal::sim::{ShabalCycleRecord, ShabalTraceHeader};
use skeinhw_shabal::constants::ITERATIONS;
use skeinhw_trace::names;

use crate::discover::{
    DiscoverOptions, Discovery, Found, Track, common_scope, find_clock, high_edges, relative, rises,
};
use crate::error::DiffError;
use crate::shabal_event::Part;

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

#[derive(Clone, Copy, Debug)]
struct Tag {
    key: Key,
    record: u32,
}

/// Small values (counters, flags) are left out: any register could hold them.
fn distinctive(v: u32) -> bool {
    (v >> 12) != 0 && (!v >> 12) != 0
}

struct Table {
    /// Value -> range of `tags` (one allocation for all, not one per value).
    index: HashMap<u32, (u32, u32)>,
    tags: Vec<Tag>,
    /// Distinct values of each key.
    expected: BTreeMap<Key, u32>,
    out_words: usize,
    cycles: u64,
}

impl Table {
    fn build<E: std::fmt::Display>(
        header: &ShabalTraceHeader,
        golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    ) -> Result<Table, DiffError> {
        let out_words = header.output_words();
        let mut raw: Vec<(u32, Tag)> = Vec::new();
        let mut cycles = 0u64;
        for (i, r) in golden.enumerate() {
            let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            cycles += 1;
            let record = u32::try_from(i).unwrap_or(u32::MAX);
            let mut push = |role: Role, part: usize, word: usize, v: u32| {
                if distinctive(v) {
                    raw.push((
                        v,
                        Tag {
                            key: (role, part as u8, word as u8),
                            record,
                        },
                    ));
                }
            };
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
        }
        // One tag per (value, key): the first record that holds it.
        raw.sort_unstable_by_key(|(v, t)| (*v, t.key, t.record));
        raw.dedup_by(|b, a| a.0 == b.0 && a.1.key == b.1.key);
        let mut index: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut expected: BTreeMap<Key, u32> = BTreeMap::new();
        let mut tags = Vec::with_capacity(raw.len());
        for (v, t) in raw {
            *expected.entry(t.key).or_default() += 1;
            let at = tags.len() as u32;
            index.entry(v).or_insert((at, at)).1 = at + 1;
            tags.push(t);
        }
        Ok(Table {
            index,
            tags,
            expected,
            out_words,
            cycles,
        })
    }
}

/// A 32-bit slice of a signal, read in the trace's byte order or byte-swapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Place {
    signal: u32,
    offset: u32,
    swapped: bool,
}

#[derive(Default)]
struct Candidate {
    last: Option<u32>,
    /// (value, key) pairs taken, so repeats count once.
    taken: HashSet<(u32, Key)>,
    votes: HashMap<Key, u32>,
    /// (time, tag) of each first take, up to `KEPT_HITS`.
    hits: Vec<(u64, Tag)>,
}

const KEPT_HITS: usize = 1 << 14;
const SAMPLE_FIRST: u64 = 512;
const SAMPLE_EVERY: u64 = 64;

fn slice32(words: &[u64], offset: u32) -> u32 {
    let (i, b) = ((offset / 64) as usize, offset % 64);
    let lo = words.get(i).copied().unwrap_or(0) >> b;
    let v = if b <= 32 {
        lo
    } else {
        lo | (words.get(i + 1).copied().unwrap_or(0) << (64 - b))
    };
    v as u32
}

/// Searches `wave` for the golden Shabal run's words (see the module documentation).
pub fn discover_shabal<E: std::fmt::Display>(
    header: &ShabalTraceHeader,
    golden: impl Iterator<Item = Result<ShabalCycleRecord, E>>,
    wave: &Path,
    options: &DiscoverOptions,
) -> Result<Discovery, DiffError> {
    let table = Table::build(header, golden)?;
    let file = wave.display().to_string();
    if !wave.exists() {
        return Err(DiffError::Io {
            file,
            message: "no such file".into(),
        });
    }
    // Our own reader for a VCD (wellen for an FST or a header it leaves alone).
    let scan = crate::wave::Scan::open(wave, &file)?;
    // Every name of every signal (a port and the net it drives share one signal).
    let mut aliases: HashMap<usize, Vec<String>> = HashMap::new();
    let mut refs = Vec::new();
    let mut tracks: Vec<Track> = Vec::new();
    let mut track_of: HashMap<usize, u32> = HashMap::new();
    for var in scan.vars() {
        let width = var.width;
        // A function's or task's variables (Icarus dumps them) are scratch copies, not places.
        if (width != 1 && width < 32) || var.in_function {
            continue;
        }
        let net = var.net;
        let full = var.name.clone();
        let name = match options.strip_prefix.as_deref() {
            Some(p) => full.strip_prefix(p).unwrap_or(&full).to_string(),
            None => full,
        };
        let r = var.key;
        aliases.entry(r.index()).or_default().push(name);
        let t = *track_of.entry(r.index()).or_insert_with(|| {
            refs.push(r);
            tracks.push(Track {
                width,
                net: true,
                ..Track::default()
            });
            (tracks.len() - 1) as u32
        });
        tracks[t as usize].net &= net;
    }
    for names in aliases.values_mut() {
        names.sort_by_key(|n| (n.matches('.').count(), n.clone()));
    }
    let mut candidates: HashMap<Place, Candidate> = HashMap::new();
    let mut offsets: Vec<u32> = Vec::new();
    scan.stream(&file, &refs, |time, signal, value| {
        let Some(&t) = track_of.get(&signal.index()) else {
            return Ok::<(), DiffError>(());
        };
        let track = &mut tracks[t as usize];
        track.changes += 1;
        let known = value.is_some();
        let words = value.unwrap_or(&[]);
        if track.width == 1 {
            if known {
                let bit = words[0] & 1 == 1;
                if track.bits.last().map(|b| b.1) != Some(bit) {
                    track.bits.push((time, bit));
                }
            }
            return Ok(());
        }
        if !known {
            return Ok(());
        }
        let last = track.width - 32;
        offsets.clear();
        if track.changes <= SAMPLE_FIRST || track.changes.is_multiple_of(SAMPLE_EVERY) {
            offsets.extend(0..=last);
        } else {
            offsets.extend((0..=last).step_by(32));
            if !last.is_multiple_of(32) {
                offsets.push(last);
            }
            offsets.extend(track.odd_offsets.iter().copied());
        }
        for (&offset, swapped) in offsets.iter().flat_map(|o| [(o, false), (o, true)]) {
            let raw = slice32(words, offset);
            let v = if swapped { raw.swap_bytes() } else { raw };
            let Some(&(from, to)) = table.index.get(&v) else {
                continue;
            };
            let tags = &table.tags[from as usize..to as usize];
            if !offset.is_multiple_of(32) && offset != last && !track.odd_offsets.contains(&offset)
            {
                track.odd_offsets.push(offset);
            }
            let c = candidates
                .entry(Place {
                    signal: t,
                    offset,
                    swapped,
                })
                .or_default();
            if c.last == Some(v) {
                continue;
            }
            c.last = Some(v);
            for tag in tags {
                if !c.taken.insert((v, tag.key)) {
                    continue;
                }
                *c.votes.entry(tag.key).or_default() += 1;
                if c.hits.len() < KEPT_HITS {
                    c.hits.push((time, *tag));
                }
            }
        }
        Ok(())
    })?;
    let name_of = |t: u32| -> &str { &aliases[&refs[t as usize].index()][0] };

    let clock = find_clock(&tracks, &aliases, &refs, options.clock.as_deref(), &file)?;
    let rises: Vec<u64> = rises(&tracks[clock as usize].bits).collect();
    let edge_of = |time: u64| rises.partition_point(|&r| r < time) as u64;

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
            let need = table.expected.get(&key).copied().unwrap_or(0);
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
        let expected = table.expected.get(&key).copied().unwrap_or(0);
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
        let valid = (0..tracks.len() as u32)
            .filter(|&t| t != clock && tracks[t as usize].width == 1)
            .filter_map(|t| {
                let high = high_edges(&tracks[t as usize].bits, &rises);
                digest_edges
                    .iter()
                    .all(|e| high.binary_search(e).is_ok())
                    .then_some((high.len(), t))
            })
            .min()
            .map(|(_, t)| t);
        match valid {
            Some(v) => {
                full.insert(names::OUT_VALID.to_string(), name_of(v).to_string());
            }
            None => {
                full.retain(|f, _| !f.starts_with("out_data_"));
                d.found.retain(|f| !f.field.starts_with("out_data_"));
                d.notes.push(
                    "a register holds the digest words, but no 1-bit signal marks when: not mapped"
                        .into(),
                );
            }
        }
    }

    // Cycle alignment fits when the state shows up at golden cycle + a constant.
    let mut shifts: HashMap<i64, u32> = HashMap::new();
    let mut total = 0u32;
    for (&(part, word, digest), (place, _)) in &best {
        if digest {
            continue;
        }
        for (time, tag) in &candidates[place].hits {
            if tag.key == (Role::State, part, word) {
                *shifts
                    .entry(edge_of(*time) as i64 - i64::from(tag.record))
                    .or_default() += 1;
                total += 1;
            }
        }
    }
    if let Some((&shift, &n)) = shifts
        .iter()
        .max_by_key(|(s, n)| (**n, std::cmp::Reverse(**s)))
        && shift >= 0
        && u64::from(n) * 10 >= u64::from(total) * 9
    {
        d.reset_cycles = Some(shift as u64);
    }

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
            name_of(clock)
        )));
    }

    // The scope: where the state lives (else every field), widened to hold the clock and the
    // digest too; each signal by its name inside it.
    let signal_of = |probe: &str| probe.split('[').next().unwrap_or(probe).to_string();
    let state: Vec<String> = full
        .iter()
        .filter(|(f, _)| Part::field(f).is_some())
        .map(|(_, p)| signal_of(p))
        .collect();
    let signals: Vec<String> = if state.is_empty() {
        full.values().map(|p| signal_of(p)).collect()
    } else {
        state
    };
    let mut scope = common_scope(signals.iter().map(String::as_str));
    let track_by_name: HashMap<&str, u32> =
        (0..tracks.len() as u32).map(|t| (name_of(t), t)).collect();
    let in_scope = |scope: &str, name: &str| -> String {
        let inside = |n: &&String| scope.is_empty() || n.starts_with(&format!("{scope}."));
        track_by_name
            .get(name)
            .and_then(|&t| aliases[&refs[t as usize].index()].iter().find(inside))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    };
    let rename = |scope: &str, probe: &str| -> String {
        let name = signal_of(probe);
        format!("{}{}", in_scope(scope, &name), &probe[name.len()..])
    };
    let mut all: Vec<String> = full.values().map(|p| rename(&scope, p)).collect();
    all.push(in_scope(&scope, name_of(clock)));
    let outside = |n: &String| !scope.is_empty() && !n.starts_with(&format!("{scope}."));
    if all.iter().any(outside) {
        let names: Vec<String> = all.iter().map(|p| signal_of(p)).collect();
        scope = common_scope(names.iter().map(|n| n.as_str()));
    }
    d.clock = in_scope(&scope, name_of(clock));
    d.fields = full
        .iter()
        .map(|(k, v)| (k.clone(), relative(&scope, &rename(&scope, v))))
        .collect();
    d.scope = scope;
    Ok(d)
}
