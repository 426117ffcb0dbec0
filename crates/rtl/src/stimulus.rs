//! The test bench's input file, written from Rust: every stream's blocks that come from the
//! host (Key UBI blocks for a MAC, the optional arguments, the message: the leaves and nodes of
//! a tree), in the order Skein 1.3 section 3.5 gives them. The sequence is the golden
//! simulator's own (`skeinhw_sched::sim::Program`, walked with the library's Threefish), so
//! padding, Position and tree arrangement have one source; the Config and Output blocks are the
//! core's. A tree node's block is one child result: the line names which result of its stream
//! (the test bench feeds back what the core returned on `res_data`), never the value.

use std::collections::VecDeque;
use std::fmt::Write as _;

use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{Job, Program};
use skeinhw_skein::constants::BlockType;
use skeinhw_skein::threefish::{encrypt, words_to_bytes};
use skeinhw_skein::{Params, Tweak};

use crate::RtlError;
use crate::design::Features;

/// One message for the design: data, its length in bits, and a MAC key (empty: plain hash).
#[derive(Clone, Copy, Debug)]
pub struct Message<'a> {
    /// Message bytes; the first `bits` bits are hashed.
    pub data: &'a [u8],
    /// Message length in bits.
    pub bits: u64,
    /// Skein-MAC key, any length; empty for a plain hash.
    pub key: &'a [u8],
}

impl<'a> Message<'a> {
    /// A plain hash of whole bytes.
    pub fn bytes(data: &'a [u8]) -> Self {
        Message {
            data,
            bits: data.len() as u64 * 8,
            key: &[],
        }
    }
}

/// One block on the input port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InBlock {
    pub(crate) key: bool,
    pub(crate) first: bool,
    pub(crate) last: bool,
    pub(crate) bitpad: bool,
    pub(crate) bytes: usize,
    pub(crate) data: Vec<u8>,
}

/// One block on a Skein core's port: the fields of [`InBlock`] and those of the optional
/// arguments and the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
struct HostBlock {
    base: InBlock,
    /// UBI type value (Table 6).
    block_type: u8,
    /// Tree level (0 outside a tree).
    level: u8,
    /// The call's result is the tree's root.
    root: bool,
    /// Position before the call's first block.
    offset: u64,
    /// 1 + the index of the stream's returned result that is this block's data (0: `data`).
    src: usize,
}

/// The test bench input for `messages` (one stream each) on `schedule`'s design of plain Skein
/// (output of the state size, no tree); more messages than streams are refused (see
/// [`stimulus_back_to_back`]).
pub fn stimulus(schedule: &Schedule, messages: &[Message<'_>]) -> Result<String, RtlError> {
    let streams = schedule.blocks_in_flight() as usize;
    if messages.len() > streams {
        return Err(RtlError::Input(format!(
            "{} messages, but the design of {} has {streams} stream(s) (one per block in flight)",
            messages.len(),
            schedule.name()
        )));
    }
    stimulus_back_to_back(schedule, messages)
}

/// The test bench input for any number of `messages` on `schedule`'s design of plain Skein:
/// message i on stream [`stream_of`]`(i)`, after the messages of that stream before it (back to
/// back: the design starts a stream's next message when its digest is out; the golden model of
/// the same run is `skeinhw_sched::sim::simulate_streams`).
pub fn stimulus_back_to_back(
    schedule: &Schedule,
    messages: &[Message<'_>],
) -> Result<String, RtlError> {
    let features = Features::plain(schedule);
    let jobs: Vec<Job<'_>> = messages
        .iter()
        .map(|m| Job {
            message: m.data,
            msg_bits: m.bits,
            out_bits: features.out_bits,
            params: Params {
                key: m.key,
                ..Params::default()
            },
        })
        .collect();
    stimulus_jobs(schedule, features, &jobs)
}

/// The test bench input for `jobs` (any Skein computations) on the design of `schedule` built
/// for `features`: job i on stream [`stream_of`]`(i)`, back to back as in
/// [`stimulus_back_to_back`]; a job whose output length or tree differs from the core's is
/// refused.
pub fn stimulus_jobs(
    schedule: &Schedule,
    features: Features,
    jobs: &[Job<'_>],
) -> Result<String, RtlError> {
    let streams = schedule.blocks_in_flight() as usize;
    if jobs.is_empty() {
        return Err(RtlError::Input(
            "no input: give at least one message".into(),
        ));
    }
    let precomputed = schedule.config_precomputed();
    let mut blocks = Vec::new();
    // The results each stream has returned so far (tree nodes name them by number).
    let mut results = vec![0usize; streams.max(1)];
    for (i, job) in jobs.iter().enumerate() {
        let s = stream_of(i, streams);
        check(i, job, features)?;
        let list = match schedule.words() {
            4 => host_blocks::<4>(job, precomputed, &mut results[s]),
            8 => host_blocks::<8>(job, precomputed, &mut results[s]),
            _ => host_blocks::<16>(job, precomputed, &mut results[s]),
        }
        .map_err(|e| RtlError::Input(format!("message {i}: {e}")))?;
        blocks.extend(list.into_iter().map(|b| (s, b)));
    }
    // The test bench wants each stream's blocks together, in order (a stable sort).
    blocks.sort_by_key(|(s, _)| *s);
    let mut out = format!("{} {}\n", jobs.len().min(streams), blocks.len());
    for (s, b) in &blocks {
        host_line(&mut out, *s, b);
    }
    Ok(out)
}

/// The stream of message `i` among `streams`: `i mod streams` (the first `streams` messages
/// one per stream, then round again).
pub fn stream_of(i: usize, streams: usize) -> usize {
    i % streams.max(1)
}

/// What the core cannot do for `job`: another output length or tree than it was built for, or
/// an input the library refuses.
fn check(s: usize, job: &Job<'_>, features: Features) -> Result<(), RtlError> {
    let available = job.message.len() as u64 * 8;
    if job.msg_bits > available {
        return Err(RtlError::Input(format!(
            "message {s}: {} bits asked, {available} given",
            job.msg_bits
        )));
    }
    if job.out_bits != features.out_bits {
        return Err(RtlError::Input(format!(
            "message {s}: {} output bits, but the core was built for {} (the Config string carries it)",
            job.out_bits, features.out_bits
        )));
    }
    if job.params.tree != features.tree {
        return Err(RtlError::Input(format!(
            "message {s}: tree {}, but the core was built for tree {} (the Config string carries it)",
            tree_name(job.params.tree),
            tree_name(features.tree)
        )));
    }
    Ok(())
}

fn tree_name(t: Option<skeinhw_skein::TreeParams>) -> String {
    match t {
        Some(t) => format!("{},{},{}", t.leaf, t.fan_out, t.max_height),
        None => "none".to_owned(),
    }
}

/// The blocks the host sends for `job`: the golden program's blocks without the Config and
/// Output UBI, each with its port fields; node blocks name the child result they carry.
fn host_blocks<const N: usize>(
    job: &Job<'_>,
    precomputed: bool,
    results: &mut usize,
) -> Result<Vec<HostBlock>, String> {
    let nb = N * 8;
    let mut program = Program::<N>::skein(
        job.message,
        job.msg_bits,
        job.out_bits,
        &job.params,
        precomputed,
    );
    // Walk the program with the library's cipher: (tweak, block, result) of every block.
    let mut walk = Vec::new();
    while let Some(b) = program.next_block() {
        let tweak = Tweak::from_words(b.tweak).ok_or("a block of no known type")?;
        let mut out = encrypt(&b.chain, b.tweak, &b.block);
        for (o, p) in out.iter_mut().zip(b.block) {
            *o ^= p;
        }
        walk.push((tweak, b.block, out));
        program.complete(out);
    }
    let mut blocks = Vec::new();
    let mut returned: VecDeque<(usize, [u64; N])> = VecDeque::new();
    let mut prev_pos = 0u128;
    for (i, (t, block, out)) in walk.iter().enumerate() {
        if matches!(t.block_type, BlockType::Config | BlockType::Output) {
            continue;
        }
        if t.position >= 1 << 64 {
            return Err("a Position beyond 2^64 bytes".into());
        }
        let (bytes, offset) = if !t.first {
            ((t.position - prev_pos) as usize, 0)
        } else if t.position == 0 {
            (0, 0)
        } else {
            let bytes = ((t.position - 1) % nb as u128) as usize + 1;
            (bytes, (t.position - bytes as u128) as u64)
        };
        prev_pos = t.position;
        let tree = t.tree_level != 0;
        let root = tree
            && t.last
            && walk
                .get(i + 1)
                .is_some_and(|(n, _, _)| n.block_type == BlockType::Output);
        let src = if t.tree_level >= 2 {
            let (id, value) = returned
                .pop_front()
                .ok_or("a node without a child result")?;
            if value != *block {
                return Err("a node block is not the child result it should carry".into());
            }
            id + 1
        } else {
            0
        };
        if tree && t.last && !root {
            returned.push_back((*results, *out));
            *results += 1;
        }
        let mut data = vec![0u8; nb];
        words_to_bytes(block, &mut data);
        blocks.push(HostBlock {
            base: InBlock {
                key: t.block_type == BlockType::Key,
                first: t.first,
                last: t.last,
                bitpad: t.bit_pad,
                bytes,
                data,
            },
            block_type: t.block_type.value(),
            level: t.tree_level,
            root,
            offset,
            src,
        });
    }
    Ok(blocks)
}

/// One line of a Skein core's input file: `stream key first last bitpad bytes type level root
/// offset src data` in hex (data as in [`block_line`]).
fn host_line(out: &mut String, stream: usize, h: &HostBlock) {
    let b = &h.base;
    let _ = write!(
        out,
        "{stream:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} ",
        u8::from(b.key),
        u8::from(b.first),
        u8::from(b.last),
        u8::from(b.bitpad),
        b.bytes,
        h.block_type,
        h.level,
        u8::from(h.root),
        h.offset,
        h.src
    );
    data_hex(out, &b.data);
}

/// One line of the input file: `stream key first last bitpad bytes data` in hex, the data as
/// one packed vector, most significant byte first: byte i of the block is bits 8i+7..8i, so
/// that word w of the block (64-bit Skein or 32-bit Shabal words alike, little-endian) is bits
/// w x width + width - 1 .. w x width.
pub(crate) fn block_line(out: &mut String, stream: usize, b: &InBlock) {
    let _ = write!(
        out,
        "{stream:x} {:x} {:x} {:x} {:x} {:x} ",
        u8::from(b.key),
        u8::from(b.first),
        u8::from(b.last),
        u8::from(b.bitpad),
        b.bytes
    );
    data_hex(out, &b.data);
}

fn data_hex(out: &mut String, data: &[u8]) {
    for byte in data.iter().rev() {
        let _ = write!(out, "{byte:02x}");
    }
    out.push('\n');
}

/// Blocks the stimulus for `messages` has (to size the test bench's memory).
pub fn block_count(schedule: &Schedule, messages: &[Message<'_>]) -> usize {
    let nb = schedule.words() as usize * 8;
    messages
        .iter()
        .map(|m| {
            let key = if m.key.is_empty() {
                0
            } else {
                m.key.len().div_ceil(nb).max(1)
            };
            key + (m.bits.div_ceil(8) as usize).div_ceil(nb).max(1)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_puts_message_i_on_stream_i_mod_s_in_order() {
        let schedule = skeinhw_sched::preset("ath-8r-2fp").unwrap();
        let m: Vec<Vec<u8>> = (0..5u8).map(|k| vec![k; 70 * usize::from(k)]).collect();
        let messages: Vec<Message<'_>> = m.iter().map(|d| Message::bytes(d)).collect();
        assert!(stimulus(&schedule, &messages).is_err());
        let text = stimulus_back_to_back(&schedule, &messages).unwrap();
        let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
        // Two streams; blocks: 1 (empty message), 2, 3, 4, 5 blocks of 64 bytes.
        assert_eq!(lines[0], ["2", "15"]);
        let streams: Vec<&str> = lines[1..].iter().map(|l| l[0]).collect();
        let firsts: Vec<(&str, &str)> = lines[1..]
            .iter()
            .filter(|l| l[2] == "1")
            .map(|l| (l[0], l[5]))
            .collect();
        // Stream 0: messages 0, 2, 4 (1 + 3 + 5 blocks); stream 1: messages 1, 3.
        assert_eq!(streams, [vec!["0"; 9], vec!["1"; 6]].concat());
        assert_eq!(
            firsts,
            [
                ("0", "0"),
                ("0", "40"),
                ("0", "40"),
                ("1", "40"),
                ("1", "40")
            ]
        );
        assert_eq!(stream_of(4, 2), 0);
        assert_eq!(stream_of(3, 1), 0);
    }
}
