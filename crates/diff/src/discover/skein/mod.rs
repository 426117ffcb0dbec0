//! `skeinhw map` for Skein: the golden run reduced to 64-bit words tagged with what they are
//! (state word w of slot s at golden cycle c, key word, tweak word, digest word, or an
//! architectural event the library computes: the state before or after subkey injection, the
//! feed-forward), searched for in the waveform (see [`super::search`]). Each map field then
//! gets the slice with the best votes (the field naming is in [`fields`]), and the edges at
//! which the state was seen give `reset_cycles` when the RTL runs the golden schedule cycle
//! for cycle.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use skeinhw_sched::sim::{OwnedCycleRecord, TraceHeader};
use skeinhw_skein::threefish::{KeySchedule, decrypt, inject_subkey, round};

use super::search::{Candidates, Place, Table, search};
use super::signals::{Clock, Signals};
use super::timing::Blocks;
use super::{DiscoverOptions, Discovery};
use crate::error::DiffError;

mod fields;

/// What a golden word is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// A slot's state register in the golden schedule (`slot<s>_state_<w>`).
    State,
    /// The state after a subkey injection (any schedule).
    AfterSubkey,
    /// A digest word leaving the design (`out_data_<w>`).
    Digest,
    /// A slot's key register (`slot<s>_key_<w>`, w = 0..=Nw with the parity word).
    Key,
    /// A slot's tweak register (`slot<s>_tweak_<t>`, t = 0..3).
    Tweak,
    /// The chaining value after the feed-forward.
    FeedForward,
    /// The state before a subkey injection (after round 4s-1), the register most designs
    /// keep: the injected state exists only on a combinational net.
    BeforeSubkey,
}

/// What a golden word is: role, golden slot (0 for the computed events), word index.
type FieldKey = (Role, u8, u8);

/// The word index of the serial digest's pseudo-field `(Digest, 0, SERIAL)`.
const SERIAL: u8 = u8::MAX;

/// The golden words, indexed by value.
struct SkeinTable {
    table: Table<u64, FieldKey>,
    words: usize,
    cycles: u64,
    /// Per slot, the values its tweak word 0 (the position, small numbers that are no
    /// fingerprint alone) changes to, in order, zeros left out: a slice that takes them in
    /// this order, and no other of them, holds it.
    positions: Vec<Vec<u64>>,
    /// The golden blocks, by record (to say why cycle alignment does not fit).
    blocks: Blocks,
}

/// Values with long runs of zero or one bits (counters, flags, the zero key of the Config
/// block, tweak positions) are left out: any register could hold them.
fn distinctive(v: u64) -> bool {
    (v >> 24) != 0 && (!v >> 24) != 0
}

/// The architectural events of one block (the state before and after each subkey injection
/// and the feed-forward), from its key, tweak and output, through the library's Threefish.
fn block_events<const N: usize>(
    key: &[u64],
    tweak: [u64; 2],
    out: &[u64],
    push: &mut impl FnMut(Role, usize, u64),
) {
    let key: [u64; N] = key[..N].try_into().expect("N key words");
    let cipher: [u64; N] = out[..N].try_into().expect("N state words");
    let plain = decrypt(&key, tweak, &cipher);
    let ks = KeySchedule::new(&key, tweak);
    let rounds = skeinhw_skein::constants::rounds(N);
    let mut state = plain;
    for d in 0..=rounds {
        if d % 4 == 0 {
            for (w, v) in state.iter().enumerate() {
                push(Role::BeforeSubkey, w, *v);
            }
            inject_subkey(&mut state, &ks, d / 4);
            for (w, v) in state.iter().enumerate() {
                push(Role::AfterSubkey, w, *v);
            }
        }
        if d < rounds {
            round(&mut state, d);
        }
    }
    for w in 0..N {
        push(Role::FeedForward, w, state[w] ^ plain[w]);
    }
}

impl SkeinTable {
    fn build<E: std::fmt::Display>(
        header: &TraceHeader,
        golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
    ) -> Result<SkeinTable, DiffError> {
        let nw = header.words;
        let rounds = header.schedule.rounds();
        let subkeys = header.schedule.subkeys();
        let mut previous: Vec<Vec<u64>> = Vec::new();
        let mut seen_blocks = std::collections::HashSet::new();
        let mut positions = Vec::new();
        let mut blocks = Blocks::default();
        let mut record = 0u32;
        let (table, cycles) = Table::from_records(golden, distinctive, |r, add| {
            if let Some(slot) = r.slots.first().filter(|s| s.valid) {
                blocks.see(record, slot.stream, slot.phase.as_str(), slot.block);
            }
            record = record.saturating_add(1);
            let mut push =
                |role, slot: usize, word: usize, v| add((role, slot as u8, word as u8), v);
            previous.resize(r.slots.len(), Vec::new());
            for (s, slot) in r.slots.iter().enumerate() {
                if !slot.valid {
                    continue;
                }
                // Only changes are kept: a key is held for a whole block.
                let now: Vec<u64> = slot.state[..nw]
                    .iter()
                    .chain(&slot.key[..=nw])
                    .chain(&slot.tweak)
                    .copied()
                    .collect();
                for (j, v) in now.iter().enumerate() {
                    if previous[s].get(j) == Some(v) {
                        continue;
                    }
                    if j == 2 * nw + 1 && *v != 0 {
                        positions.resize(positions.len().max(s + 1), Vec::new());
                        if positions[s].last() != Some(v) {
                            positions[s].push(*v);
                        }
                    }
                    let (role, word) = if j < nw {
                        (Role::State, j)
                    } else if j <= 2 * nw {
                        (Role::Key, j - nw)
                    } else {
                        (Role::Tweak, j - 2 * nw - 1)
                    };
                    push(role, s, word, *v);
                }
                previous[s] = now;
                if slot.round == rounds
                    && slot.subkey == subkeys
                    && seen_blocks.insert((slot.stream, slot.block))
                {
                    let tweak = [slot.tweak[0], slot.tweak[1]];
                    let mut ev = |role, w, v| push(role, 0, w, v);
                    match nw {
                        4 => block_events::<4>(&slot.key, tweak, &slot.state, &mut ev),
                        8 => block_events::<8>(&slot.key, tweak, &slot.state, &mut ev),
                        _ => block_events::<16>(&slot.key, tweak, &slot.state, &mut ev),
                    }
                }
            }
            if let Some(o) = r.out {
                for (w, v) in o.data[..nw].iter().enumerate() {
                    push(Role::Digest, 0, w, *v);
                }
            }
        })?;
        Ok(SkeinTable {
            table,
            words: nw,
            cycles,
            positions,
            blocks,
        })
    }
}

/// What the search found, for naming the fields.
struct Search {
    table: SkeinTable,
    signals: Signals,
    clock: Clock,
    candidates: Candidates<u64, FieldKey>,
    /// Per slot and slice: when it took each tweak position so far, or `None` once it took
    /// one out of order.
    position_seen: HashMap<(usize, Place), Option<Vec<u64>>>,
    file: String,
    /// The waveform, read again for the `when` qualifiers.
    wave: std::path::PathBuf,
}

/// Searches `wave` for the golden words of `golden` (see the module documentation).
pub fn discover<E: std::fmt::Display>(
    header: &TraceHeader,
    golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
    wave: &Path,
    options: &DiscoverOptions,
) -> Result<Discovery, DiffError> {
    let table = SkeinTable::build(header, golden)?;
    let (file, scan, mut signals) =
        Signals::open(wave, 64, options.strip_prefix.as_deref(), &options.progress)?;
    // The tweak's position word: its values in order, and how far each slice followed them.
    let position_of: HashSet<u64> = table.positions.iter().flatten().copied().collect();
    let mut position_seen: HashMap<(usize, Place), Option<Vec<u64>>> = HashMap::new();
    let candidates = search(
        &mut signals,
        scan,
        &file,
        &table.table,
        |t, offset, time, v| {
            if !position_of.contains(&v) {
                return;
            }
            let place = Place {
                signal: t,
                offset,
                swapped: false,
            };
            for (slot, positions) in table.positions.iter().enumerate() {
                let seen = position_seen
                    .entry((slot, place))
                    .or_insert(Some(Vec::new()));
                let n = seen.as_ref().map_or(0, Vec::len);
                if n < positions.len() && positions[n] == v {
                    if let Some(times) = seen.as_mut() {
                        times.push(time);
                    }
                } else if n == 0 || positions[n - 1] != v {
                    // Another position than the next: not the position word.
                    *seen = None;
                }
            }
        },
    )?;
    let clock = signals.clock(options.clock.as_deref(), &file)?;
    let s = Search {
        table,
        signals,
        clock,
        candidates,
        position_seen,
        file,
        wave: wave.to_path_buf(),
    };
    let best = best_places(&s);
    s.write(best)
}

/// Every (field, place) pair a place voted for, best first; each field and each place is then
/// taken once. The score weighs the votes by the share of the place's changes that were golden
/// values (a state register that once holds the digest loses the digest to the output
/// register). Ties go to whole 64-bit signals, then to the place that shows the values latest
/// (the register rather than the next-state net that feeds it). Per field: (score, place,
/// votes).
fn best_places(s: &Search) -> BTreeMap<FieldKey, (f64, Place, u32)> {
    let (candidates, tracks) = (&s.candidates, &s.signals.tracks);
    let edge_of = |time: u64| s.clock.edge_of(time);
    struct Pair {
        key: FieldKey,
        place: Place,
        votes: u32,
        score: f64,
        /// How far the mean (edge - golden record) of its hits is from the design's.
        lateness: f64,
        time: u128,
    }
    // The design's shift: the most common (edge - golden record) of the state's hits.
    let mut shifts: HashMap<i64, u64> = HashMap::new();
    for c in candidates.values() {
        for (time, tag) in c.hits.iter().filter(|(_, t)| t.key.0 == Role::State) {
            *shifts
                .entry(edge_of(*time) as i64 - i64::from(tag.record))
                .or_default() += 1;
        }
    }
    let shift = shifts
        .iter()
        .max_by_key(|(s, n)| (**n, std::cmp::Reverse(**s)))
        .map_or(0, |(s, _)| *s);
    let mut pairs: Vec<Pair> = Vec::new();
    for (place, c) in candidates {
        let track = &tracks[place.signal as usize];
        // Per field: the sum of (edge - golden record), the hits, the sum of their times.
        let mut timing: HashMap<FieldKey, (i64, i64, u128)> = HashMap::new();
        for (time, t) in &c.hits {
            let e = timing.entry(t.key).or_default();
            e.0 += edge_of(*time) as i64 - i64::from(t.record);
            e.1 += 1;
            e.2 += u128::from(*time);
        }
        let changes = track.changes.max(1);
        // A port that carries several digest words one after the other: a serial digest.
        let serial_votes: Vec<u32> = c
            .votes
            .iter()
            .filter(|(k, _)| k.0 == Role::Digest)
            .map(|(_, v)| *v)
            .collect();
        let serial = (serial_votes.len() >= 2)
            .then(|| ((Role::Digest, 0, SERIAL), serial_votes.iter().sum::<u32>()));
        for (key, votes) in c.votes.iter().map(|(k, v)| (*k, *v)).chain(serial) {
            if matches!(key.0, Role::FeedForward) {
                continue;
            }
            let precision = f64::from(votes) / changes as f64;
            if votes < 2 && precision < 0.2 {
                continue;
            }
            // A serial port may carry its words byte-swapped (issue 33): there the swapped
            // place competes with the register that feeds it on equal terms, and the port (a
            // whole 64-bit signal, later) wins the tie.
            let swap_penalty = if place.swapped && key.2 != SERIAL {
                0.5
            } else {
                1.0
            };
            let penalty = swap_penalty * if track.net { 0.5 } else { 1.0 };
            let (sum, n, time) = timing.get(&key).copied().unwrap_or_default();
            let lateness = (sum as f64 / n.max(1) as f64 - shift as f64).abs();
            pairs.push(Pair {
                time,
                key,
                place: *place,
                votes,
                score: f64::from(votes) * precision.min(1.0) * penalty,
                lateness,
            });
        }
    }
    // With the golden schedule's own state found, the computed after-injection events only
    // repeat it: they must not take places from the key or the tweak.
    if pairs.iter().any(|p| p.key.0 == Role::State) {
        pairs.retain(|p| p.key.0 != Role::AfterSubkey);
    }
    let whole = |p: &Place| tracks[p.signal as usize].width == 64;
    pairs.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(whole(&b.place).cmp(&whole(&a.place)))
            .then(a.lateness.total_cmp(&b.lateness))
            .then(b.time.cmp(&a.time))
            .then((a.place.swapped, a.place.offset).cmp(&(b.place.swapped, b.place.offset)))
            .then(a.place.cmp(&b.place))
            .then(a.key.cmp(&b.key))
    });
    let mut best: BTreeMap<FieldKey, (f64, Place, u32)> = BTreeMap::new();
    let mut used: std::collections::HashSet<Place> = Default::default();
    for p in pairs {
        if best.contains_key(&p.key) || used.contains(&p.place) {
            continue;
        }
        used.insert(p.place);
        best.insert(p.key, (p.score, p.place, p.votes));
    }
    best
}
