//! The VCD header: scopes and variables, named as wellen names them, or `None` for anything
//! this reader leaves to wellen.

use std::collections::HashMap;
use std::io::BufRead;

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
pub(super) fn plain_name(raw: &[u8], width: u32) -> Option<&[u8]> {
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
