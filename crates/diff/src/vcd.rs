//! Our own streaming VCD value-change reader: the diff's hot path (issue 14).
//!
//! wellen's streaming tokenizer reads a byte at a time through `Read::bytes` and decodes every
//! change of every watched signal through its general value encoder; at 600 bytes of VCD per
//! cycle that bounded the diff at tens of thousands of cycles per second. This reader scans a
//! large reusable buffer, finds a change's signal through a dense table indexed by the VCD id
//! and decodes only the watched ones, straight into [`Bits`].
//!
//! It reads the headers real simulators write (`$scope`/`$var`/`$upscope`, multi-character
//! ids, several variables on one id, `$date`/`$version`/`$timescale`/`$comment`) and names
//! signals exactly as wellen does. Anything else in a header (attributes, array scopes,
//! multi-dimensional names, a repeated `$version`, ...) is not guessed at: [`read_header`]
//! answers `None` and the caller reads the file with wellen, which stays the reader of FST and
//! the oracle of the tests. The body follows wellen's token rules (`crates/diff/tests/vcd.rs`
//! checks the two agree on random files); a bad body is a one-line error naming its line.

use std::collections::HashMap;
use std::io::{BufRead, Read};

use crate::wave::Bits;

/// What a variable holds, as far as the diff cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A bit vector (wire, reg, logic, integer, ...): decoded here.
    Bits,
    /// A real or a string: never compared (a clear error when mapped).
    RealOrString,
    /// An event (wellen gives it a value of its own): read by wellen when watched.
    Event,
}

/// One `$var` of the header.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    /// Full hierarchical name, scopes joined by `.` (wellen's `full_name`).
    pub name: String,
    /// Declared width in bits.
    pub width: u32,
    /// The VCD id as a number (wellen's `id_to_int`).
    pub id: u64,
    /// What it holds.
    pub kind: Kind,
    /// The declared type, for messages.
    pub tpe: String,
    /// Declared inside a function or task (Icarus dumps their scratch variables).
    pub in_function: bool,
}

/// The header of a VCD this reader understands.
#[derive(Clone, Debug, Default)]
pub(crate) struct Header {
    /// Every variable, in declaration order.
    pub vars: Vec<Var>,
    /// Ids declared by several variables of different widths or kinds (left to wellen).
    pub ambiguous: Vec<u64>,
    /// The line the body starts on (1-based).
    pub body_line: u64,
}

/// Reads the header up to and including `$enddefinitions $end`, leaving `input` at the first
/// byte after it. `None`: something this reader does not take on (the caller rewinds and reads
/// the file with wellen, whose error or reading then counts).
pub(crate) fn read_header(input: &mut impl BufRead) -> Option<Header> {
    let mut r = ByteReader { input, newlines: 0 };
    let mut header = Header::default();
    let mut scopes: Vec<String> = Vec::new();
    let mut functions = 0usize; // open scopes that are functions or tasks
    let mut scope_is_function: Vec<bool> = Vec::new();
    let mut seen = [false; 3]; // $date, $version, $timescale: wellen refuses a second one
    let mut widths: HashMap<u64, (u32, Kind)> = HashMap::new();
    loop {
        let (cmd, body) = r.command()?;
        match cmd.as_slice() {
            b"enddefinitions" => break,
            b"comment" => {}
            b"date" | b"version" => {
                let k = usize::from(cmd == b"version");
                if std::mem::replace(&mut seen[k], true) {
                    return None;
                }
            }
            b"timescale" => {
                if std::mem::replace(&mut seen[2], true) || !timescale_ok(&body) {
                    return None;
                }
            }
            b"scope" => {
                let tokens = tokens(&body);
                let tpe = *tokens.first()?;
                if !SCOPE_TYPES.contains(&tpe) {
                    return None;
                }
                let name = tokens.get(1).copied().unwrap_or(b"");
                scopes.push(std::str::from_utf8(name).ok()?.to_string());
                scope_is_function.push(FUNCTION_SCOPES.contains(&tpe));
                functions += usize::from(FUNCTION_SCOPES.contains(&tpe));
            }
            b"upscope" => {
                scopes.pop()?;
                functions -= usize::from(scope_is_function.pop()?);
            }
            b"var" => {
                let mut var = parse_var(&body, &scopes)?;
                var.in_function = functions > 0;
                match widths.get(&var.id) {
                    Some(&(w, k)) if (w, k) != (var.width, var.kind) => {
                        header.ambiguous.push(var.id);
                    }
                    Some(_) => {}
                    None => {
                        widths.insert(var.id, (var.width, var.kind));
                    }
                }
                header.vars.push(var);
            }
            _ => return None,
        }
    }
    // wellen's body reader skips the rest of the `$enddefinitions $end` line.
    loop {
        let b = r.byte()?;
        if b == b'\n' {
            break;
        }
    }
    header.body_line = r.newlines + 1;
    Some(header)
}

/// Scope types whose variables are scratch copies (wellen's Function, Task, VhdlFunction,
/// VhdlProcedure).
const FUNCTION_SCOPES: &[&[u8]] = &[b"task", b"function", b"vhdl_procedure", b"vhdl_function"];

/// The scope types wellen knows, less its array scopes (whose variables it renames).
const SCOPE_TYPES: &[&[u8]] = &[
    b"module",
    b"task",
    b"function",
    b"begin",
    b"fork",
    b"generate",
    b"struct",
    b"union",
    b"class",
    b"interface",
    b"package",
    b"program",
    b"vhdl_architecture",
    b"vhdl_procedure",
    b"vhdl_function",
    b"vhdl_record",
    b"vhdl_process",
    b"vhdl_block",
    b"vhdl_for_generate",
    b"vhdl_if_generate",
    b"vhdl_generate",
    b"vhdl_package",
    b"unknown",
    b"clocking",
];

/// wellen's bit-vector variable types.
const BIT_TYPES: [&[u8]; 23] = [
    b"wire",
    b"reg",
    b"parameter",
    b"integer",
    b"supply0",
    b"supply1",
    b"time",
    b"tri",
    b"triand",
    b"trior",
    b"trireg",
    b"tri0",
    b"tri1",
    b"wand",
    b"wor",
    b"logic",
    b"port",
    b"sparray",
    b"bit",
    b"int",
    b"shortint",
    b"longint",
    b"byte",
];

fn var_kind(tpe: &[u8]) -> Option<Kind> {
    match tpe {
        b"string" | b"real" | b"real_parameter" | b"realtime" | b"shortreal" => {
            Some(Kind::RealOrString)
        }
        b"event" => Some(Kind::Event),
        // wellen reads enums through attributes this reader leaves to it.
        t if BIT_TYPES.contains(&t) => Some(Kind::Bits),
        _ => None,
    }
}

fn timescale_ok(body: &[u8]) -> bool {
    let t = tokens(body);
    let factor = match t.as_slice() {
        [one] => {
            &one[..one
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(one.len())]
        }
        [factor, _] => factor,
        _ => return false,
    };
    std::str::from_utf8(factor).is_ok_and(|f| f.parse::<u32>().is_ok())
}

/// `$var TYPE SIZE ID NAME [INDEX] $end`, named as wellen names it; `None` for names wellen
/// would split into array scopes or otherwise rewrite.
fn parse_var(body: &[u8], scopes: &[String]) -> Option<Var> {
    let t = tokens(body);
    if t.len() < 4 {
        return None;
    }
    let kind = var_kind(t[0])?;
    let width = std::str::from_utf8(t[1]).ok()?.parse::<u32>().ok()?;
    let id = id_to_int(t[2])?;
    // The name is every remaining token, with the whitespace between them.
    let start = t[3].as_ptr() as usize - body.as_ptr() as usize;
    let last = t[t.len() - 1];
    let end = last.as_ptr() as usize - body.as_ptr() as usize + last.len();
    let raw = &body[start..end];
    let name = plain_name(raw, width)?;
    let name = std::str::from_utf8(name).ok()?;
    let mut full = String::with_capacity(name.len() + 16);
    for s in scopes {
        full.push_str(s);
        full.push('.');
    }
    full.push_str(name);
    Some(Var {
        name: full,
        width,
        id,
        kind,
        tpe: String::from_utf8_lossy(t[0]).into_owned(),
        in_function: false,
    })
}

/// The variable's name without a bit index that matches its width (`cnt [7:0]`, `b[3]`);
/// `None` for any other bracket (array elements, an index of another width).
fn plain_name(raw: &[u8], width: u32) -> Option<&[u8]> {
    if !raw.contains(&b'[') && !raw.contains(&b']') {
        return Some(raw);
    }
    let inner_end = raw.len().checked_sub(1)?;
    if raw[inner_end] != b']' {
        return None;
    }
    let open = raw.iter().rposition(|&c| c == b'[')?;
    let inner = std::str::from_utf8(&raw[open + 1..inner_end]).ok()?;
    let num = |s: &str| {
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            None
        } else {
            s.parse::<i64>().ok()
        }
    };
    let (msb, lsb) = match inner.split_once(':') {
        Some((m, l)) => (num(m)?, num(l)?),
        None => (num(inner)?, num(inner)?),
    };
    if (msb - lsb).unsigned_abs() + 1 != u64::from(width) {
        return None;
    }
    let mut name = &raw[..open];
    while let [rest @ .., b' '] = name {
        name = rest;
    }
    if name.is_empty() || name.contains(&b'[') || name.contains(&b']') {
        return None;
    }
    Some(name)
}

fn tokens(body: &[u8]) -> Vec<&[u8]> {
    body.split(|c| matches!(c, b' ' | b'\t' | b'\n'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// wellen's (and rust-vcd's) id number: base 94 over `!`..`~`, least significant first.
#[inline]
pub(crate) fn id_to_int(id: &[u8]) -> Option<u64> {
    match id {
        [] => return None,
        // Most ids of most files: one character.
        [c] => return (b'!'..=b'~').contains(c).then(|| u64::from(c - b'!')),
        _ => {}
    }
    let mut result = 0u64;
    for &c in id.iter().rev() {
        if !(b'!'..=b'~').contains(&c) {
            return None;
        }
        result = result
            .checked_mul(94)
            .and_then(|x| x.checked_add(u64::from(c - b'!') + 1))?;
    }
    Some(result - 1)
}

/// Header bytes one at a time (the header is small), counting lines.
struct ByteReader<'a, R> {
    input: &'a mut R,
    newlines: u64,
}

impl<R: BufRead> ByteReader<'_, R> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.input.fill_buf().ok()?.first()?;
        self.input.consume(1);
        self.newlines += u64::from(b == b'\n');
        Some(b)
    }

    /// `$NAME BODY $end` as wellen's `read_command` reads it: the name up to whitespace, the
    /// body from its first non-blank byte up to `$end`, right-stripped.
    fn command(&mut self) -> Option<(Vec<u8>, Vec<u8>)> {
        let blank = |b: u8| matches!(b, b' ' | b'\n' | b'\r' | b'\t');
        let mut b = self.byte()?;
        while blank(b) {
            b = self.byte()?;
        }
        if b != b'$' {
            return None;
        }
        let mut name = Vec::new();
        loop {
            let b = self.byte()?;
            if blank(b) {
                break;
            }
            name.push(b);
        }
        let mut body = Vec::new();
        let mut b = self.byte()?;
        while blank(b) {
            b = self.byte()?;
        }
        loop {
            body.push(b);
            if body.ends_with(b"$end") {
                body.truncate(body.len() - 4);
                while body.last().is_some_and(|&c| blank(c)) {
                    body.pop();
                }
                return Some((name, body));
            }
            b = self.byte()?;
        }
    }
}

/// Where each watched id's changes go: a dense table indexed by the id number (ids are small
/// numbers in every simulator's output), a hash map only for ids spread too far apart.
pub(crate) enum Lookup {
    Dense(Vec<u32>),
    Sparse(HashMap<u64, u32>),
}

/// No watched signal has this id.
pub(crate) const UNWATCHED: u32 = u32::MAX;

impl Lookup {
    /// `watched[slot]` is the id of slot `slot`.
    pub(crate) fn new(watched: &[u64]) -> Lookup {
        let max = watched.iter().copied().max().unwrap_or(0);
        if max < (1 << 20) {
            let mut table = vec![UNWATCHED; max as usize + 1];
            for (slot, &id) in watched.iter().enumerate() {
                table[id as usize] = slot as u32;
            }
            Lookup::Dense(table)
        } else {
            Lookup::Sparse(
                watched
                    .iter()
                    .enumerate()
                    .map(|(slot, &id)| (id, slot as u32))
                    .collect(),
            )
        }
    }

    #[inline]
    fn slot(&self, id: u64) -> u32 {
        match self {
            Lookup::Dense(t) => t.get(id as usize).copied().unwrap_or(UNWATCHED),
            Lookup::Sparse(m) => m.get(&id).copied().unwrap_or(UNWATCHED),
        }
    }
}

/// What the body reader hands a watched change to.
pub(crate) trait Sink {
    /// A watched change of `slot` at `time`, its value as written (`1`, `b0101`, ...).
    /// `Ok(false)` stops reading; `Err` is a message without the line.
    fn change(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String>;

    /// A watched change whose value `b<digits>` has 1 to 64 digits, all `0` or `1`, already
    /// packed into `word` (the common case, decoded while its end was searched for).
    #[inline]
    fn change_packed(
        &mut self,
        time: u64,
        slot: usize,
        value: &[u8],
        word: u64,
    ) -> Result<bool, String> {
        let _ = word;
        self.change(time, slot, value)
    }
}

/// The eight bytes of `v` (big-endian load: the first character most significant) that are
/// not `0` or `1`, as a non-zero byte each.
#[inline]
fn non_binary(v: u64) -> u64 {
    (v & 0xfefe_fefe_fefe_fefe) ^ 0x3030_3030_3030_3030
}

/// The low bits of eight `0`/`1` characters (big-endian load) as a byte, the first character
/// the most significant bit.
#[inline]
fn gather8(v: u64) -> u64 {
    // Bit 8j goes to bit 56 + j; the other partial products land below bit 56 (no carries).
    (v & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Scans the digits of a vector value from `start` (after its `b`) eight bytes at a time,
/// packing them as it goes: the end of the digits and, if there were 1 to 64 of them, their
/// value. The end is where the first byte other than `0`/`1` is (or `buf.len()`).
#[inline]
fn scan_binary(buf: &[u8], start: usize) -> (usize, Option<u64>) {
    let n = buf.len();
    let mut i = start;
    // The last 64 digits read, most significant first: their value if there are no more.
    let mut word = 0u64;
    let packed = |i: usize, word: u64| (i > start && i - start <= 64).then_some(word);
    while i + 8 <= n {
        let v = u64::from_be_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
        let odd = non_binary(v);
        if odd == 0 {
            word = (word << 8) | gather8(v);
            i += 8;
            continue;
        }
        let k = (odd.leading_zeros() / 8) as usize; // digits before the first other byte
        if k > 0 {
            word = (word << k) | gather8(v >> (8 * (8 - k)));
        }
        return (i + k, packed(i + k, word));
    }
    while i < n && matches!(buf[i], b'0' | b'1') {
        word = (word << 1) | u64::from(buf[i] - b'0');
        i += 1;
    }
    (i, packed(i, word))
}

/// Whitespace as wellen's body reader takes it (`u8::is_ascii_whitespace`).
const WS: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t[0x0c] = true;
    t
};

/// The reader's state across buffer refills.
struct Body {
    time: Option<u64>,
    in_comment: bool,
}

/// Reads the body (after [`read_header`]) to its end or until the sink says stop. Errors name
/// the line: `malformed: line N: ...` or `line N: time goes backwards: ...`.
pub(crate) fn stream_body(
    input: impl Read,
    first_line: u64,
    lookup: &Lookup,
    sink: &mut impl Sink,
) -> Result<(), String> {
    stream_chunks(input, first_line, lookup, sink, 1 << 20)
}

/// [`stream_body`] with a buffer of `chunk` bytes to start with (tests cut tokens with tiny
/// ones).
fn stream_chunks(
    mut input: impl Read,
    first_line: u64,
    lookup: &Lookup,
    sink: &mut impl Sink,
    chunk: usize,
) -> Result<(), String> {
    let mut buf = vec![0u8; chunk.max(1)];
    let mut filled = 0;
    let mut eof = false;
    let mut line = first_line; // the line buf[0] is on
    let mut st = Body {
        time: None,
        in_comment: false,
    };
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = loop {
            match input.read(&mut buf[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("line {line}: {e}")),
            }
        };
        eof = eof || n == 0;
        filled += n;
        // Only whole tokens: up to the last whitespace unless the file ended.
        let limit = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', &buf[..filled])
                .or_else(|| buf[..filled].iter().rposition(|&b| WS[b as usize]))
            {
                Some(i) => i + 1,
                None => continue,
            }
        };
        let done = match parse(&buf[..limit], &mut st, lookup, sink) {
            Ok(Some(done)) => done,
            Ok(None) => return Ok(()),
            Err((at, message)) => {
                let line = line + memchr::memchr_iter(b'\n', &buf[..at]).count() as u64;
                return Err(format!("line {line}: {message}"));
            }
        };
        line += memchr::memchr_iter(b'\n', &buf[..done]).count() as u64;
        buf.copy_within(done..filled, 0);
        filled -= done;
        if eof {
            if filled > 0 {
                return Err(format!(
                    "malformed: line {line}: a value change without its signal id at the end"
                ));
            }
            return Ok(());
        }
    }
}

/// Parses the whole tokens of `buf`; `Some(done)`: bytes consumed (a vector value whose id is
/// not in `buf` yet is left for the next round), `None`: the sink said stop. An error carries
/// the offset it was found at.
fn parse(
    buf: &[u8],
    st: &mut Body,
    lookup: &Lookup,
    sink: &mut impl Sink,
) -> Result<Option<usize>, (usize, String)> {
    let n = buf.len();
    let token_end = |mut e: usize| {
        while e < n && !WS[buf[e] as usize] {
            e += 1;
        }
        e
    };
    let mut i = 0;
    while i < n {
        let c = buf[i];
        if WS[c as usize] {
            i += 1;
            continue;
        }
        let s = i;
        if matches!(c, b'b' | b'B') && !st.in_comment {
            // The common case first: binary digits packed while their end is found, the id
            // after one blank.
            let (e, packed) = scan_binary(buf, s + 1);
            if let Some(word) = packed
                && e + 1 < n
                && matches!(buf[e], b' ' | b'\t' | b'\n')
                && !WS[buf[e + 1] as usize]
            {
                let j = e + 1;
                let k = token_end(j + 1);
                i = k;
                let Some(key) = id_to_int(&buf[j..k]) else {
                    return Err((
                        s,
                        format!("malformed: bad signal id '{}'", lossy(&buf[j..k], 40)),
                    ));
                };
                let slot = lookup.slot(key);
                if slot == UNWATCHED {
                    continue;
                }
                let time = *st.time.get_or_insert(0);
                match sink.change_packed(time, slot as usize, &buf[s..e], word) {
                    Ok(true) => {}
                    Ok(false) => return Ok(None),
                    Err(message) => return Err((s, message)),
                }
                continue;
            }
        }
        let e = if matches!(c, b'b' | b'B') {
            // A vector's digits: found with SIMD rather than byte by byte (most of the file).
            let k = memchr::memchr3(b' ', b'\n', b'\t', &buf[s + 1..]).map_or(n, |k| s + 1 + k);
            if memchr::memchr2(b'\r', 0x0c, &buf[s + 1..k]).is_some() {
                token_end(s + 1)
            } else {
                k
            }
        } else {
            token_end(s + 1)
        };
        let token = &buf[s..e];
        if st.in_comment {
            st.in_comment = token != b"$end";
            i = e;
            continue;
        }
        let (value, id, next) = match c {
            b'#' => {
                let t = time_stamp(&token[1..]).ok_or_else(|| {
                    (
                        s,
                        format!("malformed: bad time stamp '{}'", lossy(token, 40)),
                    )
                })?;
                if let Some(p) = st.time.filter(|&p| t < p) {
                    return Err((s, format!("time goes backwards: #{t} after #{p}")));
                }
                st.time = Some(t);
                i = e;
                continue;
            }
            b'0' | b'1' | b'x' | b'X' | b'z' | b'Z' | b'h' | b'H' | b'u' | b'U' | b'w' | b'W'
            | b'l' | b'L' | b'-' => (&buf[s..s + 1], &buf[s + 1..e], e),
            b'b' | b'B' | b'r' | b'R' | b's' | b'S' => {
                let mut j = e;
                while j < n && WS[buf[j] as usize] {
                    j += 1;
                }
                if j == n {
                    return Ok(Some(s)); // the id is in the next chunk
                }
                let k = token_end(j + 1);
                (token, &buf[j..k], k)
            }
            b'$' => {
                match token {
                    b"$comment" => st.in_comment = true,
                    b"$dumpvars" | b"$end" | b"$dumpoff" | b"$dumpon" | b"$dumpall" => {}
                    _ => {
                        return Err((s, format!("malformed: unexpected '{}'", lossy(token, 40))));
                    }
                }
                i = e;
                continue;
            }
            _ => {
                return Err((s, format!("malformed: unexpected '{}'", lossy(token, 40))));
            }
        };
        i = next;
        let Some(key) = id_to_int(id) else {
            return Err((s, format!("malformed: bad signal id '{}'", lossy(id, 40))));
        };
        let slot = lookup.slot(key);
        if slot == UNWATCHED {
            continue;
        }
        let time = *st.time.get_or_insert(0);
        match sink.change(time, slot as usize, value) {
            Ok(true) => {}
            Ok(false) => return Ok(None),
            Err(message) => return Err((s, message)),
        }
    }
    Ok(Some(n))
}

/// `#123`, or a float without fraction as wellen accepts it.
fn time_stamp(digits: &[u8]) -> Option<u64> {
    // Plain digits without the text round trip (two stamps per clock cycle).
    if !digits.is_empty() && digits.len() <= 19 && digits.iter().all(u8::is_ascii_digit) {
        return Some(
            digits
                .iter()
                .fold(0u64, |t, &d| t * 10 + u64::from(d - b'0')),
        );
    }
    let text = std::str::from_utf8(digits).ok()?;
    text.parse::<u64>().ok().or_else(|| {
        let f = text.parse::<f64>().ok()?;
        (f.fract() == 0.0).then_some(f as u64)
    })
}

fn lossy(b: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(max)]);
    s.chars().filter(|c| !c.is_control()).collect()
}

/// The nine VCD bit states as wellen reads them (`None`: not a state), lower case as
/// wellen's `Bit::as_ascii` prints them.
const STATE: [u8; 256] = {
    let mut t = [0u8; 256];
    let pairs: [(u8, u8); 15] = [
        (b'0', b'0'),
        (b'1', b'1'),
        (b'x', b'x'),
        (b'X', b'x'),
        (b'z', b'z'),
        (b'Z', b'z'),
        (b'h', b'h'),
        (b'H', b'h'),
        (b'u', b'u'),
        (b'U', b'u'),
        (b'w', b'w'),
        (b'W', b'w'),
        (b'l', b'l'),
        (b'L', b'l'),
        (b'-', b'-'),
    ];
    let mut i = 0;
    while i < pairs.len() {
        t[pairs[i].0 as usize] = pairs[i].1;
        i += 1;
    }
    t
};

/// Decodes a change of a `width`-bit vector into `b`, reusing its buffer, as wellen does: a
/// 1-bit signal takes the last character; a shorter vector is extended with 0, or with its
/// first character when that is x or z; `unknown` is the most significant non-binary bit.
pub(crate) fn decode(value: &[u8], width: u32, b: &mut Bits) -> Result<(), String> {
    let bad = || {
        format!(
            "malformed: value '{}' for a signal of {width} bits",
            lossy(value, 80)
        )
    };
    b.unknown = None;
    b.width = width;
    b.words.clear();
    b.words.resize(width.div_ceil(64).max(1) as usize, 0);
    if width == 1 {
        let c = match value.last() {
            None | Some(b'b') => b'0',
            Some(&c) => c,
        };
        match STATE[c as usize] {
            0 => return Err(bad()),
            b'0' => {}
            b'1' => b.words[0] = 1,
            s => b.unknown = Some(char::from(s)),
        }
        return Ok(());
    }
    let mut bits = match value.first() {
        Some(b'b' | b'B') => &value[1..],
        _ => value,
    };
    if bits.len() > 2 && bits.starts_with(b"0b") {
        bits = &bits[2..];
    }
    let width = width as usize;
    if bits.len() > width || bits.is_empty() {
        return Err(bad());
    }
    if bits.len() < width && !matches!(bits[0], b'0' | b'1' | b'x' | b'X' | b'z' | b'Z') {
        return Err(bad());
    }
    let len = bits.len();
    // Whole 64-bit words of two-state digits first, from the least significant end.
    let mut k = 0; // bits done
    while k + 64 <= len {
        let chunk = &bits[len - k - 64..len - k];
        match pack64(chunk) {
            Some(w) => b.words[k / 64] = w,
            None => break,
        }
        k += 64;
    }
    let mut unknown = None;
    for (pos, &c) in bits[..len - k].iter().rev().enumerate() {
        let pos = pos + k;
        match STATE[c as usize] {
            0 => return Err(bad()),
            b'0' => {}
            b'1' => b.words[pos / 64] |= 1 << (pos % 64),
            s => unknown = Some(s), // the last one seen is the most significant
        }
    }
    if len < width && matches!(bits[0], b'x' | b'X' | b'z' | b'Z') {
        unknown = Some(STATE[bits[0] as usize]);
    }
    b.unknown = unknown.map(char::from);
    Ok(())
}

/// 64 characters `0`/`1` (most significant first) as a word; `None` if any is something else.
#[inline]
fn pack64(chunk: &[u8]) -> Option<u64> {
    let mut w = 0u64;
    for part in chunk.chunks_exact(8) {
        let v = u64::from_be_bytes(part.try_into().expect("8 bytes"));
        if v & 0xfefe_fefe_fefe_fefe != 0x3030_3030_3030_3030 {
            return None;
        }
        // Gather the eight low bits (bit 8j, j = 0 the last character) to bits 56 + j: the
        // products of the other bits land below bit 56 and never collide (no carries).
        let byte = ((v & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
        w = (w << 8) | u64::from(byte);
    }
    Some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack64_reads_digits_most_significant_first() {
        let mut s = [b'0'; 64];
        s[0] = b'1';
        s[63] = b'1';
        s[10] = b'1';
        assert_eq!(pack64(&s), Some((1 << 63) | 1 | (1 << 53)));
        s[5] = b'x';
        assert_eq!(pack64(&s), None);
        s[5] = b'2';
        assert_eq!(pack64(&s), None);
        s[5] = b'p'; // 0x70: low nibble 0, would pass a sloppy check
        assert_eq!(pack64(&s), None);
        // Against the plain loop on pseudo-random words.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let text: Vec<u8> = (0..64).rev().map(|i| b'0' + ((x >> i) & 1) as u8).collect();
            assert_eq!(pack64(&text), Some(x));
        }
    }

    #[test]
    fn scan_binary_packs_what_decode_reads() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in 1..=80usize {
            for tail in [&b" !"[..], b"\t!", b"x !", b"", b"2", b"\r"] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let digits: Vec<u8> = (0..len)
                    .map(|i| b'0' + ((x >> (i % 64)) & 1) as u8)
                    .collect();
                let mut buf = b"b".to_vec();
                buf.extend_from_slice(&digits);
                buf.extend_from_slice(tail);
                let (end, word) = scan_binary(&buf, 1);
                assert_eq!(end, 1 + len, "{len} digits, tail {tail:?}");
                if len <= 64 {
                    let mut b = Bits::known(vec![], 0);
                    decode(&buf[..end], 64, &mut b).unwrap();
                    assert_eq!(word, Some(b.words[0]), "{len} digits");
                } else {
                    assert_eq!(word, None, "{len} digits");
                }
            }
        }
        assert_eq!(scan_binary(b"b !", 1), (1, None));
        assert_eq!(scan_binary(b"b01x1 !", 1), (3, Some(1)));
    }

    #[test]
    fn decode_extends_and_finds_the_most_significant_unknown() {
        let mut b = Bits::known(vec![], 0);
        decode(b"b101", 8, &mut b).unwrap();
        assert_eq!(b, Bits::known(vec![5], 8));
        decode(b"bx1", 4, &mut b).unwrap();
        assert_eq!((b.unknown, b.words.clone()), (Some('x'), vec![1]));
        decode(b"b1Z0x", 4, &mut b).unwrap();
        assert_eq!((b.unknown, b.words.clone()), (Some('z'), vec![8]));
        decode(b"b10x01", 4, &mut b).unwrap_err();
        decode(b"bh1", 4, &mut b).unwrap_err();
        decode(b"b0b11", 4, &mut b).unwrap();
        assert_eq!(b, Bits::known(vec![3], 4));
        decode(b"b0110", 1, &mut b).unwrap();
        assert_eq!(b, Bits::known(vec![0], 1));
        decode(b"X", 1, &mut b).unwrap();
        assert_eq!(b.unknown, Some('x'));
    }

    #[test]
    fn names_keep_only_an_index_of_the_declared_width() {
        assert_eq!(plain_name(b"cnt [7:0]", 8), Some(&b"cnt"[..]));
        assert_eq!(plain_name(b"b[3]", 1), Some(&b"b"[..]));
        assert_eq!(plain_name(b"mem[3]", 8), None);
        assert_eq!(plain_name(b"a[1][7:0]", 8), None);
        assert_eq!(plain_name(b"plain", 8), Some(&b"plain"[..]));
    }

    /// Records every watched change, for comparing buffer sizes.
    #[derive(Default)]
    struct Record(Vec<(u64, usize, Vec<u8>)>);

    impl Sink for Record {
        fn change(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
            self.0.push((time, slot, value.to_vec()));
            Ok(true)
        }
    }

    #[test]
    fn tokens_cut_by_the_buffer_read_as_whole_ones() {
        let body = "$dumpvars\nb101 !\n0\"\n$end\n#3\nb1\n\n  !\n\
                    $comment b0 ! $end 1\"\n#7\tb0x1z \"#\n1\"\r\n#12\nbx !\n";
        let lookup = Lookup::new(&[0, 1]);
        let whole = {
            let mut r = Record::default();
            stream_chunks(body.as_bytes(), 7, &lookup, &mut r, 1 << 20).unwrap();
            r.0
        };
        assert_eq!(whole.len(), 6, "{whole:?}");
        assert_eq!(whole[2], (3, 0, b"b1".to_vec()));
        for chunk in 1..body.len() {
            let mut r = Record::default();
            stream_chunks(body.as_bytes(), 7, &lookup, &mut r, chunk).unwrap();
            assert_eq!(r.0, whole, "buffer of {chunk} bytes");
        }
    }

    #[test]
    fn time_stamps_read_as_text_parsing_reads_them() {
        for t in [
            "0",
            "7",
            "0010",
            "18446744073709551615",
            "9999999999999999999",
            "1e3",
            "5.0",
        ] {
            let text = t.parse::<u64>().ok().or_else(|| {
                let f = t.parse::<f64>().ok()?;
                (f.fract() == 0.0).then_some(f as u64)
            });
            assert_eq!(time_stamp(t.as_bytes()), text, "{t}");
        }
        assert_eq!(time_stamp(b""), None);
    }

    #[test]
    fn ids_number_as_in_wellen() {
        assert_eq!(id_to_int(b"!"), Some(0));
        assert_eq!(id_to_int(b"~"), Some(93));
        assert_eq!(id_to_int(b"!!"), Some(94));
        assert_eq!(id_to_int(b" "), None);
        assert_eq!(id_to_int(b"\x7f"), None);
        assert_eq!(id_to_int(b""), None);
        assert_eq!(id_to_int(b"a b"), None);
    }
}
