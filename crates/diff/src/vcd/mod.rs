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
use std::io::Read;

mod digits;
mod header;
pub(crate) mod parallel;
mod values;

use digits::{DigitScan, Digits, Swar};
pub(crate) use header::{Header, Kind, id_to_int, read_header};
pub(crate) use values::{decode, scan_binary};

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

    /// A watched change to `0` or `1` (`value`, the clock's changes among them), as
    /// [`Sink::change`] takes it.
    #[inline]
    fn change_bit(&mut self, time: u64, slot: usize, value: &[u8]) -> Result<bool, String> {
        self.change(time, slot, value)
    }
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
    stream_chunks(input, first_line, lookup, sink, 1 << 20, DigitScan::best())
}

/// [`stream_body`] by `plan`: in this thread, or parsed on `plan.workers` threads
/// ([`parallel`]), the changes handed to `sink` in this one either way.
pub(crate) fn stream_body_by(
    input: impl Read + Send,
    first_line: u64,
    lookup: &Lookup,
    sink: &mut impl Sink,
    plan: parallel::Plan,
) -> Result<(), String> {
    if plan.workers == 0 {
        return stream_chunks(
            input,
            first_line,
            lookup,
            sink,
            plan.chunk,
            DigitScan::best(),
        );
    }
    parallel::stream_body_parallel(input, first_line, lookup, sink, plan, DigitScan::best())
}

/// [`stream_body`] with a buffer of `chunk` bytes to start with (tests cut tokens with tiny
/// ones) and the digit scanner `scan` (tests run each).
fn stream_chunks(
    mut input: impl Read,
    first_line: u64,
    lookup: &Lookup,
    sink: &mut impl Sink,
    chunk: usize,
    scan: DigitScan,
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
        let done = match parse(scan, &buf[..limit], &mut st, lookup, sink) {
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

/// What [`parse`] answers: `Some(done)`: bytes consumed (a vector value whose id is not in the
/// buffer yet is left for the next round), `None`: the sink said stop; an error carries the
/// offset it was found at.
type Parsed = Result<Option<usize>, (usize, String)>;

/// Parses the whole tokens of `buf` with the digit scanner `scan` (compiled for its
/// instructions: the whole loop, so that the scanner inlines into it).
fn parse(
    scan: DigitScan,
    buf: &[u8],
    st: &mut Body,
    lookup: &Lookup,
    sink: &mut impl Sink,
) -> Parsed {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn avx2(buf: &[u8], st: &mut Body, lookup: &Lookup, sink: &mut impl Sink) -> Parsed {
            parse_with::<digits::Avx2>(buf, st, lookup, sink)
        }
        #[target_feature(enable = "avx512f,avx512bw")]
        fn avx512(buf: &[u8], st: &mut Body, lookup: &Lookup, sink: &mut impl Sink) -> Parsed {
            parse_with::<digits::Avx512>(buf, st, lookup, sink)
        }
        #[allow(unsafe_code)]
        match scan {
            // SAFETY: `DigitScan::best` (or a test) chose it where the machine has AVX2.
            DigitScan::Avx2 if scan.available() => return unsafe { avx2(buf, st, lookup, sink) },
            // SAFETY: as above, AVX-512F and BW.
            DigitScan::Avx512 if scan.available() => {
                return unsafe { avx512(buf, st, lookup, sink) };
            }
            _ => {}
        }
    }
    let _ = scan;
    parse_with::<Swar>(buf, st, lookup, sink)
}

/// [`parse`] with the digit scanner `D`.
#[inline(always)]
fn parse_with<D: Digits>(
    buf: &[u8],
    st: &mut Body,
    lookup: &Lookup,
    sink: &mut impl Sink,
) -> Parsed {
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
            let (e, packed) = D::scan(buf, s + 1);
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
        let changed = if matches!(value, b"0" | b"1") {
            sink.change_bit(time, slot as usize, value)
        } else {
            sink.change(time, slot as usize, value)
        };
        match changed {
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

#[cfg(test)]
mod tests {
    use super::header::plain_name;
    use super::values::pack64;
    use super::*;
    use crate::bits::Bits;

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
                    $comment b0 ! $end 1\"\n#7\tb0x1z \"#\n1\"\r\n#12\nbx !\n\
                    #13\nb1000000000000000000000000000000000000000000000000000000000000001 !\n";
        let lookup = Lookup::new(&[0, 1]);
        let whole = {
            let mut r = Record::default();
            stream_chunks(
                body.as_bytes(),
                7,
                &lookup,
                &mut r,
                1 << 20,
                DigitScan::Swar,
            )
            .unwrap();
            r.0
        };
        assert_eq!(whole.len(), 7, "{whole:?}");
        assert_eq!(whole[2], (3, 0, b"b1".to_vec()));
        for scan in DigitScan::ALL {
            if !scan.available() {
                eprintln!("skipped: the {scan:?} digit scanner (not on this machine)");
                continue;
            }
            for chunk in 1..body.len() {
                let mut r = Record::default();
                stream_chunks(body.as_bytes(), 7, &lookup, &mut r, chunk, scan).unwrap();
                assert_eq!(r.0, whole, "{scan:?}, buffer of {chunk} bytes");
            }
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
