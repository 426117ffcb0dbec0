//! VCD traces: one scope (`skeinhw`), the signals of [`crate::names`], the clock rising at
//! time 10 x cycle (timescale 1 ns) with every register changing at that edge, and the
//! [`TraceHeader`](skeinhw_sched::sim::TraceHeader) as JSON in a `$comment` so that a reader
//! knows the schedule.
//!
//! The writer formats by hand into one buffer: the VCD ids are computed once (in the `vcd`
//! crate's sequence, `!`, `"`, ...), a vector's binary digits come eight at a time from a
//! table, and the buffer goes to the output in large writes. The bytes are those the `vcd`
//! crate's writer wrote before (tests/vcd_bytes.rs holds the two to each other).

use std::io::{self, Write};

use skeinhw_sched::sim::{CycleRecord, TraceHeader, TraceSink};
use vcd::IdCode;

use crate::names::{self, Signal};
use crate::wave::{SkeinWave, WaveFormat};

/// Prefix of the `$comment` that carries the header.
pub(crate) const HEADER_COMMENT: &str = "skeinhw-trace ";

/// The buffer is handed to the output when it holds this many bytes.
const FLUSH_AT: usize = 1 << 16;

/// The eight binary digits of each byte value, most significant first.
const BINARY: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut b = 0;
        while b < 8 {
            if (v >> (7 - b)) & 1 == 1 {
                t[v][b] = b'1';
            }
            b += 1;
        }
        v += 1;
    }
    t
};

/// The low `width` bits of `v` as binary digits, most significant first (width 1..=64).
#[inline]
pub(crate) fn binary_digits(v: u64, width: u32, buf: &mut [u8; 64]) -> &[u8] {
    for (k, chunk) in buf.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&BINARY[(v >> (56 - 8 * k)) as u8 as usize]);
    }
    &buf[64 - width as usize..]
}

/// Appends the decimal digits of `v`.
fn push_decimal(out: &mut Vec<u8>, mut v: u64) {
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

/// The VCD text of a trace, formatted into one buffer.
pub(crate) struct VcdFormat<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// Per signal, what follows its value on the line: `" <id>\n"` for a vector, `"<id>\n"`
    /// for a scalar.
    tails: Vec<Vec<u8>>,
    widths: Vec<u32>,
}

impl<W: Write> VcdFormat<W> {
    pub(crate) fn new(out: W) -> Self {
        VcdFormat {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            tails: Vec::new(),
            widths: Vec::new(),
        }
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl<W: Write> WaveFormat for VcdFormat<W> {
    fn declare(&mut self, header_json: &str, signals: &[Signal]) -> io::Result<()> {
        let b = &mut self.buf;
        writeln!(b, "$comment\n    {HEADER_COMMENT}{header_json}\n$end")?;
        writeln!(b, "$timescale 1 ns $end")?;
        writeln!(b, "$scope module {} $end", names::SCOPE)?;
        let mut id = IdCode::FIRST;
        for sig in signals {
            writeln!(b, "$var wire {} {id} {} $end", sig.width, sig.name)?;
            let tail = if sig.width == 1 {
                format!("{id}\n")
            } else {
                format!(" {id}\n")
            };
            self.tails.push(tail.into_bytes());
            self.widths.push(sig.width);
            id = id.next();
        }
        writeln!(b, "$upscope $end")?;
        writeln!(b, "$enddefinitions $end")?;
        self.spill()
    }

    #[inline]
    fn time(&mut self, t: u64) -> io::Result<()> {
        self.buf.push(b'#');
        push_decimal(&mut self.buf, t);
        self.buf.push(b'\n');
        self.spill()
    }

    #[inline]
    fn change(&mut self, i: usize, v: u64) -> io::Result<()> {
        let width = self.widths[i];
        if width == 1 {
            self.buf.push(b'0' + (v & 1) as u8);
        } else {
            let mut digits = [0u8; 64];
            self.buf.push(b'b');
            self.buf
                .extend_from_slice(binary_digits(v, width, &mut digits));
        }
        self.buf.extend_from_slice(&self.tails[i]);
        self.spill()
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// Writes a VCD trace to `W` (it buffers itself; `W` need not).
pub struct VcdWriter<W: Write> {
    wave: SkeinWave<VcdFormat<W>>,
}

impl<W: Write> std::fmt::Debug for VcdWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VcdWriter")
            .field("signals", &self.wave.edges.signal_count())
            .finish()
    }
}

impl<W: Write> VcdWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        VcdWriter {
            wave: SkeinWave::new(VcdFormat::new(out)),
        }
    }
}

impl<W: Write> TraceSink for VcdWriter<W> {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.wave.begin(header)
    }

    fn cycle(&mut self, r: &CycleRecord<'_>) -> io::Result<()> {
        self.wave.cycle(r)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.wave.edges.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_digits_are_the_low_bits_most_significant_first() {
        let mut buf = [0u8; 64];
        assert_eq!(binary_digits(0b101, 3, &mut buf), b"101");
        assert_eq!(binary_digits(0xff05, 8, &mut buf), b"00000101");
        let w = 0x8000_0000_0000_0001u64;
        let want = format!("{w:064b}");
        assert_eq!(binary_digits(w, 64, &mut buf), want.as_bytes());
        assert_eq!(binary_digits(u64::MAX, 17, &mut buf), [b'1'; 17]);
    }
}
