//! Sampling the probes at each rising clock edge, from our VCD reader or wellen's stream: the
//! watched signals, their current values, and the samples handed to the caller.

use std::collections::HashMap;
use std::io::{BufRead, Seek};

use skeinhw_trace::names;
use wellen::SignalRef;
use wellen::stream::{self, Filter};

use super::contain::{contain, one_line, quiet};
use super::wellen_values::{decode_into, near_names, signal_names};
use super::{Bits, MAX_SIGNAL_WIDTH, Probe, WaveOptions, WaveStats};
use crate::error::DiffError;
use crate::vcd;

/// A name's signal key (wellen's signal index, or the VCD id number) and declared width.
pub(super) type Names = HashMap<String, (usize, u32)>;

/// The watched signals: `keys[0]` is the clock, `slots[p]` the position in `keys` of probe
/// `p`'s signal (several probes may share one signal).
pub(super) struct Watch {
    pub(super) keys: Vec<usize>,
    slots: Vec<usize>,
}

/// A waveform `skeinhw trace` wrote has every signal under its one top scope
/// ([`names::SCOPE`], `skeinhw.clk`): without `--strip-prefix`, its signals also answer to
/// their names below that scope (the trace's field names), so that the diff of a trace file
/// needs no options.
pub(super) fn own_trace_names(names: &mut Names, options: &WaveOptions) {
    let prefix = format!("{}.", names::SCOPE);
    if options.strip_prefix.is_some() || !names.keys().all(|n| n.starts_with(&prefix)) {
        return;
    }
    let aliases: Vec<(String, (usize, u32))> = names
        .iter()
        .map(|(n, v)| (n[prefix.len()..].to_string(), *v))
        .collect();
    for (n, v) in aliases {
        names.entry(n).or_insert(v);
    }
}

/// Finds the clock and every probe's signal by name, checking widths and slices.
pub(super) fn watch(
    names: &Names,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
) -> Result<Watch, DiffError> {
    let resolve = |name: &str| -> Result<(usize, u32), DiffError> {
        let (r, width) = names
            .get(name)
            .copied()
            .ok_or_else(|| DiffError::MissingSignal {
                file: file.to_string(),
                signal: name.to_string(),
                hint: near_names(names, name),
            })?;
        if width == 0 || width > MAX_SIGNAL_WIDTH {
            return Err(DiffError::Wave {
                file: file.to_string(),
                message: format!(
                    "signal '{name}' is declared {width} bits wide; the diff reads 1 to \
                     {MAX_SIGNAL_WIDTH}"
                ),
            });
        }
        Ok((r, width))
    };
    let (clock, _) = resolve(&options.clock)?;
    let mut keys = vec![clock];
    let mut slots = Vec::with_capacity(probes.len());
    for p in probes {
        let (r, width) = resolve(&p.signal)?;
        if let Some((hi, _)) = p.slice.filter(|(hi, _)| *hi >= width) {
            return Err(DiffError::MissingSignal {
                file: file.to_string(),
                signal: format!("{}[{hi}:..]", p.signal),
                hint: format!("{} has {width} bits", p.signal),
            });
        }
        if p.byteswap && !matches!(p.width(width), 32 | 64) {
            return Err(DiffError::Wave {
                file: file.to_string(),
                message: format!(
                    "'{}' is marked byteswap but holds {} bits, not 32 or 64",
                    p.signal,
                    p.width(width)
                ),
            });
        }
        if !keys.contains(&r) {
            keys.push(r);
        }
        slots.push(keys.iter().position(|x| *x == r).expect("just added"));
    }
    Ok(Watch { keys, slots })
}

/// Why a [`Sampler`] refused a change.
pub(super) enum Refused {
    /// The callback asked for no more edges.
    Stop,
    /// A time stamp before the step's.
    Backwards(String),
}

/// Turns value changes into one sample per rising clock edge, shared by both readers so that
/// they sample alike: a time step ends when a change of a later time arrives (or the file
/// ends); a rising edge in it is sampled then, after all of its changes.
pub(super) struct Sampler<'p, F> {
    probes: &'p [Probe],
    slots: Vec<usize>,
    /// The current value of each watched signal (the clock first), updated in place.
    pub(super) current: Vec<Bits>,
    /// Which of `current` changed since the last edge's samples were made: only their
    /// probes are sampled again (most registers hold their value on most edges).
    pub(super) dirty: Vec<bool>,
    samples: Vec<Bits>,
    /// The probes sampled anew at the current edge.
    fresh: Vec<u32>,
    step_time: Option<u64>,
    /// The clock at the end of the previous time step.
    clock_before: bool,
    stats: WaveStats,
    pub(super) stop: bool,
    on_edge: F,
}

impl<'p, F: FnMut(u64, u64, &[Bits], &[u32]) -> bool> Sampler<'p, F> {
    pub(super) fn new(probes: &'p [Probe], watch: Watch, on_edge: F) -> Self {
        Sampler {
            probes,
            current: watch.keys.iter().map(|_| Bits::known(vec![], 0)).collect(),
            dirty: vec![true; watch.keys.len()],
            samples: probes.iter().map(|_| Bits::known(vec![], 0)).collect(),
            fresh: Vec::with_capacity(probes.len()),
            slots: watch.slots,
            step_time: None,
            clock_before: false,
            stats: WaveStats::default(),
            stop: false,
            on_edge,
        }
    }

    /// Called before a watched change at `time`: ends the previous step if this is a new one.
    #[inline]
    pub(super) fn at(&mut self, time: u64) -> Result<(), Refused> {
        if self.stop {
            return Err(Refused::Stop);
        }
        if self.step_time != Some(time) {
            if let Some(t) = self.step_time {
                if time < t {
                    return Err(Refused::Backwards(format!(
                        "time goes backwards: #{time} after #{t}"
                    )));
                }
                self.end_step(t);
                if self.stop {
                    return Err(Refused::Stop);
                }
            }
            self.step_time = Some(time);
        }
        Ok(())
    }

    /// At the end of a time step: a rising edge in it is sampled now, after all its changes.
    fn end_step(&mut self, time: u64) {
        let clock = &self.current[0];
        let clock_now = clock.unknown.is_none() && clock.words.first() == Some(&1);
        if !self.clock_before && clock_now && !self.stop {
            emit(
                self.probes,
                &self.slots,
                &self.current,
                &self.dirty,
                &mut self.samples,
                &mut self.fresh,
            );
            self.dirty.fill(false);
            self.stats.last_time = time;
            let (edges, samples, fresh) = (self.stats.edges, &self.samples, &self.fresh);
            let on_edge = &mut self.on_edge;
            // Our own code: its panics are bugs, not a malformed file (see `contain`).
            let more = quiet(false, || on_edge(edges, time, samples, fresh));
            if !more {
                self.stop = true;
            }
            self.stats.edges += 1;
        }
        self.clock_before = clock_now;
    }

    /// The end of the file: its last step ends.
    pub(super) fn finish(mut self) -> WaveStats {
        if let (Some(t), false) = (self.step_time, self.stop) {
            self.end_step(t);
        }
        self.stats
    }
}

/// The VCD reader of [`crate::vcd`]: `Ok(None)` if its header is one to leave to wellen, else
/// what it read and whether the callback stopped it.
pub(super) fn stream_vcd<R: BufRead + Seek + Send>(
    input: &mut R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: &mut impl FnMut(u64, u64, &[Bits], &[u32]) -> bool,
) -> Result<Option<(WaveStats, bool)>, DiffError> {
    let Some(header) = vcd::read_header(input) else {
        return Ok(None);
    };
    let mut names = Names::new();
    for v in &header.vars {
        let name = match options.strip_prefix.as_deref() {
            Some(p) => v.name.strip_prefix(p).unwrap_or(&v.name),
            None => &v.name,
        };
        names
            .entry(name.to_string())
            .or_insert((v.id as usize, v.width));
    }
    own_trace_names(&mut names, options);
    let watch = watch(&names, file, options, probes)?;
    let mut widths = Vec::with_capacity(watch.keys.len());
    for &key in &watch.keys {
        let var = header
            .vars
            .iter()
            .find(|v| v.id as usize == key)
            .expect("a watched key is a declared id");
        if header.ambiguous.contains(&var.id) || var.kind == vcd::Kind::Event {
            return Ok(None);
        }
        if var.kind == vcd::Kind::RealOrString {
            return Err(DiffError::Wave {
                file: file.to_string(),
                message: format!(
                    "signal '{}' is a `$var {}`; the diff compares bit vectors",
                    var.name, var.tpe
                ),
            });
        }
        widths.push(var.width);
    }
    let lookup = vcd::Lookup::new(&watch.keys.iter().map(|&k| k as u64).collect::<Vec<_>>());
    struct Sink<'s, 'p, F> {
        sampler: &'s mut Sampler<'p, F>,
        widths: Vec<u32>,
    }
    impl<F: FnMut(u64, u64, &[Bits], &[u32]) -> bool> vcd::Sink for Sink<'_, '_, F> {
        #[inline]
        fn change(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
            match self.sampler.at(time) {
                Ok(()) => {}
                Err(Refused::Stop) => return Ok(false),
                Err(Refused::Backwards(m)) => return Err(m),
            }
            vcd::decode(value, self.widths[slot], &mut self.sampler.current[slot])?;
            self.sampler.dirty[slot] = true;
            Ok(true)
        }

        #[inline]
        fn change_packed(
            &mut self,
            time: u64,
            slot: usize,
            value: &[u8],
            word: u64,
        ) -> Result<bool, String> {
            let width = self.widths[slot];
            // `vcd::decode`'s answer for 2 to 64 bits and no more digits than bits: the
            // digits' value, zero-extended. Anything else goes through it.
            if !(2..=64).contains(&width) || value.len() - 1 > width as usize {
                return self.change(time, slot, value);
            }
            match self.sampler.at(time) {
                Ok(()) => {}
                Err(Refused::Stop) => return Ok(false),
                Err(Refused::Backwards(m)) => return Err(m),
            }
            self.sampler.current[slot].set_word(width, word);
            self.sampler.dirty[slot] = true;
            Ok(true)
        }

        #[inline]
        fn change_bit(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
            let width = self.widths[slot];
            // `vcd::decode`'s answer up to 64 bits: the digit's value, zero-extended.
            if width > 64 {
                return self.change(time, slot, value);
            }
            match self.sampler.at(time) {
                Ok(()) => {}
                Err(Refused::Stop) => return Ok(false),
                Err(Refused::Backwards(m)) => return Err(m),
            }
            self.sampler.current[slot].set_word(width, u64::from(value == b"1"));
            self.sampler.dirty[slot] = true;
            Ok(true)
        }
    }
    let mut sampler = Sampler::new(probes, watch, on_edge);
    let mut sink = Sink {
        sampler: &mut sampler,
        widths,
    };
    let plan = vcd::parallel::Plan::for_this_thread().map_err(DiffError::Invalid)?;
    vcd::stream_body_by(input, header.body_line, &lookup, &mut sink, plan).map_err(|message| {
        DiffError::Wave {
            file: file.to_string(),
            message,
        }
    })?;
    let stopped = sampler.stop;
    Ok(Some((sampler.finish(), stopped)))
}

pub(super) fn stream_edges<R: BufRead + Seek>(
    mut wave: stream::StreamingWaveform<R>,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: impl FnMut(u64, u64, &[Bits], &[u32]) -> bool,
) -> Result<WaveStats, DiffError> {
    let file = file.to_string();
    let mut names = signal_names(wave.hierarchy(), options.strip_prefix.as_deref());
    own_trace_names(&mut names, options);
    let watch = watch(&names, &file, options, probes)?;
    let refs: Vec<SignalRef> = watch
        .keys
        .iter()
        .map(|&k| SignalRef::from_index(k).expect("a signal index"))
        .collect();
    // Position of each watched signal in `refs`, by signal index (a table, not a hash map:
    // it is looked up on every value change).
    let mut slot_of: Vec<usize> =
        vec![usize::MAX; refs.iter().map(|r| r.index() + 1).max().unwrap_or(0)];
    for (i, r) in refs.iter().enumerate() {
        slot_of[r.index()] = i;
    }
    let mut sampler = Sampler::new(probes, watch, on_edge);
    let filter = Filter::include_signals(&refs);
    let streamed = contain(|| {
        wave.stream_changes(filter, |time, signal, value| {
            match sampler.at(time) {
                Ok(()) => {}
                Err(Refused::Stop) => return Err(DiffError::Invalid(String::new())),
                Err(Refused::Backwards(message)) => {
                    return Err(DiffError::Wave {
                        file: file.clone(),
                        message,
                    });
                }
            }
            if let Some(&i) = slot_of.get(signal.index())
                && i != usize::MAX
            {
                sampler.dirty[i] = true;
                decode_into(value, &mut sampler.current[i]).map_err(|message| DiffError::Wave {
                    file: file.clone(),
                    message: format!("at #{time}: {message}"),
                })?;
            }
            Ok(())
        })
    });
    let result = streamed.map_err(|message| DiffError::Wave {
        file: file.clone(),
        message,
    })?;
    match result {
        Ok(()) => {}
        // Stopped on purpose: the callback asked for no more edges.
        Err(stream::StreamError::Callback(_)) if sampler.stop => {}
        Err(stream::StreamError::Callback(e)) => return Err(e),
        Err(stream::StreamError::Wellen(e)) => {
            return Err(DiffError::Wave {
                file,
                message: one_line(&e.to_string()),
            });
        }
    }
    Ok(sampler.finish())
}

/// Samples the probes whose signal is `dirty` (the others keep their sample of an earlier
/// edge, which is still their value), listing them in `fresh`.
fn emit(
    probes: &[Probe],
    slots: &[usize],
    current: &[Bits],
    dirty: &[bool],
    out: &mut [Bits],
    fresh: &mut Vec<u32>,
) {
    fresh.clear();
    for (i, ((p, &slot), o)) in probes.iter().zip(slots).zip(out.iter_mut()).enumerate() {
        if !dirty[slot] {
            continue;
        }
        fresh.push(i as u32);
        match p.slice {
            // Field by field: a derived `clone_from` allocates a new vector every time.
            None => {
                let c = &current[slot];
                o.width = c.width;
                o.unknown = c.unknown;
                // One word (every field of a trace) without a call to copy it.
                if let ([w], [o]) = (c.words.as_slice(), o.words.as_mut_slice()) {
                    *o = *w;
                } else {
                    o.words.clear();
                    o.words.extend_from_slice(&c.words);
                }
            }
            Some(range) => slice_into(&current[slot], range, o),
        }
        p.unswap(o);
    }
}

/// Bits `[hi:lo]` of a value into `out`, reusing its buffer (called per probe per edge).
pub(super) fn slice_into(v: &Bits, (hi, lo): (u32, u32), out: &mut Bits) {
    let width = hi - lo + 1;
    out.width = width;
    out.unknown = v.unknown;
    out.words.clear();
    if v.unknown.is_some() {
        return;
    }
    let word = |i: usize| v.words.get(i).copied().unwrap_or(0);
    let shift = lo % 64;
    let first = (lo / 64) as usize;
    for k in 0..width.div_ceil(64) as usize {
        let low = word(first + k) >> shift;
        let high = if shift == 0 {
            0
        } else {
            word(first + k + 1) << (64 - shift)
        };
        out.words.push(low | high);
    }
    if width % 64 != 0 {
        let last = out.words.len() - 1;
        out.words[last] &= (1u64 << (width % 64)) - 1;
    }
}

/// Bits `[hi:lo]` of a value, bit by bit: the plain statement of what [`slice_into`] does.
#[cfg(test)]
pub(super) fn slice(v: &Bits, range: Option<(u32, u32)>) -> Bits {
    let Some((hi, lo)) = range else {
        return v.clone();
    };
    let width = hi - lo + 1;
    if v.unknown.is_some() {
        return Bits {
            words: vec![],
            width,
            unknown: v.unknown,
        };
    }
    let mut words = vec![0u64; width.div_ceil(64) as usize];
    for b in 0..width {
        let src = lo + b;
        let bit = v
            .words
            .get((src / 64) as usize)
            .map_or(0, |w| (w >> (src % 64)) & 1);
        words[(b / 64) as usize] |= bit << (b % 64);
    }
    Bits::known(words, width)
}
