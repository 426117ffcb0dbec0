//! A tiny text emitter for Verilog: lines with indentation, and the literal formats the
//! generator uses everywhere (so that every number in the output is spelled one way).

use std::fmt::Write as _;

/// Lines of Verilog with the current indentation.
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    out: String,
    indent: usize,
}

impl Emitter {
    pub(crate) fn new() -> Self {
        Emitter::default()
    }

    /// One line at the current indentation (an empty `text` writes an empty line).
    pub(crate) fn line(&mut self, text: impl AsRef<str>) {
        let text = text.as_ref();
        if !text.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("    ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    /// A line, then one more level of indentation.
    pub(crate) fn open(&mut self, text: impl AsRef<str>) {
        self.line(text);
        self.indent += 1;
    }

    /// One level less, then a line.
    pub(crate) fn close(&mut self, text: impl AsRef<str>) {
        self.indent = self.indent.saturating_sub(1);
        self.line(text);
    }

    /// One more level of indentation with no line (after `close("end else begin")`).
    pub(crate) fn indent_more(&mut self) {
        self.indent += 1;
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}

/// `W'dV`.
pub(crate) fn dec(width: u32, v: u64) -> String {
    format!("{width}'d{v}")
}

/// `W'hV` with all digits.
pub(crate) fn hexw(width: u32, v: u64) -> String {
    let digits = width.div_ceil(4) as usize;
    format!("{width}'h{v:0digits$x}")
}

/// A packed constant of 64-bit words, word 0 least significant: `{64'h.., ..., 64'h..}`.
pub(crate) fn words_const(words: &[u64]) -> String {
    let mut s = String::from("{");
    for (i, w) in words.iter().enumerate().rev() {
        let _ = write!(s, "64'h{w:016x}");
        if i != 0 {
            s.push_str(", ");
        }
    }
    s.push('}');
    s
}

/// A bit mask with bits `first..end` set, as `W'h..`.
pub(crate) fn mask(width: u32, first: u32, end: u32) -> String {
    let mut v: u64 = 0;
    for b in first..end {
        v |= 1 << b;
    }
    hexw(width, v)
}
