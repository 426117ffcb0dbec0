//! Finding the signal map by itself: which RTL signal (or 64-bit slice of a wider vector)
//! holds each state, key, tweak and digest word, found by searching the waveform for the
//! golden model's values.
//!
//! The golden run is reduced to a table of 64-bit words, each tagged with what it is (state
//! word w of slot s at golden cycle c, key word, tweak word, digest word, or an architectural
//! event the library computes: the state before or after subkey injection, the feed-forward).
//! The waveform is then read once: every value change of every signal of 64 bits or more is
//! cut into 64-bit slices (at every bit offset, both byte orders) and each slice looked up in
//! the table. A slice that takes golden values votes for the tags it hit; afterwards each map
//! field gets the slice with the best votes, the clock is the 1-bit signal with the most
//! regular rising edges, and the edges at which the state was seen give `reset_cycles` when
//! the RTL runs the golden schedule cycle for cycle.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

use skeinhw_sched::sim::{OwnedCycleRecord, TraceHeader};
use skeinhw_skein::threefish::{KeySchedule, decrypt, inject_subkey, round};
use skeinhw_trace::names;

use crate::error::DiffError;

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

/// A golden word's meaning: role, golden slot (0 for the computed events), word index, and
/// the first golden record (cycle index from 0) that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tag {
    role: Role,
    slot: u8,
    word: u8,
    record: u32,
}

type FieldKey = (Role, u8, u8);

/// The word index of the serial digest's pseudo-field `(Digest, 0, SERIAL)`.
const SERIAL: u8 = u8::MAX;

impl Tag {
    fn key(&self) -> FieldKey {
        (self.role, self.slot, self.word)
    }
}

/// A fast hasher for 64-bit words that are already random (golden values): one multiply.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type WordMap<V> = HashMap<u64, V, BuildHasherDefault<WordHasher>>;

/// Values with long runs of zero or one bits (counters, flags, the zero key of the Config
/// block, tweak positions) are left out: any register could hold them.
fn distinctive(v: u64) -> bool {
    (v >> 24) != 0 && (!v >> 24) != 0
}

/// The golden words, indexed by value.
struct Table {
    /// Value -> range of `tags`.
    index: WordMap<(u32, u32)>,
    tags: Vec<Tag>,
    /// Distinct values of each field.
    expected: BTreeMap<FieldKey, u32>,
    words: usize,
    cycles: u64,
    /// Per slot, the values its tweak word 0 (the position, small numbers that are no
    /// fingerprint alone) changes to, in order, zeros left out: a slice that takes them in
    /// this order, and no other of them, holds it.
    positions: Vec<Vec<u64>>,
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

impl Table {
    fn build<E: std::fmt::Display>(
        header: &TraceHeader,
        golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
    ) -> Result<Table, DiffError> {
        let nw = header.words;
        let rounds = header.schedule.rounds();
        let subkeys = header.schedule.subkeys();
        let mut raw: Vec<(u64, Tag)> = Vec::new();
        let mut previous: Vec<Vec<u64>> = Vec::new();
        let mut seen_blocks = std::collections::HashSet::new();
        let mut cycles = 0u64;
        let mut positions = Vec::new();
        for (i, r) in golden.enumerate() {
            let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            cycles += 1;
            let record = u32::try_from(i).unwrap_or(u32::MAX);
            let mut push = |role: Role, slot: usize, word: usize, v: u64| {
                if distinctive(v) {
                    raw.push((
                        v,
                        Tag {
                            role,
                            slot: slot as u8,
                            word: word as u8,
                            record,
                        },
                    ));
                }
            };
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
        }
        // One tag per (value, field): the first record that holds it.
        raw.sort_unstable_by_key(|(v, t)| (*v, t.key(), t.record));
        raw.dedup_by(|b, a| a.0 == b.0 && a.1.key() == b.1.key());
        let mut index: WordMap<(u32, u32)> = WordMap::default();
        let mut expected: BTreeMap<FieldKey, u32> = BTreeMap::new();
        let mut tags = Vec::with_capacity(raw.len());
        for (v, t) in raw {
            let at = tags.len() as u32;
            index.entry(v).or_insert((at, at)).1 = at + 1;
            *expected.entry(t.key()).or_default() += 1;
            tags.push(t);
        }
        Ok(Table {
            index,
            tags,
            expected,
            words: nw,
            cycles,
            positions,
        })
    }

    /// The tags of `v` and the index of the first.
    fn lookup(&self, v: u64) -> Option<(u32, &[Tag])> {
        self.index
            .get(&v)
            .map(|&(a, b)| (a, &self.tags[a as usize..b as usize]))
    }
}

/// A place a word can sit: a signal, the bit offset of a 64-bit slice, and whether its bytes
/// are in the other order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Place {
    signal: u32,
    offset: u32,
    swapped: bool,
}

/// Hits are kept (with their time) up to this many per place; votes count them all.
const KEPT_HITS: usize = 1 << 14;

#[derive(Default)]
struct Candidate {
    /// The last golden value seen here: a wide vector's other words changing does not
    /// count as this slice taking its value again.
    last: u64,
    /// Distinct golden words (tag indices) taken, so glitches and repeats count once.
    taken: std::collections::HashSet<u32, BuildHasherDefault<WordHasher>>,
    votes: HashMap<FieldKey, u32, BuildHasherDefault<WordHasher>>,
    hits: Vec<(u64, Tag)>,
}

/// What one signal did during the run.
#[derive(Default)]
pub(crate) struct Track {
    pub(crate) width: u32,
    pub(crate) changes: u64,
    /// 1-bit signals: (time, value) at each change of a known value.
    pub(crate) bits: Vec<(u64, bool)>,
    /// Every name of it is a net (a wire): a register holding the same value is preferred.
    pub(crate) net: bool,
    /// Bit offsets off the word grid where golden words were seen.
    pub(crate) odd_offsets: Vec<u32>,
}

/// The clock: the 1-bit signal named `clock`, or else the 1-bit signal with the most regular
/// rising edges. `aliases[refs[t]]` are the names of track t.
pub(crate) fn find_clock(
    tracks: &[Track],
    aliases: &HashMap<usize, Vec<String>>,
    refs: &[crate::wave::SignalKey],
    clock: Option<&str>,
    file: &str,
) -> Result<u32, DiffError> {
    match clock {
        Some(c) => (0..tracks.len() as u32)
            .find(|&t| aliases[&refs[t as usize].index()].iter().any(|n| n == c))
            .filter(|&t| tracks[t as usize].width == 1)
            .ok_or_else(|| DiffError::MissingSignal {
                file: file.to_string(),
                signal: c.to_string(),
                hint: "no 1-bit signal of that name".into(),
            }),
        None => (0..tracks.len() as u32)
            .filter(|&t| tracks[t as usize].width == 1)
            .max_by_key(|&t| {
                (
                    regular_rises(&tracks[t as usize].bits),
                    std::cmp::Reverse(t),
                )
            })
            .filter(|&t| regular_rises(&tracks[t as usize].bits) > 1)
            .ok_or_else(|| {
                DiffError::Invalid(format!(
                    "{file}: no 1-bit signal toggles regularly: give the clock with --clock"
                ))
            }),
    }
}

/// Every bit offset of a wide vector is searched in its first changes and then in every
/// `SAMPLE_EVERY`-th; other changes search the 64-bit grid and the offsets found so far.
/// A word stored off the grid shows golden values from the start, so it is found, and a
/// 512-bit net changing every cycle costs 16 lookups per change instead of 900.
const SAMPLE_FIRST: u64 = 512;
const SAMPLE_EVERY: u64 = 64;

/// How to search.
#[derive(Clone, Debug, Default)]
pub struct DiscoverOptions {
    /// The clock's full name (after the prefix is stripped); found when not given.
    pub clock: Option<String>,
    /// A prefix removed from every signal name first (Verilator adds `TOP.`).
    pub strip_prefix: Option<String>,
}

/// One map field found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The map field (`slot0_state_3`, `out_data_0`, ...).
    pub field: String,
    /// The full signal name and slice, e.g. `tb.dut.state[255:192]`.
    pub probe: String,
    /// Golden values it took.
    pub matched: u32,
    /// Distinct golden values of the field.
    pub expected: u32,
}

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// The clock's full name.
    pub clock: String,
    /// The scope every field (and the clock) is written relative to.
    pub scope: String,
    /// Map fields -> probes relative to the scope, as the map file writes them.
    pub fields: BTreeMap<String, String>,
    /// What each field matched, with full names.
    pub found: Vec<Found>,
    /// A serial digest port: (data probe, valid signal), relative to the scope.
    pub digest_serial: Option<(String, String)>,
    /// RTL edges before golden cycle 0 when the state appears cycle for cycle as in the
    /// golden schedule (cycle alignment fits); `None` otherwise (use event alignment).
    pub reset_cycles: Option<u64>,
    /// The event kinds the design was seen to register.
    pub kinds: Vec<String>,
    /// Fields that could not be found.
    pub missing: Vec<String>,
    /// Remarks: byte-swapped words, rotating key rings, ...
    pub notes: Vec<String>,
    /// Fields whose word the RTL holds byte-swapped (written with `"byteswap": true`).
    pub byteswap: BTreeSet<String>,
    /// The key register is a ring rotating one word per subkey (`"key_ring": "rotating"`):
    /// `slot0_key_<p>` is ring position p.
    pub key_ring_rotating: bool,
    /// The tweak register is such a ring (`"tweak_ring": "rotating"`).
    pub tweak_ring_rotating: bool,
    /// Rising clock edges in the waveform.
    pub edges: u64,
    /// Golden cycles simulated.
    pub golden_cycles: u64,
}

impl Discovery {
    /// The map file: today's format (`clock`, `scope`, `fields`) with `reset_cycles` when
    /// cycle alignment fits and `digest_serial` for a serial digest port.
    pub fn to_json(&self) -> String {
        let mut map = serde_json::Map::new();
        map.insert("clock".into(), self.clock_in_scope().into());
        map.insert("scope".into(), self.scope.clone().into());
        if let Some(r) = self.reset_cycles {
            map.insert("reset_cycles".into(), r.into());
        }
        if let Some((data, valid)) = &self.digest_serial {
            map.insert(
                "digest_serial".into(),
                serde_json::json!({ "data": data, "valid": valid }),
            );
        }
        if self.key_ring_rotating {
            map.insert("key_ring".into(), "rotating".into());
        }
        if self.tweak_ring_rotating {
            map.insert("tweak_ring".into(), "rotating".into());
        }
        map.insert(
            "fields".into(),
            serde_json::Value::Object(
                self.fields
                    .iter()
                    .map(|(k, v)| {
                        let entry = if self.byteswap.contains(k) {
                            serde_json::json!({ "signal": v, "byteswap": true })
                        } else {
                            v.clone().into()
                        };
                        (k.clone(), entry)
                    })
                    .collect(),
            ),
        );
        let mut s = serde_json::to_string_pretty(&serde_json::Value::Object(map))
            .expect("strings and numbers only");
        s.push('\n');
        s
    }

    /// The clock's name relative to the scope.
    pub fn clock_in_scope(&self) -> String {
        relative(&self.scope, &self.clock)
    }
}

pub(crate) fn relative(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        return name.to_string();
    }
    name.strip_prefix(scope)
        .and_then(|r| r.strip_prefix('.'))
        .unwrap_or(name)
        .to_string()
}

fn parent(name: &str) -> &str {
    name.rsplit_once('.').map_or("", |(p, _)| p)
}

/// The longest scope that contains every name.
pub(crate) fn common_scope<'a>(mut names: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = names.next() else {
        return String::new();
    };
    let mut scope = parent(first).to_string();
    for n in names {
        while !scope.is_empty() && !n.starts_with(&format!("{scope}.")) {
            scope = parent(&scope).to_string();
        }
    }
    scope
}

/// 64 bits of `words` from bit `offset`.
fn slice64(words: &[u64], offset: u32) -> u64 {
    let (i, b) = ((offset / 64) as usize, offset % 64);
    let lo = words.get(i).copied().unwrap_or(0) >> b;
    if b == 0 {
        lo
    } else {
        lo | (words.get(i + 1).copied().unwrap_or(0) << (64 - b))
    }
}

/// Searches `wave` for the golden words of `golden` (see the module documentation).
pub fn discover<E: std::fmt::Display>(
    header: &TraceHeader,
    golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
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
        if (width != 1 && width < 64) || var.in_function {
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
    let mut candidates: HashMap<Place, Candidate, BuildHasherDefault<WordHasher>> =
        HashMap::default();
    // The tweak's position word: its values in order, and how far each slice followed them.
    let position_of: std::collections::HashSet<u64> =
        table.positions.iter().flatten().copied().collect();
    // Per slot and slice: when it took each position so far, or `None` once it took one out
    // of order.
    let mut position_seen: HashMap<(usize, Place), Option<Vec<u64>>> = HashMap::new();
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
        let all = track.changes <= SAMPLE_FIRST || track.changes.is_multiple_of(SAMPLE_EVERY);
        let last = track.width - 64;
        let grid = (0..=last)
            .step_by(64)
            .chain((!last.is_multiple_of(64)).then_some(last));
        offsets.clear();
        if all {
            offsets.extend(0..=last);
        } else {
            offsets.extend(grid.chain(track.odd_offsets.iter().copied()));
        }
        for &offset in offsets.iter().filter(|o| o.is_multiple_of(64)) {
            let v = slice64(words, offset);
            if position_of.contains(&v) {
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
            }
        }
        for &offset in &offsets {
            let v = slice64(words, offset);
            for (swapped, v) in [(false, v), (true, v.swap_bytes())] {
                if let Some((first, tags)) = table.lookup(v) {
                    let c = candidates
                        .entry(Place {
                            signal: t,
                            offset,
                            swapped,
                        })
                        .or_default();
                    if !offset.is_multiple_of(64)
                        && offset != last
                        && !track.odd_offsets.contains(&offset)
                    {
                        track.odd_offsets.push(offset);
                    }
                    if c.last == v && !c.hits.is_empty() {
                        continue;
                    }
                    c.last = v;
                    for (i, tag) in tags.iter().enumerate() {
                        if !c.taken.insert(first + i as u32) {
                            continue;
                        }
                        *c.votes.entry(tag.key()).or_default() += 1;
                        if c.hits.len() < KEPT_HITS {
                            c.hits.push((time, *tag));
                        }
                    }
                }
            }
        }
        Ok(())
    })?;
    let name_of = |t: u32| -> &str { &aliases[&refs[t as usize].index()][0] };

    let clock = find_clock(&tracks, &aliases, &refs, options.clock.as_deref(), &file)?;
    let rises: Vec<u64> = rises(&tracks[clock as usize].bits).collect();
    let edge_of = |time: u64| rises.partition_point(|&r| r < time) as u64;

    // Every (field, place) pair a place voted for, best first; each field and each place
    // is then taken once. The score weighs the votes by the share of the place's changes
    // that were golden values (a state register that once holds the digest loses the digest
    // to the output register). Ties go to whole 64-bit signals, then to the place that shows
    // the values latest (the register rather than the next-state net that feeds it).
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
        for (time, tag) in c.hits.iter().filter(|(_, t)| t.role == Role::State) {
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
    for (place, c) in &candidates {
        let track = &tracks[place.signal as usize];
        // Per field: the sum of (edge - golden record), the hits, the sum of their times.
        let mut timing: HashMap<FieldKey, (i64, i64, u128)> = HashMap::new();
        for (time, t) in &c.hits {
            let e = timing.entry(t.key()).or_default();
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
            let penalty = if place.swapped { 0.5 } else { 1.0 } * if track.net { 0.5 } else { 1.0 };
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
    let mut serial: Option<Place> = None;
    let mut key_rings: BTreeSet<(u32, bool)> = BTreeSet::new();
    let mut tweak_rings: BTreeSet<(u32, bool)> = BTreeSet::new();
    for (key, (_, place, votes)) in &best {
        let (role, slot, word) = *key;
        let c = &candidates[place];
        let field = match role {
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
                let words: BTreeSet<u8> = c
                    .votes
                    .keys()
                    .filter(|k| k.0 == Role::Tweak)
                    .map(|k| k.2)
                    .collect();
                if words.len() >= 2 {
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
        let expected = table.expected.get(key).copied().unwrap_or(0);
        d.found.push(Found {
            field: field.clone(),
            probe: probe_text(place),
            matched: (*votes).min(expected),
            expected,
        });
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

    // The digest's valid bit: high at every edge a digest word was seen, and at as few
    // others as possible.
    // A digest's valid bit: high at every edge a digest word was seen there, and at as few
    // others as possible.
    let valid_of = |places: &[Place]| -> Option<u32> {
        let edges: BTreeSet<u64> = places
            .iter()
            .flat_map(|p| {
                candidates[p]
                    .hits
                    .iter()
                    .filter(|(_, t)| t.role == Role::Digest)
                    .map(|(time, _)| edge_of(*time))
            })
            .collect();
        if edges.is_empty() {
            return None;
        }
        (0..tracks.len() as u32)
            .filter(|&t| t != clock && tracks[t as usize].width == 1)
            .filter_map(|t| {
                let high = high_edges(&tracks[t as usize].bits, &rises);
                edges
                    .iter()
                    .all(|e| high.binary_search(e).is_ok())
                    .then_some((high.len(), t))
            })
            .min()
            .map(|(_, t)| t)
    };
    let parallel: Vec<Place> = best
        .iter()
        .filter(|(k, _)| k.0 == Role::Digest && k.2 != SERIAL)
        .map(|(_, (_, p, _))| *p)
        .collect();
    if !parallel.is_empty() {
        match valid_of(&parallel) {
            Some(v) => {
                full.insert(names::OUT_VALID.to_string(), name_of(v).to_string());
            }
            None => {
                // Words without a valid bit cannot be compared: left out.
                full.retain(|f, _| !f.starts_with("out_data_"));
                d.found.retain(|f| !f.field.starts_with("out_data_"));
                d.notes.push(
                    "a register holds the digest words, but no 1-bit signal marks when: not mapped"
                        .into(),
                );
            }
        }
    }
    if let Some(serial) = serial.filter(|s| {
        if s.swapped {
            d.notes.push(format!(
                "{}: carries the digest byte-swapped one word at a time (a serial digest \
                 cannot be marked so; not written)",
                probe_text(s)
            ));
        }
        !s.swapped
    }) {
        match valid_of(&[serial]) {
            Some(v) => d.digest_serial = Some((probe_text(&serial), name_of(v).to_string())),
            None => d.notes.push(format!(
                "{}: carries the digest one word at a time, but no valid bit was found",
                probe_text(&serial)
            )),
        }
    }

    // The tweak's position word: the slice that followed every position of the golden run in
    // order (at least two), a register in the scope of the tweak's word 1 if several did
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
            positions.len() >= 2,
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
                        && parent(name_of(p.signal)) == parent(name_of(t1.signal))
                })
                .copied()
                .collect();
            let chosen = match (followed.as_slice(), near.as_slice()) {
                ([one], _) => Some(*one),
                _ => followed
                    .iter()
                    .find(|p| p.signal == t1.signal && p.offset + 64 == t1.offset)
                    .copied()
                    .or(match near.as_slice() {
                        [one] => Some(*one),
                        _ => None,
                    }),
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
    let mut shifts: HashMap<i64, u32> = HashMap::new();
    let mut total = 0u32;
    for (key, (_, place, _)) in best.iter().filter(|(k, _)| k.0 == Role::State) {
        for (time, tag) in &candidates[place].hits {
            if tag.key() == *key {
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
            name_of(clock)
        )));
    }
    // The scope: where the state lives (else every field); each signal then by its name
    // inside the scope when it has one (a port and the net outside share one signal).
    let signal_of = |probe: &str| probe.split('[').next().unwrap_or(probe).to_string();
    let state: Vec<String> = full
        .iter()
        .filter(|(f, _)| f.contains("_state_"))
        .map(|(_, p)| signal_of(p))
        .collect();
    let mut signals: Vec<String> = if state.is_empty() {
        full.values().map(|p| signal_of(p)).collect()
    } else {
        state
    };
    if let (Some((data, _)), true) = (&d.digest_serial, signals.is_empty()) {
        signals.push(signal_of(data));
    }
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
    if let Some((data, valid)) = &d.digest_serial {
        all.push(rename(&scope, data));
        all.push(rename(&scope, valid));
    }
    all.push(in_scope(&scope, name_of(clock)));
    let outside = |n: &String| !scope.is_empty() && !n.starts_with(&format!("{scope}."));
    if all.iter().any(outside) {
        let names: Vec<String> = all.iter().map(|p| signal_of(p)).collect();
        scope = common_scope(names.iter().map(|n| n.as_str()));
    }
    let clock_name = in_scope(&scope, name_of(clock));
    let full: BTreeMap<String, String> = full
        .iter()
        .map(|(k, v)| (k.clone(), rename(&scope, v)))
        .collect();
    if let Some((data, valid)) = &mut d.digest_serial {
        *data = rename(&scope, data);
        *valid = rename(&scope, valid);
    }
    d.notes.dedup();
    d.fields = full
        .into_iter()
        .map(|(k, v)| (k, relative(&scope, &v)))
        .collect();
    if let Some((data, valid)) = &mut d.digest_serial {
        *data = relative(&scope, data);
        *valid = relative(&scope, valid);
    }
    d.clock = clock_name;
    d.scope = scope;
    Ok(d)
}

/// Rising edges: every change to 1 (a clock starting at 1 rises at its first time, as the
/// diff's reader counts it).
/// The places of a rotating ring's positions 0..len in signal `ring`: the slices that took
/// their first word of `role` at the earliest time (the load, when position p holds word p)
/// fix where position 0 sits; the positions follow it 64 bits apart. `None` when they
/// disagree or the ring leaves the signal (a swapped ring is not written either).
fn ring_places<S: std::hash::BuildHasher>(
    candidates: &HashMap<Place, Candidate, S>,
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
                .find(|(_, t)| t.role == role)
                .map(|(time, t)| (*time, t.word, p.offset))
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

pub(crate) fn rises(bits: &[(u64, bool)]) -> impl Iterator<Item = u64> + '_ {
    bits.iter().filter_map(|&(t, b)| b.then_some(t))
}

/// Rising edges at the most common interval: a clock has nearly all of its edges there.
pub(crate) fn regular_rises(bits: &[(u64, bool)]) -> u64 {
    let r: Vec<u64> = rises(bits).collect();
    let mut intervals: HashMap<u64, u64> = HashMap::new();
    for w in r.windows(2) {
        *intervals.entry(w[1] - w[0]).or_default() += 1;
    }
    intervals.values().copied().max().unwrap_or(0)
}

/// The clock edges (indices) at which a 1-bit signal is 1, sampled after the edge.
pub(crate) fn high_edges(bits: &[(u64, bool)], rises: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut j = 0;
    let mut value = false;
    for (e, &t) in rises.iter().enumerate() {
        while j < bits.len() && bits[j].0 <= t {
            value = bits[j].1;
            j += 1;
        }
        if value {
            out.push(e as u64);
        }
    }
    out
}
