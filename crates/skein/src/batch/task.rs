//! One computation of a batch as a sequence of UBI block jobs.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use zeroize::Zeroize;

use crate::constants::BlockType;
use crate::lanes::TWEAK_FINAL;
use crate::pad_partial_byte;
use crate::threefish::{words_from_bytes, words_to_bytes};
use crate::tweak::Tweak;

/// Sixteen zero words: the one block of the first output transform call, and the data of a
/// lane with nothing to do.
pub(super) static ZEROS: [u8; crate::ubi::MAX_BLOCK_BYTES] = [0; crate::ubi::MAX_BLOCK_BYTES];

/// One UBI call's message: `data` then, for a message that ends in a partial byte, the
/// bit-padded last byte `tail` (kept apart so that a large input is never copied).
pub(crate) struct Segment<'a> {
    pub data: Cow<'a, [u8]>,
    pub tail: Option<u8>,
    pub block_type: BlockType,
    pub level: u8,
    /// Position offset of the UBI call (tree mode).
    pub position: u128,
    pub bit_pad: bool,
}

impl<'a> Segment<'a> {
    /// A whole-byte UBI message at level 0, position 0.
    pub fn whole(data: &'a [u8], block_type: BlockType) -> Self {
        Segment {
            data: Cow::Borrowed(data),
            tail: None,
            block_type,
            level: 0,
            position: 0,
            bit_pad: false,
        }
    }

    /// The first `bits` bits of `data` (the bit-pad rule applied to a partial last byte).
    pub fn message(
        data: &'a [u8],
        bits: u64,
        block_type: BlockType,
        level: u8,
        position: u128,
    ) -> Self {
        let whole = (bits / 8) as usize;
        let rest = (bits % 8) as u32;
        Segment {
            data: Cow::Borrowed(&data[..whole]),
            tail: (rest != 0).then(|| pad_partial_byte(data[whole], rest)),
            block_type,
            level,
            position,
            bit_pad: rest != 0,
        }
    }

    fn len(&self) -> usize {
        self.data.len() + usize::from(self.tail.is_some())
    }

    /// UBI blocks: at least one, even for an empty message.
    fn blocks(&self, block_bytes: usize) -> usize {
        self.len().div_ceil(block_bytes).max(1)
    }
}

/// A task's UBI calls in order: the leading ones (key, configuration, optional arguments)
/// and the last one (the message), kept apart so that a plain hash allocates nothing for them.
#[derive(Default)]
pub(crate) struct Segments<'a> {
    pub head: Vec<Segment<'a>>,
    pub last: Option<Segment<'a>>,
}

impl<'a> Segments<'a> {
    fn get(&self, i: usize) -> Option<&Segment<'a>> {
        match self.head.get(i) {
            Some(s) => Some(s),
            None if i == self.head.len() => self.last.as_ref(),
            None => None,
        }
    }

    fn len(&self) -> usize {
        self.head.len() + usize::from(self.last.is_some())
    }

    fn iter(&self) -> impl Iterator<Item = &Segment<'a>> {
        self.head.iter().chain(&self.last)
    }
}

/// Whole blocks of one task for a [`crate::lanes::Run`] (see [`Task::run`]).
#[derive(Clone, Copy)]
pub(super) struct Stretch<'d> {
    /// The blocks, `blocks * Nb` bytes.
    pub(super) data: &'d [u8],
    /// Tweak words of the first block.
    pub(super) tweak: [u64; 2],
    pub(super) blocks: usize,
    /// ORed into t1 of the last block of the stretch: the Final flag or 0.
    pub(super) last: u64,
}

/// One independent Skein or UBI computation as a sequence of block jobs: the UBI calls of its
/// segments in order, then, if `out_bits > 0`, the output transform.
pub(crate) struct Task<'a, const N: usize> {
    /// The chaining value: the key of the next job; the result when `out_bits == 0`.
    pub chain: [u64; N],
    segments: Segments<'a>,
    segment: usize,
    block: usize,
    out_bits: u64,
    out_block: usize,
    /// The digest (when `out_bits > 0`).
    pub out: Vec<u8>,
}

impl<'a, const N: usize> Task<'a, N> {
    const BLOCK_BYTES: usize = N * 8;

    pub fn new(chain: [u64; N], segments: Segments<'a>, out_bits: u64) -> Self {
        Task {
            chain,
            segments,
            segment: 0,
            block: 0,
            out_bits,
            out_block: 0,
            out: Vec::new(),
        }
    }

    /// Jobs left, for ordering the tasks longest first.
    pub(super) fn jobs(&self) -> usize {
        let message: usize = self
            .segments
            .iter()
            .map(|s| s.blocks(Self::BLOCK_BYTES))
            .sum();
        message + self.out_bits.div_ceil(8).div_ceil(Self::BLOCK_BYTES as u64) as usize
    }

    /// The next job's tweak and block (its key is `chain`).
    #[inline(always)]
    pub(super) fn job(&self) -> ([u64; 2], [u64; N]) {
        let nb = Self::BLOCK_BYTES;
        let Some(s) = self.segments.get(self.segment) else {
            // Output transform: UBI(G, ToBytes(i, 8), Tout), one block each.
            let tweak = Tweak {
                position: 8,
                first: true,
                last: true,
                ..Tweak::start(BlockType::Output, 0, 0)
            };
            let mut block = [0u64; N];
            block[0] = self.out_block as u64;
            return (tweak.words(), block);
        };
        let off = self.block * nb;
        let len = s.len();
        let last = self.block + 1 == s.blocks(nb);
        let end = (off + nb).min(len);
        let block = if off + nb <= s.data.len() {
            words_from_bytes::<N>(&s.data[off..off + nb])
        } else {
            let mut bytes = [0u8; crate::ubi::MAX_BLOCK_BYTES];
            let from_data = s.data.len().saturating_sub(off).min(nb);
            bytes[..from_data].copy_from_slice(&s.data[off..off + from_data]);
            if let Some(t) = s.tail
                && end > from_data + off
            {
                bytes[from_data] = t;
            }
            let w = words_from_bytes::<N>(&bytes[..nb]);
            bytes.zeroize();
            w
        };
        let tweak = Tweak {
            position: s.position + end as u128,
            tree_level: s.level,
            bit_pad: last && s.bit_pad,
            block_type: s.block_type,
            first: self.block == 0,
            last,
        };
        (tweak.words(), block)
    }

    /// The stretch of whole blocks from the next job on that can go through a
    /// [`crate::lanes::Run`]: the message blocks read straight from the data up to the last
    /// whole one (the Final block too when it is whole, `last` then being the Final flag), or
    /// the first output block. `None` when the next job is a partial, empty or bit-padded last
    /// block, a later output block, or the Position would carry out of t0 within the stretch.
    pub(super) fn run(&self) -> Option<Stretch<'_>> {
        let nb = Self::BLOCK_BYTES;
        let Some(s) = self.segments.get(self.segment) else {
            if self.out_block != 0 {
                return None;
            }
            // Output block 0: ToBytes(0, 8) padded with zeros, Position 8, First and Final.
            let tweak = Tweak {
                position: 8,
                first: true,
                ..Tweak::start(BlockType::Output, 0, 0)
            };
            return Some(Stretch {
                data: &ZEROS[..nb],
                tweak: tweak.words(),
                blocks: 1,
                last: TWEAK_FINAL,
            });
        };
        let whole = s.data.len() / nb;
        let ends_whole = s.tail.is_none() && whole == s.blocks(nb);
        let blocks = whole.saturating_sub(self.block);
        let off = self.block * nb;
        let end = s.position + (off + blocks * nb) as u128;
        if blocks == 0 || end > u128::from(u64::MAX) {
            return None;
        }
        let tweak = Tweak {
            position: s.position + (off + nb) as u128,
            tree_level: s.level,
            bit_pad: false,
            block_type: s.block_type,
            first: self.block == 0,
            last: false,
        };
        Some(Stretch {
            data: &s.data[off..off + blocks * nb],
            tweak: tweak.words(),
            blocks,
            last: if ends_whole { TWEAK_FINAL } else { 0 },
        })
    }

    /// Takes the result of the next `blocks` jobs (a run of that many blocks from
    /// [`Task::run`], or one job); true when the task is done.
    #[inline(always)]
    pub(super) fn advance(&mut self, result: &[u64; N], blocks: usize) -> bool {
        debug_assert!(blocks >= 1);
        if self.segment < self.segments.len() {
            self.block += blocks - 1;
        } else {
            debug_assert_eq!(blocks, 1, "output blocks go one at a time");
        }
        self.absorb(result)
    }

    /// Takes a job's result (`E(chain, tweak, block) xor block`); true when the task is done.
    #[inline(always)]
    fn absorb(&mut self, result: &[u64; N]) -> bool {
        let nb = Self::BLOCK_BYTES;
        if let Some(s) = self.segments.get(self.segment) {
            self.chain = *result;
            self.block += 1;
            if self.block == s.blocks(nb) {
                self.block = 0;
                self.segment += 1;
                if self.segment == self.segments.len() {
                    // The message is done; free the borrowed or owned inputs.
                    self.segments = Segments::default();
                    self.segment = 0;
                    if self.out_bits == 0 {
                        return true;
                    }
                    self.out = alloc::vec![0u8; self.out_bits.div_ceil(8) as usize];
                }
            }
            return false;
        }
        // Output phase: `chain` stays G; the result is output block `out_block`.
        let start = self.out_block * nb;
        let end = (start + nb).min(self.out.len());
        let mut bytes = [0u8; crate::ubi::MAX_BLOCK_BYTES];
        words_to_bytes(result, &mut bytes[..nb]);
        self.out[start..end].copy_from_slice(&bytes[..end - start]);
        bytes.zeroize();
        self.out_block += 1;
        if end == self.out.len() {
            let rest = (self.out_bits % 8) as u32;
            if rest != 0 {
                let last = self.out.len() - 1;
                self.out[last] &= 0xFFu8 << (8 - rest);
            }
            self.chain.zeroize();
            return true;
        }
        false
    }
}

impl<const N: usize> Drop for Task<'_, N> {
    fn drop(&mut self) {
        self.chain.zeroize();
    }
}
