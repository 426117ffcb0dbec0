//! Streaming UBI, the chaining mode of Skein (Skein 1.3, section 3.4).

use zeroize::Zeroize;

use crate::constants::BlockType;
use crate::fast::{compress_blocks, compress_words};
use crate::threefish::words_from_bytes;
use crate::tweak::Tweak;

/// Largest block of the three sizes, in bytes (Threefish-1024).
pub(crate) const MAX_BLOCK_BYTES: usize = 128;

/// One UBI call fed in pieces: `UBI(G, M, Ts)` with the chaining value G, the message M given
/// through any number of [`Ubi::update`] calls, and the starting tweak Ts (type, tree level and
/// position offset). The last block is held back until [`Ubi::finish`], because only then is
/// it known to carry the Final flag.
#[derive(Clone)]
pub struct Ubi<const N: usize> {
    chain: [u64; N],
    tweak: Tweak,
    buffer: [u8; MAX_BLOCK_BYTES],
    buffered: usize,
}

impl<const N: usize> Ubi<N> {
    const BLOCK_BYTES: usize = N * 8;

    /// Starts `UBI(chain, ., Ts)` where Ts has the given type, tree level and position offset.
    pub fn new(chain: [u64; N], block_type: BlockType, tree_level: u8, position: u128) -> Self {
        const {
            assert!(
                N == 4 || N == 8 || N == 16,
                "Threefish has 4, 8 or 16 words"
            )
        };
        Ubi {
            chain,
            tweak: Tweak {
                first: true,
                ..Tweak::start(block_type, tree_level, position)
            },
            buffer: [0; MAX_BLOCK_BYTES],
            buffered: 0,
        }
    }

    /// Appends message bytes.
    #[inline]
    pub fn update(&mut self, mut data: &[u8]) {
        let nb = Self::BLOCK_BYTES;
        if data.len() <= nb - self.buffered {
            self.buffer[self.buffered..self.buffered + data.len()].copy_from_slice(data);
            self.buffered += data.len();
            return;
        }
        // More data follows the buffered bytes: fill and process the buffered block.
        if self.buffered > 0 {
            let take = nb - self.buffered;
            self.buffer[self.buffered..nb].copy_from_slice(&data[..take]);
            data = &data[take..];
            let block = words_from_bytes::<N>(&self.buffer[..nb]);
            self.process(&block, nb);
            self.buffered = 0;
        }
        // Process whole blocks straight from the input, holding back the last one, in one call
        // so that the chaining value stays in registers from block to block.
        let whole = (data.len() - 1) / nb;
        if whole > 0 {
            self.tweak.position += nb as u128;
            compress_blocks(&mut self.chain, &data[..whole * nb], self.tweak.words());
            self.tweak.position += ((whole - 1) * nb) as u128;
            self.tweak.first = false;
            data = &data[whole * nb..];
        }
        self.buffer[..data.len()].copy_from_slice(data);
        self.buffered = data.len();
    }

    #[inline(always)]
    fn process(&mut self, block: &[u64; N], bytes: usize) {
        self.tweak.position += bytes as u128;
        compress_words(&mut self.chain, block, self.tweak.words());
        self.tweak.first = false;
    }

    /// Processes the last block with the Final flag (and BitPad if the message was bit-padded)
    /// and returns the UBI result.
    pub fn finish(mut self, bit_pad: bool) -> [u64; N] {
        let nb = Self::BLOCK_BYTES;
        self.buffer[self.buffered..nb].fill(0);
        let block = words_from_bytes::<N>(&self.buffer[..nb]);
        self.tweak.last = true;
        self.tweak.bit_pad = bit_pad;
        let bytes = self.buffered;
        self.process(&block, bytes);
        // `Drop` wipes the state.
        self.chain
    }

    /// Bytes given so far, plus the starting offset: the Position the next block would start at.
    pub fn position(&self) -> u128 {
        self.tweak.position + self.buffered as u128
    }
}

impl<const N: usize> Zeroize for Ubi<N> {
    fn zeroize(&mut self) {
        self.chain.zeroize();
        // Only the first block's worth of the buffer is ever written.
        self.buffer[..Self::BLOCK_BYTES].zeroize();
        self.buffered = 0;
    }
}

impl<const N: usize> Drop for Ubi<N> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// A whole UBI call over a byte string.
pub fn ubi<const N: usize>(chain: [u64; N], message: &[u8], block_type: BlockType) -> [u64; N] {
    let mut u = Ubi::new(chain, block_type, 0, 0);
    u.update(message);
    u.finish(false)
}
