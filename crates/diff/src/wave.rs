//! Reading an RTL simulation's waveform (VCD or FST, told apart by content) as one sample per
//! rising clock edge, streaming: only the current value of each watched signal is held, so a
//! simulation of millions of cycles reads in constant memory.

use std::collections::HashMap;
use std::path::Path;

use wellen::stream::{self, Filter};
use wellen::{LoadOptions, SignalRef, SignalValueRef};

use crate::error::DiffError;

/// A value read from the waveform: the bits of a signal slice, least significant word first,
/// or the first X/Z (or other non-binary) state seen in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    /// Bits, least significant 64-bit word first.
    pub words: Vec<u64>,
    /// Width in bits.
    pub width: u32,
    /// The first non-binary state (x, z, ...) in the slice, if any: then `words` is
    /// meaningless.
    pub unknown: Option<char>,
}

impl Bits {
    /// A known value of `width` bits.
    pub fn known(words: Vec<u64>, width: u32) -> Bits {
        Bits {
            words,
            width,
            unknown: None,
        }
    }

    /// The value as hex digits (most significant first), or the bit string with x/z.
    pub fn to_hex(&self) -> String {
        if let Some(c) = self.unknown {
            return format!("{c} (not a known value)");
        }
        let digits = self.width.div_ceil(4) as usize;
        let mut s = String::with_capacity(digits);
        for i in (0..digits).rev() {
            let word = self.words.get(i / 16).copied().unwrap_or(0);
            let nibble = (word >> ((i % 16) * 4)) & 0xf;
            s.push(char::from_digit(nibble as u32, 16).expect("nibble"));
        }
        s
    }
}

/// One signal (or bit slice of one) to watch, named as in the waveform after the prefix is
/// stripped, e.g. `tb.dut.state` with slice `Some((63, 0))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Hierarchical signal name.
    pub signal: String,
    /// Bit slice `[hi:lo]`, or the whole signal.
    pub slice: Option<(u32, u32)>,
}

impl Probe {
    /// Parses `name` or `name[hi:lo]` or `name[bit]`.
    pub fn parse(text: &str) -> Result<Probe, String> {
        let text = text.trim();
        let Some(open) = text.rfind('[') else {
            return Ok(Probe {
                signal: text.to_string(),
                slice: None,
            });
        };
        let inner = text[open + 1..]
            .strip_suffix(']')
            .ok_or_else(|| format!("'{text}': a slice must end with ']'"))?;
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{text}': '{s}' is not a bit index"))
        };
        let (hi, lo) = match inner.split_once(':') {
            Some((h, l)) => (num(h)?, num(l)?),
            None => (num(inner)?, num(inner)?),
        };
        if hi < lo {
            return Err(format!("'{text}': slice [{hi}:{lo}] must be [high:low]"));
        }
        Ok(Probe {
            signal: text[..open].to_string(),
            slice: Some((hi, lo)),
        })
    }
}

/// How to read the waveform.
#[derive(Clone, Debug, Default)]
pub struct WaveOptions {
    /// Clock signal name (after prefix stripping).
    pub clock: String,
    /// A prefix removed from every signal name of the file before matching (Verilator adds
    /// `TOP.`).
    pub strip_prefix: Option<String>,
}

/// What reading a waveform found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaveStats {
    /// Rising clock edges seen.
    pub edges: u64,
    /// Time of the last edge.
    pub last_time: u64,
}

/// Calls `on_edge(edge_index, time, samples)` for every rising edge of the clock, with the
/// probes' values after the edge (at the end of the edge's time step, when nonblocking
/// assignments have landed). `on_edge` returns `false` to stop reading.
pub fn sample_rising_edges(
    path: &Path,
    options: &WaveOptions,
    probes: &[Probe],
    mut on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError> {
    let file = path.display().to_string();
    if !path.exists() {
        return Err(DiffError::Io {
            file,
            message: "no such file".into(),
        });
    }
    let load = LoadOptions {
        multi_thread: false,
        remove_scopes_with_empty_name: false,
    };
    let mut wave = stream::read_from_file(path, &load).map_err(|e| DiffError::Wave {
        file: file.clone(),
        message: one_line(&e.to_string()),
    })?;
    let names = signal_names(wave.hierarchy(), options.strip_prefix.as_deref());
    let resolve = |name: &str| -> Result<(SignalRef, u32), DiffError> {
        names
            .get(name)
            .copied()
            .ok_or_else(|| DiffError::MissingSignal {
                file: file.clone(),
                signal: name.to_string(),
                hint: near_names(&names, name),
            })
    };
    let (clock, _) = resolve(&options.clock)?;
    let mut refs = vec![clock];
    let mut slots = Vec::with_capacity(probes.len());
    for p in probes {
        let (r, width) = resolve(&p.signal)?;
        if let Some((hi, _)) = p.slice.filter(|(hi, _)| *hi >= width) {
            {
                return Err(DiffError::MissingSignal {
                    file: file.clone(),
                    signal: format!("{}[{hi}:..]", p.signal),
                    hint: format!("{} has {width} bits", p.signal),
                });
            }
        }
        if !refs.contains(&r) {
            refs.push(r);
        }
        slots.push(refs.iter().position(|x| *x == r).expect("just added"));
    }
    // Position of each watched signal in `refs`, by signal index (a table, not a hash map:
    // it is looked up on every value change).
    let mut slot_of: Vec<usize> =
        vec![usize::MAX; refs.iter().map(|r| r.index() + 1).max().unwrap_or(0)];
    for (i, r) in refs.iter().enumerate() {
        slot_of[r.index()] = i;
    }
    // The current value of each watched signal, updated in place.
    let mut current: Vec<Bits> = refs.iter().map(|_| Bits::known(vec![], 0)).collect();
    let mut samples: Vec<Bits> = probes.iter().map(|_| Bits::known(vec![], 0)).collect();
    let mut step_time: Option<u64> = None;
    // The clock at the end of the previous time step.
    let mut clock_before = false;
    let mut stats = WaveStats::default();
    let mut stop = false;
    // At the end of a time step: a rising edge in it is sampled now, after all its changes.
    let mut end_step = |time: u64, current: &[Bits], samples: &mut Vec<Bits>, stop: &mut bool| {
        let clock_now = current[0].unknown.is_none() && current[0].words.first() == Some(&1);
        if !clock_before && clock_now && !*stop {
            emit(probes, &slots, current, samples);
            stats.last_time = time;
            if !on_edge(stats.edges, time, samples) {
                *stop = true;
            }
            stats.edges += 1;
        }
        clock_before = clock_now;
    };
    let filter = Filter::include_signals(&refs);
    let result = wave.stream_changes(filter, |time, signal, value| {
        if stop {
            return Err(DiffError::Invalid(String::new()));
        }
        if step_time != Some(time) {
            if let Some(t) = step_time {
                end_step(t, &current, &mut samples, &mut stop);
                if stop {
                    return Err(DiffError::Invalid(String::new()));
                }
            }
            step_time = Some(time);
        }
        if let Some(&i) = slot_of.get(signal.index())
            && i != usize::MAX
        {
            decode_into(value, &mut current[i]);
        }
        Ok(())
    });
    match result {
        Ok(()) => {}
        // Stopped on purpose: the callback asked for no more edges.
        Err(stream::StreamError::Callback(_)) if stop => {}
        Err(stream::StreamError::Callback(e)) => return Err(e),
        Err(stream::StreamError::Wellen(e)) => {
            return Err(DiffError::Wave {
                file,
                message: one_line(&e.to_string()),
            });
        }
    }
    if let (Some(t), false) = (step_time, stop) {
        end_step(t, &current, &mut samples, &mut stop);
    }
    Ok(stats)
}

fn emit(probes: &[Probe], slots: &[usize], current: &[Bits], out: &mut [Bits]) {
    for ((p, &slot), o) in probes.iter().zip(slots).zip(out.iter_mut()) {
        match p.slice {
            None => o.clone_from(&current[slot]),
            Some(range) => slice_into(&current[slot], range, o),
        }
    }
}

/// Bits `[hi:lo]` of a value into `out`, reusing its buffer (called per probe per edge).
fn slice_into(v: &Bits, (hi, lo): (u32, u32), out: &mut Bits) {
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
fn slice(v: &Bits, range: Option<(u32, u32)>) -> Bits {
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

/// Decodes a value change into `b`, reusing its buffer.
fn decode_into(v: SignalValueRef<'_>, b: &mut Bits) {
    b.unknown = None;
    b.words.clear();
    match v {
        SignalValueRef::BitVec(bv) => {
            let width = bv.width();
            b.width = width;
            b.words.resize(width.div_ceil(64).max(1) as usize, 0);
            if let Some(bytes) = bv.be_bytes() {
                // Two-state values: packed big-endian bytes.
                for (i, byte) in bytes.iter().rev().enumerate() {
                    let pos = i * 8;
                    if pos < b.words.len() * 64 {
                        b.words[pos / 64] |= u64::from(*byte) << (pos % 64);
                    }
                }
                return;
            }
            for (i, bit) in bv.iter_msb_to_lsb().enumerate() {
                let pos = width - 1 - i as u32;
                match bit.as_ascii() {
                    '0' => {}
                    '1' => b.words[(pos / 64) as usize] |= 1 << (pos % 64),
                    c => {
                        b.unknown.get_or_insert(c);
                    }
                }
            }
        }
        SignalValueRef::Event => {
            b.width = 1;
            b.words.push(1);
        }
        SignalValueRef::String(_) | SignalValueRef::Real(_) => {
            b.width = 0;
            b.unknown = Some('?');
        }
    }
}

/// Every variable's full name (with the prefix stripped) and its width.
fn signal_names(h: &wellen::Hierarchy, strip: Option<&str>) -> HashMap<String, (SignalRef, u32)> {
    let mut out = HashMap::new();
    for var_ref in h.all_vars() {
        let var = &h[var_ref];
        let full = var.full_name(h);
        let name = match strip {
            Some(p) => full.strip_prefix(p).unwrap_or(&full).to_string(),
            None => full.clone(),
        };
        let width = var.length(h).unwrap_or(1);
        out.entry(name).or_insert((var.signal_ref(), width));
    }
    out
}

/// A hint listing signals whose names end like the one asked for.
fn near_names(names: &HashMap<String, (SignalRef, u32)>, wanted: &str) -> String {
    let leaf = wanted.rsplit('.').next().unwrap_or(wanted);
    let mut near: Vec<&str> = names
        .keys()
        .filter(|n| n.rsplit('.').next() == Some(leaf))
        .map(String::as_str)
        .collect();
    near.sort();
    near.truncate(3);
    if near.is_empty() {
        format!("{} signals in the file", names.len())
    } else {
        format!("did you mean {}?", near.join(", "))
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slicing_into_a_buffer_agrees_with_bit_by_bit() {
        let v = Bits::known(
            vec![
                0x0123_4567_89ab_cdef,
                0xfedc_ba98_7654_3210,
                0x5555_aaaa_f0f0_0f0f,
            ],
            192,
        );
        let mut out = Bits::known(vec![7, 7, 7, 7], 3);
        for lo in [0, 1, 31, 63, 64, 65, 100, 127, 128, 191] {
            for hi in [lo, lo + 1, lo + 62, lo + 63, lo + 64, lo + 100, 191] {
                if hi < lo || hi > 191 {
                    continue;
                }
                slice_into(&v, (hi, lo), &mut out);
                assert_eq!(out, slice(&v, Some((hi, lo))), "[{hi}:{lo}]");
            }
        }
    }
}
