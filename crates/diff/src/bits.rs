//! A sampled value: the bits of a signal slice, or the first unknown state in it. The lowest
//! piece of the waveform side, shared by the VCD reader and the sampler.

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

    /// Becomes the known value `word` of `width` bits (at most 64), its buffer reused: the
    /// readers set every change of a trace's fields this way, millions a second.
    #[inline]
    pub(crate) fn set_word(&mut self, width: u32, word: u64) {
        self.unknown = None;
        self.width = width;
        if let [w] = self.words.as_mut_slice() {
            *w = word;
        } else {
            self.words.clear();
            self.words.push(word);
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
