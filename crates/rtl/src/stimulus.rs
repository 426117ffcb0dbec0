//! The test bench's input file, written from Rust: every stream's Key UBI blocks (for a MAC)
//! and message blocks, padded as Skein 1.3 section 3.4 says (the bit-pad of a partial last byte
//! is done here, by the sender; the design puts the BitPad flag in the tweak).

use std::fmt::Write as _;

use skeinhw_sched::Schedule;
use skeinhw_skein::pad_partial_byte;

use crate::RtlError;

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

/// The blocks of one UBI call over the first `bits` bits of `bytes`.
fn ubi_blocks(bytes: &[u8], bits: u64, nb: usize, key: bool) -> Vec<InBlock> {
    let mut padded = bytes[..bits.div_ceil(8) as usize].to_vec();
    let bitpad = !bits.is_multiple_of(8);
    if bitpad {
        let last = padded.len() - 1;
        padded[last] = pad_partial_byte(padded[last], (bits % 8) as u32);
    }
    let len = padded.len();
    let count = len.div_ceil(nb).max(1);
    padded.resize(count * nb, 0);
    (0..count)
        .map(|i| InBlock {
            key,
            first: i == 0,
            last: i + 1 == count,
            bitpad: bitpad && i + 1 == count,
            bytes: len.min((i + 1) * nb) - i * nb,
            data: padded[i * nb..(i + 1) * nb].to_vec(),
        })
        .collect()
}

/// The test bench input for `messages` (one stream each) on `schedule`'s design; more
/// messages than streams are refused (see [`stimulus_back_to_back`]).
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

/// The test bench input for any number of `messages` on `schedule`'s design: message i on
/// stream [`stream_of`]`(i)`, after the messages of that stream before it (back to back: the
/// design starts a stream's next message when its digest is out; the golden model of the same
/// run is `skeinhw_sched::sim::simulate_streams`).
pub fn stimulus_back_to_back(
    schedule: &Schedule,
    messages: &[Message<'_>],
) -> Result<String, RtlError> {
    let streams = schedule.blocks_in_flight() as usize;
    if messages.is_empty() {
        return Err(RtlError::Input(
            "no input: give at least one message".into(),
        ));
    }
    let nb = schedule.words() as usize * 8;
    let mut blocks = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let s = stream_of(i, streams);
        let available = m.data.len() as u64 * 8;
        if m.bits > available {
            return Err(RtlError::Input(format!(
                "message {i}: {} bits asked, {available} given",
                m.bits
            )));
        }
        if !m.key.is_empty() {
            for b in ubi_blocks(m.key, m.key.len() as u64 * 8, nb, true) {
                blocks.push((s, b));
            }
        }
        for b in ubi_blocks(m.data, m.bits, nb, false) {
            blocks.push((s, b));
        }
    }
    // The test bench wants each stream's blocks together, in order (a stable sort).
    blocks.sort_by_key(|(s, _)| *s);
    let mut out = format!("{} {}\n", messages.len().min(streams), blocks.len());
    for (s, b) in &blocks {
        block_line(&mut out, *s, b);
    }
    Ok(out)
}

/// The stream of message `i` among `streams`: `i mod streams` (the first `streams` messages
/// one per stream, then round again).
pub fn stream_of(i: usize, streams: usize) -> usize {
    i % streams.max(1)
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
    for byte in b.data.iter().rev() {
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
