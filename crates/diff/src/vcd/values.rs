//! Decoding a vector's digits into words: eight digits at a time (SWAR), straight into [`Bits`].

use super::lossy;
use crate::bits::Bits;

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
pub(crate) fn scan_binary(buf: &[u8], start: usize) -> (usize, Option<u64>) {
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
pub(super) fn pack64(chunk: &[u8]) -> Option<u64> {
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
