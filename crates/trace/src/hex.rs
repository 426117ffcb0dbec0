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

/// Parses exactly 16 hex digits (either case).
pub fn parse_word(s: &str) -> Option<u64> {
    if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
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
    }
}
