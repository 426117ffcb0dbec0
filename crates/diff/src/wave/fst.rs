//! FST read straight through `fst-reader` (issue 34): the watched signals' value changes come
//! as ASCII digits and are decoded once, into [`Bits`], by the VCD reader's decoder. Through
//! wellen's stream every change was first packed into wellen's own encoding and then decoded
//! again, which made an FST diff three times slower than the VCD diff of the same trace.
//!
//! Only plain hierarchies are read here (scopes and bit-vector variables, no attributes,
//! arrays, enums or names with a range or a blank in them); for anything else
//! [`stream_fst`] answers `None` and the caller reads the file with wellen, which names
//! signals the same way (scope names joined with `.`).

use std::io::{BufRead, Seek};

use fst_reader::{
    FstFilter, FstHierarchyEntry, FstReader, FstSignalHandle, FstSignalValue, FstVarType,
    ReadSignalsError,
};

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
                plain &= !name.is_empty() && !name.contains(['.', ' ', '[']);
                let mut full = scopes.join(".");
                if !full.is_empty() {
                    full.push('.');
                }
                full.push_str(&name);
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
            FstHierarchyEntry::Comment { .. } => {}
            _ => plain = false,
        })
        .map_err(|e| one_line(&e.to_string()))?;
    Ok(plain.then_some((names, vectors)))
}

/// Samples `probes` at the rising edges of an FST; `Ok(None)`: a file for wellen (see the
/// module's documentation), nothing read yet.
pub(super) fn stream_fst<R: BufRead + Seek>(
    input: R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: &mut impl FnMut(u64, u64, &[Bits], &[u32]) -> bool,
) -> Result<Option<WaveStats>, DiffError> {
    let malformed = |message: String| DiffError::Wave {
        file: file.to_string(),
        message,
    };
    let mut reader = contain(|| FstReader::open(input))
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
    let handles: Vec<FstSignalHandle> = watch
        .keys
        .iter()
        .map(|&k| FstSignalHandle::from_index(k))
        .collect();
    let mut slot_of = vec![usize::MAX; vectors.len()];
    for (slot, &k) in watch.keys.iter().enumerate() {
        slot_of[k] = slot;
    }
    let widths: Vec<u32> = watch.keys.iter().map(|&k| width_of(&names, k)).collect();
    let mut sampler = Sampler::new(probes, watch, on_edge);
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
    })
    .map_err(malformed)?;
    match read {
        Ok(()) | Err(ReadSignalsError::CallbackError(Stopped::Done)) => {}
        Err(ReadSignalsError::CallbackError(Stopped::Bad(m))) => return Err(malformed(m)),
        Err(ReadSignalsError::ReadError(e)) => return Err(malformed(one_line(&e.to_string()))),
    }
    Ok(Some(sampler.finish()))
}

/// The width of the signal with handle index `k`.
fn width_of(names: &Names, k: usize) -> u32 {
    names.values().find(|(i, _)| *i == k).map_or(1, |(_, w)| *w)
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use skeinhw_sched::preset;
    use skeinhw_sched::sim::{Job, simulate};
    use skeinhw_trace::{FstWriter, names};

    use super::super::{sample_rising_edges_from, sample_rising_edges_with_wellen_from};
    use super::*;

    type Edges = Vec<(u64, u64, Vec<Bits>)>;

    /// Every trace field of a two-block ath-1r trace, at every edge, through `read`.
    fn edges(
        fst: &[u8],
        read: impl Fn(
            BufReader<Cursor<Vec<u8>>>,
            &WaveOptions,
            &[Probe],
            &mut dyn FnMut(u64, u64, &[Bits]) -> bool,
        ) -> WaveStats,
    ) -> (Edges, WaveStats) {
        let probes: Vec<Probe> = names::signals(8, 1)
            .iter()
            .map(|s| Probe::parse(&format!("skeinhw.{}", s.name)).unwrap())
            .collect();
        let options = WaveOptions {
            clock: "skeinhw.clk".into(),
            strip_prefix: None,
        };
        let mut out = Vec::new();
        let stats = read(
            BufReader::new(Cursor::new(fst.to_vec())),
            &options,
            &probes,
            &mut |e, t, s| {
                out.push((e, t, s.to_vec()));
                true
            },
        );
        (out, stats)
    }

    #[test]
    fn fst_reads_as_wellen_reads_it() {
        let mut w = FstWriter::new(Cursor::new(Vec::new()));
        let message = [7u8; 100];
        simulate(
            &preset("ath-1r").unwrap(),
            &[Job::bytes(&message, 512, Default::default())],
            &mut w,
        )
        .unwrap();
        let fst = w.into_inner().unwrap().into_inner();
        let ours = edges(&fst, |r, o, p, f| {
            sample_rising_edges_from(r, "t.fst", o, p, f).unwrap()
        });
        let theirs = edges(&fst, |r, o, p, f| {
            sample_rising_edges_with_wellen_from(r, "t.fst", o, p, f).unwrap()
        });
        assert!(ours.0.len() > 100);
        assert_eq!(ours, theirs);
        // Stopped early, it stops.
        let mut n = 0;
        let stats = sample_rising_edges_from(
            BufReader::new(Cursor::new(fst.clone())),
            "t.fst",
            &WaveOptions {
                clock: "clk".into(),
                strip_prefix: None,
            },
            &[Probe::parse("slot0_state_0").unwrap()],
            |_, _, _| {
                n += 1;
                n < 5
            },
        )
        .unwrap();
        assert_eq!((n, stats.edges), (5, 5));
    }
}
