//! The output transform as a stream (Skein 1.3, section 3.5.3): block `i` of the output is
//! UBI(G, ToBytes(i, 8), Tout), independent of the others, so an output of any length (up to
//! 2^64 - 1 bits, the configuration's limit) can be read piece by piece in constant memory.
//!
//! ```
//! use skeinhw_skein::Skein512;
//! let mut h = Skein512::new(1 << 20).unwrap();
//! h.update(b"abc");
//! let mut reader = h.finalize_reader();
//! let mut head = [0u8; 16];
//! reader.fill(&mut head);
//! assert_eq!(reader.remaining_bytes(), (1 << 17) - 16);
//! ```
//!
//! Skein's output length is part of its configuration, so this is not an extendable-output
//! function (RustCrypto's `XofReader` never ends); the reader ends after ceil(out_bits / 8)
//! bytes, the last one with its unused low bits zeroed, exactly as [`Skein::finalize`].

use zeroize::Zeroize;

use crate::hasher::output_block;
use crate::{DynSkein, Skein};

/// Reads a finished Skein's output, block by block.
#[derive(Clone)]
pub struct OutputReader<const N: usize> {
    g: [u64; N],
    out_bits: u64,
    /// Output bytes read so far.
    position: u64,
    /// The current output block and the block number it holds (`u64::MAX`: none yet).
    block: [u8; 128],
    block_index: u64,
}

impl<const N: usize> OutputReader<N> {
    fn new(g: [u64; N], out_bits: u64) -> Self {
        OutputReader {
            g,
            out_bits,
            position: 0,
            block: [0; 128],
            block_index: u64::MAX,
        }
    }

    /// Output length in bits.
    pub fn out_bits(&self) -> u64 {
        self.out_bits
    }

    /// Output bytes not read yet.
    pub fn remaining_bytes(&self) -> u64 {
        self.out_bits.div_ceil(8) - self.position
    }

    /// The output byte the next [`OutputReader::fill`] starts at.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Moves to output byte `position` (clamped to the output's length). Output blocks are
    /// independent, so reading a slice deep inside a long output costs the blocks of the
    /// slice only, whatever the output length.
    pub fn seek(&mut self, position: u64) {
        self.position = position.min(self.out_bits.div_ceil(8));
    }

    /// Fills `buf` with the next output bytes, or as many as remain; returns how many.
    pub fn fill(&mut self, buf: &mut [u8]) -> usize {
        let nb = (N * 8) as u64;
        let total = self.out_bits.div_ceil(8);
        let mut written = 0;
        while written < buf.len() && self.position < total {
            let index = self.position / nb;
            if index != self.block_index {
                output_block(&self.g, index, &mut self.block[..N * 8]);
                self.block_index = index;
            }
            let offset = (self.position % nb) as usize;
            let take = (N * 8 - offset)
                .min(buf.len() - written)
                .min((total - self.position).min(usize::MAX as u64) as usize);
            buf[written..written + take].copy_from_slice(&self.block[offset..offset + take]);
            written += take;
            self.position += take as u64;
        }
        let rest = (self.out_bits % 8) as u32;
        if written > 0 && rest != 0 && self.position == total {
            buf[written - 1] &= 0xFFu8 << (8 - rest);
        }
        written
    }
}

impl<const N: usize> Drop for OutputReader<N> {
    fn drop(&mut self) {
        self.g.zeroize();
        self.block.zeroize();
    }
}

#[cfg(feature = "std")]
impl<const N: usize> std::io::Read for OutputReader<N> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Ok(self.fill(buf))
    }
}

impl<const N: usize> Skein<N> {
    /// Finishes the message and returns a reader of the output, for outputs too long to hold
    /// in memory (the same bytes as [`Skein::finalize`]).
    pub fn finalize_reader(mut self) -> OutputReader<N> {
        let g = self.finish_message();
        OutputReader::new(g, self.out_bits())
    }
}

/// An [`OutputReader`] of the state size chosen at run time.
#[derive(Clone)]
pub enum DynOutputReader {
    /// Skein-256.
    Skein256(OutputReader<4>),
    /// Skein-512.
    Skein512(OutputReader<8>),
    /// Skein-1024.
    Skein1024(OutputReader<16>),
}

impl DynOutputReader {
    /// See [`OutputReader::fill`].
    pub fn fill(&mut self, buf: &mut [u8]) -> usize {
        match self {
            DynOutputReader::Skein256(r) => r.fill(buf),
            DynOutputReader::Skein512(r) => r.fill(buf),
            DynOutputReader::Skein1024(r) => r.fill(buf),
        }
    }

    /// See [`OutputReader::remaining_bytes`].
    pub fn remaining_bytes(&self) -> u64 {
        match self {
            DynOutputReader::Skein256(r) => r.remaining_bytes(),
            DynOutputReader::Skein512(r) => r.remaining_bytes(),
            DynOutputReader::Skein1024(r) => r.remaining_bytes(),
        }
    }

    /// See [`OutputReader::position`].
    pub fn position(&self) -> u64 {
        match self {
            DynOutputReader::Skein256(r) => r.position(),
            DynOutputReader::Skein512(r) => r.position(),
            DynOutputReader::Skein1024(r) => r.position(),
        }
    }

    /// See [`OutputReader::seek`].
    pub fn seek(&mut self, position: u64) {
        match self {
            DynOutputReader::Skein256(r) => r.seek(position),
            DynOutputReader::Skein512(r) => r.seek(position),
            DynOutputReader::Skein1024(r) => r.seek(position),
        }
    }
}

#[cfg(feature = "std")]
impl std::io::Read for DynOutputReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Ok(self.fill(buf))
    }
}

impl DynSkein {
    /// Finishes the message and returns a reader of the output (see [`Skein::finalize_reader`]).
    pub fn finalize_reader(self) -> DynOutputReader {
        match self {
            DynSkein::Skein256(h) => DynOutputReader::Skein256(h.finalize_reader()),
            DynSkein::Skein512(h) => DynOutputReader::Skein512(h.finalize_reader()),
            DynSkein::Skein1024(h) => DynOutputReader::Skein1024(h.finalize_reader()),
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use crate::{DynSkein, Params};

    /// Reads the whole output in pieces of `step` bytes.
    fn streamed(size: usize, out_bits: u64, msg: &[u8], tree: bool, step: usize) -> Vec<u8> {
        let params = Params {
            tree: tree.then(|| crate::TreeParams::new(1, 1, 3).unwrap()),
            ..Params::default()
        };
        let mut h = DynSkein::new(size, out_bits, &params).unwrap();
        h.update(msg);
        let mut r = h.finalize_reader();
        let mut out = Vec::new();
        let mut buf = alloc::vec![0u8; step];
        loop {
            let n = r.fill(&mut buf);
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(r.remaining_bytes(), 0);
        out
    }

    #[test]
    fn streamed_output_equals_finalize() {
        let msg: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        for size in [256, 512, 1024] {
            for out_bits in [1, 7, 8, 9, 255, 256, 257, 1000, 4099, 8 * 1024 + 3] {
                for tree in [false, true] {
                    let params = Params {
                        tree: tree.then(|| crate::TreeParams::new(1, 1, 3).unwrap()),
                        ..Params::default()
                    };
                    let whole = crate::hash(size, out_bits, &msg, 2400, &params).unwrap();
                    for step in [1, 5, 32, 64, 129, 4096] {
                        assert_eq!(
                            streamed(size, out_bits, &msg, tree, step),
                            whole,
                            "{size} {out_bits} {tree} {step}"
                        );
                    }
                }
            }
        }
    }

    /// `len` bytes from output byte `start` of Skein-`size` of `msg`, through `seek`.
    fn sliced(size: usize, out_bits: u64, msg: &[u8], start: u64, len: usize) -> Vec<u8> {
        let mut h = DynSkein::new(size, out_bits, &Params::default()).unwrap();
        h.update(msg);
        let mut r = h.finalize_reader();
        r.seek(start);
        assert_eq!(r.position(), start);
        let mut out = alloc::vec![0u8; len];
        let n = r.fill(&mut out);
        out.truncate(n);
        out
    }

    #[test]
    fn seek_reads_the_same_bytes_as_a_slice_of_the_whole() {
        let msg = b"seek";
        for size in [256, 512, 1024] {
            for out_bits in [9, 256, 1000, 4099] {
                let whole = crate::hash(size, out_bits, msg, 32, &Params::default()).unwrap();
                for start in 0..=whole.len() {
                    for len in [0, 1, 7, 33, 200, 600] {
                        let stop = (start + len).min(whole.len());
                        assert_eq!(
                            sliced(size, out_bits, msg, start as u64, len),
                            whole[start..stop],
                            "{size} {out_bits} {start} {len}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn seek_clamps_to_the_end() {
        let mut h = DynSkein::new(512, 100, &Params::default()).unwrap();
        h.update(b"x");
        let mut r = h.finalize_reader();
        r.seek(1 << 40);
        assert_eq!((r.position(), r.remaining_bytes()), (13, 0));
        assert_eq!(r.fill(&mut [0u8; 4]), 0);
    }

    /// Deep in the longest output, block i is UBI(G, ToBytes(i, 8), Tout) with all 64 bits of
    /// i: block 2^32 differs from block 0 (a 32-bit counter would repeat it).
    #[test]
    fn seek_deep_into_the_longest_output_uses_the_64_bit_counter() {
        let mut h = crate::Skein512::new(u64::MAX).unwrap();
        h.update(b"deep");
        let g = h.clone().finish_message();
        let r = h.finalize_reader();
        // 2^61 output bytes: blocks 0 ..= 2^55 - 1.
        for index in [
            0u64,
            1,
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
            (1 << 55) - 2,
        ] {
            let mut want = [0u8; 64];
            crate::hasher::output_block(&g, index, &mut want);
            let mut got = [0u8; 64];
            let mut at = r.clone();
            at.seek(index * 64);
            assert_eq!(at.fill(&mut got), 64);
            assert_eq!(got, want, "block {index}");
        }
        let block = |i: u64| {
            let mut at = r.clone();
            at.seek(i * 64);
            let mut b = [0u8; 64];
            at.fill(&mut b);
            b
        };
        assert_ne!(block(1 << 32), block(0));
        // The last byte of 2^64 - 1 bits keeps its 7 high bits.
        let mut last = r.clone();
        last.seek(u64::MAX / 8);
        let mut b = [0u8; 2];
        assert_eq!(last.fill(&mut b), 1);
        assert_eq!(b[0] & 1, 0);
    }
}
