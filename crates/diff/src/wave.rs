//! Reading an RTL simulation's waveform (VCD or FST, told apart by content) as one sample per
//! rising clock edge, streaming: only the current value of each watched signal is held, so a
//! simulation of millions of cycles reads in constant memory.

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

use wellen::stream::{self, Filter};
use wellen::{LoadOptions, ScopeType, SignalRef, SignalValueRef, VarType};

use crate::error::DiffError;
use crate::vcd;

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

/// The widest signal the diff watches, in bits. Values are held as 64-bit words sized from the
/// declared width, so a file declaring `$var wire 4294967295` would cost gigabytes; the trace's
/// fields are at most 64 bits, and a whole register of the widest design (Skein-1024's state,
/// key and tweak in every pipeline slot) stays far below this.
pub const MAX_SIGNAL_WIDTH: u32 = 1 << 16;

/// Calls `on_edge(edge_index, time, samples)` for every rising edge of the clock, with the
/// probes' values after the edge (at the end of the edge's time step, when nonblocking
/// assignments have landed). `on_edge` returns `false` to stop reading.
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
    sample_rising_edges_from(BufReader::new(input), &file, options, probes, on_edge)
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
    sample_from(input, file, options, probes, true, on_edge)
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
    sample_from(input, file, options, probes, false, on_edge)
}

fn sample_from<R>(
    mut input: R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    ours: bool,
    mut on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError>
where
    R: BufRead + Seek + Send + Sync + 'static,
{
    let malformed = |message: String| DiffError::Wave {
        file: file.to_string(),
        message,
    };
    let fst = precheck(&mut input, !ours).map_err(malformed)?;
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

/// Checks what the waveform readers would loop on, allocate without bound for, or misread,
/// before they see the file: an FST whose block lengths leave the file (the format detection
/// walks them forever) or whose counts exceed what their bytes can hold; a VCD whose time goes
/// backwards, or whose last line is cut off (its last value would be read as a wrong value).
/// Answers whether the file is an FST. `times`: check a VCD's time order too (a pass over the
/// whole file; our own reader checks it as it reads).
fn precheck(input: &mut (impl BufRead + Seek), times: bool) -> Result<bool, String> {
    let io = |e: io::Error| e.to_string();
    let len = input.seek(SeekFrom::End(0)).map_err(io)?;
    input.seek(SeekFrom::Start(0)).map_err(io)?;
    if len == 0 {
        return Err("empty file".into());
    }
    let mut first = [0u8; 1];
    input.read_exact(&mut first).map_err(io)?;
    let fst = is_fst_block_type(first[0]);
    if fst {
        check_fst_blocks(input, len)?;
    } else {
        if times {
            input.seek(SeekFrom::Start(0)).map_err(io)?;
            check_vcd_times(input)?;
        }
        let mut last = [0u8; 1];
        input.seek(SeekFrom::End(-1)).map_err(io)?;
        input.read_exact(&mut last).map_err(io)?;
        if last[0] != b'\n' {
            return Err(format!(
                "truncated: the last line (ending at byte {len}) is cut off before its newline"
            ));
        }
    }
    input.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(fst)
}

/// Refuses a VCD whose time goes backwards: wellen skips such a step with a warning on
/// standard output, and the diff would compare what is left as if the file were well formed.
/// One pass over the bytes, in constant memory: a `#` at the start of a line (after
/// `$enddefinitions`) starts a time stamp.
fn check_vcd_times(input: &mut impl BufRead) -> Result<(), String> {
    const END_DEFS: &[u8] = b"$enddefinitions";
    let mut matched = 0; // bytes of END_DEFS matched so far
    let mut in_body = false;
    let mut line = 1u64;
    let mut line_start = true;
    let mut stamp: Option<u64> = None; // digits of the time stamp being read
    let mut previous: Option<u64> = None;
    loop {
        let chunk = input.fill_buf().map_err(|e| e.to_string())?;
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        let mut i = 0;
        while i < n {
            if in_body && stamp.is_none() && !line_start {
                // Inside a line that is not a time stamp: only its newline matters.
                match memchr::memchr(b'\n', &chunk[i..]) {
                    Some(k) => i += k,
                    None => break,
                }
            }
            let b = chunk[i];
            i += 1;
            if !in_body {
                matched = if b == END_DEFS[matched] {
                    matched + 1
                } else {
                    usize::from(b == END_DEFS[0])
                };
                in_body = matched == END_DEFS.len();
            } else if let Some(t) = stamp {
                if b.is_ascii_digit() {
                    stamp = t
                        .checked_mul(10)
                        .and_then(|t| t.checked_add(u64::from(b - b'0')));
                    if stamp.is_none() {
                        return Err(format!("line {line}: time stamp beyond 64 bits"));
                    }
                } else {
                    if let Some(p) = previous.filter(|&p| t < p) {
                        return Err(format!("line {line}: time goes backwards: #{t} after #{p}"));
                    }
                    previous = Some(t);
                    stamp = None;
                }
            } else if line_start && b == b'#' {
                stamp = Some(0);
            }
            if b == b'\n' {
                line += 1;
            }
            line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t' || b == b'\r'));
        }
        input.consume(n);
    }
    Ok(())
}

/// The counts and lengths fst-reader allocates from before it reads what they count, bounded
/// by what the block's bytes can hold: geometry and hierarchy (their unpacked length and the
/// geometry's signal count), the header's signal counts, the blackout count, and a value-change
/// block's time table (found by `fuzz/`'s `wave` target: 6 GB and 6 PB from 700-byte files).
fn check_fst_sizes(
    input: &mut (impl Read + Seek),
    block: u8,
    at: u64,
    section: u64,
    len: u64,
) -> Result<(), String> {
    let most = section.saturating_mul(MAX_EXPANSION);
    let mut u64_at = |offset: u64| -> Result<u64, String> {
        let mut b = [0u8; 8];
        input
            .seek(SeekFrom::Start(at + 1 + offset))
            .and_then(|_| input.read_exact(&mut b))
            .map_err(|_| "fields past the end of the file".to_string())?;
        Ok(u64::from_be_bytes(b))
    };
    let bounded = |what: &str, n: u64, limit: u64| {
        if n > limit {
            Err(format!("{n} {what} in {section} bytes"))
        } else {
            Ok(())
        }
    };
    match block {
        // Header: var_count and max_var_id_code size the signal tables; each signal needs
        // at least a byte of (compressed) hierarchy somewhere in the file.
        0 => {
            let file_most = len.saturating_mul(MAX_EXPANSION);
            bounded("signals", u64_at(48)?, file_most)?;
            bounded("signal ids", u64_at(56)?, file_most)?;
        }
        // Value changes: the time table's three lengths are the section's last 24 bytes.
        1 | 5 | 8 => {
            if section < 32 {
                return Err(format!("a value-change block of {section} bytes"));
            }
            let unpacked = u64_at(section - 24)?;
            let packed = u64_at(section - 16)?;
            let items = u64_at(section - 8)?;
            bounded("bytes of packed time table", packed, section - 32)?;
            bounded(
                "bytes of time table",
                unpacked,
                packed.saturating_mul(MAX_EXPANSION),
            )?;
            bounded("time steps", items, unpacked)?;
            // The chain of value-change offsets ends where the time table starts.
            let chain = u64_at(section - 24 - packed - 8)?;
            bounded("bytes of value-change chain", chain, section)?;
            // The frame (every signal's value at the block's start), then the signal count.
            input
                .seek(SeekFrom::Start(at + 1 + 32))
                .map_err(|e| e.to_string())?;
            let frame_unpacked = read_varint(input)?;
            let frame_packed = read_varint(input)?;
            let frame_signals = read_varint(input)?;
            bounded("bytes of packed frame", frame_packed, section)?;
            bounded(
                "bytes of frame",
                frame_unpacked,
                frame_packed.saturating_mul(MAX_EXPANSION),
            )?;
            bounded("frame signals", frame_signals, frame_unpacked)?;
            input
                .seek(SeekFrom::Current(frame_packed as i64))
                .map_err(|e| e.to_string())?;
            bounded("value-change signals", read_varint(input)?, most)?;
        }
        // A gzip-wrapped file: its unpacked length.
        254 => bounded("bytes unpacked", u64_at(8)?, most)?,
        // Blackout: a variable-length count of (at least two-byte) entries.
        2 => {
            input
                .seek(SeekFrom::Start(at + 9))
                .map_err(|e| e.to_string())?;
            bounded("blackouts", read_varint(input)?, section)?;
        }
        // Geometry and hierarchy: the unpacked length, then (geometry) the signal count.
        3 | 4 | 6 | 7 => {
            let unpacked = u64_at(8)?;
            bounded("bytes unpacked", unpacked, most)?;
            if block == 3 {
                bounded("signals", u64_at(16)?, unpacked)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// An FST variable-length integer (LEB128, at most 64 bits).
fn read_varint(input: &mut impl Read) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let mut b = [0u8; 1];
        input
            .read_exact(&mut b)
            .map_err(|_| "fields past the end of the file".to_string())?;
        value |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a number longer than 64 bits".into())
}

/// The block types of FST (fst-reader's `BlockType`): a VCD never starts with one of these bytes.
fn is_fst_block_type(b: u8) -> bool {
    matches!(b, 0..=8 | 254 | 255)
}

/// The most a compressed FST block can expand: zlib's limit is about 1032 to 1, LZ4's 255.
const MAX_EXPANSION: u64 = 1100;

/// Walks the FST blocks as the format detection does (type byte, big-endian length that counts
/// itself) and refuses a length that does not move forward, which would make it loop.
fn check_fst_blocks(input: &mut (impl Read + Seek), len: u64) -> Result<(), String> {
    let mut at = 0u64;
    while at < len {
        input.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
        let mut head = [0u8; 9];
        if input.read_exact(&mut head).is_err() || !is_fst_block_type(head[0]) {
            break;
        }
        let section = u64::from_be_bytes(head[1..].try_into().expect("8 bytes"));
        if head[0] == 254 || (head[0] == 255 && section == 0) {
            break;
        }
        if section < 8 || section > len {
            return Err(format!(
                "FST block at byte {at} has length {section}, outside the file's {len} bytes"
            ));
        }
        check_fst_sizes(input, head[0], at, section, len)
            .map_err(|what| format!("FST block at byte {at} declares {what}: corrupt"))?;
        at += 1 + section;
    }
    Ok(())
}

/// A name's signal key (wellen's signal index, or the VCD id number) and declared width.
type Names = HashMap<String, (usize, u32)>;

/// The watched signals: `keys[0]` is the clock, `slots[p]` the position in `keys` of probe
/// `p`'s signal (several probes may share one signal).
struct Watch {
    keys: Vec<usize>,
    slots: Vec<usize>,
}

/// Finds the clock and every probe's signal by name, checking widths and slices.
fn watch(
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
enum Refused {
    /// The callback asked for no more edges.
    Stop,
    /// A time stamp before the step's.
    Backwards(String),
}

/// Turns value changes into one sample per rising clock edge, shared by both readers so that
/// they sample alike: a time step ends when a change of a later time arrives (or the file
/// ends); a rising edge in it is sampled then, after all of its changes.
struct Sampler<'p, F> {
    probes: &'p [Probe],
    slots: Vec<usize>,
    /// The current value of each watched signal (the clock first), updated in place.
    current: Vec<Bits>,
    /// Which of `current` changed since the last edge's samples were made: only their
    /// probes are sampled again (most registers hold their value on most edges).
    dirty: Vec<bool>,
    samples: Vec<Bits>,
    step_time: Option<u64>,
    /// The clock at the end of the previous time step.
    clock_before: bool,
    stats: WaveStats,
    stop: bool,
    on_edge: F,
}

impl<'p, F: FnMut(u64, u64, &[Bits]) -> bool> Sampler<'p, F> {
    fn new(probes: &'p [Probe], watch: Watch, on_edge: F) -> Self {
        Sampler {
            probes,
            current: watch.keys.iter().map(|_| Bits::known(vec![], 0)).collect(),
            dirty: vec![true; watch.keys.len()],
            samples: probes.iter().map(|_| Bits::known(vec![], 0)).collect(),
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
    fn at(&mut self, time: u64) -> Result<(), Refused> {
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
            );
            self.dirty.fill(false);
            self.stats.last_time = time;
            let (edges, samples, on_edge) = (self.stats.edges, &self.samples, &mut self.on_edge);
            // Our own code: its panics are bugs, not a malformed file (see `contain`).
            let more = quiet(false, || on_edge(edges, time, samples));
            if !more {
                self.stop = true;
            }
            self.stats.edges += 1;
        }
        self.clock_before = clock_now;
    }

    /// The end of the file: its last step ends.
    fn finish(mut self) -> WaveStats {
        if let (Some(t), false) = (self.step_time, self.stop) {
            self.end_step(t);
        }
        self.stats
    }
}

/// The VCD reader of [`crate::vcd`]: `Ok(None)` if its header is one to leave to wellen, else
/// what it read and whether the callback stopped it.
fn stream_vcd<R: BufRead + Seek>(
    input: &mut R,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: &mut impl FnMut(u64, u64, &[Bits]) -> bool,
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
    impl<F: FnMut(u64, u64, &[Bits]) -> bool> vcd::Sink for Sink<'_, '_, F> {
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
            let b = &mut self.sampler.current[slot];
            b.unknown = None;
            b.width = width;
            if let [w] = b.words.as_mut_slice() {
                *w = word;
            } else {
                b.words.clear();
                b.words.push(word);
            }
            self.sampler.dirty[slot] = true;
            Ok(true)
        }
    }
    let mut sampler = Sampler::new(probes, watch, on_edge);
    let mut sink = Sink {
        sampler: &mut sampler,
        widths,
    };
    vcd::stream_body(input, header.body_line, &lookup, &mut sink).map_err(|message| {
        DiffError::Wave {
            file: file.to_string(),
            message,
        }
    })?;
    let stopped = sampler.stop;
    Ok(Some((sampler.finish(), stopped)))
}

fn stream_edges<R: BufRead + Seek>(
    mut wave: stream::StreamingWaveform<R>,
    file: &str,
    options: &WaveOptions,
    probes: &[Probe],
    on_edge: impl FnMut(u64, u64, &[Bits]) -> bool,
) -> Result<WaveStats, DiffError> {
    let file = file.to_string();
    let names = signal_names(wave.hierarchy(), options.strip_prefix.as_deref());
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

thread_local! {
    /// True while a waveform reader runs under [`contain`]: its panics are reported as a
    /// malformed file, so the panic hook stays silent.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the panic hook silenced (`true`) or not, restoring the previous setting.
fn quiet<T>(on: bool, f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.set(self.0);
        }
    }
    let _restore = Restore(QUIET.replace(on));
    f()
}

/// Runs a waveform reader, turning its panics (wellen and fst-reader `panic!`, `todo!`,
/// `assert!` on input they did not expect) into a one-line message. A panic while the caller's
/// own callback runs (under `quiet(false, ..)`: the hook reports it) is ours and goes on
/// unwinding.
fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                READER_PANICKED.set(true);
            } else {
                previous(info);
            }
        }));
    });
    READER_PANICKED.set(false);
    match quiet(true, || panic::catch_unwind(AssertUnwindSafe(f))) {
        Ok(v) => Ok(v),
        Err(payload) if !READER_PANICKED.get() => panic::resume_unwind(payload),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            let mut what = one_line(&what);
            if what.len() > 200 {
                let mut end = 200;
                while !what.is_char_boundary(end) {
                    end -= 1;
                }
                what.truncate(end);
                what.push_str("...");
            }
            Err(format!("malformed (the reader stopped: {what})"))
        }
    }
}

thread_local! {
    /// Set by the panic hook when it stays silent: the panic came from a waveform reader.
    static READER_PANICKED: Cell<bool> = const { Cell::new(false) };
}

/// Samples the probes whose signal is `dirty` (the others keep their sample of an earlier
/// edge, which is still their value).
fn emit(probes: &[Probe], slots: &[usize], current: &[Bits], dirty: &[bool], out: &mut [Bits]) {
    for ((p, &slot), o) in probes.iter().zip(slots).zip(out.iter_mut()) {
        if !dirty[slot] {
            continue;
        }
        match p.slice {
            // Field by field: a derived `clone_from` allocates a new vector every time.
            None => {
                let c = &current[slot];
                o.width = c.width;
                o.unknown = c.unknown;
                o.words.clear();
                o.words.extend_from_slice(&c.words);
            }
            Some(range) => slice_into(&current[slot], range, o),
        }
        p.unswap(o);
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
fn decode_into(v: SignalValueRef<'_>, b: &mut Bits) -> Result<(), String> {
    b.unknown = None;
    b.words.clear();
    match v {
        SignalValueRef::BitVec(bv) => {
            let width = bv.width();
            if width == 0 || width > MAX_SIGNAL_WIDTH {
                return Err(format!("a value of {width} bits"));
            }
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
                return Ok(());
            }
            for (i, bit) in bv.iter_msb_to_lsb().enumerate() {
                let Some(pos) = (width - 1).checked_sub(i as u32) else {
                    break;
                };
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
    Ok(())
}

/// Every variable's full name (with the prefix stripped) and its width.
fn signal_names(h: &wellen::Hierarchy, strip: Option<&str>) -> Names {
    let mut out = HashMap::new();
    for var_ref in h.all_vars() {
        let var = &h[var_ref];
        let full = var.full_name(h);
        let name = match strip {
            Some(p) => full.strip_prefix(p).unwrap_or(&full).to_string(),
            None => full.clone(),
        };
        let width = var.length(h).unwrap_or(1);
        out.entry(name).or_insert((var.signal_ref().index(), width));
    }
    out
}

/// A hint listing signals whose names end like the one asked for.
fn near_names(names: &Names, wanted: &str) -> String {
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

/// A signal of a waveform as `skeinhw map` keys it: the VCD id number with our reader,
/// wellen's signal index with wellen. Variables that are one signal share it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SignalKey(usize);

impl SignalKey {
    /// The key as a number (a table index).
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

/// A variable of a waveform as `skeinhw map` sees it.
pub(crate) struct ScanVar {
    /// Full hierarchical name.
    pub name: String,
    /// Declared width (1 for a real or string).
    pub width: u32,
    /// A net (wire, tri, port, wand, wor) rather than a register.
    pub net: bool,
    /// Declared inside a function or task: a scratch copy, not a place.
    pub in_function: bool,
    /// Its signal.
    pub key: SignalKey,
}

/// A waveform opened for `skeinhw map`'s search: every variable, then every value change of
/// the signals asked for. A VCD is read by our own reader (as the diff reads it); an FST, or
/// a VCD whose header our reader leaves alone, by wellen.
pub(crate) enum Scan {
    Ours {
        input: BufReader<File>,
        header: vcd::Header,
        vars: Vec<ScanVar>,
    },
    Wellen {
        stream: stream::StreamingWaveform<BufReader<File>>,
        vars: Vec<ScanVar>,
    },
}

impl Scan {
    /// Opens `path`, naming it `file` in errors.
    pub(crate) fn open(path: &Path, file: &str) -> Result<Scan, DiffError> {
        let wave_error = |message: String| DiffError::Wave {
            file: file.to_string(),
            message,
        };
        let mut input = File::open(path)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .map_err(|e| wave_error(e.to_string()))?;
        let fst = precheck(&mut input, false).map_err(wave_error)?;
        if !fst
            && let Some(header) = vcd::read_header(&mut input)
            && header.ambiguous.is_empty()
            && header.vars.iter().all(|v| v.kind == vcd::Kind::Bits)
        {
            let vars = header
                .vars
                .iter()
                .map(|v| ScanVar {
                    name: v.name.clone(),
                    width: v.width,
                    net: matches!(v.tpe.as_str(), "wire" | "tri" | "port" | "wand" | "wor"),
                    in_function: v.in_function,
                    key: SignalKey(v.id as usize),
                })
                .collect();
            return Ok(Scan::Ours {
                input,
                header,
                vars,
            });
        }
        let load = LoadOptions {
            multi_thread: false,
            remove_scopes_with_empty_name: false,
        };
        let stream = stream::read_from_file(path, &load)
            .map_err(|e| wave_error(e.to_string().replace('\n', " ")))?;
        let h = stream.hierarchy();
        // A function's or task's variables (Icarus dumps them) are scratch copies.
        let mut scratch = std::collections::HashSet::new();
        let mut scopes: Vec<wellen::ScopeRef> = h.scopes().collect();
        while let Some(sr) = scopes.pop() {
            let scope = &h[sr];
            if matches!(
                scope.scope_type(),
                ScopeType::Function
                    | ScopeType::Task
                    | ScopeType::VhdlFunction
                    | ScopeType::VhdlProcedure
            ) {
                scratch.extend(scope.all_vars(h));
            } else {
                scopes.extend(scope.scopes(h));
            }
        }
        let vars = h
            .all_vars()
            .map(|var_ref| {
                let var = &h[var_ref];
                ScanVar {
                    name: var.full_name(h),
                    width: var.length(h).unwrap_or(1),
                    net: matches!(
                        var.var_type(),
                        VarType::Wire | VarType::Tri | VarType::Port | VarType::WAnd | VarType::WOr
                    ),
                    in_function: scratch.contains(&var_ref),
                    key: SignalKey(var.signal_ref().index()),
                }
            })
            .collect();
        Ok(Scan::Wellen { stream, vars })
    }

    /// Every variable, in declaration order.
    pub(crate) fn vars(&self) -> &[ScanVar] {
        match self {
            Scan::Ours { vars, .. } | Scan::Wellen { vars, .. } => vars,
        }
    }

    /// Calls `on_change(time, signal, words)` for every value change of the signals `watch`,
    /// `words` its value least significant word first, or `None` if it is not a known value
    /// (X, Z, ...). An error of `on_change` ends the reading and is returned.
    pub(crate) fn stream(
        self,
        file: &str,
        watch: &[SignalKey],
        mut on_change: impl FnMut(u64, SignalKey, Option<&[u64]>) -> Result<(), DiffError>,
    ) -> Result<(), DiffError> {
        let wave_error = |message: String| DiffError::Wave {
            file: file.to_string(),
            message,
        };
        match self {
            Scan::Ours {
                mut input, header, ..
            } => {
                let ids: Vec<u64> = watch.iter().map(|k| k.0 as u64).collect();
                let widths: Vec<u32> = watch
                    .iter()
                    .map(|k| {
                        header
                            .vars
                            .iter()
                            .find(|v| v.id as usize == k.0)
                            .map_or(1, |v| v.width)
                    })
                    .collect();
                struct Sink<'a, F> {
                    keys: &'a [SignalKey],
                    widths: Vec<u32>,
                    value: Bits,
                    on_change: F,
                    failed: Option<DiffError>,
                }
                impl<F> vcd::Sink for Sink<'_, F>
                where
                    F: FnMut(u64, SignalKey, Option<&[u64]>) -> Result<(), DiffError>,
                {
                    fn change(
                        &mut self,
                        time: u64,
                        slot: usize,
                        value: &[u8],
                    ) -> Result<bool, String> {
                        vcd::decode(value, self.widths[slot], &mut self.value)?;
                        let words = self
                            .value
                            .unknown
                            .is_none()
                            .then_some(self.value.words.as_slice());
                        match (self.on_change)(time, self.keys[slot], words) {
                            Ok(()) => Ok(true),
                            Err(e) => {
                                self.failed = Some(e);
                                Ok(false)
                            }
                        }
                    }
                }
                let mut sink = Sink {
                    keys: watch,
                    widths,
                    value: Bits::known(vec![], 0),
                    on_change,
                    failed: None,
                };
                let lookup = vcd::Lookup::new(&ids);
                vcd::stream_body(&mut input, header.body_line, &lookup, &mut sink)
                    .map_err(wave_error)?;
                match sink.failed {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
            Scan::Wellen { mut stream, .. } => {
                let refs: Vec<SignalRef> = watch
                    .iter()
                    .map(|k| SignalRef::from_index(k.0).expect("a signal index"))
                    .collect();
                let filter = Filter::include_signals(&refs);
                let mut words = Vec::new();
                let result = stream.stream_changes(filter, |time, signal, value| {
                    let known = decode_words(value, &mut words);
                    on_change(
                        time,
                        SignalKey(signal.index()),
                        known.then_some(words.as_slice()),
                    )
                });
                match result {
                    Ok(()) => Ok(()),
                    Err(stream::StreamError::Callback(e)) => Err(e),
                    Err(stream::StreamError::Wellen(e)) => {
                        Err(wave_error(e.to_string().replace('\n', " ")))
                    }
                }
            }
        }
    }
}

/// Decodes a value change into little-endian words; `false` if it is not a known value.
fn decode_words(v: SignalValueRef<'_>, words: &mut Vec<u64>) -> bool {
    words.clear();
    match v {
        SignalValueRef::BitVec(bv) => {
            let width = bv.width();
            words.resize(width.div_ceil(64).max(1) as usize, 0);
            if let Some(bytes) = bv.be_bytes() {
                for (i, byte) in bytes.iter().rev().enumerate() {
                    let pos = i * 8;
                    if pos < words.len() * 64 {
                        words[pos / 64] |= u64::from(*byte) << (pos % 64);
                    }
                }
                return true;
            }
            for (i, bit) in bv.iter_msb_to_lsb().enumerate() {
                let pos = width - 1 - i as u32;
                match bit.as_ascii() {
                    '0' => {}
                    '1' => words[(pos / 64) as usize] |= 1 << (pos % 64),
                    _ => return false,
                }
            }
            true
        }
        SignalValueRef::Event => {
            words.push(1);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
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
