//! One value-change block decoded straight into the sampler's values: its time table, its
//! frame (every signal's value at the block's start, used for the first block only, as
//! fst-reader does), the chain of where each signal's wave data is, and then the watched
//! signals' changes applied in time order. A two-state value of up to 64 bits goes from its
//! packed bytes to a word; anything else (x/z states, wider vectors) through
//! [`vcd::decode`], as ASCII digits.

use std::io::{Read, Seek};

use super::layout::{Block, Chain, Geometry, Layout, read_at, signed_varint, varint};
use super::unpack::{Packing, unpack};
use crate::bits::Bits;
use crate::vcd;

/// No slot (the end of a time step's list).
const NIL: u32 = u32::MAX;

/// Where a signal's wave data is in a block, from its chain.
#[derive(Clone, Copy, Debug)]
pub(super) enum Loc {
    None,
    /// Same data as this (earlier) signal.
    Alias(u32),
    /// Offset from the pack type byte, and length (0 until the next offset is known).
    Data(u64, u64),
}

/// What a decoded change asks of the caller: apply it at this time step.
pub(super) trait Apply {
    /// Called before the changes of the time step at `time`; `false` stops the read.
    fn at(&mut self, time: u64) -> Result<bool, String>;
    /// The value of `slot`'s signal, to be overwritten by its change.
    fn value(&mut self, slot: usize) -> &mut Bits;
}

/// The decoder's state, its buffers reused from block to block and signal to signal.
pub(super) struct Decoder {
    layout: Layout,
    /// Per slot: the watched signal's handle index and width.
    handles: Vec<usize>,
    widths: Vec<u32>,
    /// Per slot: where its value is in a frame.
    frame_at: Vec<u64>,
    frame_len: u64,
    times: Vec<u64>,
    locs: Vec<Loc>,
    packed: Vec<u8>,
    unpacked: Vec<u8>,
    /// Per slot: its wave data in this block, the position of its next change's value,
    /// that change's leading varint, and the next slot due at the same time step.
    data: Vec<Vec<u8>>,
    pos: Vec<usize>,
    vli: Vec<u64>,
    link: Vec<u32>,
    /// Per time step: the first slot with a change there.
    head: Vec<u32>,
    digits: Vec<u8>,
}

impl Decoder {
    /// `None` if a watched signal is not a bit vector of its declared width in the geometry.
    pub(super) fn new(layout: Layout, handles: Vec<usize>, widths: Vec<u32>) -> Option<Decoder> {
        let mut offsets = Vec::with_capacity(layout.geometry.len() + 1);
        let mut at = 0u64;
        for g in &layout.geometry {
            offsets.push(at);
            at += g.frame_bytes();
        }
        for (&h, &w) in handles.iter().zip(&widths) {
            if layout.geometry.get(h) != Some(&Geometry::Bits(w)) {
                return None;
            }
        }
        let frame_at = handles.iter().map(|&h| offsets[h]).collect();
        let n = handles.len();
        Some(Decoder {
            layout,
            handles,
            widths,
            frame_at,
            frame_len: at,
            times: Vec::new(),
            locs: Vec::new(),
            packed: Vec::new(),
            unpacked: Vec::new(),
            data: vec![Vec::new(); n],
            pos: vec![0; n],
            vli: vec![0; n],
            link: vec![NIL; n],
            head: Vec::new(),
            digits: Vec::new(),
        })
    }

    /// Every block in file order; `Ok(false)`: the caller stopped the read.
    pub(super) fn run(
        &mut self,
        input: &mut (impl Read + Seek),
        sink: &mut impl Apply,
    ) -> Result<bool, String> {
        let blocks: Vec<Block> = self
            .layout
            .blocks
            .iter()
            .filter(|b| b.start_time <= self.layout.end_time)
            .copied()
            .collect();
        for (n, block) in blocks.iter().enumerate() {
            let more = self
                .block(input, block, n == 0, sink)
                .map_err(|e| format!("value-change block at offset {}: {e}", block.start - 1))?;
            if !more {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn block(
        &mut self,
        input: &mut (impl Read + Seek),
        block: &Block,
        first: bool,
        sink: &mut impl Apply,
    ) -> Result<bool, String> {
        let len = self.layout.file_len;
        let time_start = self.time_table(input, block)?;
        // The chain's length is just before the time table, the chain just before that.
        let chain_len_at = time_start
            .checked_sub(8)
            .filter(|&a| a >= block.start + 32)
            .ok_or("no room for the chain")?;
        read_at(input, len, chain_len_at, 8, &mut self.packed)?;
        let chain_len = u64::from_be_bytes(self.packed[..8].try_into().expect("8 bytes"));
        let chain_start = chain_len_at
            .checked_sub(chain_len)
            .filter(|&a| a >= block.start + 32)
            .ok_or("a chain longer than its block")?;
        // Frame: unpacked and packed lengths and signal count, then its bytes.
        let head_at = block.start + 32;
        read_at(
            input,
            len,
            head_at,
            (chain_start - head_at).min(40),
            &mut self.packed,
        )?;
        let mut rest = self.packed.as_slice();
        let frame_unpacked = varint(&mut rest)?;
        let frame_packed = varint(&mut rest)?;
        let frame_count = varint(&mut rest)?;
        let frame_at = head_at + (self.packed.len() - rest.len()) as u64;
        let vc_at = frame_at
            .checked_add(frame_packed)
            .filter(|&a| a < chain_start)
            .ok_or("a frame longer than its block")?;
        if frame_count != self.layout.geometry.len() as u64 || frame_unpacked < self.frame_len {
            return Err(format!(
                "a frame of {frame_count} signals in {frame_unpacked} bytes, where the geometry \
                 has {} signals in {} bytes",
                self.layout.geometry.len(),
                self.frame_len
            ));
        }
        if first && self.times.first().is_none_or(|&t| t > block.start_time) {
            read_at(input, len, frame_at, frame_packed, &mut self.packed)?;
            let frame = if frame_packed == frame_unpacked {
                &self.packed
            } else {
                unpack(
                    Packing::Zlib,
                    &self.packed,
                    frame_unpacked,
                    &mut self.unpacked,
                )?;
                &self.unpacked
            };
            if !sink.at(block.start_time)? {
                return Ok(false);
            }
            for slot in 0..self.handles.len() {
                let at = self.frame_at[slot] as usize;
                let digits = &frame[at..at + self.widths[slot] as usize];
                set_digits(digits, self.widths[slot], sink.value(slot))?;
            }
        }
        // Value changes: signal count, then the pack type byte, from which offsets count.
        read_at(
            input,
            len,
            vc_at,
            (chain_start - vc_at).min(11),
            &mut self.packed,
        )?;
        let mut rest = self.packed.as_slice();
        let max_handle = varint(&mut rest)?;
        let vc_start = vc_at + (self.packed.len() - rest.len()) as u64;
        let Some(&pack) = rest.first() else {
            return Err("no pack type".into());
        };
        let packing = Packing::from_byte(pack).ok_or_else(|| format!("pack type {pack:#04x}"))?;
        if max_handle > self.layout.geometry.len() as u64 {
            return Err(format!("{max_handle} signals, the geometry has fewer"));
        }
        read_at(input, len, chain_start, chain_len, &mut self.packed)?;
        chain(
            &self.packed,
            block.chain,
            max_handle as usize,
            chain_start - vc_start,
            &mut self.locs,
        )?;
        self.wave_data(input, vc_start, chain_start, packing)?;
        self.walk(sink)
    }

    /// Reads the block's time table into `times`; returns where it starts in the file.
    fn time_table(&mut self, input: &mut (impl Read + Seek), block: &Block) -> Result<u64, String> {
        let len = self.layout.file_len;
        read_at(input, len, block.end - 24, 24, &mut self.packed)?;
        let field = |i: usize| u64::from_be_bytes(self.packed[i..i + 8].try_into().expect("8"));
        let (unpacked, packed, count) = (field(0), field(8), field(16));
        let start = (block.end - 24)
            .checked_sub(packed)
            .filter(|&s| s >= block.start + 32)
            .ok_or("a time table longer than its block")?;
        if count > unpacked {
            return Err(format!("{count} time steps in {unpacked} bytes"));
        }
        read_at(input, len, start, packed, &mut self.packed)?;
        let bytes = if packed == unpacked {
            &self.packed
        } else {
            unpack(Packing::Zlib, &self.packed, unpacked, &mut self.unpacked)?;
            &self.unpacked
        };
        let mut rest = bytes.as_slice();
        let mut t = 0u64;
        self.times.clear();
        for _ in 0..count {
            t = t
                .checked_add(varint(&mut rest)?)
                .ok_or("a time beyond 64 bits")?;
            self.times.push(t);
        }
        Ok(start)
    }

    /// Each watched signal's wave data, unpacked; its first change put on its time step.
    fn wave_data(
        &mut self,
        input: &mut (impl Read + Seek),
        vc_start: u64,
        chain_start: u64,
        packing: Packing,
    ) -> Result<(), String> {
        self.head.clear();
        self.head.resize(self.times.len(), NIL);
        for slot in 0..self.handles.len() {
            self.data[slot].clear();
            self.pos[slot] = 0;
            let mut loc = self
                .locs
                .get(self.handles[slot])
                .copied()
                .unwrap_or(Loc::None);
            if let Loc::Alias(a) = loc {
                loc = self.locs.get(a as usize).copied().unwrap_or(Loc::None);
                if !matches!(loc, Loc::Data(..)) {
                    return Err(format!("signal {} aliased to one without data", slot));
                }
            }
            let Loc::Data(offset, n) = loc else {
                continue;
            };
            let at = vc_start
                .checked_add(offset)
                .filter(|a| a.checked_add(n).is_some_and(|e| e <= chain_start))
                .ok_or_else(|| format!("wave data at offset {offset} runs into the chain"))?;
            read_at(input, self.layout.file_len, at, n, &mut self.packed)?;
            let mut rest = self.packed.as_slice();
            let unpacked = varint(&mut rest)?;
            if unpacked == 0 {
                self.data[slot].extend_from_slice(rest);
            } else {
                unpack(packing, rest, unpacked, &mut self.data[slot])?;
            }
            self.schedule(slot, 0)?;
        }
        Ok(())
    }

    /// Reads `slot`'s next change's varint and puts it on its time step (`now` + delta).
    #[inline]
    fn schedule(&mut self, slot: usize, now: usize) -> Result<(), String> {
        let data = &self.data[slot];
        let pos = self.pos[slot];
        if pos >= data.len() {
            return Ok(());
        }
        let mut rest = &data[pos..];
        let vli = varint(&mut rest)?;
        self.pos[slot] = data.len() - rest.len();
        self.vli[slot] = vli;
        let delta = if self.widths[slot] == 1 {
            vli >> (2 << (vli & 1))
        } else {
            vli >> 1
        };
        let step = (now as u64)
            .checked_add(delta)
            .filter(|&s| s < self.times.len() as u64)
            .ok_or_else(|| format!("a change past the block's {} time steps", self.times.len()))?
            as usize;
        self.link[slot] = self.head[step];
        self.head[step] = slot as u32;
        Ok(())
    }

    /// The changes in time order, each time step's after a call to `at`.
    fn walk(&mut self, sink: &mut impl Apply) -> Result<bool, String> {
        for step in 0..self.times.len() {
            if self.head[step] == NIL {
                continue;
            }
            if self.times[step] > self.layout.end_time {
                break;
            }
            if !sink.at(self.times[step])? {
                return Ok(false);
            }
            while self.head[step] != NIL {
                let slot = self.head[step] as usize;
                self.head[step] = self.link[slot];
                self.apply(slot, sink.value(slot))?;
                self.schedule(slot, step)?;
            }
        }
        Ok(true)
    }

    /// Decodes `slot`'s change (its varint read) into `value`.
    #[inline]
    fn apply(&mut self, slot: usize, value: &mut Bits) -> Result<(), String> {
        let (vli, width, pos) = (self.vli[slot], self.widths[slot], self.pos[slot]);
        let data = &self.data[slot];
        if width == 1 {
            if vli & 1 == 0 {
                value.set_word(1, (vli >> 1) & 1);
            } else {
                let state = b"xzhuwl-?"[((vli >> 1) & 7) as usize];
                vcd::decode(&[state], 1, value)?;
            }
            return Ok(());
        }
        let w = width as usize;
        let n = if vli & 1 == 0 { w.div_ceil(8) } else { w };
        let bytes = data
            .get(pos..pos + n)
            .ok_or("a value cut off at the end of its wave data")?;
        self.pos[slot] = pos + n;
        if vli & 1 == 1 {
            return vcd::decode(bytes, width, value);
        }
        if w <= 64 {
            let word = bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            value.set_word(width, word >> (8 * n - w));
            return Ok(());
        }
        self.digits.clear();
        self.digits
            .extend((0..w).map(|i| b'0' | ((bytes[i / 8] >> (7 - i % 8)) & 1)));
        vcd::decode(&self.digits, width, value)
    }
}

/// A value given as ASCII digits (a frame's), as the fst-reader path decodes it.
fn set_digits(digits: &[u8], width: u32, b: &mut Bits) -> Result<(), String> {
    match vcd::scan_binary(digits, 0) {
        (end, Some(word)) if end == digits.len() && end == width as usize => {
            b.set_word(width, word);
            Ok(())
        }
        _ => vcd::decode(digits, width, b),
    }
}

/// Parses a block's chain into `locs` (one per signal up to `max_handle`); `data_end` is
/// where the last signal's data ends (the chain's start, from the pack type byte).
pub(super) fn chain(
    mut bytes: &[u8],
    kind: Chain,
    max_handle: usize,
    data_end: u64,
    locs: &mut Vec<Loc>,
) -> Result<(), String> {
    locs.clear();
    locs.resize(max_handle, Loc::None);
    let mut idx = 0usize;
    let mut offset = 0u64;
    let mut last: Option<usize> = None;
    let mut alias = None;
    let full = || format!("a chain of more than {max_handle} signals");
    let mut data = |locs: &mut Vec<Loc>, idx: usize, delta: u64| -> Result<(), String> {
        if delta == 0 {
            return Err("two signals' data at one offset".into());
        }
        offset = offset
            .checked_add(delta)
            .ok_or("an offset beyond 64 bits")?;
        if let Some(p) = last
            && let Loc::Data(o, _) = locs[p]
        {
            locs[p] = Loc::Data(o, offset - o);
        }
        locs[idx] = Loc::Data(offset, 0);
        last = Some(idx);
        Ok(())
    };
    while !bytes.is_empty() {
        match kind {
            Chain::Alias2 if bytes[0] & 1 == 1 => {
                let v = signed_varint(&mut bytes)? >> 1;
                if idx >= max_handle {
                    return Err(full());
                }
                if v > 0 {
                    data(locs, idx, v as u64)?;
                } else {
                    if v < 0 {
                        alias = Some(v.unsigned_abs() - 1);
                    }
                    let a = alias.ok_or("an alias before any alias")?;
                    locs[idx] = Loc::Alias(u32::try_from(a).map_err(|_| "an alias too far")?);
                }
                idx += 1;
            }
            Chain::Alias2 => {
                let zeros = varint(&mut bytes)? >> 1;
                idx = idx
                    .checked_add(zeros as usize)
                    .filter(|&i| i <= max_handle)
                    .ok_or_else(full)?;
            }
            Chain::Alias => {
                let v = varint(&mut bytes)?;
                if v & 1 == 0 && v != 0 {
                    idx = idx
                        .checked_add((v >> 1) as usize)
                        .filter(|&i| i <= max_handle)
                        .ok_or_else(full)?;
                    continue;
                }
                if idx >= max_handle {
                    return Err(full());
                }
                if v == 0 {
                    let a = varint(&mut bytes)?
                        .checked_sub(1)
                        .and_then(|a| u32::try_from(a).ok())
                        .ok_or("an alias to no signal")?;
                    locs[idx] = Loc::Alias(a);
                } else {
                    data(locs, idx, v >> 1)?;
                }
                idx += 1;
            }
        }
    }
    if let Some(p) = last
        && let Loc::Data(o, _) = locs[p]
    {
        if data_end <= o {
            return Err("the last signal's data starts past the chain".into());
        }
        locs[p] = Loc::Data(o, data_end - o);
    }
    Ok(())
}
