//! The sequence of UBI blocks one stream (one Skein computation) feeds the datapath: Key UBI
//! for a MAC, Config UBI unless precomputed, the optional arguments in type order, the message
//! (sequential, or the leaves and nodes of tree hashing), the Output UBI.
//!
//! This is the controller's side of Skein 1.3 section 3.5: it decides which block goes in next
//! and with which chaining value and tweak. It walks the same UBI calls, in the same order, as
//! the library's reference code (`skeinhw_skein::reference`); the cipher itself is never here.
//! A stream has at most one block in the datapath, because each block needs the previous
//! block's output (the UBI chain; in tree mode the simpler choice of walking leaves and nodes
//! one after another).

use std::collections::VecDeque;

use skeinhw_skein::constants::BlockType;
use skeinhw_skein::threefish::{words_from_bytes, words_to_bytes};
use skeinhw_skein::{Params, TreeParams, Tweak, config_string, pad_partial_byte};

use crate::sim::feed::FeedBlock;
use crate::sim::record::Phase;

/// One block for the datapath: Threefish key (the chaining value), tweak and plaintext.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockJob<const N: usize> {
    /// The chaining value, used as the Threefish key.
    pub chain: [u64; N],
    /// The tweak words t0, t1.
    pub tweak: [u64; 2],
    /// The message block (plaintext; also the feed-forward input).
    pub block: [u64; N],
    /// The controller phase the block belongs to.
    pub phase: Phase,
}

/// Where a UBI call's chaining value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChainFrom {
    /// The running chain (the result of the previous UBI).
    Running,
    /// The chain before the message, G (tree leaves and nodes all start from it).
    Start,
}

/// Where a UBI call's result goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResultTo {
    /// Becomes the running chain.
    Running,
    /// Is appended to the tree level being built.
    Level,
    /// Is appended to the digest.
    Digest,
}

/// One UBI call: padded data and the fields of its starting tweak.
#[derive(Clone, Debug)]
struct Call {
    block_type: BlockType,
    tree_level: u8,
    offset: u128,
    /// Data after bit padding and zero padding to whole blocks (at least one).
    padded: Vec<u8>,
    /// Bytes before the zero padding (Position counts these).
    len: usize,
    bit_pad: bool,
    from: ChainFrom,
    to: ResultTo,
}

impl Call {
    /// UBI(., M, Ts) over the first `bits` bits of `bytes`, padded as in Skein 1.3 section 3.4.
    fn new(
        block_type: BlockType,
        tree_level: u8,
        offset: u128,
        bytes: &[u8],
        bits: u64,
        nb: usize,
        (from, to): (ChainFrom, ResultTo),
    ) -> Call {
        let mut padded = bytes[..bits.div_ceil(8) as usize].to_vec();
        let bit_pad = !bits.is_multiple_of(8);
        if bit_pad {
            let last = padded.len() - 1;
            padded[last] = pad_partial_byte(padded[last], (bits % 8) as u32);
        }
        let len = padded.len();
        let zeros = if len == 0 { nb } else { (nb - len % nb) % nb };
        padded.resize(len + zeros, 0);
        Call {
            block_type,
            tree_level,
            offset,
            padded,
            len,
            bit_pad,
            from,
            to,
        }
    }

    fn blocks(&self, nb: usize) -> usize {
        self.padded.len() / nb
    }

    fn phase(&self) -> Phase {
        match self.block_type {
            BlockType::Key => Phase::Key,
            BlockType::Message => Phase::Message,
            BlockType::Output => Phase::Output,
            _ => Phase::Config,
        }
    }
}

/// What comes after the queued calls are done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Key, Config and the optional arguments are queued; the message comes next.
    BeforeMessage,
    /// Tree leaves (level 1) or nodes of level `l` are queued; the level above comes next.
    Tree { level: usize },
    /// The message is done; Output block `block` comes next. Output blocks are queued one at a
    /// time (a stream issues them one after another anyway), so a long output holds no queue.
    Output { block: u64 },
    /// The output is queued; then the stream is done.
    Done,
}

/// The inputs of one Skein computation, owned.
#[derive(Clone, Debug)]
struct SkeinInputs {
    message: Vec<u8>,
    msg_bits: u64,
    out_bits: u64,
    tree: Option<TreeParams>,
}

/// Blocks of one UBI call over `bytes` bytes: padded to whole blocks, at least one.
fn call_blocks(bytes: u128, nb: u128) -> u128 {
    bytes.div_ceil(nb).max(1)
}

/// How many UBI blocks the program of [`Program::skein`] issues, from its inputs' sizes
/// alone: what a progress meter needs before the run, without building the program (which
/// copies the message). Tree leaves start on block boundaries, so they hold the message's
/// blocks; each level of nodes holds one block per value of the level below (Skein 1.3
/// section 3.5.6). The simulator's report counts the same blocks one by one (a test holds the
/// two together).
pub fn ubi_blocks(
    words: usize,
    msg_bits: u64,
    out_bits: u64,
    params: &Params<'_>,
    config_precomputed: bool,
) -> u64 {
    let nb = words as u128 * 8;
    let mut total = 0u128;
    if !params.key.is_empty() {
        total += call_blocks(params.key.len() as u128, nb);
    }
    if !(config_precomputed && params.key.is_empty()) {
        total += 1;
    }
    for v in [
        params.personalization,
        params.public_key,
        params.key_id,
        params.nonce,
    ]
    .into_iter()
    .flatten()
    {
        total += call_blocks(v.len() as u128, nb);
    }
    let message = call_blocks(u128::from(msg_bits).div_ceil(8), nb);
    total += message;
    if let Some(t) = params.tree {
        let leaf_bits = (nb * 8) << t.leaf.min(100);
        let (mut values, mut level) = (u128::from(msg_bits).div_ceil(leaf_bits).max(1), 1);
        while values > 1 {
            total += values;
            if level == usize::from(t.max_height) - 1 {
                break;
            }
            values = values.div_ceil(1u128 << t.fan_out.min(100));
            level += 1;
        }
    }
    total += u128::from(out_bits.div_ceil(8)).div_ceil(nb);
    u64::try_from(total).unwrap_or(u64::MAX)
}

/// A stream's program: yields blocks one at a time, takes each block's output back.
#[derive(Clone, Debug)]
pub struct Program<const N: usize> {
    inputs: SkeinInputs,
    calls: VecDeque<Call>,
    /// Index of the next block within `calls.front()`.
    block_in_call: usize,
    /// Chaining value of the block within the current call.
    call_chain: [u64; N],
    running: [u64; N],
    start: [u64; N],
    level: Vec<u8>,
    digest: Vec<u8>,
    stage: Stage,
    /// The tweak of a raw block (no Skein around it, its output is the result).
    raw_tweak: Option<[u64; 2]>,
}

impl<const N: usize> Program<N> {
    const NB: usize = N * 8;

    /// The program of `Skein-(64N)` over the first `msg_bits` bits of `message` with
    /// `out_bits` output bits and the optional arguments. With `config_precomputed` the Config
    /// UBI is a constant of the design (computed here with the library) and takes no cycles;
    /// a keyed computation still runs it, because its input then depends on the key.
    pub fn skein(
        message: &[u8],
        msg_bits: u64,
        out_bits: u64,
        params: &Params<'_>,
        config_precomputed: bool,
    ) -> Self {
        let nb = Self::NB;
        let mut calls = VecDeque::new();
        let mut running = [0u64; N];
        if !params.key.is_empty() {
            calls.push_back(Call::new(
                BlockType::Key,
                0,
                0,
                params.key,
                params.key.len() as u64 * 8,
                nb,
                (ChainFrom::Running, ResultTo::Running),
            ));
        }
        let config = config_string(out_bits, params.tree);
        if config_precomputed && params.key.is_empty() {
            running = skeinhw_skein::ubi::ubi::<N>([0; N], &config, BlockType::Config);
        } else {
            calls.push_back(Call::new(
                BlockType::Config,
                0,
                0,
                &config,
                config.len() as u64 * 8,
                nb,
                (ChainFrom::Running, ResultTo::Running),
            ));
        }
        for (block_type, value) in [
            (BlockType::Personalization, params.personalization),
            (BlockType::PublicKey, params.public_key),
            (BlockType::KeyIdentifier, params.key_id),
            (BlockType::Nonce, params.nonce),
        ] {
            if let Some(v) = value {
                calls.push_back(Call::new(
                    block_type,
                    0,
                    0,
                    v,
                    v.len() as u64 * 8,
                    nb,
                    (ChainFrom::Running, ResultTo::Running),
                ));
            }
        }
        let mut program = Program {
            inputs: SkeinInputs {
                message: message.to_vec(),
                msg_bits,
                out_bits,
                tree: params.tree,
            },
            calls,
            block_in_call: 0,
            call_chain: running,
            running,
            start: running,
            level: Vec::new(),
            digest: Vec::new(),
            stage: Stage::BeforeMessage,
            raw_tweak: None,
        };
        program.refill();
        program
    }

    /// The program of one raw Threefish block with feed-forward (`E(key, tweak, block) ^
    /// block`), as the reference code's round-by-round examples show it.
    pub fn raw_block(key: [u64; N], tweak: [u64; 2], block: [u64; N]) -> Self {
        let mut bytes = vec![0u8; Self::NB];
        words_to_bytes(&block, &mut bytes);
        // The tweak is given as words, so the call's fields are not used to form it.
        let call = Call::new(
            BlockType::Message,
            0,
            0,
            &bytes,
            Self::NB as u64 * 8,
            Self::NB,
            (ChainFrom::Running, ResultTo::Digest),
        );
        Program {
            inputs: SkeinInputs {
                message: Vec::new(),
                msg_bits: 0,
                out_bits: Self::NB as u64 * 8,
                tree: None,
            },
            calls: VecDeque::from([call]),
            block_in_call: 0,
            call_chain: key,
            running: key,
            start: key,
            level: Vec::new(),
            digest: Vec::new(),
            stage: Stage::Done,
            raw_tweak: Some(tweak),
        }
    }

    /// The next block to issue, or `None` when the stream is done.
    pub fn next_block(&self) -> Option<BlockJob<N>> {
        let nb = Self::NB;
        let call = self.calls.front()?;
        let i = self.block_in_call;
        let k = call.blocks(nb);
        let block = words_from_bytes::<N>(&call.padded[i * nb..(i + 1) * nb]);
        let tweak = if let Some(tweak) = self.raw_tweak {
            tweak
        } else {
            Tweak {
                position: call.offset + call.len.min((i + 1) * nb) as u128,
                tree_level: call.tree_level,
                bit_pad: call.bit_pad && i == k - 1,
                block_type: call.block_type,
                first: i == 0,
                last: i == k - 1,
            }
            .words()
        };
        Some(BlockJob {
            chain: self.call_chain,
            tweak,
            block,
            phase: call.phase(),
        })
    }

    /// Takes the output (chaining value) of the block [`Program::next_block`] returned.
    pub fn complete(&mut self, output: [u64; N]) {
        let nb = Self::NB;
        let call = self.calls.front().expect("a block was issued");
        self.block_in_call += 1;
        if self.block_in_call < call.blocks(nb) {
            self.call_chain = output;
            return;
        }
        let call = self.calls.pop_front().expect("checked above");
        self.block_in_call = 0;
        let mut bytes = [0u8; 128];
        words_to_bytes(&output, &mut bytes[..nb]);
        match call.to {
            ResultTo::Running => self.running = output,
            ResultTo::Level => self.level.extend_from_slice(&bytes[..nb]),
            ResultTo::Digest => self.digest.extend_from_slice(&bytes[..nb]),
        }
        self.refill();
    }

    /// The feed's view of every block this program issues, in order; `None` for a raw block,
    /// which no host sends through the input port. Walks a copy with placeholder results: which
    /// blocks come, and of what type, does not depend on the values.
    pub fn feed_blocks(&self) -> Option<Vec<FeedBlock>> {
        if self.raw_tweak.is_some() {
            return None;
        }
        let mut walk = self.clone();
        let mut out = Vec::new();
        while let Some(b) = walk.next_block() {
            walk.complete([0; N]);
            let before_output = walk.next_block().is_some_and(|n| n.phase == Phase::Output);
            out.push(FeedBlock::of(b.tweak, before_output));
        }
        Some(out)
    }

    /// Whether every block has been processed.
    pub fn is_done(&self) -> bool {
        self.calls.is_empty()
    }

    /// The digest: ceil(out_bits / 8) bytes, unused low bits of a partial byte zeroed (for a
    /// raw block: the output words as bytes).
    pub fn digest(&self) -> Vec<u8> {
        let out_bits = self.inputs.out_bits;
        let mut out = self.digest.clone();
        out.truncate(out_bits.div_ceil(8) as usize);
        if let Some(last) = out.last_mut().filter(|_| !out_bits.is_multiple_of(8)) {
            *last &= 0xFF << (8 - out_bits % 8);
        }
        out
    }

    /// Queues the next calls once the queue is empty, and sets the chain of the next call.
    fn refill(&mut self) {
        while self.calls.is_empty() && self.stage != Stage::Done {
            self.stage = match self.stage {
                Stage::BeforeMessage => self.queue_message(),
                Stage::Tree { level } => self.queue_tree_level(level),
                Stage::Output { block } => self.queue_output(block),
                Stage::Done => Stage::Done,
            };
        }
        if let Some(call) = self.calls.front() {
            self.call_chain = match call.from {
                ChainFrom::Running => self.running,
                ChainFrom::Start => self.start,
            };
        }
    }

    fn queue_message(&mut self) -> Stage {
        let nb = Self::NB;
        self.start = self.running;
        let message = &self.inputs.message;
        let bits = self.inputs.msg_bits;
        match self.inputs.tree {
            None => {
                self.calls.push_back(Call::new(
                    BlockType::Message,
                    0,
                    0,
                    message,
                    bits,
                    nb,
                    (ChainFrom::Running, ResultTo::Running),
                ));
                Stage::Output { block: 0 }
            }
            Some(t) => {
                // Leaves of 8 Nl bits (at least one, possibly empty), level 1.
                let leaf_bits = (nb as u128 * 8) << t.leaf.min(100);
                let mut start: u128 = 0;
                loop {
                    let len = (u128::from(bits) - start).min(leaf_bits);
                    let first = (start / 8) as usize;
                    self.calls.push_back(Call::new(
                        BlockType::Message,
                        1,
                        start / 8,
                        &message[first..],
                        len as u64,
                        nb,
                        (ChainFrom::Start, ResultTo::Level),
                    ));
                    start += len;
                    if start >= u128::from(bits) {
                        break;
                    }
                }
                self.level.clear();
                Stage::Tree { level: 1 }
            }
        }
    }

    /// The leaves or the nodes of level `l` are done and `self.level` holds their values.
    fn queue_tree_level(&mut self, l: usize) -> Stage {
        let nb = Self::NB;
        let t = self.inputs.tree.expect("tree stage only in tree mode");
        let level = std::mem::take(&mut self.level);
        if level.len() == nb {
            self.running = words_from_bytes::<N>(&level);
            return Stage::Output { block: 0 };
        }
        if l == usize::from(t.max_height) - 1 {
            self.calls.push_back(Call::new(
                BlockType::Message,
                t.max_height,
                0,
                &level,
                level.len() as u64 * 8,
                nb,
                (ChainFrom::Start, ResultTo::Running),
            ));
            return Stage::Output { block: 0 };
        }
        let node_bytes = (nb as u128) << t.fan_out.min(100);
        let chunk = node_bytes.min(usize::MAX as u128) as usize;
        for (i, node) in level.chunks(chunk).enumerate() {
            self.calls.push_back(Call::new(
                BlockType::Message,
                (l + 1) as u8,
                i as u128 * node_bytes,
                node,
                node.len() as u64 * 8,
                nb,
                (ChainFrom::Start, ResultTo::Level),
            ));
        }
        Stage::Tree { level: l + 1 }
    }

    fn queue_output(&mut self, block: u64) -> Stage {
        let nb = Self::NB;
        let blocks = self.inputs.out_bits.div_ceil(8).div_ceil(nb as u64);
        self.calls.push_back(Call::new(
            BlockType::Output,
            0,
            0,
            &block.to_le_bytes(),
            64,
            nb,
            (ChainFrom::Running, ResultTo::Digest),
        ));
        if block + 1 < blocks {
            Stage::Output { block: block + 1 }
        } else {
            Stage::Done
        }
    }
}
