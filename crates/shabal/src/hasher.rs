//! The streaming hasher with the output size chosen at run time, and the one-shot [`hash`].

use alloc::vec;
use alloc::vec::Vec;

use crate::Error;
use crate::constants::{BLOCK_BYTES, PAD_BIT};
use crate::perm::{self, State};

/// Shabal with the output size (192, 224, 256, 384 or 512 bits) chosen at run time. Any
/// sequence of [`Shabal::update`] calls gives the same digest as one call on the concatenation.
///
/// ```
/// use skeinhw_shabal::Shabal;
/// let mut h = Shabal::new(256).unwrap();
/// h.update(b"ab");
/// h.update(b"c");
/// assert_eq!(h.finalize(), skeinhw_shabal::hash(256, b"abc", 24).unwrap());
/// ```
#[derive(Clone)]
pub struct Shabal {
    state: State,
    buffer: [u8; BLOCK_BYTES],
    /// Whole bytes in `buffer`.
    len: usize,
    /// Message bits in `buffer[len]` (most significant first), 0 unless the message ended in a
    /// partial byte, after which nothing more may be added.
    partial_bits: u32,
    out_bits: u64,
}

impl core::fmt::Debug for Shabal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Shabal-{} {{ ... }}", self.out_bits)
    }
}

/// Runs message rounds on whole blocks. The state is copied into a local so that the compiler
/// can keep it in registers across the 48 iterations instead of in the hasher in memory.
#[inline]
fn compress_blocks(state: &mut State, data: &[u8]) {
    debug_assert!(data.len().is_multiple_of(BLOCK_BYTES));
    let mut s = *state;
    for block in data.chunks_exact(BLOCK_BYTES) {
        let block: &[u8; BLOCK_BYTES] = block.try_into().expect("chunks_exact gives whole blocks");
        perm::load_block(&mut s, block);
        perm::message_round(&mut s);
    }
    *state = s;
}

impl Shabal {
    /// A hasher for `out_bits` output bits (192, 224, 256, 384 or 512).
    pub fn new(out_bits: u64) -> Result<Self, Error> {
        let iv = perm::initial_state(out_bits).ok_or(Error::UnknownOutputSize(out_bits))?;
        Ok(Shabal {
            state: *iv,
            buffer: [0; BLOCK_BYTES],
            len: 0,
            partial_bits: 0,
            out_bits,
        })
    }

    /// The output length in bits.
    pub fn out_bits(&self) -> u64 {
        self.out_bits
    }

    /// The output length in bytes.
    pub fn out_bytes(&self) -> usize {
        (self.out_bits / 8) as usize
    }

    /// Appends message bytes.
    ///
    /// # Panics
    /// If the message already ended in a partial byte (see [`Shabal::update_bits`]; use
    /// [`Shabal::try_update`] for an error instead).
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.try_update(data)
            .expect("a message that ends in a partial byte cannot be extended");
    }

    /// Appends message bytes; an error after a partial final byte.
    pub fn try_update(&mut self, mut data: &[u8]) -> Result<(), Error> {
        if self.partial_bits != 0 {
            return Err(Error::UpdateAfterPartialByte);
        }
        // Blocks are compressed as soon as they are full: Shabal's padding always adds at least
        // one bit, so a message that fills its last block gets a padding block of its own and
        // no block needs to be held back.
        if self.len > 0 {
            let take = data.len().min(BLOCK_BYTES - self.len);
            self.buffer[self.len..self.len + take].copy_from_slice(&data[..take]);
            self.len += take;
            data = &data[take..];
            if self.len < BLOCK_BYTES {
                return Ok(());
            }
            let block = self.buffer;
            compress_blocks(&mut self.state, &block);
            self.len = 0;
        }
        let whole = data.len() - data.len() % BLOCK_BYTES;
        compress_blocks(&mut self.state, &data[..whole]);
        let rest = &data[whole..];
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.len = rest.len();
        Ok(())
    }

    /// Appends the first `bits` bits of `data`, most significant bit of each byte first (as the
    /// SAPHIR reference code reads a partial last byte). If `bits` is not a multiple of 8 the
    /// message ends here.
    pub fn update_bits(&mut self, data: &[u8], bits: u64) -> Result<(), Error> {
        let available = data.len() as u64 * 8;
        if bits > available {
            return Err(Error::NotEnoughBits { bits, available });
        }
        let whole = (bits / 8) as usize;
        self.try_update(&data[..whole])?;
        let rest = (bits % 8) as u32;
        if rest != 0 {
            // `len` < 64 here: a full buffer is always compressed at once.
            self.buffer[self.len] = data[whole];
            self.partial_bits = rest;
        }
        Ok(())
    }

    /// Finishes the hash into `out` (out_bits / 8 bytes).
    pub fn finalize_into(mut self, out: &mut [u8]) -> Result<(), Error> {
        self.finalize_into_reset(out)
    }

    /// As [`Shabal::finalize_into`], then starts over with the same output size.
    pub fn finalize_into_reset(&mut self, out: &mut [u8]) -> Result<(), Error> {
        let expected = self.out_bytes();
        if out.len() != expected {
            return Err(Error::OutputBufferLength {
                out_bits: self.out_bits,
                got: out.len(),
                expected,
            });
        }
        pad_last_block(&mut self.buffer, self.len, self.partial_bits);
        let mut s = self.state;
        perm::load_block(&mut s, &self.buffer);
        perm::finish(&mut s);
        perm::output(&s, out);
        self.reset();
        Ok(())
    }

    /// Finishes the hash and returns the digest.
    pub fn finalize(self) -> Vec<u8> {
        let mut out = vec![0; self.out_bytes()];
        self.finalize_into(&mut out)
            .expect("the buffer has the output length");
        out
    }

    /// Starts over with the same output size.
    pub fn reset(&mut self) {
        *self = Shabal::new(self.out_bits).expect("the output size was valid at construction");
    }
}

/// Pads the last block in place: `len` whole message bytes and `partial_bits` (0..8) message
/// bits of `block[len]`, most significant first. Keeps those bits, sets the next one and clears
/// the rest of the block (the reference's `(b & ~(0x7F >> n)) | (0x80 >> n)`).
///
/// # Panics
/// If `len` is 64 or more: a full block is never the last one (padding always adds a bit).
pub fn pad_last_block(block: &mut [u8; BLOCK_BYTES], len: usize, partial_bits: u32) {
    let keep = !(0xFFu8 >> partial_bits);
    block[len] = (block[len] & keep) | (PAD_BIT >> partial_bits);
    block[len + 1..].fill(0);
}

/// The message blocks of the first `msg_bits` bits of `message`, padded: what the hardware is
/// fed, one 64-byte block per message round (the last one then goes through the final rounds).
pub fn padded_blocks(message: &[u8], msg_bits: u64) -> Result<Vec<[u8; BLOCK_BYTES]>, Error> {
    let available = message.len() as u64 * 8;
    if msg_bits > available {
        return Err(Error::NotEnoughBits {
            bits: msg_bits,
            available,
        });
    }
    let whole = (msg_bits / 8) as usize;
    let mut blocks: Vec<[u8; BLOCK_BYTES]> = message[..whole]
        .chunks(BLOCK_BYTES)
        .map(|chunk| {
            let mut b = [0; BLOCK_BYTES];
            b[..chunk.len()].copy_from_slice(chunk);
            b
        })
        .collect();
    let len = whole % BLOCK_BYTES;
    if len == 0 {
        blocks.push([0; BLOCK_BYTES]);
    }
    let last = blocks.last_mut().expect("at least one block");
    let partial_bits = (msg_bits % 8) as u32;
    if partial_bits != 0 {
        last[len] = message[whole];
    }
    pad_last_block(last, len, partial_bits);
    Ok(blocks)
}

/// Shabal-`out_bits` of the first `msg_bits` bits of `message` (most significant bit of each byte
/// first; the padding then appends a single 1 bit and zeros to the end of the block).
///
/// ```
/// // Shabal-256 of the empty message (NIST KAT, Len = 0).
/// let d = skeinhw_shabal::hash(256, b"", 0).unwrap();
/// assert_eq!(d[..4], [0xae, 0xc7, 0x50, 0xd1]);
/// ```
pub fn hash(out_bits: u64, message: &[u8], msg_bits: u64) -> Result<Vec<u8>, Error> {
    let mut h = Shabal::new(out_bits)?;
    h.update_bits(message, msg_bits)?;
    Ok(h.finalize())
}
