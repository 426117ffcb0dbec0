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
    let mut read: BTreeMap<u32, Register> = registers
        .iter()
        .map(|&t| {
            let places = placed.values().filter(|p| p.signal == t).copied().collect();
            (t, Register::new(places))
        })
        .collect();
    sample(
        wave,
        file,
        signals,
        &clock.rises[..=until as usize],
        &mut read,
        &class,
    )?;
    let mut out = Vec::new();
    for (register, r) in read {
        let Register {
            takes, mut others, ..
        } = r;
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

/// One register as it is read: its mapped word slices, its current value, and the edges where
/// it changed to a golden value (`takes`) or held another (`others`). Only edge numbers are
/// kept: the memory does not grow with the register's width.
struct Register {
    places: Vec<Place>,
    value: Option<Vec<u64>>,
    /// The value at the previous edge differs from `value` (a change since).
    changed: bool,
    takes: Vec<u64>,
    others: Vec<u64>,
}

impl Register {
    fn new(places: Vec<Place>) -> Register {
        Register {
            places,
            value: None,
            changed: false,
            takes: Vec::new(),
            others: Vec::new(),
        }
    }

    /// Classifies the value the register holds at edge `e`.
    fn edge(&mut self, e: u64, class: &impl Fn(u64) -> Class) {
        let Some(words) = &self.value else {
            self.changed = false;
            return;
        };
        let mut golden = false;
        for p in &self.places {
            let v = u64::slice(words, p.offset);
            match class(if p.swapped { v.swap_bytes() } else { v }) {
                Class::Other => {
                    self.others.push(e);
                    self.changed = false;
                    return;
                }
                Class::Golden => golden = true,
                Class::Neutral => {}
            }
        }
        if golden && self.changed {
            self.takes.push(e);
        }
        self.changed = false;
    }
}

/// Reads `registers` from `wave`, classifying each one's value at every edge of `rises`; the
/// reading stops after the last.
fn sample(
    wave: &Path,
    file: &str,
    signals: &Signals,
    rises: &[u64],
    registers: &mut BTreeMap<u32, Register>,
    class: &impl Fn(u64) -> Class,
) -> Result<(), DiffError> {
    let scan = Scan::open(wave, file, &signals.progress)?;
    let watch: Vec<_> = registers
        .keys()
        .map(|&t| signals.refs[t as usize])
        .collect();
    let stop = *rises.last().expect("at least one edge");
    // The next edge to classify: a change at time t settles every edge before t (a change
    // at an edge's time is that edge's value).
    let mut next = 0usize;
    let mut done = false;
    let read = scan.stream(file, &watch, |time, signal, value| {
        while next < rises.len() && rises[next] < time {
            for r in registers.values_mut() {
                r.edge(next as u64, class);
            }
            next += 1;
        }
        if time > stop {
            done = true;
            // An error of the callback ends the reading.
            return Err(DiffError::Invalid(String::new()));
        }
        if let Some(r) = signals.track_of(signal).and_then(|t| registers.get_mut(&t)) {
            let value = value.map(<[u64]>::to_vec);
            if value != r.value {
                r.value = value;
                r.changed = true;
            }
        }
        Ok(())
    });
    match read {
        Err(_) if done => {}
        other => other?,
    }
    while next < rises.len() {
        for r in registers.values_mut() {
            r.edge(next as u64, class);
        }
        next += 1;
    }
    Ok(())
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
