//! Finding where a vector value's binary digits end and packing them into a word, 64 digits at
//! a time with AVX-512BW or AVX2: most of a VCD's bytes are the digits of `b<digits> <id>`
//! changes (a trace's 64-bit fields: 64 digits each), and the eight-at-a-time SWAR loop of
//! [`super::values::scan_binary`] was the largest single cost of reading them.
//!
//! One 64-byte load gives two masks (bytes equal to `1`, bytes that are neither `0` nor `1`):
//! the first set bit of the second is where the digits end, the first gives their value with
//! its bits reversed (the first digit is the most significant). Anything else (a value near the
//! end of the buffer, more than 64 digits) goes to the SWAR loop, which stays the reference.

use super::values::scan_binary;

/// Which instructions scan the digits: chosen once per file ([`DigitScan::best`]); every
/// choice gives the same answers (tested on each this machine has).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DigitScan {
    /// Eight digits per 64-bit word (any machine).
    Swar,
    /// Two 32-byte compares per 64 digits.
    Avx2,
    /// One 64-byte compare per 64 digits.
    Avx512,
}

impl DigitScan {
    /// Every scanner, fastest last.
    pub(crate) const ALL: [DigitScan; 3] = [DigitScan::Swar, DigitScan::Avx2, DigitScan::Avx512];

    /// The fastest scanner this machine runs.
    pub(crate) fn best() -> DigitScan {
        Self::ALL
            .into_iter()
            .rev()
            .find(|s| s.available())
            .unwrap_or(DigitScan::Swar)
    }

    /// Whether this machine runs it.
    pub(crate) fn available(self) -> bool {
        match self {
            DigitScan::Swar => true,
            #[cfg(target_arch = "x86_64")]
            DigitScan::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            DigitScan::Avx512 => {
                std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// A digit scanner as the VCD body parser calls it: `scan(buf, start)` answers the end of the
/// `0`/`1` digits from `start` and, for 1 to 64 of them, their value (as
/// [`super::values::scan_binary`] does).
pub(crate) trait Digits {
    fn scan(buf: &[u8], start: usize) -> (usize, Option<u64>);
}

/// The SWAR loop.
pub(crate) struct Swar;

impl Digits for Swar {
    #[inline(always)]
    fn scan(buf: &[u8], start: usize) -> (usize, Option<u64>) {
        scan_binary(buf, start)
    }
}

/// `k` digits (1 to 64) whose `1`s are the low bits of `ones`, digit 0 in bit 0: their value,
/// digit 0 the most significant bit.
#[inline(always)]
fn pack(ones: u64, k: usize) -> u64 {
    (ones << (64 - k)).reverse_bits()
}

/// The scan from the two masks of the 64 bytes at `start` (`masks` is only called with 64
/// bytes in bounds).
#[inline(always)]
fn scan_with(
    buf: &[u8],
    start: usize,
    masks: impl Fn(&[u8; 64]) -> (u64, u64),
) -> (usize, Option<u64>) {
    if let Some(block) = buf.get(start..start + 64) {
        let (ones, others) = masks(block.try_into().expect("64 bytes"));
        if others != 0 {
            let k = others.trailing_zeros() as usize;
            return (start + k, (k > 0).then(|| pack(ones, k)));
        }
        // Exactly 64 digits (a 64-bit field): its value if the next byte ends them.
        if buf
            .get(start + 64)
            .is_some_and(|c| !matches!(c, b'0' | b'1'))
        {
            return (start + 64, Some(pack(ones, 64)));
        }
    }
    scan_binary(buf, start)
}

/// Two 32-byte compares per 64 digits.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Digits for Avx2 {
    /// Only inlined into a function compiled for AVX2 (see the parser's dispatch).
    #[inline(always)]
    fn scan(buf: &[u8], start: usize) -> (usize, Option<u64>) {
        scan_with(buf, start, |block| {
            use std::arch::x86_64::*;
            // SAFETY: called only where AVX2 was detected (`DigitScan::Avx2.available()`),
            // the loads read the 64 bytes of `block`.
            #[allow(unsafe_code)]
            unsafe {
                let p = block.as_ptr().cast::<__m256i>();
                let (lo, hi) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
                let mask = |c: u8| {
                    let c = _mm256_set1_epi8(c as i8);
                    let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, c)) as u32;
                    let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, c)) as u32;
                    u64::from(lo) | (u64::from(hi) << 32)
                };
                let (zeros, ones) = (mask(b'0'), mask(b'1'));
                (ones, !(zeros | ones))
            }
        })
    }
}

/// One 64-byte compare per 64 digits.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx512;

#[cfg(target_arch = "x86_64")]
impl Digits for Avx512 {
    /// Only inlined into a function compiled for AVX-512BW (see the parser's dispatch).
    #[inline(always)]
    fn scan(buf: &[u8], start: usize) -> (usize, Option<u64>) {
        scan_with(buf, start, |block| {
            use std::arch::x86_64::*;
            // SAFETY: called only where AVX-512F and BW were detected
            // (`DigitScan::Avx512.available()`), the load reads the 64 bytes of `block`.
            #[allow(unsafe_code)]
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr().cast());
                let zeros = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'0' as i8));
                let ones = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'1' as i8));
                (ones, !(zeros | ones))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan of every scanner this machine has, on `buf` from `start`.
    fn scans(buf: &[u8], start: usize) -> Vec<(DigitScan, (usize, Option<u64>))> {
        let mut out = vec![(DigitScan::Swar, Swar::scan(buf, start))];
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            fn avx2(buf: &[u8], start: usize) -> (usize, Option<u64>) {
                Avx2::scan(buf, start)
            }
            #[target_feature(enable = "avx512f,avx512bw")]
            fn avx512(buf: &[u8], start: usize) -> (usize, Option<u64>) {
                Avx512::scan(buf, start)
            }
            #[allow(unsafe_code)]
            if DigitScan::Avx2.available() {
                // SAFETY: AVX2 detected.
                out.push((DigitScan::Avx2, unsafe { avx2(buf, start) }));
            }
            #[allow(unsafe_code)]
            if DigitScan::Avx512.available() {
                // SAFETY: AVX-512F and BW detected.
                out.push((DigitScan::Avx512, unsafe { avx512(buf, start) }));
            }
        }
        out
    }

    #[test]
    fn every_scanner_answers_as_the_plain_loop() {
        for s in DigitScan::ALL {
            if !s.available() {
                eprintln!("skipped: the {s:?} digit scanner (not on this machine)");
            }
        }
        let plain = |buf: &[u8], start: usize| {
            let end = start
                + buf[start..]
                    .iter()
                    .take_while(|c| matches!(c, b'0' | b'1'))
                    .count();
            let n = end - start;
            let word = (1..=64).contains(&n).then(|| {
                buf[start..end]
                    .iter()
                    .fold(0u64, |w, &c| (w << 1) | u64::from(c - b'0'))
            });
            (end, word)
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        for len in 0..=140usize {
            for tail in [&b" !"[..], b"\n", b"x !", b"", b"2", b"\r", b"0", b"1"] {
                for pad in [0usize, 1, 63, 64, 100] {
                    let r = next();
                    let mut buf = b"b".to_vec();
                    buf.extend((0..len).map(|i| b'0' + ((r.rotate_left(i as u32) >> 7) & 1) as u8));
                    buf.extend_from_slice(tail);
                    buf.extend(std::iter::repeat_n(b' ', pad));
                    let want = plain(&buf, 1);
                    for (scan, got) in scans(&buf, 1) {
                        assert_eq!(
                            got, want,
                            "{scan:?}: {len} digits, tail {tail:?}, pad {pad}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 141 * 8 * 5);
    }

    #[test]
    fn a_64_digit_word_packs_most_significant_first() {
        let mut text: Vec<u8> = vec![b'0'; 64];
        text[0] = b'1';
        text[62] = b'1';
        text.extend_from_slice(b" !\n");
        for (scan, got) in scans(&text, 0) {
            assert_eq!(got, (64, Some((1 << 63) | 2)), "{scan:?}");
        }
    }
}
