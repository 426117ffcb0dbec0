//! A small reference implementation of Skein written like the specification (Skein 1.3,
//! section 3.5): whole messages in memory, the spec-shaped Threefish of [`crate::threefish`],
//! tree hashing level by level. It exists to be read and to test the fast streaming code
//! against; it is not fast.

use alloc::vec::Vec;

use crate::constants::BlockType;
use crate::hasher::{Params, TreeParams, config_string, pad_partial_byte};
use crate::threefish::{encrypt, words_from_bytes, words_to_bytes};
use crate::tweak::Tweak;

/// A string of bits: `bits` bits, most significant bit of each byte first.
#[derive(Clone, Debug)]
struct BitString<'a> {
    bytes: &'a [u8],
    bits: u64,
}

/// UBI(G, M, Ts) (Skein 1.3, section 3.4), with Ts given as type, tree level and position.
fn ubi<const N: usize>(
    g: [u64; N],
    m: BitString<'_>,
    block_type: BlockType,
    tree_level: u8,
    offset: u128,
) -> [u64; N] {
    let nb = N * 8;
    // Bit padding: if the length is not a multiple of 8, append a 1 bit and zeros.
    let mut padded: Vec<u8> = m.bytes[..m.bits.div_ceil(8) as usize].to_vec();
    let bit_pad = !m.bits.is_multiple_of(8);
    if bit_pad {
        let last = padded.len() - 1;
        padded[last] = pad_partial_byte(padded[last], (m.bits % 8) as u32);
    }
    let nm = padded.len();
    // Pad with zero bytes to at least one whole block.
    let p = if nm == 0 { nb } else { (nb - nm % nb) % nb };
    padded.resize(nm + p, 0);
    let k = padded.len() / nb;
    let mut h = g;
    for i in 0..k {
        let block = words_from_bytes::<N>(&padded[i * nb..(i + 1) * nb]);
        let tweak = Tweak {
            position: offset + nm.min((i + 1) * nb) as u128,
            tree_level,
            bit_pad: bit_pad && i == k - 1,
            block_type,
            first: i == 0,
            last: i == k - 1,
        };
        let e = encrypt(&h, tweak.words(), &block);
        h = core::array::from_fn(|j| e[j] ^ block[j]);
    }
    h
}

fn bytes_of<const N: usize>(words: &[u64; N]) -> Vec<u8> {
    let mut v = alloc::vec![0u8; N * 8];
    words_to_bytes(words, &mut v);
    v
}

fn whole(bytes: &[u8]) -> BitString<'_> {
    BitString {
        bytes,
        bits: bytes.len() as u64 * 8,
    }
}

/// Tree processing of the message (Skein 1.3, section 3.5.6).
fn tree<const N: usize>(g: [u64; N], m: BitString<'_>, t: TreeParams) -> [u64; N] {
    let nb = N * 8;
    let leaf_bits = (nb as u128 * 8) << t.leaf.min(100);
    let node_bytes = (nb as u128) << t.fan_out.min(100);
    // Level 0: split M into leaves of 8 Nl bits (at least one, possibly empty).
    let mut level: Vec<u8> = Vec::new();
    let mut start: u128 = 0;
    loop {
        let len = (m.bits as u128 - start).min(leaf_bits);
        let first_byte = (start / 8) as usize;
        let leaf = BitString {
            bytes: &m.bytes[first_byte..],
            bits: len as u64,
        };
        let chain = ubi(g, leaf, BlockType::Message, 1, start / 8);
        level.extend_from_slice(&bytes_of(&chain));
        start += len;
        if start >= m.bits as u128 {
            break;
        }
    }
    let mut l: usize = 1;
    loop {
        if level.len() == nb {
            return words_from_bytes::<N>(&level);
        }
        if l == t.max_height as usize - 1 {
            return ubi(g, whole(&level), BlockType::Message, t.max_height, 0);
        }
        let mut next = Vec::new();
        for (i, node) in level
            .chunks(node_bytes.min(usize::MAX as u128) as usize)
            .enumerate()
        {
            let chain = ubi(
                g,
                whole(node),
                BlockType::Message,
                (l + 1) as u8,
                i as u128 * node_bytes,
            );
            next.extend_from_slice(&bytes_of(&chain));
        }
        level = next;
        l += 1;
    }
}

/// The chaining value before the message, written like the spec: K' = 0 or UBI(0, K, Tkey),
/// G0 = UBI(K', C, Tcfg), then the optional arguments in increasing type order.
pub fn initial_chain<const N: usize>(out_bits: u64, params: &Params<'_>) -> [u64; N] {
    // K' = 0, or UBI(0, K, Tkey) for a key.
    let mut g = [0u64; N];
    if !params.key.is_empty() {
        g = ubi(g, whole(params.key), BlockType::Key, 0, 0);
    }
    // G0 = UBI(K', C, Tcfg).
    g = ubi(
        g,
        whole(&config_string(out_bits, params.tree)),
        BlockType::Config,
        0,
        0,
    );
    // The optional arguments, in increasing type order.
    for (block_type, value) in [
        (BlockType::Personalization, params.personalization),
        (BlockType::PublicKey, params.public_key),
        (BlockType::KeyIdentifier, params.key_id),
        (BlockType::Nonce, params.nonce),
    ] {
        if let Some(v) = value {
            g = ubi(g, whole(v), block_type, 0, 0);
        }
    }
    g
}

/// Skein with a state of `N` words over a message of `msg_bits` bits, written like the spec.
pub fn skein<const N: usize>(
    out_bits: u64,
    message: &[u8],
    msg_bits: u64,
    params: &Params<'_>,
) -> Vec<u8> {
    assert!(msg_bits <= message.len() as u64 * 8);
    let mut g = initial_chain::<N>(out_bits, params);
    let m = BitString {
        bytes: message,
        bits: msg_bits,
    };
    g = match params.tree {
        None => ubi(g, m, BlockType::Message, 0, 0),
        Some(t) => tree(g, m, t),
    };
    // Output(G, No): counter blocks, cut to ceil(No/8) bytes, unused low bits zeroed.
    let out_bytes = out_bits.div_ceil(8) as usize;
    let mut out = Vec::with_capacity(out_bytes);
    let mut counter: u64 = 0;
    while out.len() < out_bytes {
        let block = ubi(g, whole(&counter.to_le_bytes()), BlockType::Output, 0, 0);
        out.extend_from_slice(&bytes_of(&block));
        counter += 1;
    }
    out.truncate(out_bytes);
    if !out_bits.is_multiple_of(8) {
        out[out_bytes - 1] &= 0xFF << (8 - out_bits % 8);
    }
    out
}
