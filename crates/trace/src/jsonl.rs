//! JSON lines traces: a header line (`{"schema_version":1,"schedule":{...},...}`, the
//! [`TraceHeader`]), then one object per clock cycle, 64-bit words as 16-digit hex strings.
//!
//! A record line:
//! ```text
//! {"cycle":1,"phase":"config","slots":[{"valid":true,"stream":0,"phase":"config","block":0,
//!  "round":0,"subkey":1,"state":["…16 hex…",…],"key":[…Nw+1…],"tweak":[…3…]}],
//!  "busy":{"mix":0,"subkey":8,"key_schedule":3,"first_subkey":0},"out":null}
//! ```
//! `out` is `{"stream":0,"index":0,"data":[…Nw words…]}` in the cycle an Output block
//! completes. When the run models the input handshake (the header's `in_ready` > 0), a record
//! ends with `"in_ready":[true,false,…]`, one entry per stream (bit k of the core's port);
//! traces without it (raw blocks, or written before the field) still read, with no bits.
//! The writer formats by hand (no serde per cycle) because it must keep up with the
//! simulator: the goal is 100 MB/s.

use std::borrow::Cow;
use std::io::{self, BufRead, Read, Write};

use serde::Deserialize;
use skeinhw_sched::sim::{
    AdderBusy, CycleRecord, MAX_WORDS, OutputRecord, OwnedCycleRecord, Phase, SlotRecord,
    TRACE_SCHEMA_VERSION, TraceHeader, TraceSink,
};

use crate::error::TraceError;
use crate::hex::{parse_word, push_word};

/// Writes a JSONL trace to `W` (give it a buffered writer).
#[derive(Debug)]
pub struct JsonlWriter<W: Write> {
    out: W,
    line: Vec<u8>,
    bytes: u64,
}

impl<W: Write> JsonlWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        JsonlWriter {
            out,
            line: Vec::with_capacity(4096),
            bytes: 0,
        }
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// The inner writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn emit(&mut self) -> io::Result<()> {
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        self.bytes += self.line.len() as u64;
        self.line.clear();
        Ok(())
    }
}

fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn push_words(out: &mut Vec<u8>, words: &[u64]) {
    out.push(b'[');
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        push_word(out, *w);
        out.push(b'"');
    }
    out.push(b']');
}

fn push_field(out: &mut Vec<u8>, name: &str, v: u64) {
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    push_u64(out, v);
}

fn push_phase(out: &mut Vec<u8>, phase: Phase) {
    out.extend_from_slice(b"\"phase\":\"");
    out.extend_from_slice(phase.as_str().as_bytes());
    out.push(b'"');
}

impl<W: Write> TraceSink for JsonlWriter<W> {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        serde_json::to_writer(&mut self.line, header).map_err(io::Error::other)?;
        self.emit()
    }

    fn cycle(&mut self, r: &CycleRecord<'_>) -> io::Result<()> {
        let nw = r.words;
        let l = &mut self.line;
        l.push(b'{');
        push_field(l, "cycle", r.cycle);
        l.push(b',');
        push_phase(l, r.phase);
        l.extend_from_slice(b",\"slots\":[");
        for (i, s) in r.slots.iter().enumerate() {
            if i > 0 {
                l.push(b',');
            }
            l.extend_from_slice(if s.valid {
                b"{\"valid\":true,"
            } else {
                b"{\"valid\":false,"
            });
            push_field(l, "stream", u64::from(s.stream));
            l.push(b',');
            push_phase(l, s.phase);
            l.push(b',');
            push_field(l, "block", s.block);
            l.push(b',');
            push_field(l, "round", u64::from(s.round));
            l.push(b',');
            push_field(l, "subkey", u64::from(s.subkey));
            l.extend_from_slice(b",\"state\":");
            push_words(l, &s.state[..nw]);
            l.extend_from_slice(b",\"key\":");
            push_words(l, &s.key[..=nw]);
            l.extend_from_slice(b",\"tweak\":");
            push_words(l, &s.tweak);
            l.push(b'}');
        }
        l.extend_from_slice(b"],\"busy\":{");
        push_field(l, "mix", u64::from(r.busy.mix));
        l.push(b',');
        push_field(l, "subkey", u64::from(r.busy.subkey));
        l.push(b',');
        push_field(l, "key_schedule", u64::from(r.busy.key_schedule));
        l.push(b',');
        push_field(l, "first_subkey", u64::from(r.busy.first_subkey));
        l.extend_from_slice(b"},\"out\":");
        match &r.out {
            None => l.extend_from_slice(b"null"),
            Some(o) => {
                l.push(b'{');
                push_field(l, "stream", u64::from(o.stream));
                l.push(b',');
                push_field(l, "index", o.index);
                l.extend_from_slice(b",\"data\":");
                push_words(l, &o.data[..nw]);
                l.push(b'}');
            }
        }
        if !r.in_ready.is_empty() {
            l.extend_from_slice(b",\"in_ready\":[");
            for (k, &b) in r.in_ready.iter().enumerate() {
                if k > 0 {
                    l.push(b',');
                }
                l.extend_from_slice(if b { b"true" } else { b"false" });
            }
            l.push(b']');
        }
        l.push(b'}');
        self.emit()
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

// ---- reading ------------------------------------------------------------------------------

/// The longest line a JSONL trace reader accepts, in bytes. A record of the widest schedule
/// (Skein-1024, every pipeline slot full) is a few hundred bytes per slot; the limit keeps a
/// damaged file (one endless line, a 1 GiB header) from being read into memory whole.
pub const MAX_LINE_BYTES: u64 = 64 << 20;

/// Reads one line into `buf` (cleared first), at most [`MAX_LINE_BYTES`]; `Ok(false)` at the
/// end of the input. A longer line, or one that is not UTF-8, is an error naming the line.
pub fn read_line_bounded(
    input: &mut impl BufRead,
    buf: &mut String,
    line: usize,
) -> Result<bool, TraceError> {
    buf.clear();
    let mut bytes = std::mem::take(buf).into_bytes();
    let n = input
        .by_ref()
        .take(MAX_LINE_BYTES + 1)
        .read_until(b'\n', &mut bytes)?;
    if n as u64 > MAX_LINE_BYTES {
        return Err(TraceError::Jsonl {
            line,
            message: format!("longer than {MAX_LINE_BYTES} bytes: not a trace line"),
        });
    }
    *buf = String::from_utf8(bytes).map_err(|e| TraceError::Jsonl {
        line,
        message: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
    })?;
    Ok(n > 0)
}

/// A record's array of 16-digit hex words, parsed while the line is read (no string or vector
/// allocated per word or array: a record has 21 words or more). Holds up to a key's
/// `MAX_WORDS + 1`; how many there were, and the first that is not hex, for the error.
#[derive(Clone, Debug)]
struct HexWords {
    words: [u64; MAX_WORDS + 1],
    len: usize,
    bad: Option<(usize, String)>,
}

impl HexWords {
    /// The words into `out`, exactly `out.len()` of them; `what` names them in an error.
    fn to(&self, what: &dyn Fn() -> String, out: &mut [u64]) -> Result<(), String> {
        if self.len != out.len() {
            return Err(format!(
                "{} has {} words; expected {}",
                what(),
                self.len,
                out.len()
            ));
        }
        if let Some((i, text)) = &self.bad {
            return Err(format!("{}[{i}] = \"{text}\" is not 16 hex digits", what()));
        }
        out.copy_from_slice(&self.words[..self.len]);
        Ok(())
    }
}

/// A JSON string borrowed from the line, or copied where the JSON spelled it with an escape
/// (serde's own `Cow<str>` always copies).
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(Visitor)
    }
}

impl<'de> Deserialize<'de> for HexWords {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = HexWords;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of 16-digit hex words")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HexWords, A::Error> {
                let mut h = HexWords {
                    words: [0; MAX_WORDS + 1],
                    len: 0,
                    bad: None,
                };
                while let Some(Text(text)) = seq.next_element::<Text<'de>>()? {
                    match parse_word(&text) {
                        Some(w) if h.len < h.words.len() => h.words[h.len] = w,
                        Some(_) => {}
                        None => {
                            if h.bad.is_none() {
                                h.bad = Some((h.len, text.into_owned()));
                            }
                        }
                    }
                    h.len += 1;
                }
                Ok(h)
            }
        }
        d.deserialize_seq(Visitor)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonSlot {
    valid: bool,
    stream: u32,
    phase: Phase,
    block: u64,
    round: u32,
    subkey: u32,
    state: HexWords,
    key: HexWords,
    tweak: HexWords,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonOut {
    stream: u32,
    index: u64,
    data: HexWords,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRecord {
    cycle: u64,
    phase: Phase,
    slots: Vec<JsonSlot>,
    busy: AdderBusy,
    out: Option<JsonOut>,
    #[serde(default)]
    in_ready: Vec<bool>,
}

/// Reads a JSONL trace record by record (streaming: a long trace is never held whole).
#[derive(Debug)]
pub struct JsonlReader<R: BufRead> {
    input: R,
    header: TraceHeader,
    line_no: usize,
    buf: String,
}

impl<R: BufRead> JsonlReader<R> {
    /// Reads and checks the header line.
    pub fn new(mut input: R) -> Result<Self, TraceError> {
        let mut buf = String::new();
        if !read_line_bounded(&mut input, &mut buf, 1)? {
            return Err(TraceError::Jsonl {
                line: 1,
                message: "empty file: expected the header line".into(),
            });
        }
        let header: TraceHeader =
            serde_json::from_str(buf.trim_end()).map_err(|e| TraceError::Jsonl {
                line: 1,
                message: format!("not a trace header: {e}"),
            })?;
        if header.schema_version != TRACE_SCHEMA_VERSION {
            return Err(TraceError::Jsonl {
                line: 1,
                message: format!(
                    "schema_version {} is not supported; expected {TRACE_SCHEMA_VERSION}",
                    header.schema_version
                ),
            });
        }
        // The header's sizes come from its schedule: a header that disagrees (or a huge
        // `slots` that would size every record) is refused before anything is allocated.
        let expect = |field: &str, got: usize, want: usize| {
            if got == want {
                Ok(())
            } else {
                Err(TraceError::Jsonl {
                    line: 1,
                    message: format!(
                        "{field} = {got}, but the schedule '{}' has {want}",
                        header.schedule.name()
                    ),
                })
            }
        };
        expect("words", header.words, header.schedule.words() as usize)?;
        expect(
            "slots",
            header.slots,
            header.schedule.blocks_in_flight() as usize,
        )?;
        // `in_ready` sizes every record's bits and the signal list: it is 0 (no feed modelled)
        // or the design's streams, as the simulator writes it (issue 33: a huge one allocated
        // gigabytes before any record was read). A record line of that many bits must also fit.
        let streams = header.streams.max(header.slots);
        if header.in_ready != 0
            && (header.in_ready != streams || header.in_ready as u64 > MAX_LINE_BYTES / 5)
        {
            return Err(TraceError::Jsonl {
                line: 1,
                message: format!(
                    "in_ready = {}, but a run of {} stream(s) on the schedule '{}' ({} slot(s)) \
                     has 0 or {streams}",
                    header.in_ready,
                    header.streams,
                    header.schedule.name(),
                    header.slots
                ),
            });
        }
        Ok(JsonlReader {
            input,
            header,
            line_no: 1,
            buf,
        })
    }

    /// The header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// The header, the input from the next line on and that line's number: for a reader that
    /// splits the record lines itself and parses them with [`JsonlReader::parse_record`].
    pub fn into_parts(self) -> (TraceHeader, R, usize) {
        (self.header, self.input, self.line_no + 1)
    }

    /// Parses record line `line_no` (its bytes, with or without the line end) against
    /// `header`, with the iterator's checks and errors: what [`Iterator::next`] does to a line
    /// it has read, callable on lines split elsewhere (several threads at once).
    pub fn parse_record(
        header: &TraceHeader,
        line: &[u8],
        line_no: usize,
    ) -> Result<OwnedCycleRecord, TraceError> {
        let jsonl = |message: String| TraceError::Jsonl {
            line: line_no,
            message,
        };
        if line.len() as u64 > MAX_LINE_BYTES {
            return Err(jsonl(format!(
                "longer than {MAX_LINE_BYTES} bytes: not a trace line"
            )));
        }
        let text = std::str::from_utf8(line)
            .map_err(|e| jsonl(format!("not UTF-8 text (byte {})", e.valid_up_to())))?;
        let parsed: Result<JsonRecord, _> = serde_json::from_str(text.trim_end());
        parsed
            .map_err(|e| e.to_string())
            .and_then(|r| record(header, r))
            .map_err(jsonl)
    }
}

/// A parsed record line checked against the header's sizes.
fn record(header: &TraceHeader, rec: JsonRecord) -> Result<OwnedCycleRecord, String> {
    let nw = header.words;
    if rec.slots.len() != header.slots {
        return Err(format!(
            "{} slots; the header says {}",
            rec.slots.len(),
            header.slots
        ));
    }
    let mut slots = Vec::with_capacity(rec.slots.len());
    for (i, s) in rec.slots.iter().enumerate() {
        let mut slot = SlotRecord {
            valid: s.valid,
            stream: s.stream,
            phase: s.phase,
            block: s.block,
            round: s.round,
            subkey: s.subkey,
            ..SlotRecord::default()
        };
        s.state
            .to(&|| format!("slots[{i}].state"), &mut slot.state[..nw])?;
        s.key
            .to(&|| format!("slots[{i}].key"), &mut slot.key[..=nw])?;
        s.tweak
            .to(&|| format!("slots[{i}].tweak"), &mut slot.tweak)?;
        slots.push(slot);
    }
    let out = match rec.out {
        None => None,
        Some(o) => {
            let mut data = [0u64; MAX_WORDS];
            o.data.to(&|| "out.data".into(), &mut data[..nw])?;
            Some(OutputRecord {
                stream: o.stream,
                index: o.index,
                data,
            })
        }
    };
    if rec.in_ready.len() != header.in_ready {
        return Err(format!(
            "in_ready has {} bits; the header says {}",
            rec.in_ready.len(),
            header.in_ready
        ));
    }
    Ok(OwnedCycleRecord {
        in_ready: rec.in_ready,
        cycle: rec.cycle,
        phase: rec.phase,
        words: nw,
        slots,
        busy: rec.busy,
        out,
    })
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Result<OwnedCycleRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.line_no += 1;
        let line = self.line_no;
        match read_line_bounded(&mut self.input, &mut self.buf, line) {
            Ok(false) => return None,
            Ok(true) => {}
            Err(e) => return Some(Err(e)),
        }
        let parsed: Result<JsonRecord, _> = serde_json::from_str(self.buf.trim_end());
        Some(
            parsed
                .map_err(|e| e.to_string())
                .and_then(|r| record(&self.header, r))
                .map_err(|message| TraceError::Jsonl { line, message }),
        )
    }
}
