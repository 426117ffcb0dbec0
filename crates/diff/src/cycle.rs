//! Cycle alignment: golden cycle c is compared with RTL rising edge `reset_cycles + c - first
//! + offset`, every mapped field, every cycle. Fields that the golden trace marks as don't-care
//! (the output lines while `out_valid` is 0, a pipeline register's contents while its `valid` is
//! 0) are skipped; X or Z never equals a known value.

use std::path::Path;

use skeinhw_trace::names::{self, Signal};

use crate::error::DiffError;
use crate::frame::Frame;
use crate::map::{self, Alignment, Layout, SignalMap};
pub use crate::options::CycleOptions;
use crate::report::{ContextRow, DiffReport, Divergence, FieldDiff, Verdict};
use crate::wave::{Bits, Probe, sample_rising_edges};

/// One compared field: where its golden value is, and which golden 1-bit signal must be set
/// for it to matter.
#[derive(Clone)]
struct Compared {
    field: String,
    index: usize,
    width: u32,
    care_if: Option<usize>,
}

/// The fields of the golden trace that the map covers, with their don't-care conditions,
/// after the one map check of both alignments ([`map::validate`]); also what a partial map
/// leaves out.
fn compared_fields(
    signals: &[Signal],
    map: &SignalMap,
    partial: bool,
) -> Result<(Vec<Compared>, Vec<String>), DiffError> {
    let index_of = |name: &str| signals.iter().position(|s| s.name == name);
    let names: Vec<&str> = signals.iter().map(|s| s.name.as_str()).collect();
    let slots = names
        .iter()
        .filter_map(|n| map::slot_field(&format!("{n}_0")).map(|(s, _, _)| s + 1))
        .max()
        .unwrap_or(0);
    // Skein's state words as the trace names them (0 for Shabal): a `byteswap` field is checked
    // against the algorithm's word (issue 33: a 64-bit slice was refused as a Shabal word).
    let words = (0..)
        .take_while(|w| names.contains(&format!("slot0_state_{w}").as_str()))
        .count();
    let layout = Layout {
        signals: &names,
        words,
        slots,
    };
    let left_out = map::validate(map, Alignment::Cycle, &layout, partial)?;
    let mut out = Vec::new();
    for (index, s) in signals.iter().enumerate() {
        if s.name == names::CLK || !map.fields.contains_key(&s.name) {
            continue;
        }
        out.push(Compared {
            field: s.name.clone(),
            index,
            width: s.width,
            care_if: s.care_if.as_deref().and_then(index_of),
        });
    }
    if out.is_empty() {
        return Err(DiffError::Invalid(
            "no field to compare: the map covers none of the trace's signals".into(),
        ));
    }
    Ok((out, left_out))
}

fn hex(v: u64, width: u32) -> String {
    format!("{:0w$x}", v, w = width.div_ceil(4) as usize)
}

fn rtl_text(b: &Bits) -> String {
    match b.unknown {
        Some(c) => format!("{c} (X/Z)"),
        None => b.to_hex(),
    }
}

fn equal(golden: u64, rtl: &Bits) -> bool {
    rtl.unknown.is_none()
        && rtl.words.first().copied().unwrap_or(0) == golden
        && rtl.words.iter().skip(1).all(|w| *w == 0)
}

/// The last compared cycles, kept for the context of a later divergence: raw values in flat
/// rings (written on every cycle, so kept cheap: no allocation, one pass over the samples
/// that also compares them), the rare X/Z or wide samples whole. Slot `next` is written while
/// a cycle is compared and kept only if the cycle matched: one slot more than the cycles held.
#[derive(Clone, Default)]
struct History {
    /// Cycles held (at most `slots - 1`).
    len: usize,
    slots: usize,
    next: usize,
    cycle: Vec<u64>,
    /// `values` golden values per slot.
    golden: Vec<u64>,
    values: usize,
    /// `fields` RTL words and widths per slot.
    rtl: Vec<u64>,
    width: Vec<u32>,
    fields: usize,
    odd: Vec<Vec<(usize, Bits)>>,
}

impl History {
    /// Holds the last `cycles` cycles of `fields` samples.
    fn new(cycles: usize, fields: usize) -> History {
        let slots = cycles + 1;
        History {
            slots,
            fields,
            rtl: vec![0; slots * fields],
            width: vec![0; slots * fields],
            cycle: vec![0; slots],
            odd: vec![Vec::new(); slots],
            ..History::default()
        }
    }

    /// Starts writing `cycle` with its golden `values` into the next slot.
    fn begin(&mut self, cycle: u64, values: &[u64]) {
        if self.values != values.len() {
            self.values = values.len();
            self.golden = vec![0; self.slots * self.values];
        }
        let slot = self.next;
        self.cycle[slot] = cycle;
        self.golden[slot * self.values..][..self.values].copy_from_slice(values);
        self.odd[slot].clear();
    }

    /// The RTL words, widths and whole odd samples of the slot being written (all empty if
    /// not `keep`).
    fn slot_rows(&mut self, keep: bool) -> (&mut [u64], &mut [u32], &mut Vec<(usize, Bits)>) {
        let (slot, n) = if keep {
            (self.next, self.fields)
        } else {
            (0, 0)
        };
        (
            &mut self.rtl[slot * n..][..n],
            &mut self.width[slot * n..][..n],
            &mut self.odd[slot],
        )
    }

    /// Keeps the slot written (the cycle matched).
    fn keep(&mut self) {
        self.next = (self.next + 1) % self.slots;
        self.len = (self.len + 1).min(self.slots - 1);
    }

    /// The slots held, oldest first.
    fn held(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).map(|k| (self.next + self.slots - self.len + k) % self.slots)
    }

    fn golden(&self, slot: usize, index: usize) -> u64 {
        self.golden[slot * self.values + index]
    }

    fn rtl_text(&self, slot: usize, i: usize) -> String {
        match self.odd[slot].iter().find(|(j, _)| *j == i) {
            Some((_, b)) => rtl_text(b),
            None => {
                let at = slot * self.fields + i;
                Bits::known(vec![self.rtl[at]], self.width[at]).to_hex()
            }
        }
    }
}

/// The cycle comparison, fed one RTL edge and one golden frame at a time (values, not
/// files), so that a waveform file ([`compare_cycles`]) and a live simulation feed it alike.
#[derive(Clone)]
pub struct CycleComparator {
    fields: Vec<Compared>,
    /// Each field's `when` qualifier, as a position among the samples.
    when: Vec<Option<usize>>,
    field_compared: Vec<u64>,
    required_when: Vec<bool>,
    context: usize,
    allow_trailing: bool,
    left_out: Vec<String>,
    compared: u64,
    golden_read: u64,
    divergence: Option<Divergence>,
    divergent_fields: Vec<usize>,
    after: usize,
    history: History,
    trailing: u64,
    diffs: Vec<usize>,
}

impl CycleComparator {
    /// Checks the map against the golden trace's `signals` ([`map::validate`]) and returns the
    /// comparator with the probes whose samples [`CycleComparator::compare`] takes, in order.
    pub fn new(
        signals: &[Signal],
        map: &SignalMap,
        options: &CycleOptions,
    ) -> Result<(CycleComparator, Vec<Probe>), DiffError> {
        let (fields, left_out) = compared_fields(signals, map, options.partial)?;
        let mut probes: Vec<Probe> = fields
            .iter()
            .map(|c| map.fields[&c.field].clone())
            .collect();
        let when: Vec<Option<usize>> = fields
            .iter()
            .map(|c| {
                map.when.get(&c.field).map(|q| {
                    probes.iter().position(|p| p == q).unwrap_or_else(|| {
                        probes.push(q.clone());
                        probes.len() - 1
                    })
                })
            })
            .collect();
        let n = fields.len();
        Ok((
            CycleComparator {
                required_when: when.iter().map(Option::is_some).collect(),
                fields,
                when,
                field_compared: vec![0; n],
                context: options.context,
                allow_trailing: options.allow_trailing,
                left_out,
                compared: 0,
                golden_read: 0,
                divergence: None,
                divergent_fields: Vec::new(),
                after: 0,
                history: History::new(options.context, n),
                trailing: 0,
                diffs: Vec::new(),
            },
            probes,
        ))
    }

    /// Compares golden `frame` with the RTL `samples` of edge `edge` at `time`. Returns false
    /// when nothing more is needed (the context after a divergence is complete).
    pub fn compare(&mut self, edge: u64, time: u64, frame: &Frame, samples: &[Bits]) -> bool {
        self.golden_read += 1;
        let values = &frame.values;
        let fields = &self.fields;
        let row = |which: &[usize]| ContextRow {
            cycle: frame.cycle,
            values: which
                .iter()
                .map(|&i| {
                    let c = &fields[i];
                    (
                        c.field.clone(),
                        hex(values[c.index], c.width),
                        rtl_text(&samples[i]),
                    )
                })
                .collect(),
        };
        if let Some(d) = self.divergence.as_mut() {
            d.context.push(row(&self.divergent_fields));
            self.after += 1;
            return self.after < self.context;
        }
        self.compared += 1;
        self.diffs.clear();
        let keep = self.context > 0;
        if keep {
            self.history.begin(frame.cycle, values);
        }
        let n = fields.len();
        // The slot's rows for this cycle (empty without context): every per-field array
        // sliced to the fields once, so that the loop runs without bounds checks.
        let (rtl, width, odd) = self.history.slot_rows(keep);
        let mut rows = rtl.iter_mut().zip(width.iter_mut());
        let per_field = fields
            .iter()
            .zip(&samples[..n])
            .zip(&self.when[..n])
            .zip(&mut self.field_compared[..n]);
        for (i, (((c, s), when), compared)) in per_field.enumerate() {
            // One known word (every field of a trace), or anything else.
            let (word, plain) = match (s.unknown, s.words.as_slice()) {
                (None, []) => (0, true),
                (None, [w]) => (*w, true),
                _ => (0, false),
            };
            if let Some((r, w)) = rows.next() {
                (*r, *w) = (word, s.width);
                if !plain {
                    odd.push((i, s.clone()));
                }
            }
            if c.care_if.is_some_and(|cond| values[cond] & 1 == 0) {
                continue;
            }
            if let Some(q) = *when
                && !(samples[q].unknown.is_none() && samples[q].words.first() == Some(&1))
            {
                continue;
            }
            *compared += 1;
            let golden = values[c.index];
            if !(if plain {
                word == golden
            } else {
                equal(golden, s)
            }) {
                self.diffs.push(i);
            }
        }
        if self.diffs.is_empty() {
            if keep {
                self.history.keep();
            }
            return true;
        }
        let diffs = std::mem::take(&mut self.diffs);
        let history = &self.history;
        let mut context: Vec<ContextRow> = history
            .held()
            .map(|slot| ContextRow {
                cycle: history.cycle[slot],
                values: diffs
                    .iter()
                    .map(|&i| {
                        let c = &fields[i];
                        (
                            c.field.clone(),
                            hex(history.golden(slot, c.index), c.width),
                            history.rtl_text(slot, i),
                        )
                    })
                    .collect(),
            })
            .collect();
        context.push(row(&diffs));
        self.divergence = Some(Divergence {
            cycle: frame.cycle,
            rtl_edge: edge,
            time,
            phase: frame.phase.to_string(),
            location: frame.location.clone(),
            fields: diffs
                .iter()
                .map(|&i| {
                    let c = &fields[i];
                    FieldDiff {
                        field: c.field.clone(),
                        golden: hex(values[c.index], c.width),
                        rtl: rtl_text(&samples[i]),
                        unknown: samples[i].unknown.is_some(),
                    }
                })
                .collect(),
            context,
            event: false,
        });
        self.divergent_fields = diffs;
        self.context > 0
    }

    /// The compared fields' names, in the order of the first samples [`CycleComparator::compare`]
    /// takes (any `when` qualifier samples follow them).
    pub fn field_names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|c| c.field.as_str())
    }

    /// Cycles compared so far.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// Whether a divergence has been found.
    pub fn diverged(&self) -> bool {
        self.divergence.is_some()
    }

    /// An RTL edge after the golden trace's last cycle. Returns false when reading can stop.
    pub fn trailing_edge(&mut self) -> bool {
        self.trailing += 1;
        self.divergence.is_none() && self.allow_trailing
    }

    /// The verdict: `golden_left` golden cycles never compared (the RTL ran out first),
    /// `rtl_edges` edges read of which `skipped` were skipped.
    pub fn finish(
        self,
        golden_left: u64,
        rtl_edges: u64,
        skipped: u64,
    ) -> Result<DiffReport, DiffError> {
        let fields = &self.fields;
        let golden_cycles = self.golden_read + golden_left;
        let compared = self.compared;
        if compared == 0 && self.divergence.is_none() {
            return Err(DiffError::Invalid(format!(
                "nothing compared: the golden trace has {golden_cycles} cycles and the RTL \
                 {rtl_edges} rising edges, of which {skipped} are skipped (reset cycles and offset)"
            )));
        }
        if self.divergence.is_none() {
            for (i, c) in fields.iter().enumerate() {
                if self.field_compared[i] == 0 && self.required_when[i] {
                    return Err(DiffError::Invalid(format!(
                        "map field '{}' was never compared: its 'when' qualifier was never 1 on \
                         a compared edge",
                        c.field
                    )));
                }
            }
            let state: Vec<usize> = (0..fields.len())
                .filter(|&i| {
                    map::slot_field(&fields[i].field).is_some_and(|(_, r, _)| r == "state")
                })
                .collect();
            if !state.is_empty() && state.iter().all(|&i| self.field_compared[i] == 0) {
                return Err(DiffError::Invalid(format!(
                    "nothing compared: no mapped state field ({}, ...) held a block on any \
                     compared cycle",
                    fields[state[0]].field
                )));
            }
        }
        let fields_n = fields.len();
        let left_text = if self.left_out.is_empty() {
            String::new()
        } else {
            format!("; partial map, not compared: {}", self.left_out.join(", "))
        };
        let (verdict, summary) = if let Some(d) = &self.divergence {
            let names: Vec<&str> = d.fields.iter().map(|x| x.field.as_str()).collect();
            (
                Verdict::Divergent,
                format!(
                    "DIVERGENT at golden cycle {}: {} field(s) differ ({}); {} cycle(s) identical before it",
                    d.cycle,
                    names.len(),
                    names.join(", "),
                    compared - 1
                ),
            )
        } else if golden_left > 0 {
            (
                Verdict::LengthMismatch,
                format!(
                    "LENGTH MISMATCH: the RTL run ends after {compared} compared cycles, the \
                     golden trace has {golden_cycles}"
                ),
            )
        } else if self.trailing > 0 && !self.allow_trailing {
            (
                Verdict::LengthMismatch,
                format!(
                    "LENGTH MISMATCH: the RTL run goes on after the golden trace's \
                     {golden_cycles} cycles (use --allow-trailing if the test bench idles on)"
                ),
            )
        } else {
            (
                Verdict::Identical,
                format!("IDENTICAL: {compared} cycles x {fields_n} fields{left_text}"),
            )
        };
        Ok(DiffReport {
            verdict,
            compared_cycles: compared,
            golden_cycles,
            rtl_edges,
            fields: fields_n,
            first_divergence: self.divergence,
            events_expected: 0,
            events_matched: 0,
            blocks: Vec::new(),
            left_out: self.left_out,
            summary,
        })
    }
}

/// Compares a golden trace with an RTL waveform cycle by cycle, reading the waveform once and
/// stopping a few cycles after the first divergence.
pub fn compare_cycles<E: std::fmt::Display>(
    signals: &[Signal],
    golden: impl Iterator<Item = Result<Frame, E>>,
    wave: &Path,
    map: &SignalMap,
    options: &CycleOptions,
) -> Result<DiffReport, DiffError> {
    let (mut cmp, probes) = CycleComparator::new(signals, map, options)?;
    let mut wave_options = options.wave.clone();
    if let Some(clock) = &map.clock {
        wave_options.clock = clock.clone();
    }
    let skip = options
        .reset_cycles
        .checked_add(options.offset.max(0).unsigned_abs())
        .ok_or_else(|| {
            DiffError::Invalid(format!(
                "nothing compared: --reset-cycles {} plus --offset {} skips more RTL edges than \
                 any waveform has",
                options.reset_cycles, options.offset
            ))
        })?;
    let golden_skip = usize::try_from(options.offset.min(0).unsigned_abs()).unwrap_or(usize::MAX);
    let mut golden = golden.skip(golden_skip);
    let mut failure: Option<DiffError> = None;
    let stats = sample_rising_edges(wave, &wave_options, &probes, |edge, time, samples| {
        if edge < skip {
            return true;
        }
        match golden.next() {
            None => cmp.trailing_edge(),
            Some(Err(e)) => {
                failure = Some(DiffError::Invalid(format!("golden trace: {e}")));
                false
            }
            Some(Ok(frame)) => cmp.compare(edge, time, &frame, samples),
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    if stats.edges == 0 {
        return Err(DiffError::Invalid(format!(
            "{}: no rising edge of clock '{}'",
            wave.display(),
            wave_options.clock
        )));
    }
    // Count what is left of the golden trace when the RTL ran out first.
    let mut golden_left = 0u64;
    if cmp.divergence.is_none() {
        for r in golden.by_ref() {
            r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
            golden_left += 1;
        }
    }
    cmp.finish(golden_left, stats.edges, skip.min(stats.edges))
}
