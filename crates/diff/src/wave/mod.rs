//! Reading an RTL simulation's waveform (VCD or FST, told apart by content) as one sample per
//! rising clock edge, streaming: only the current value of each watched signal is held, so a
//! simulation of millions of cycles reads in constant memory.

use std::fs::File;
use std::io::{self, BufRead, Seek, SeekFrom};
use std::path::Path;

use wellen::LoadOptions;
use wellen::stream;

pub use crate::bits::Bits;
use crate::error::DiffError;
pub use crate::options::WaveOptions;

mod contain;
mod counted;
mod fst;
mod pipe;
mod precheck;
mod sampler;
mod scan;
mod wellen_values;

use contain::{contain, one_line};
use counted::Counted;
use precheck::{check_vcd_times, precheck};
use sampler::{stream_edges, stream_vcd};
pub(crate) use scan::{Scan, SignalKey};

/// One signal (or bit slice of one) to watch, named as in the waveform after the prefix is
/// stripped, e.g. `tb.dut.state` with slice `Some((63, 0))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Hierarchical signal name.
    pub signal: String,
    /// Bit slice `[hi:lo]`, or the whole signal.
    pub slice: Option<(u32, u32)>,
    /// The word (64 bits for Skein, 32 for Shabal) holds its bytes in the other order (map
    /// `"byteswap": true`): samples are given swapped back, in the trace's order.
    pub byteswap: bool,
}

impl Probe {
    /// Parses `name` or `name[hi:lo]` or `name[bit]`.
    pub fn parse(text: &str) -> Result<Probe, String> {
        let text = text.trim();
        let Some(open) = text.rfind('[') else {
            return Ok(Probe {
                signal: text.to_string(),
                slice: None,
                byteswap: false,
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
            byteswap: false,
        })
    }

    /// The width of the samples of this probe on a signal of `width` bits.
    pub fn width(&self, width: u32) -> u32 {
        self.slice.map_or(width, |(hi, lo)| hi - lo + 1)
    }

    /// Puts a sample of this probe in the trace's byte order (swaps a `byteswap` probe's
    /// known value: a 32-bit sample's four bytes, any other's eight; anything else is left as
    /// it is).
    pub fn unswap(&self, b: &mut Bits) {
        if self.byteswap
            && b.unknown.is_none()
            && let Some(w) = b.words.first_mut()
        {
            *w = if b.width == 32 {
                u64::from((*w as u32).swap_bytes())
            } else {
                w.swap_bytes()
            };
        }
    }
}

/// What reading a waveform found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaveStats {
    /// Rising clock edges seen.
    pub edges: u64,
    /// Time of the last edge.
    pub last_time: u64,
}

/// The widest signal the diff watches, in bits. Values are held as 64-bit words sized from the
/// declared width, so a file declaring `$var wire 4294967295` would cost gigabytes; the trace's
/// fields are at most 64 bits, and a whole register of the widest design (Skein-1024's state,
/// key and tweak in every pipeline slot) stays far below this.
pub const MAX_SIGNAL_WIDTH: u32 = 1 << 16;

/// Calls `on_edge(edge_index, time, samples)` for every rising edge of the clock, with the
/// probes' values after the edge (at the end of the edge's time step, when nonblocking
/// assignments have landed). `on_edge` returns `false` to stop reading. With cores enough,
/// the file is read in a thread of its own, `on_edge` called in the caller's ([`pipe`]).
///
/// A damaged file is an error naming it, never a panic: the waveform readers' own panics are
/// contained and reported as a malformed file (issue 16).
pub fn sample_rising_edges(
    path: &Path,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError> {
    let file = path.display().to_string();
    let input = File::open(path).map_err(|e| DiffError::Io {
        file: file.clone(),
        message: if e.kind() == io::ErrorKind::NotFound {
            "no such file".into()
        } else {
            e.to_string()
        },
    })?;
    if input.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(DiffError::Io {
            file,
            message: "is a directory, not a waveform".into(),
        });
    }
    let input = Counted::new(input, options.progress.clone());
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < pipe::CORES {
        let input = io::BufReader::new(input);
        return sample_rising_edges_from(input, &file, options, probes, on_edge);
    }
    pipe::sample_in_thread(path.to_path_buf(), input, &file, options, probes, on_edge)
}

/// [`sample_rising_edges`] on any seekable input; `file` names it in errors.
pub fn sample_rising_edges_from<R>(
    input: R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError>
where
    R: BufRead + Seek + Send + Sync + 'static,
{
    sample_from(input, file, options, probes, true, plain(on_edge))
}

/// [`sample_rising_edges_from`] with wellen reading a VCD too: the oracle the tests hold our
/// own VCD reader to.
#[doc(hidden)]
pub fn sample_rising_edges_with_wellen_from<R>(
    input: R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError>
where
    R: BufRead + Seek + Send + Sync + 'static,
{
    sample_from(input, file, options, probes, false, plain(on_edge))
}

/// A caller's edge callback as the readers call it (they also say which samples are new).
fn plain(
    mut on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> impl FnMut(u64, u64, &[Bits], &[u32]) -> bool {
    move |edge, time, samples, _| on_edge(edge, time, samples)
}

fn sample_from<R>(
    mut input: R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    ours: bool,
    mut on_edge: impl FnMut(u64, u64, &[Bits], &[u32]) -> bool,
) -> Result<WaveStats, DiffError>
where
    R: BufRead + Seek + Send + Sync + 'static,
{
    let malformed = |message: String| DiffError::Wave {
        file: file.to_string(),
        message,
    };
    let fst = precheck(&mut input, !ours).map_err(malformed)?;
    if ours && fst {
        let start = input
            .stream_position()
            .map_err(|e| malformed(e.to_string()))?;
        if let Some(stats) = fst::stream_fst(&mut input, file, options, probes, &mut on_edge)? {
            return Ok(stats);
        }
        input
            .seek(SeekFrom::Start(start))
            .map_err(|e| malformed(e.to_string()))?;
    }
    if ours && !fst {
        let read = stream_vcd(&mut input, file, options, probes, &mut on_edge)?;
        // Our reader checked the time order of what it read: the rest of a file it stopped
        // early in (or one whose header it leaves to wellen) is checked here, in one pass.
        if read.as_ref().is_none_or(|(_, stopped)| *stopped) {
            let rewind = |input: &mut R| {
                input
                    .seek(SeekFrom::Start(0))
                    .map(|_| ())
                    .map_err(|e| malformed(e.to_string()))
            };
            rewind(&mut input)?;
            check_vcd_times(&mut input).map_err(malformed)?;
            rewind(&mut input)?;
        }
        if let Some((stats, _)) = read {
            return Ok(stats);
        }
    }
    let load = LoadOptions {
        multi_thread: false,
        remove_scopes_with_empty_name: false,
    };
    let opened = contain(|| stream::read(input, &load)).map_err(malformed)?;
    let wave = opened.map_err(|e| malformed(one_line(&e.to_string())))?;
    stream_edges(wave, file, options, probes, on_edge)
}

#[cfg(test)]
mod tests {
    use super::sampler::{slice, slice_into};
    use super::*;

    #[test]
    fn time_going_backwards_is_found_on_its_line() {
        let head = "$var wire 1 ! clk $end\n$enddefinitions $end\n";
        let check = |body: &str| check_vcd_times(&mut format!("{head}{body}").as_bytes());
        assert_eq!(check("#0\n1!\n#10\nb101 #5\n  #20\n0!\n"), Ok(()));
        assert_eq!(
            check("#0\n1!\n#10\nb1 !\n\t#5\n"),
            Err("line 7: time goes backwards: #5 after #10".into())
        );
        assert!(
            check("#99999999999999999999\n")
                .unwrap_err()
                .contains("line 3")
        );
    }

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
