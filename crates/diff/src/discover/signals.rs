//! The waveform's signals as the search sees them: every name of each (a port and the net it
//! drives share one signal), what each did during the run, the clock and its rising edges, and
//! the 1-bit signal that marks the digest.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use crate::error::DiffError;
use crate::options::ReadProgress;
use crate::wave::{Scan, SignalKey};

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

impl Track {
    /// Counts a change at `time`; a 1-bit signal keeps its known value. Returns the words of a
    /// wide signal's known value, to search.
    pub(crate) fn change<'a>(&mut self, time: u64, value: Option<&'a [u64]>) -> Option<&'a [u64]> {
        self.changes += 1;
        let words = value?;
        if self.width == 1 {
            let bit = words[0] & 1 == 1;
            if self.bits.last().map(|b| b.1) != Some(bit) {
                self.bits.push((time, bit));
            }
            return None;
        }
        Some(words)
    }
}

/// The signals searched: one track per signal, with all its names.
pub(crate) struct Signals {
    /// Every name of each signal, shortest scope first.
    aliases: HashMap<usize, Vec<String>>,
    /// Per track, its signal.
    pub(crate) refs: Vec<SignalKey>,
    pub(crate) tracks: Vec<Track>,
    track_of: HashMap<usize, u32>,
    /// Follows every reading of the file (a search may read it more than once).
    pub(crate) progress: ReadProgress,
}

impl Signals {
    /// Opens `wave` for the search (our own reader for a VCD, wellen for an FST or a header
    /// ours leaves alone) with its signals of `min_width` bits or more and its 1-bit ones:
    /// the file's name for errors, the waveform, the signals.
    pub(crate) fn open(
        wave: &Path,
        min_width: u32,
        strip: Option<&str>,
        progress: &ReadProgress,
    ) -> Result<(String, Scan, Signals), DiffError> {
        let file = wave.display().to_string();
        if !wave.exists() {
            return Err(DiffError::Io {
                file,
                message: "no such file".into(),
            });
        }
        let scan = Scan::open(wave, &file, progress)?;
        let mut signals = Signals::of(&scan, min_width, strip);
        signals.progress = progress.clone();
        Ok((file, scan, signals))
    }

    /// The 1-bit signals and those of `min_width` bits or more in `scan` (a function's or
    /// task's variables, scratch copies Icarus dumps, left out), `strip` removed from names.
    fn of(scan: &Scan, min_width: u32, strip: Option<&str>) -> Signals {
        let mut s = Signals {
            aliases: HashMap::new(),
            refs: Vec::new(),
            tracks: Vec::new(),
            track_of: HashMap::new(),
            progress: ReadProgress::default(),
        };
        for var in scan.vars() {
            let width = var.width;
            if (width != 1 && width < min_width) || var.in_function {
                continue;
            }
            let full = var.name.clone();
            let name = match strip {
                Some(p) => full.strip_prefix(p).unwrap_or(&full).to_string(),
                None => full,
            };
            let r = var.key;
            s.aliases.entry(r.index()).or_default().push(name);
            let t = *s.track_of.entry(r.index()).or_insert_with(|| {
                s.refs.push(r);
                s.tracks.push(Track {
                    width,
                    net: true,
                    ..Track::default()
                });
                (s.tracks.len() - 1) as u32
            });
            s.tracks[t as usize].net &= var.net;
        }
        for names in s.aliases.values_mut() {
            names.sort_by_key(|n| (n.matches('.').count(), n.clone()));
        }
        s
    }

    /// The track of `signal`, if it is searched.
    pub(crate) fn track_of(&self, signal: SignalKey) -> Option<u32> {
        self.track_of.get(&signal.index()).copied()
    }

    /// Every name of track `t`, shortest scope first.
    pub(crate) fn names(&self, t: u32) -> &[String] {
        &self.aliases[&self.refs[t as usize].index()]
    }

    /// Track `t`'s name (the one of the shortest scope).
    pub(crate) fn name(&self, t: u32) -> &str {
        &self.names(t)[0]
    }

    /// The tracks, by number.
    pub(crate) fn ids(&self) -> std::ops::Range<u32> {
        0..self.tracks.len() as u32
    }

    /// The clock: the 1-bit signal named `clock`, or else the 1-bit signal with the most
    /// regular rising edges; with its rising edges.
    pub(crate) fn clock(&self, clock: Option<&str>, file: &str) -> Result<Clock, DiffError> {
        let one_bit = |t: &u32| self.tracks[*t as usize].width == 1;
        let track = match clock {
            Some(c) => self
                .ids()
                .find(|&t| self.names(t).iter().any(|n| n == c))
                .filter(one_bit)
                .ok_or_else(|| DiffError::MissingSignal {
                    file: file.to_string(),
                    signal: c.to_string(),
                    hint: "no 1-bit signal of that name".into(),
                })?,
            None => self
                .ids()
                .filter(one_bit)
                .max_by_key(|&t| {
                    (
                        regular_rises(&self.tracks[t as usize].bits),
                        std::cmp::Reverse(t),
                    )
                })
                .filter(|&t| regular_rises(&self.tracks[t as usize].bits) > 1)
                .ok_or_else(|| {
                    DiffError::Invalid(format!(
                        "{file}: no 1-bit signal toggles regularly: give the clock with --clock"
                    ))
                })?,
        };
        Ok(Clock {
            track,
            rises: rises(&self.tracks[track as usize].bits).collect(),
        })
    }

    /// A digest's valid bit: the 1-bit signal high at every one of `edges` (clock edge
    /// indices), and at as few others as possible.
    pub(crate) fn valid_bit(&self, clock: &Clock, edges: &BTreeSet<u64>) -> Option<u32> {
        if edges.is_empty() {
            return None;
        }
        self.ids()
            .filter(|&t| t != clock.track && self.tracks[t as usize].width == 1)
            .filter_map(|t| {
                let high = high_edges(&self.tracks[t as usize].bits, &clock.rises);
                edges
                    .iter()
                    .all(|e| high.binary_search(e).is_ok())
                    .then_some((high.len(), t))
            })
            .min()
            .map(|(_, t)| t)
    }
}

/// The clock's track and the times of its rising edges.
pub(crate) struct Clock {
    pub(crate) track: u32,
    pub(crate) rises: Vec<u64>,
}

impl Clock {
    /// The index of the first rising edge at or after `time`.
    pub(crate) fn edge_of(&self, time: u64) -> u64 {
        self.rises.partition_point(|&r| r < time) as u64
    }
}

/// RTL edges before golden cycle 0 when the state shows up at golden cycle + a constant (cycle
/// alignment fits): the most common of `shifts` (edge - golden record), if nine in ten agree.
pub(crate) fn reset_cycles(shifts: impl Iterator<Item = i64>) -> Option<u64> {
    let mut count: HashMap<i64, u32> = HashMap::new();
    let mut total = 0u32;
    for s in shifts {
        *count.entry(s).or_default() += 1;
        total += 1;
    }
    let (&shift, &n) = count
        .iter()
        .max_by_key(|(s, n)| (**n, std::cmp::Reverse(**s)))?;
    (shift >= 0 && u64::from(n) * 10 >= u64::from(total) * 9).then_some(shift as u64)
}

/// Rising edges: every change to 1 (a clock starting at 1 rises at its first time, as the
/// diff's reader counts it).
fn rises(bits: &[(u64, bool)]) -> impl Iterator<Item = u64> + '_ {
    bits.iter().filter_map(|&(t, b)| b.then_some(t))
}

/// Rising edges at the most common interval: a clock has nearly all of its edges there.
fn regular_rises(bits: &[(u64, bool)]) -> u64 {
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
