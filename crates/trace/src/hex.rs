//! 64-bit words as fixed-width 16-digit lower-case hex, the one spelling of a word in JSON
//! traces: fixed width so that lines line up and scripts can slice them.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Appends the 16 hex digits of `w` to `out`.
#[inline]
pub fn push_word(out: &mut Vec<u8>, w: u64) {
    let mut buf = [0u8; 16];
    for (i, b) in buf.iter_mut().enumerate() {
        *b = DIGITS[((w >> (60 - 4 * i)) & 0xf) as usize];
    }
    out.extend_from_slice(&buf);
}

/// The 16 hex digits of `w`.
pub fn word(w: u64) -> String {
    let mut v = Vec::with_capacity(16);
    push_word(&mut v, w);
    String::from_utf8(v).expect("hex digits are ASCII")
}

/// Each byte's value as a hex digit (either case), `0xff` for any other byte.
const NIBBLE: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// Parses exactly 16 hex digits (either case). A table lookup per digit, no per-digit
/// overflow check: a JSON-lines golden trace has 21 words or more per cycle, and parsing them
/// bounded the diff against one.
#[inline]
pub fn parse_word(s: &str) -> Option<u64> {
    let digits: &[u8; 16] = s.as_bytes().try_into().ok()?;
    let (mut w, mut bad) = (0u64, 0u8);
    for &c in digits {
        let v = NIBBLE[c as usize];
        bad |= v;
        w = (w << 4) | u64::from(v & 0xf);
    }
    (bad & 0xf0 == 0).then_some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for w in [0, 1, 0x1BD1_1BDA_A9FC_1A22, u64::MAX] {
            assert_eq!(word(w).len(), 16);
            assert_eq!(parse_word(&word(w)), Some(w));
        }
        assert_eq!(word(0x20), "0000000000000020");
        assert_eq!(parse_word("20"), None);
        assert_eq!(parse_word("000000000000002g"), None);
        assert_eq!(parse_word("00000000000000200"), None);
        assert_eq!(parse_word("1BD11BDAA9FC1A22"), Some(0x1BD1_1BDA_A9FC_1A22));
    }

    /// Every byte in every position, against the standard library's parse.
    #[test]
    fn every_byte_parses_as_from_str_radix_does() {
        for pos in 0..16 {
            for byte in 0..=255u8 {
                let mut text = *b"0123456789abcdef";
                text[pos] = byte;
                let Ok(s) = std::str::from_utf8(&text) else {
                    continue; // not a &str: parse_word never sees it
                };
                let want = (s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit()))
                    .then(|| u64::from_str_radix(s, 16).unwrap());
                assert_eq!(parse_word(s), want, "{s:?}");
            }
        }
    }
}
