//! The `when` qualifier of a found register (issue 33): a register that, between the edges at
//! which it takes golden values, holds values that are no golden word (a scratch value between
//! blocks, an input mux, another use of the register) is compared only where a 1-bit signal
//! says it holds the datapath's value. The search keeps only golden hits, so the mapped
//! registers are read a second time, up to the last edge where one took a golden value, and
//! sampled at every rising edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::search::{Place, Word};
use super::signals::{Clock, Signals, high_edges};
use crate::error::DiffError;
use crate::wave::Scan;

/// A register that holds other values between its golden ones, and its qualifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Qualified {
    /// The register's track.
    pub(crate) register: u32,
    /// The 1-bit signal that is 1 wherever it took a golden value and 0 wherever it held
    /// another, if one is; `None`: no signal tells them apart.
    pub(crate) when: Option<u32>,
    /// Edges (from 0) between its first and last golden value where it held another.
    pub(crate) other_edges: Vec<u64>,
}

/// How one sampled word reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Golden,
    /// Distinctive, and no golden word: a value the datapath does not compute.
    Other,
    /// Small or unknown: any register could hold it.
    Neutral,
}

/// The qualifiers of the registers of `placed` (field -> place), read from `wave` up to edge
/// `until`, each word read by `class`. Registers that hold nothing else are left out.
pub(crate) fn qualifiers(
    wave: &Path,
    file: &str,
    signals: &Signals,
    clock: &Clock,
    placed: &BTreeMap<String, Place>,
    until: u64,
    class: impl Fn(u64) -> Class,
) -> Result<Vec<Qualified>, DiffError> {
    let registers: BTreeSet<u32> = placed.values().map(|p| p.signal).collect();
    if registers.is_empty() || clock.rises.is_empty() {
        return Ok(Vec::new());
    }
    let until = until.min(clock.rises.len() as u64 - 1);
    let changes = read_changes(wave, file, signals, &registers, clock.rises[until as usize])?;
    let mut out = Vec::new();
    for register in registers {
        let places: Vec<Place> = placed
            .values()
            .filter(|p| p.signal == register)
            .copied()
            .collect();
        let classes_of = |words: &Option<Vec<u64>>| -> Vec<Class> {
            places
                .iter()
                .map(|p| match words {
                    None => Class::Neutral,
                    Some(w) => {
                        let v = u64::slice(w, p.offset);
                        class(if p.swapped { v.swap_bytes() } else { v })
                    }
                })
                .collect()
        };
        let sampled = at_edges(&changes[&register], &clock.rises[..=until as usize]);
        // Edges where it changed to a golden value, and edges where it held another.
        let mut takes = Vec::new();
        let mut others = Vec::new();
        let mut previous: Option<&Option<Vec<u64>>> = None;
        for (e, value) in sampled.iter().enumerate() {
            let classes = classes_of(value);
            if classes.contains(&Class::Other) {
                others.push(e as u64);
            } else if classes.contains(&Class::Golden) && previous != Some(value) {
                takes.push(e as u64);
            }
            previous = Some(value);
        }
        let (Some(&first), Some(&last)) = (takes.first(), takes.last()) else {
            continue;
        };
        others.retain(|e| (first..=last).contains(e));
        if others.is_empty() {
            continue;
        }
        let when = qualifier(signals, clock, &takes, &others, (first, last));
        out.push(Qualified {
            register,
            when,
            other_edges: others,
        });
    }
    Ok(out)
}

/// The 1-bit signal that is 1 at every edge of `takes` and 0 at every edge of `others`: the
/// register before the net, then the one that is 1 most often in `window` (the broadest, which
/// leaves out only what is no golden value), then the shortest name.
fn qualifier(
    signals: &Signals,
    clock: &Clock,
    takes: &[u64],
    others: &[u64],
    (first, last): (u64, u64),
) -> Option<u32> {
    signals
        .ids()
        .filter(|&t| t != clock.track && signals.tracks[t as usize].width == 1)
        .filter_map(|t| {
            let high = high_edges(&signals.tracks[t as usize].bits, &clock.rises);
            let is_high = |e: &u64| high.binary_search(e).is_ok();
            if !takes.iter().all(is_high) || others.iter().any(is_high) {
                return None;
            }
            let broad = high.iter().filter(|e| (first..=last).contains(*e)).count();
            let name = signals.name(t);
            Some((
                (
                    signals.tracks[t as usize].net,
                    std::cmp::Reverse(broad),
                    name.len(),
                    name.to_string(),
                ),
                t,
            ))
        })
        .min()
        .map(|(_, t)| t)
}

/// Every change of the `registers` up to `stop` (a time): per track, (time, value).
type Changes = BTreeMap<u32, Vec<(u64, Option<Vec<u64>>)>>;

/// Reads the changes of `registers` from `wave` up to time `stop`, and no further.
fn read_changes(
    wave: &Path,
    file: &str,
    signals: &Signals,
    registers: &BTreeSet<u32>,
    stop: u64,
) -> Result<Changes, DiffError> {
    let scan = Scan::open(wave, file)?;
    let watch: Vec<_> = registers
        .iter()
        .map(|&t| signals.refs[t as usize])
        .collect();
    let mut changes: Changes = registers.iter().map(|&t| (t, Vec::new())).collect();
    // Reading ends at the first change after `stop`: an error of the callback ends it.
    let mut done = false;
    let read = scan.stream(file, &watch, |time, signal, value| {
        if time > stop {
            done = true;
            return Err(DiffError::Invalid(String::new()));
        }
        if let Some(t) = signals.track_of(signal) {
            changes
                .entry(t)
                .or_default()
                .push((time, value.map(<[u64]>::to_vec)));
        }
        Ok(())
    });
    match read {
        Err(_) if done => Ok(changes),
        other => other.map(|()| changes),
    }
}

/// The value at each rising edge of `rises`: the last change at or before it (a change at an
/// edge's time is that edge's value, as the search counts it).
fn at_edges<'a>(
    changes: &'a [(u64, Option<Vec<u64>>)],
    rises: &[u64],
) -> Vec<&'a Option<Vec<u64>>> {
    const NONE: &Option<Vec<u64>> = &None;
    let mut out = Vec::with_capacity(rises.len());
    let mut j = 0;
    let mut value = NONE;
    for &r in rises {
        while j < changes.len() && changes[j].0 <= r {
            value = &changes[j].1;
            j += 1;
        }
        out.push(value);
    }
    out
}
