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
    // The current value of each watched signal, as 4-state bit strings would be too slow:
    // known words plus an unknown marker.
    let mut current: Vec<Bits> = refs.iter().map(|_| Bits::known(vec![], 0)).collect();
    let mut clock_high = None::<bool>;
    let mut pending_edge: Option<u64> = None;
    let mut stats = WaveStats::default();
    let mut stop = false;
    let mut samples: Vec<Bits> = Vec::with_capacity(probes.len());
    let filter = Filter::include_signals(&refs);
    let result = wave.stream_time_steps(filter, |time, values, changed| {
        if stop {
            return Ok::<(), DiffError>(());
        }
        // An edge seen in an earlier time step is sampled before this step's changes.
        if let Some(edge_time) = pending_edge.take() {
            emit(probes, &slots, &current, &mut samples);
            stats.last_time = edge_time;
            if !on_edge(stats.edges, edge_time, &samples) {
                stop = true;
            }
            stats.edges += 1;
        }
        for r in changed {
            let i = refs.iter().position(|x| x == r).expect("filtered signal");
            if let Some(v) = values.get(r) {
                current[i] = decode(v);
            }
        }
        let high = current[0].unknown.is_none() && current[0].words.first().copied() == Some(1);
        if changed.contains(&clock) {
            if clock_high == Some(false) && high {
                pending_edge = Some(time);
            }
            clock_high = Some(high);
        }
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(stream::StreamError::Callback(e)) => return Err(e),
        Err(stream::StreamError::Wellen(e)) => {
            return Err(DiffError::Wave {
                file,
                message: one_line(&e.to_string()),
            });
        }
    }
    if let (Some(edge_time), false) = (pending_edge, stop) {
        emit(probes, &slots, &current, &mut samples);
        stats.last_time = edge_time;
        on_edge(stats.edges, edge_time, &samples);
        stats.edges += 1;
    }
    Ok(stats)
}

fn emit(probes: &[Probe], slots: &[usize], current: &[Bits], out: &mut Vec<Bits>) {
    out.clear();
    for (p, &slot) in probes.iter().zip(slots) {
        out.push(slice(&current[slot], p.slice));
    }
}

/// Bits `[hi:lo]` of a value.
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

fn decode(v: SignalValueRef<'_>) -> Bits {
    match v {
        SignalValueRef::BitVec(bv) => {
            let width = bv.width();
            let mut words = vec![0u64; width.div_ceil(64).max(1) as usize];
            if let Some(bytes) = bv.be_bytes() {
                // Two-state values (Verilator, or a 4-state file with no x/z here): packed
                // big-endian bytes.
                for (i, b) in bytes.iter().rev().enumerate() {
                    let pos = i * 8;
                    if pos < words.len() * 64 {
                        words[pos / 64] |= u64::from(*b) << (pos % 64);
                    }
                }
                return Bits::known(words, width);
            }
            let mut unknown = None;
            for (i, bit) in bv.iter_msb_to_lsb().enumerate() {
                let pos = width - 1 - i as u32;
                match bit.as_ascii() {
                    '0' => {}
                    '1' => words[(pos / 64) as usize] |= 1 << (pos % 64),
                    c => {
                        unknown.get_or_insert(c);
                    }
                }
            }
            Bits {
                words,
                width,
                unknown,
            }
        }
        SignalValueRef::Event => Bits::known(vec![1], 1),
        SignalValueRef::String(_) | SignalValueRef::Real(_) => Bits {
            words: vec![],
            width: 0,
            unknown: Some('?'),
        },
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
