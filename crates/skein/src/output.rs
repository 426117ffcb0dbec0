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
}
