//! FST sampling (issue 34): the watched signals' value changes decoded from the file's
//! value-change blocks by our own decoder ([`block`]), straight into the sampler's words.
//! fst-reader's `read_signals` expands every two-state value into ASCII digits, one byte per
//! bit, which the diff then packed back into words: 60% of an FST diff's time.
//!
//! What we read ourselves: the block structure and geometry ([`layout`]); VCDATA,
//! VCDATA_DYN_ALIAS and VCDATA_DYN_ALIAS2 blocks (every position-table encoding, aliased
//! signals), wave data packed with zlib, FastLZ or LZ4 or stored as is ([`unpack`]), the time
//! table and the frame of initial values. What we leave to fst-reader: opening the file and
//! its hierarchy (names, widths, handles), and the whole value read of a file our decoder
//! does not take (gzip-wrapped, unfinished, an unknown block type, a watched signal whose
//! geometry is not the bit vector its declaration says): the [`Route::FstReader`] path,
//! which our decoder is tested against. Either samples the same edges: the frame is used for
//! the first block only when its first time step is later, as fst-reader does.
//!
//! Only plain hierarchies are read here (scopes and bit-vector variables, names without a
//! blank or a dot, at most one `[msb:lsb]` suffix of the declared width, no attributes but
//! source locations, no arrays or enums); for anything else [`stream_fst`] answers `None`
//! and the caller reads the file with wellen, which names signals the same way (scope names
//! joined with `.`, the range suffix dropped).

use std::io::{BufRead, Seek, SeekFrom};

use fst_reader::{
    FstFilter, FstHierarchyEntry, FstReader, FstSignalHandle, FstSignalValue, FstVarType,
    ReadSignalsError,
};

mod block;
mod layout;
mod unpack;

use block::{Apply, Decoder};
use layout::Layout;

use super::contain::{contain, one_line};
use super::sampler::{Names, Refused, Sampler, own_trace_names, watch};
use super::{Bits, Probe, WaveOptions, WaveStats};
use crate::error::DiffError;
use crate::vcd;

/// Why the value callback stopped the reader.
enum Stopped {
    /// The caller asked for no more edges.
    Done,
    /// A malformed change: the message.
    Bad(String),
}

/// The signals of a plain hierarchy by full name (handle index, width) and which handles are
/// bit vectors; `None` for a hierarchy to leave to wellen.
fn hierarchy<R: BufRead + Seek>(
    reader: &mut FstReader<R>,
    strip: Option<&str>,
) -> Result<Option<(Names, Vec<bool>)>, String> {
    let mut names = Names::new();
    let mut vectors: Vec<bool> = Vec::new();
    let mut scopes: Vec<String> = Vec::new();
    let mut plain = true;
    reader
        .read_hierarchy(|entry| match entry {
            FstHierarchyEntry::Scope { name, .. } => {
                plain &= !name.is_empty() && !name.contains(['.', ' ', '[']);
                scopes.push(name);
            }
            FstHierarchyEntry::UpScope => {
                scopes.pop();
            }
            FstHierarchyEntry::Var {
                tpe,
                name,
                length,
                handle,
                ..
            } => {
                let Some(leaf) = leaf_name(&name, length) else {
                    plain = false;
                    return;
                };
                let mut full = scopes.join(".");
                if !full.is_empty() {
                    full.push('.');
                }
                full.push_str(leaf);
                let key = match strip {
                    Some(p) => full.strip_prefix(p).unwrap_or(&full).to_string(),
                    None => full,
                };
                let i = handle.get_index();
                if vectors.len() <= i {
                    vectors.resize(i + 1, false);
                }
                vectors[i] = length > 0
                    && !tpe.is_real()
                    && !matches!(tpe, FstVarType::GenericString | FstVarType::Event);
                names.entry(key).or_insert((i, length));
            }
            FstHierarchyEntry::Comment { .. }
            | FstHierarchyEntry::PathName { .. }
            | FstHierarchyEntry::SourceStem { .. } => {}
            _ => plain = false,
        })
        .map_err(|e| one_line(&e.to_string()))?;
    Ok(plain.then_some((names, vectors)))
}

/// Which reader samples the value changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// Our block decoder ([`block`]), or fst-reader for a file it leaves alone.
    Ours,
    /// fst-reader's `read_signals` (the reference our decoder is tested against).
    #[cfg_attr(not(test), expect(dead_code))]
    FstReader,
}

/// Samples `probes` at the rising edges of an FST; `Ok(None)`: a file for wellen (see the
/// module's documentation), nothing read yet.
pub(super) fn stream_fst<R: BufRead + Seek>(
    input: &mut R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: &mut impl FnMut(u64, u64, &[Bits], &[u32]) -> bool,
) -> Result<Option<WaveStats>, DiffError> {
    stream_fst_by(input, file, options, probes, on_edge, Route::Ours)
}

/// [`stream_fst`] through the reader `route` names.
pub(super) fn stream_fst_by<R: BufRead + Seek>(
    input: &mut R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: &mut impl FnMut(u64, u64, &[Bits], &[u32]) -> bool,
    route: Route,
) -> Result<Option<WaveStats>, DiffError> {
    let malformed = |message: String| DiffError::Wave {
        file: file.to_string(),
        message,
    };
    let mut reader = contain(|| FstReader::open(&mut *input))
        .map_err(malformed)?
        .map_err(|e| malformed(one_line(&e.to_string())))?;
    let found = contain(|| hierarchy(&mut reader, options.strip_prefix.as_deref()))
        .map_err(malformed)?
        .map_err(malformed)?;
    let Some((mut names, vectors)) = found else {
        return Ok(None);
    };
    own_trace_names(&mut names, options);
    let watch = watch(&names, file, options, probes)?;
    if watch.keys.iter().any(|&k| !vectors[k]) {
        return Ok(None);
    }
    let widths: Vec<u32> = watch.keys.iter().map(|&k| width_of(&names, k)).collect();
    drop(reader);
    let keys = watch.keys.clone();
    let decoder = match route {
        Route::Ours => Layout::read(input)
            .map_err(malformed)?
            .and_then(|layout| Decoder::new(layout, keys.clone(), widths.clone())),
        Route::FstReader => None,
    };
    let mut sampler = Sampler::new(probes, watch, on_edge);
    if let Some(mut decoder) = decoder {
        decoder
            .run(input, &mut ToSampler(&mut sampler))
            .map_err(malformed)?;
        return Ok(Some(sampler.finish()));
    }
    // fst-reader reads the block type where the input stands: at the start, as at first.
    input
        .seek(SeekFrom::Start(0))
        .map_err(|e| malformed(e.to_string()))?;
    let mut reader = contain(|| FstReader::open(&mut *input))
        .map_err(malformed)?
        .map_err(|e| malformed(one_line(&e.to_string())))?;
    read_signals(&mut reader, &mut sampler, &keys, &widths, vectors.len()).map_err(malformed)?;
    Ok(Some(sampler.finish()))
}

/// The sampler as our decoder drives it.
struct ToSampler<'s, 'p, F>(&'s mut Sampler<'p, F>);

impl<F: FnMut(u64, u64, &[Bits], &[u32]) -> bool> Apply for ToSampler<'_, '_, F> {
    #[inline]
    fn at(&mut self, time: u64) -> Result<bool, String> {
        match self.0.at(time) {
            Ok(()) => Ok(true),
            Err(Refused::Stop) => Ok(false),
            Err(Refused::Backwards(m)) => Err(m),
        }
    }

    #[inline]
    fn value(&mut self, slot: usize) -> &mut Bits {
        self.0.dirty[slot] = true;
        &mut self.0.current[slot]
    }
}

/// The watched signals' changes through fst-reader's `read_signals` (as ASCII digits).
fn read_signals<R: BufRead + Seek, F: FnMut(u64, u64, &[Bits], &[u32]) -> bool>(
    reader: &mut FstReader<R>,
    sampler: &mut Sampler<'_, F>,
    keys: &[usize],
    widths: &[u32],
    handles: usize,
) -> Result<(), String> {
    let mut slot_of = vec![usize::MAX; handles];
    for (slot, &k) in keys.iter().enumerate() {
        slot_of[k] = slot;
    }
    let handles = keys
        .iter()
        .map(|&k| FstSignalHandle::from_index(k))
        .collect();
    let filter = FstFilter::filter_signals(handles);
    let read = contain(|| {
        reader.read_signals(&filter, |time, handle, value| {
            match sampler.at(time) {
                Ok(()) => {}
                Err(Refused::Stop) => return Err(Stopped::Done),
                Err(Refused::Backwards(m)) => return Err(Stopped::Bad(m)),
            }
            let slot = slot_of[handle.get_index()];
            let FstSignalValue::String(digits) = value else {
                return Err(Stopped::Bad("a real value on a bit vector".into()));
            };
            let width = widths[slot];
            let current = &mut sampler.current[slot];
            match vcd::scan_binary(digits, 0) {
                // A two-state value of one word, one digit per bit (every change of a trace):
                // `vcd::decode`'s answer, packed eight digits at a time.
                (end, Some(word)) if end == digits.len() && end == width as usize => {
                    current.unknown = None;
                    current.width = width;
                    current.words.clear();
                    current.words.push(word);
                }
                _ => vcd::decode(digits, width, current).map_err(Stopped::Bad)?,
            }
            sampler.dirty[slot] = true;
            Ok(())
        })
    })?;
    match read {
        Ok(()) | Err(ReadSignalsError::CallbackError(Stopped::Done)) => Ok(()),
        Err(ReadSignalsError::CallbackError(Stopped::Bad(m))) => Err(m),
        Err(ReadSignalsError::ReadError(e)) => Err(one_line(&e.to_string())),
    }
}

/// A variable's name as wellen names it, where that is plain: `name`, or `name [7:0]` /
/// `name[3]` (Icarus, GTKWave) with a range as wide as the variable, the range dropped.
fn leaf_name(name: &str, length: u32) -> Option<&str> {
    let simple = |n: &str| !n.is_empty() && !n.contains(['.', ' ', '[', ']']);
    let Some(open) = name.rfind('[') else {
        return simple(name).then_some(name);
    };
    let base = name[..open].trim_end_matches(' ');
    let range = name[open + 1..].strip_suffix(']')?;
    let bit = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let (msb, lsb) = match range.split_once(':') {
        Some((m, l)) => (bit(m)?, bit(l)?),
        None => (bit(range)?, bit(range)?),
    };
    (simple(base) && msb.abs_diff(lsb).checked_add(1) == Some(length)).then_some(base)
}

/// The width of the signal with handle index `k`.
fn width_of(names: &Names, k: usize) -> u32 {
    names.values().find(|(i, _)| *i == k).map_or(1, |(_, w)| *w)
}

#[cfg(test)]
mod tests;
