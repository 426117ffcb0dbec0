//! Skein, fast and streaming: key, configuration, the optional arguments in type order,
//! the message (plain or as a tree) and the output transform (Skein 1.3, section 3.5).

use alloc::vec::Vec;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::Error;
use crate::constants::{BlockType, CONFIG_LEN, CONFIG_SCHEMA, CONFIG_VERSION};
use crate::fast::compress_words;
use crate::threefish::words_to_bytes;
use crate::tweak::Tweak;
use crate::ubi::Ubi;

/// Tree hashing parameters (Skein 1.3, section 3.5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TreeParams {
    /// Yl: a leaf holds Nb * 2^Yl message bytes (Yl >= 1).
    pub leaf: u8,
    /// Yf: a node holds 2^Yf child values (Yf >= 1).
    pub fan_out: u8,
    /// Ym: the maximum tree height (Ym >= 2; 255 for unlimited).
    pub max_height: u8,
}

impl TreeParams {
    /// Checks the ranges the spec requires.
    pub fn new(leaf: u8, fan_out: u8, max_height: u8) -> Result<Self, Error> {
        if leaf < 1 || fan_out < 1 || max_height < 2 {
            return Err(Error::TreeParams {
                leaf,
                fan_out,
                max_height,
            });
        }
        Ok(TreeParams {
            leaf,
            fan_out,
            max_height,
        })
    }

    fn validate(self) -> Result<Self, Error> {
        Self::new(self.leaf, self.fan_out, self.max_height)
    }

    /// Leaf size Nl = Nb * 2^Yl in bytes, capped at 2^100 (beyond any message length).
    pub fn leaf_bytes(self, block_bytes: usize) -> u128 {
        (block_bytes as u128) << self.leaf.min(100)
    }

    /// Number of child values in a node: 2^Yf, capped at 2^100.
    pub fn node_values(self) -> u128 {
        1u128 << self.fan_out.min(100)
    }
}

/// The optional arguments of a Skein computation. An empty key means no Key UBI (as in the
/// reference code); every other argument, when present, is one UBI in type order, even if
/// empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params<'a> {
    /// Key for Skein-MAC / KDF (type 0).
    pub key: &'a [u8],
    /// Personalization string (type 8).
    pub personalization: Option<&'a [u8]>,
    /// Public key (type 12).
    pub public_key: Option<&'a [u8]>,
    /// Key identifier for KDF (type 16).
    pub key_id: Option<&'a [u8]>,
    /// Nonce (type 20).
    pub nonce: Option<&'a [u8]>,
    /// Tree hashing parameters; `None` for sequential hashing.
    pub tree: Option<TreeParams>,
}

/// The configuration string C (Skein 1.3, Table 7).
pub fn config_string(out_bits: u64, tree: Option<TreeParams>) -> [u8; CONFIG_LEN] {
    let mut c = [0u8; CONFIG_LEN];
    c[0..4].copy_from_slice(&CONFIG_SCHEMA);
    c[4..6].copy_from_slice(&CONFIG_VERSION.to_le_bytes());
    c[8..16].copy_from_slice(&out_bits.to_le_bytes());
    if let Some(t) = tree {
        c[16] = t.leaf;
        c[17] = t.fan_out;
        c[18] = t.max_height;
    }
    c
}

/// The chaining value before the message: Key UBI (if keyed), Config UBI, then the optional
/// arguments in type order. For plain Skein with a common output size this is a table lookup
/// ([`crate::iv`]), not a Threefish call.
pub fn initial_chain<const N: usize>(out_bits: u64, params: &Params<'_>) -> [u64; N] {
    if *params == Params::default()
        && let Some(iv) = crate::iv::precomputed::<N>(out_bits)
    {
        return iv;
    }
    let mut g = [0u64; N];
    if !params.key.is_empty() {
        g = crate::ubi::ubi(g, params.key, BlockType::Key);
    }
    g = crate::ubi::ubi(g, &config_string(out_bits, params.tree), BlockType::Config);
    let extras = [
        (BlockType::Personalization, params.personalization),
        (BlockType::PublicKey, params.public_key),
        (BlockType::KeyIdentifier, params.key_id),
        (BlockType::Nonce, params.nonce),
    ];
    for (block_type, value) in extras {
        if let Some(v) = value {
            g = crate::ubi::ubi(g, v, block_type);
        }
    }
    g
}

/// Skein with a state of `N` 64-bit words (4, 8 or 16), any output length, streaming.
///
/// ```
/// use skeinhw_skein::Skein512;
/// let mut h = Skein512::new(256).unwrap();
/// h.update(b"abc");
/// assert_eq!(h.finalize().len(), 32);
/// ```
#[derive(Clone)]
pub struct Skein<const N: usize> {
    out_bits: u64,
    /// Chaining value before the message (kept for `reset` and tree mode).
    start: [u64; N],
    message: Message<N>,
    /// A partial final byte was added: the message is complete.
    bit_padded: bool,
}

#[derive(Clone)]
enum Message<const N: usize> {
    Sequential(Ubi<N>),
    Tree(Tree<N>),
    /// Left in a hasher that [`Skein::finalize_into`] consumes.
    Done,
}

impl<const N: usize> Skein<N> {
    /// Block size Nb in bytes.
    pub const BLOCK_BYTES: usize = N * 8;
    /// State size in bits.
    pub const STATE_BITS: usize = N * 64;

    /// Plain Skein with `out_bits` output bits.
    pub fn new(out_bits: u64) -> Result<Self, Error> {
        Self::with_params(out_bits, &Params::default())
    }

    /// Skein-MAC with `out_bits` output bits.
    pub fn new_mac(out_bits: u64, key: &[u8]) -> Result<Self, Error> {
        Self::with_params(
            out_bits,
            &Params {
                key,
                ..Params::default()
            },
        )
    }

    /// Skein with all optional arguments.
    pub fn with_params(out_bits: u64, params: &Params<'_>) -> Result<Self, Error> {
        const { assert!(N == 4 || N == 8 || N == 16, "Skein has 4, 8 or 16 words") };
        if out_bits == 0 {
            return Err(Error::ZeroOutputLength);
        }
        let tree = params.tree.map(TreeParams::validate).transpose()?;
        let start = initial_chain::<N>(out_bits, params);
        Ok(Skein {
            out_bits,
            start,
            message: Self::fresh_message(start, tree),
            bit_padded: false,
        })
    }

    fn fresh_message(start: [u64; N], tree: Option<TreeParams>) -> Message<N> {
        match tree {
            None => Message::Sequential(Ubi::new(start, BlockType::Message, 0, 0)),
            Some(t) => Message::Tree(Tree::new(start, t)),
        }
    }

    /// Output length in bits.
    pub fn out_bits(&self) -> u64 {
        self.out_bits
    }

    /// Output length in bytes: ceil(out_bits / 8).
    pub fn out_bytes(&self) -> usize {
        self.out_bits.div_ceil(8) as usize
    }

    /// Appends message bytes.
    ///
    /// # Panics
    /// If a message ending in a partial byte was already given with [`Skein::update_bits`]
    /// (use [`Skein::try_update`] to get an error instead).
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.try_update(data)
            .expect("a message that ends in a partial byte cannot be extended");
    }

    /// Appends message bytes; an error after a partial final byte.
    pub fn try_update(&mut self, data: &[u8]) -> Result<(), Error> {
        if self.bit_padded {
            return Err(Error::UpdateAfterPartialByte);
        }
        match &mut self.message {
            Message::Sequential(u) => u.update(data),
            Message::Tree(t) => t.update(data),
            Message::Done => unreachable!("a finalized hasher is consumed"),
        }
        Ok(())
    }

    /// Appends the first `bits` bits of `data` (most significant bit of each byte first, as in
    /// the spec). If `bits` is not a multiple of 8, the message ends here: the last partial byte
    /// is bit-padded and no more data can follow.
    pub fn update_bits(&mut self, data: &[u8], bits: u64) -> Result<(), Error> {
        let available = data.len() as u64 * 8;
        if bits > available {
            return Err(Error::NotEnoughBits { bits, available });
        }
        let whole = (bits / 8) as usize;
        self.try_update(&data[..whole])?;
        let rest = (bits % 8) as u32;
        if rest != 0 {
            let padded = pad_partial_byte(data[whole], rest);
            self.try_update(&[padded])?;
            self.bit_padded = true;
        }
        Ok(())
    }

    /// Finishes the hash and writes ceil(out_bits / 8) bytes into `out`; unused low bits of a
    /// partial last byte are zero.
    pub fn finalize_into(mut self, out: &mut [u8]) -> Result<(), Error> {
        self.check_out_len(out)?;
        // Nothing follows: leave an empty message behind instead of a fresh one.
        let message = core::mem::replace(&mut self.message, Message::Done);
        self.finish_into(message, out);
        Ok(())
    }

    fn check_out_len(&self, out: &[u8]) -> Result<(), Error> {
        let expected = self.out_bytes();
        if out.len() != expected {
            return Err(Error::OutputBufferLength {
                out_bits: self.out_bits,
                expected,
                got: out.len(),
            });
        }
        Ok(())
    }

    /// Ends `message` and writes the output transform into `out`.
    fn finish_into(&mut self, message: Message<N>, out: &mut [u8]) {
        let bit_pad = core::mem::take(&mut self.bit_padded);
        let mut g = Self::finish(message, bit_pad);
        output(&g, self.out_bits, out);
        g.zeroize();
    }

    fn finish(message: Message<N>, bit_pad: bool) -> [u64; N] {
        match message {
            Message::Sequential(u) => u.finish(bit_pad),
            Message::Tree(t) => t.finish(bit_pad),
            Message::Done => unreachable!("a finalized hasher is consumed"),
        }
    }

    /// As [`Skein::finalize_into`], then starts over with the same parameters.
    pub fn finalize_into_reset(&mut self, out: &mut [u8]) -> Result<(), Error> {
        self.check_out_len(out)?;
        let fresh = Self::fresh_message(self.start, self.tree_params());
        let message = core::mem::replace(&mut self.message, fresh);
        self.finish_into(message, out);
        Ok(())
    }

    /// Ends the message (the last message UBI, or the tree's root) and starts over; returns
    /// the chaining value the output transform reads (`crate::output` streams it).
    pub(crate) fn finish_message(&mut self) -> [u64; N] {
        let fresh = Self::fresh_message(self.start, self.tree_params());
        let message = core::mem::replace(&mut self.message, fresh);
        let bit_pad = core::mem::take(&mut self.bit_padded);
        Self::finish(message, bit_pad)
    }

    /// Finishes the hash into a new vector of ceil(out_bits / 8) bytes.
    pub fn finalize(self) -> Vec<u8> {
        let mut out = alloc::vec![0u8; self.out_bytes()];
        self.finalize_into(&mut out)
            .expect("buffer has the output length");
        out
    }

    /// Starts over with the same key, configuration and optional arguments.
    pub fn reset(&mut self) {
        self.message = Self::fresh_message(self.start, self.tree_params());
        self.bit_padded = false;
    }

    fn tree_params(&self) -> Option<TreeParams> {
        match &self.message {
            Message::Sequential(_) | Message::Done => None,
            Message::Tree(t) => Some(t.params),
        }
    }
}

impl<const N: usize> Drop for Skein<N> {
    fn drop(&mut self) {
        self.start.zeroize();
    }
}

impl<const N: usize> ZeroizeOnDrop for Skein<N> {}

/// Keeps the `bits` most significant bits of `byte` and appends the single 1 bit of the bit-pad
/// rule (Skein 1.3, section 3.4).
pub const fn pad_partial_byte(byte: u8, bits: u32) -> u8 {
    let keep = 0xFFu8 << (8 - bits);
    (byte & keep) | (0x80 >> bits)
}

/// The output transform (Skein 1.3, section 3.5.3): counter blocks UBI(G, ToBytes(i, 8), Tout),
/// concatenated and cut to ceil(out_bits / 8) bytes with the unused low bits of the last byte
/// zeroed.
pub fn output<const N: usize>(g: &[u64; N], out_bits: u64, out: &mut [u8]) {
    let nb = N * 8;
    let mut bytes = [0u8; crate::ubi::MAX_BLOCK_BYTES];
    for (i, chunk) in out.chunks_mut(nb).enumerate() {
        output_block(g, i as u64, &mut bytes[..nb]);
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
    bytes[..nb].zeroize();
    let rest = (out_bits % 8) as u32;
    if let (true, Some(last)) = (rest != 0, out.last_mut()) {
        *last &= 0xFFu8 << (8 - rest);
    }
}

/// Output block `i`: UBI(G, ToBytes(i, 8), Tout), `N * 8` bytes into `out`.
pub(crate) fn output_block<const N: usize>(g: &[u64; N], i: u64, out: &mut [u8]) {
    let mut chain = *g;
    let mut block = [0u64; N];
    block[0] = i;
    let tweak = Tweak {
        position: 8,
        first: true,
        last: true,
        ..Tweak::start(BlockType::Output, 0, 0)
    };
    compress_words(&mut chain, &block, tweak.words());
    words_to_bytes(&chain, out);
    chain.zeroize();
}

/// Streaming tree hashing (Skein 1.3, section 3.5.6) in memory proportional to the tree
/// height: each level holds one open node.
#[derive(Clone)]
struct Tree<const N: usize> {
    params: TreeParams,
    start: [u64; N],
    leaf: Ubi<N>,
    leaf_bytes: u128,
    leaf_filled: u128,
    leaf_index: u128,
    /// `levels[l - 1]` gathers M_l, the chaining values of level l.
    levels: Vec<Level<N>>,
}

#[derive(Clone)]
struct Level<const N: usize> {
    /// The first value of the level, held until a second one shows the level has more than one
    /// (a level of exactly one value is the result).
    first: Option<[u64; N]>,
    /// Values seen at this level.
    count: u128,
    /// The open node: values of this level being hashed into one value of the next.
    node: Option<Ubi<N>>,
    node_values: u128,
    node_index: u128,
}

impl<const N: usize> Level<N> {
    fn new() -> Self {
        Level {
            first: None,
            count: 0,
            node: None,
            node_values: 0,
            node_index: 0,
        }
    }
}

impl<const N: usize> Tree<N> {
    fn new(start: [u64; N], params: TreeParams) -> Self {
        Tree {
            params,
            start,
            leaf: Ubi::new(start, BlockType::Message, 1, 0),
            leaf_bytes: params.leaf_bytes(N * 8),
            leaf_filled: 0,
            leaf_index: 0,
            levels: Vec::new(),
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.leaf_filled == self.leaf_bytes {
                self.leaf_index += 1;
                let next = Ubi::new(
                    self.start,
                    BlockType::Message,
                    1,
                    self.leaf_index * self.leaf_bytes,
                );
                let leaf = core::mem::replace(&mut self.leaf, next);
                self.leaf_filled = 0;
                self.push(1, leaf.finish(false));
            }
            let room = self.leaf_bytes - self.leaf_filled;
            let take = room.min(data.len() as u128) as usize;
            self.leaf.update(&data[..take]);
            self.leaf_filled += take as u128;
            data = &data[take..];
        }
    }

    /// Adds a value to level `l` (M_l), hashing full nodes up into level l + 1.
    fn push(&mut self, l: usize, value: [u64; N]) {
        if self.levels.len() < l {
            self.levels.push(Level::new());
        }
        let max_height = self.params.max_height as usize;
        let node_values = self.params.node_values();
        let level = &mut self.levels[l - 1];
        level.count += 1;
        if level.count == 1 {
            level.first = Some(value);
            return;
        }
        let mut values = [None, Some(value)];
        if let Some(first) = level.first.take() {
            values[0] = Some(first);
        }
        for v in values.into_iter().flatten() {
            let level = &mut self.levels[l - 1];
            if l + 1 == max_height {
                // Almost at the maximum height: the whole level goes into one UBI.
                let node = level.node.get_or_insert_with(|| {
                    Ubi::new(self.start, BlockType::Message, max_height as u8, 0)
                });
                node.update(&words_as_bytes(&v)[..N * 8]);
                continue;
            }
            let position = level.node_index * node_values * (N as u128 * 8);
            let node = level.node.get_or_insert_with(|| {
                Ubi::new(self.start, BlockType::Message, (l + 1) as u8, position)
            });
            node.update(&words_as_bytes(&v)[..N * 8]);
            level.node_values += 1;
            if level.node_values == node_values {
                let done = level.node.take().expect("node is open");
                level.node_values = 0;
                level.node_index += 1;
                let parent = done.finish(false);
                self.push(l + 1, parent);
            }
        }
    }

    fn finish(mut self, bit_pad: bool) -> [u64; N] {
        let leaf = core::mem::replace(
            &mut self.leaf,
            Ubi::new(self.start, BlockType::Message, 1, 0),
        );
        let value = leaf.finish(bit_pad);
        self.push(1, value);
        let mut l = 1;
        loop {
            let max_height = self.params.max_height as usize;
            let level = &mut self.levels[l - 1];
            if level.count == 1 {
                return level.first.take().expect("one value");
            }
            // A node left open holds the level's last values; a level whose last node filled up
            // exactly has already passed everything up.
            if let Some(node) = level.node.take() {
                let value = node.finish(false);
                if l + 1 == max_height {
                    return value;
                }
                level.node_values = 0;
                self.push(l + 1, value);
            }
            l += 1;
        }
    }
}

fn words_as_bytes<const N: usize>(words: &[u64; N]) -> [u8; 128] {
    let mut b = [0u8; 128];
    words_to_bytes(words, &mut b[..N * 8]);
    b
}
