//! The search both algorithms share: the golden words indexed by value, and one pass over the
//! waveform that cuts every value change of every wide signal into word slices (at every bit
//! offset, in both byte orders) and lets each slice that takes golden values vote for what
//! they are. Generic over the word (Skein's 64 bits, Shabal's 32).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use super::signals::Signals;
use crate::error::DiffError;
use crate::wave::Scan;

/// A fast hasher for words that are already random (golden values): one multiply.
#[derive(Default)]
pub(crate) struct WordHasher(u64);

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

/// A map keyed by golden words (or what they are), hashed with [`WordHasher`].
pub(crate) type WordMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// An algorithm's word: 64 bits (Skein) or 32 (Shabal).
pub(crate) trait Word: Copy + Eq + Hash {
    /// Bits in a word.
    const BITS: u32;
    /// `BITS` bits of `words` (least significant first) from bit `offset`.
    fn slice(words: &[u64], offset: u32) -> Self;
    /// The word with its bytes in the other order.
    fn swapped(self) -> Self;
}

impl Word for u64 {
    const BITS: u32 = 64;
    fn slice(words: &[u64], offset: u32) -> u64 {
        let (i, b) = ((offset / 64) as usize, offset % 64);
        let lo = words.get(i).copied().unwrap_or(0) >> b;
        if b == 0 {
            lo
        } else {
            lo | (words.get(i + 1).copied().unwrap_or(0) << (64 - b))
        }
    }
    fn swapped(self) -> u64 {
        self.swap_bytes()
    }
}

impl Word for u32 {
    const BITS: u32 = 32;
    fn slice(words: &[u64], offset: u32) -> u32 {
        let (i, b) = ((offset / 64) as usize, offset % 64);
        let lo = words.get(i).copied().unwrap_or(0) >> b;
        let v = if b <= 32 {
            lo
        } else {
            lo | (words.get(i + 1).copied().unwrap_or(0) << (64 - b))
        };
        v as u32
    }
    fn swapped(self) -> u32 {
        self.swap_bytes()
    }
}

/// A golden word's meaning (`key`: what it is, an algorithm's own tuple) and the first golden
/// record (cycle index from 0) that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tag<K> {
    pub(crate) key: K,
    pub(crate) record: u32,
}

/// The golden words, indexed by value.
pub(crate) struct Table<W, K> {
    /// Value -> range of `tags` (one allocation for all, not one per value).
    index: WordMap<W, (u32, u32)>,
    tags: Vec<Tag<K>>,
    /// Distinct values of each key.
    pub(crate) expected: BTreeMap<K, u32>,
}

impl<W: Word + Ord, K: Copy + Ord> Table<W, K> {
    /// The table of `raw` (value, tag) pairs: one tag per (value, key), the first record that
    /// holds it.
    pub(crate) fn new(mut raw: Vec<(W, Tag<K>)>) -> Table<W, K> {
        raw.sort_unstable_by_key(|(v, t)| (*v, t.key, t.record));
        raw.dedup_by(|b, a| a.0 == b.0 && a.1.key == b.1.key);
        let mut index: WordMap<W, (u32, u32)> = WordMap::default();
        let mut expected: BTreeMap<K, u32> = BTreeMap::new();
        let mut tags = Vec::with_capacity(raw.len());
        for (v, t) in raw {
            let at = tags.len() as u32;
            index.entry(v).or_insert((at, at)).1 = at + 1;
            *expected.entry(t.key).or_default() += 1;
            tags.push(t);
        }
        Table {
            index,
            tags,
            expected,
        }
    }

    /// The table of a golden run's records, and the records read: `words(r, add)` adds each
    /// (key, value) record `r` holds; values `distinctive` refuses (small numbers any
    /// register could hold) are left out.
    pub(crate) fn from_records<R, E: std::fmt::Display>(
        golden: impl Iterator<Item = Result<R, E>>,
        distinctive: fn(W) -> bool,
        mut words: impl FnMut(&R, &mut dyn FnMut(K, W)),
    ) -> Result<(Table<W, K>, u64), DiffError> {
        let mut raw: Vec<(W, Tag<K>)> = Vec::new();
        let mut cycles = 0u64;
        for (i, r) in golden.enumerate() {
            let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            cycles += 1;
            let record = u32::try_from(i).unwrap_or(u32::MAX);
            words(&r, &mut |key, v| {
                if distinctive(v) {
                    raw.push((v, Tag { key, record }));
                }
            });
        }
        Ok((Table::new(raw), cycles))
    }

    /// `v` is a golden word.
    pub(crate) fn contains(&self, v: W) -> bool {
        self.index.contains_key(&v)
    }

    /// The tags of `v` and the index of the first.
    fn lookup(&self, v: W) -> Option<(u32, &[Tag<K>])> {
        self.index
            .get(&v)
            .map(|&(a, b)| (a, &self.tags[a as usize..b as usize]))
    }
}

/// A place a word can sit: a signal (its track), the bit offset of a word slice, and whether
/// its bytes are in the other order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Place {
    pub(crate) signal: u32,
    pub(crate) offset: u32,
    pub(crate) swapped: bool,
}

/// Hits are kept (with their time) up to this many per place; votes count them all.
const KEPT_HITS: usize = 1 << 14;

/// Every bit offset of a wide vector is searched in its first changes and then in every
/// `SAMPLE_EVERY`-th; other changes search the word grid and the offsets found so far. A word
/// stored off the grid shows golden values from the start, so it is found, and a 512-bit net
/// changing every cycle costs 16 lookups per change instead of 900.
const SAMPLE_FIRST: u64 = 512;
const SAMPLE_EVERY: u64 = 64;

/// What a place took.
pub(crate) struct Candidate<W, K> {
    /// The last golden value seen here: a wide vector's other words changing does not count
    /// as this slice taking its value again.
    last: Option<W>,
    /// Distinct golden words (tag indices) taken, so glitches and repeats count once.
    taken: HashSet<u32, BuildHasherDefault<WordHasher>>,
    /// Distinct golden words taken, per key.
    pub(crate) votes: WordMap<K, u32>,
    /// (time, tag) of each first take, up to `KEPT_HITS`.
    pub(crate) hits: Vec<(u64, Tag<K>)>,
}

impl<W, K> Default for Candidate<W, K> {
    fn default() -> Self {
        Candidate {
            last: None,
            taken: HashSet::default(),
            votes: WordMap::default(),
            hits: Vec::new(),
        }
    }
}

/// Every place that took a golden value, and what it took.
pub(crate) type Candidates<W, K> = WordMap<Place, Candidate<W, K>>;

/// A value that reads as ASCII text: at least eight nonzero bytes, every one of them
/// printable (a random 64-bit datapath word is so one time in about 2,800; a whole register
/// value of several such words, never).
fn is_text(words: &[u64]) -> bool {
    let bytes = words.iter().flat_map(|w| w.to_le_bytes());
    let mut printable = 0;
    for b in bytes.filter(|b| *b != 0) {
        if !(0x20..0x7f).contains(&b) {
            return false;
        }
        printable += 1;
    }
    printable >= 8 && words.len() >= 2
}

/// Reads `scan` once (see the module documentation). `on_grid(track, offset, time, word)` sees
/// each slice on the word grid that was searched, unswapped, before it is looked up (Skein
/// follows its tweak's position word there).
pub(crate) fn search<W: Word + Ord, K: Copy + Ord + Hash>(
    signals: &mut Signals,
    scan: Scan,
    file: &str,
    table: &Table<W, K>,
    mut on_grid: impl FnMut(u32, u32, u64, W),
) -> Result<Candidates<W, K>, DiffError> {
    let mut candidates: Candidates<W, K> = WordMap::default();
    let mut offsets: Vec<u32> = Vec::new();
    let bits = W::BITS;
    let refs = signals.refs.clone();
    scan.stream(file, &refs, |time, signal, value| {
        let Some(t) = signals.track_of(signal) else {
            return Ok::<(), DiffError>(());
        };
        let track = &mut signals.tracks[t as usize];
        let Some(words) = track.change(time, value) else {
            return Ok(());
        };
        // A test bench's string register (a file name) is text: its slices are no datapath
        // word, however one of them may equal a small golden word (issue 33).
        if is_text(words) {
            return Ok(());
        }
        let all = track.changes <= SAMPLE_FIRST || track.changes.is_multiple_of(SAMPLE_EVERY);
        let last = track.width - bits;
        offsets.clear();
        if all {
            offsets.extend(0..=last);
        } else {
            offsets.extend((0..=last).step_by(bits as usize));
            if !last.is_multiple_of(bits) {
                offsets.push(last);
            }
            offsets.extend(track.odd_offsets.iter().copied());
        }
        for &offset in offsets.iter().filter(|o| o.is_multiple_of(bits)) {
            on_grid(t, offset, time, W::slice(words, offset));
        }
        for &offset in &offsets {
            let v = W::slice(words, offset);
            for (swapped, v) in [(false, v), (true, v.swapped())] {
                let Some((first, tags)) = table.lookup(v) else {
                    continue;
                };
                if !offset.is_multiple_of(bits)
                    && offset != last
                    && !track.odd_offsets.contains(&offset)
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
                for (i, tag) in tags.iter().enumerate() {
                    if !c.taken.insert(first + i as u32) {
                        continue;
                    }
                    *c.votes.entry(tag.key).or_default() += 1;
                    if c.hits.len() < KEPT_HITS {
                        c.hits.push((time, *tag));
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(candidates)
}

#[cfg(test)]
mod text_tests {
    use super::is_text;

    #[test]
    fn a_file_name_is_text_and_a_key_is_not() {
        let name = b"/tmp/.tmpA1b2C3/abc.vcd";
        let mut words = vec![0u64; 4];
        for (i, b) in name.iter().rev().enumerate() {
            words[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        assert!(is_text(&words));
        assert!(!is_text(&[0x3cc5e84b5ed5bce3, 0x74d72e6532598abe]));
        // One word alone (a 64-bit register) is never skipped.
        assert!(!is_text(&[u64::from_le_bytes(*b"abcdefgh")]));
        // A tweak (small position, type and flags) is no text either.
        assert!(!is_text(&[0x20, 0x7000_0000_0000_0000]));
    }
}
