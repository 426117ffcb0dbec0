//! Shabal traces: the signal names of a Shabal core (the generated Verilog names its registers
//! after them), the values of one cycle, and the JSONL and VCD writers and the JSONL reader.
//!
//! Signals, in VCD order: `clk`, `phase` (0 idle, 1 message, 2 final), `out_valid`,
//! `out_stream`, `out_data_0..` (digest words, only meaningful while `out_valid`), `valid`,
//! `stream`, `block` (pass index in the message), `iteration` (iterations of P done in the
//! pass), `w` (64-bit block counter), `a_0..a_11`, `b_0..b_15`, `c_0..c_15`, `m_0..m_15`.
//!
//! A JSONL record line (words as 8-digit hex, `w` as 16):
//! ```text
//! {"cycle":1,"valid":true,"stream":0,"phase":"message","block":0,"iteration":4,
//!  "w":"0000000000000001","a":[…12…],"b":[…16…],"c":[…16…],"m":[…16…],"out":null}
//! ```
//! `out` is `{"stream":0,"data":[…digest words…]}` in the cycle the digest is complete.

use std::io::{self, BufRead, Seek, Write};

use serde::{Deserialize, Serialize};
use skeinhw_sched::shabal::sim::{
    SHABAL_TRACE_SCHEMA_VERSION, ShabalCycleRecord, ShabalOutput, ShabalPhase, ShabalSink,
    ShabalTraceHeader,
};
use skeinhw_shabal::State;
use skeinhw_shabal::constants::{A_WORDS, BLOCK_WORDS};

use crate::error::TraceError;
use crate::fst::FstFormat;
use crate::jsonl::read_line_bounded;
use crate::names::{self, Signal};
use crate::vcd::VcdFormat;
use crate::wave::{Edges, WaveFormat};

/// Width of a Shabal word.
pub const WORD_BITS: u32 = 32;
/// Width of the block counter W.
pub const COUNTER_BITS: u32 = 64;
/// Width of the iteration counter (48 < 256).
pub const ITERATION_BITS: u32 = 8;

/// The valid bit of the datapath.
pub const VALID: &str = "valid";

/// Register `x_i` of state part `part` (`a`, `b`, `c`, `m`).
pub fn word(part: &str, i: usize) -> String {
    format!("{part}_{i}")
}

/// The state parts and their word counts, in declaration order.
pub const PARTS: [(&str, usize); 4] = [
    ("a", A_WORDS),
    ("b", BLOCK_WORDS),
    ("c", BLOCK_WORDS),
    ("m", BLOCK_WORDS),
];

/// Every signal of a Shabal trace with `out_words` digest words.
pub fn signals(out_words: usize) -> Vec<Signal> {
    let mut v = vec![
        Signal::new(names::CLK, 1),
        Signal::new(names::PHASE, names::PHASE_BITS),
        Signal::new(names::OUT_VALID, 1),
        Signal::new(names::OUT_STREAM, names::STREAM_BITS).qualified_by(names::OUT_VALID),
    ];
    v.extend(
        (0..out_words)
            .map(|w| Signal::new(names::out_data(w), WORD_BITS).qualified_by(names::OUT_VALID)),
    );
    v.extend([
        Signal::new(VALID, 1),
        Signal::new("stream", names::STREAM_BITS),
        Signal::new("block", names::INDEX_BITS),
        Signal::new("iteration", ITERATION_BITS),
        Signal::new("w", COUNTER_BITS),
    ]);
    for (part, n) in PARTS {
        v.extend((0..n).map(|i| Signal::new(word(part, i), WORD_BITS)));
    }
    v
}

/// Index of the first output line after `clk`, `phase`, `out_valid`.
const OUT_STREAM_INDEX: usize = 3;

/// The value of every signal of [`signals`] for one cycle, in the same order. The output lines
/// are all ones (don't-care) while no output is valid.
pub fn values(r: &ShabalCycleRecord, out_words: usize, out: &mut Vec<u64>) {
    out.clear();
    out.push(1);
    out.push(u64::from(r.phase.code()));
    match &r.out {
        Some(o) => {
            out.push(1);
            out.push(u64::from(o.stream));
            out.extend(o.data[..out_words].iter().map(|&w| u64::from(w)));
        }
        None => {
            out.push(0);
            out.extend(std::iter::repeat_n(u64::MAX, 1 + out_words));
        }
    }
    out.push(u64::from(r.valid));
    out.push(u64::from(r.stream));
    out.push(r.block);
    out.push(u64::from(r.iteration));
    out.push(r.state.w);
    let s = &r.state;
    for part in [&s.a[..], &s.b[..], &s.c[..], &s.m[..]] {
        out.extend(part.iter().map(|&w| u64::from(w)));
    }
}

// ---- JSONL --------------------------------------------------------------------------------

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonOutput {
    stream: u32,
    data: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRecord {
    cycle: u64,
    valid: bool,
    stream: u32,
    phase: ShabalPhase,
    block: u64,
    iteration: u32,
    w: String,
    a: Vec<String>,
    b: Vec<String>,
    c: Vec<String>,
    m: Vec<String>,
    out: Option<JsonOutput>,
}

fn hex32(words: &[u32]) -> Vec<String> {
    words.iter().map(|w| format!("{w:08x}")).collect()
}

fn parse32<const N: usize>(field: &str, words: &[String]) -> Result<[u32; N], String> {
    if words.len() != N {
        return Err(format!("`{field}` has {} words, expected {N}", words.len()));
    }
    let mut out = [0; N];
    for (o, w) in out.iter_mut().zip(words) {
        *o = (w.len() == 8)
            .then(|| u32::from_str_radix(w, 16).ok())
            .flatten()
            .ok_or_else(|| format!("`{field}`: `{w}` is not an 8-digit hex word"))?;
    }
    Ok(out)
}

impl JsonRecord {
    fn of(r: &ShabalCycleRecord, out_words: usize) -> JsonRecord {
        JsonRecord {
            cycle: r.cycle,
            valid: r.valid,
            stream: r.stream,
            phase: r.phase,
            block: r.block,
            iteration: r.iteration,
            w: crate::hex::word(r.state.w),
            a: hex32(&r.state.a),
            b: hex32(&r.state.b),
            c: hex32(&r.state.c),
            m: hex32(&r.state.m),
            out: r.out.map(|o| JsonOutput {
                stream: o.stream,
                data: hex32(&o.data[..out_words]),
            }),
        }
    }

    fn record(self, out_words: usize) -> Result<ShabalCycleRecord, String> {
        let w = crate::hex::parse_word(&self.w)
            .ok_or_else(|| format!("`w`: `{}` is not a 16-digit hex word", self.w))?;
        let out = match self.out {
            None => None,
            Some(o) => {
                if o.data.len() != out_words {
                    return Err(format!(
                        "`out.data` has {} words, expected {out_words}",
                        o.data.len()
                    ));
                }
                let mut data = [0; BLOCK_WORDS];
                for (d, w) in data.iter_mut().zip(&o.data) {
                    *d = parse32::<1>("out.data", std::slice::from_ref(w))?[0];
                }
                Some(ShabalOutput {
                    stream: o.stream,
                    data,
                })
            }
        };
        Ok(ShabalCycleRecord {
            cycle: self.cycle,
            valid: self.valid,
            stream: self.stream,
            phase: self.phase,
            block: self.block,
            iteration: self.iteration,
            state: State {
                a: parse32("a", &self.a)?,
                b: parse32("b", &self.b)?,
                c: parse32("c", &self.c)?,
                m: parse32("m", &self.m)?,
                w,
            },
            out,
        })
    }
}

/// Writes a Shabal JSONL trace to `W` (give it a buffered writer).
#[derive(Debug)]
pub struct ShabalJsonlWriter<W: Write> {
    out: W,
    out_words: usize,
}

impl<W: Write> ShabalJsonlWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        ShabalJsonlWriter { out, out_words: 0 }
    }

    /// The inner writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> ShabalSink for ShabalJsonlWriter<W> {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.out_words = header.output_words();
        serde_json::to_writer(&mut self.out, header).map_err(io::Error::other)?;
        self.out.write_all(b"\n")
    }

    fn cycle(&mut self, r: &ShabalCycleRecord) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, &JsonRecord::of(r, self.out_words))
            .map_err(io::Error::other)?;
        self.out.write_all(b"\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Reads a Shabal JSONL trace: the header, then records one by one.
#[derive(Debug)]
pub struct ShabalJsonlReader<R: BufRead> {
    input: R,
    header: ShabalTraceHeader,
    line: String,
    line_number: usize,
}

impl<R: BufRead> ShabalJsonlReader<R> {
    /// Reads the header line.
    pub fn new(mut input: R) -> Result<Self, TraceError> {
        let mut line = String::new();
        if !read_line_bounded(&mut input, &mut line, 1)? {
            return Err(TraceError::Jsonl {
                line: 1,
                message: "empty file: expected the header line".into(),
            });
        }
        let header: ShabalTraceHeader =
            serde_json::from_str(line.trim_end()).map_err(|e| TraceError::Jsonl {
                line: 1,
                message: format!("not a Shabal trace header: {e}"),
            })?;
        if header.schema_version != SHABAL_TRACE_SCHEMA_VERSION {
            return Err(TraceError::Jsonl {
                line: 1,
                message: format!(
                    "schema version {} (this program reads {SHABAL_TRACE_SCHEMA_VERSION})",
                    header.schema_version
                ),
            });
        }
        Ok(ShabalJsonlReader {
            input,
            header,
            line,
            line_number: 1,
        })
    }

    /// The header.
    pub fn header(&self) -> &ShabalTraceHeader {
        &self.header
    }
}

impl<R: BufRead> Iterator for ShabalJsonlReader<R> {
    type Item = Result<ShabalCycleRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.line_number += 1;
        let line = self.line_number;
        match read_line_bounded(&mut self.input, &mut self.line, line) {
            Ok(false) => return None,
            Ok(true) => {}
            Err(e) => return Some(Err(e)),
        }
        let parsed = serde_json::from_str::<JsonRecord>(self.line.trim_end())
            .map_err(|e| e.to_string())
            .and_then(|r| r.record(self.header.output_words()));
        Some(parsed.map_err(|message| TraceError::Jsonl { line, message }))
    }
}

// ---- VCD and FST --------------------------------------------------------------------------

/// A Shabal trace in a waveform format: the output lines hold while no output is valid.
struct ShabalWave<F> {
    edges: Edges<F>,
    values: Vec<u64>,
    out_words: usize,
}

impl<F: WaveFormat> ShabalWave<F> {
    fn new(format: F) -> Self {
        ShabalWave {
            edges: Edges::new(format),
            values: Vec::new(),
            out_words: 0,
        }
    }

    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.out_words = header.output_words();
        let json = serde_json::to_string(header).map_err(io::Error::other)?;
        self.edges.declare(&json, &signals(self.out_words))
    }

    fn cycle(&mut self, r: &ShabalCycleRecord) -> io::Result<()> {
        let mut values = std::mem::take(&mut self.values);
        values_of(r, self.out_words, &mut values);
        let out_lines = OUT_STREAM_INDEX..OUT_STREAM_INDEX + 1 + self.out_words;
        let idle = r.out.is_none();
        let result = self
            .edges
            .edge(r.cycle, &values, |i| idle && out_lines.contains(&i));
        self.values = values;
        result
    }
}

/// Writes a Shabal VCD trace to `W` (it buffers itself; `W` need not).
pub struct ShabalVcdWriter<W: Write> {
    wave: ShabalWave<VcdFormat<W>>,
}

impl<W: Write> std::fmt::Debug for ShabalVcdWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShabalVcdWriter").finish_non_exhaustive()
    }
}

impl<W: Write> ShabalVcdWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        ShabalVcdWriter {
            wave: ShabalWave::new(VcdFormat::new(out)),
        }
    }
}

impl<W: Write> ShabalSink for ShabalVcdWriter<W> {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.wave.begin(header)
    }

    fn cycle(&mut self, r: &ShabalCycleRecord) -> io::Result<()> {
        self.wave.cycle(r)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.wave.edges.finish()
    }
}

/// Writes a Shabal FST trace to `W` (it must seek; see [`crate::FstWriter`]).
pub struct ShabalFstWriter<W: Write + Seek> {
    wave: ShabalWave<FstFormat<W>>,
}

impl<W: Write + Seek> std::fmt::Debug for ShabalFstWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShabalFstWriter").finish_non_exhaustive()
    }
}

impl<W: Write + Seek> ShabalFstWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        ShabalFstWriter {
            wave: ShabalWave::new(FstFormat::new(out)),
        }
    }

    /// The output, once the trace is finished (`None` before).
    pub fn into_inner(self) -> Option<W> {
        self.wave.edges.format.into_inner()
    }
}

impl<W: Write + Seek> ShabalSink for ShabalFstWriter<W> {
    fn begin(&mut self, header: &ShabalTraceHeader) -> io::Result<()> {
        self.wave.begin(header)
    }

    fn cycle(&mut self, r: &ShabalCycleRecord) -> io::Result<()> {
        self.wave.cycle(r)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.wave.edges.finish()
    }
}

use values as values_of;
