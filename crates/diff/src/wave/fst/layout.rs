//! The block structure of an FST file as our decoder needs it: the header's time range, the
//! geometry (every signal's length) and where the value-change blocks are. Every length and
//! offset read from the file is checked against the file's size before it is used.

use std::io::{Read, Seek, SeekFrom};

use super::unpack::{Packing, unpack};

/// A signal as the geometry block declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Geometry {
    /// A bit vector of this many bits (1 or more).
    Bits(u32),
    /// A 64-bit real (8 bytes in the frame).
    Real,
    /// A variable-length (string) signal: nothing in the frame.
    VarLen,
}

impl Geometry {
    fn from_file(v: u64) -> Result<Geometry, String> {
        Ok(match v {
            0 => Geometry::Real,
            0xffff_ffff => Geometry::VarLen,
            n if n < 0xffff_ffff => Geometry::Bits(n as u32),
            n => return Err(format!("a signal length of {n} in the geometry")),
        })
    }

    /// Bytes of this signal's value in a block's frame.
    pub(super) fn frame_bytes(self) -> u64 {
        match self {
            Geometry::Bits(n) => u64::from(n),
            Geometry::Real => 8,
            Geometry::VarLen => 0,
        }
    }
}

/// How a value-change block lists where each signal's data is (its type byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Chain {
    /// VCDATA (1) and VCDATA_DYN_ALIAS (5): unsigned varints, 0 then an alias.
    Alias,
    /// VCDATA_DYN_ALIAS2 (8): signed varints for offsets and aliases.
    Alias2,
}

/// One value-change block: `start` is the offset of its section length (after the type
/// byte), `end` one past its last byte.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) chain: Chain,
    pub(super) start_time: u64,
}

/// What the decoder needs of the file around the value changes.
#[derive(Debug)]
pub(super) struct Layout {
    pub(super) file_len: u64,
    pub(super) end_time: u64,
    pub(super) geometry: Vec<Geometry>,
    pub(super) blocks: Vec<Block>,
}

/// Reads `len` bytes at `at` into `buf` (reused), refusing a range past the end of the file.
pub(super) fn read_at(
    input: &mut (impl Read + Seek),
    file_len: u64,
    at: u64,
    len: u64,
    buf: &mut Vec<u8>,
) -> Result<(), String> {
    if at.checked_add(len).is_none_or(|e| e > file_len) {
        return Err(format!(
            "{len} bytes at offset {at} run past the end of the file"
        ));
    }
    buf.clear();
    buf.resize(len as usize, 0);
    input
        .seek(SeekFrom::Start(at))
        .and_then(|_| input.read_exact(buf))
        .map_err(|e| format!("reading {len} bytes at offset {at}: {e}"))
}

/// A big-endian u64 at `at`.
fn u64_at(input: &mut (impl Read + Seek), file_len: u64, at: u64) -> Result<u64, String> {
    let mut b = Vec::with_capacity(8);
    read_at(input, file_len, at, 8, &mut b)?;
    Ok(u64::from_be_bytes(b[..8].try_into().expect("8 bytes")))
}

/// An unsigned LEB128 varint at the front of `bytes`, which it consumes.
#[inline]
pub(super) fn varint(bytes: &mut &[u8]) -> Result<u64, String> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *bytes = &bytes[i + 1..];
            return Ok(v);
        }
    }
    Err("a varint cut off or longer than 64 bits".into())
}

/// A signed LEB128 varint (sign in bit 6 of the last byte) at the front of `bytes`.
pub(super) fn signed_varint(bytes: &mut &[u8]) -> Result<i64, String> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        let shift = 7 * i as u32;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            *bytes = &bytes[i + 1..];
            if b & 0x40 != 0 && shift + 7 < 64 {
                v |= u64::MAX << (shift + 7);
            }
            return Ok(v as i64);
        }
    }
    Err("a signed varint cut off or longer than 64 bits".into())
}

impl Layout {
    /// Walks the blocks from the start of the file. `Ok(None)`: a file to leave to
    /// fst-reader (a gzip-wrapped or unfinished file, an unknown block type).
    pub(super) fn read(input: &mut (impl Read + Seek)) -> Result<Option<Layout>, String> {
        let file_len = input.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
        let mut header: Option<(u64, u64)> = None;
        let mut geometry = None;
        let mut blocks = Vec::new();
        let mut at = 0u64;
        let mut buf = Vec::new();
        while at < file_len {
            read_at(input, file_len, at, 1, &mut buf)?;
            let kind = buf[0];
            let start = at + 1;
            let length = u64_at(input, file_len, start)?;
            if kind == 255 && length == 0 {
                break;
            }
            let end = start
                .checked_add(length)
                .filter(|&e| length >= 8 && e <= file_len)
                .ok_or_else(|| {
                    format!("block at offset {at}: length {length} runs past the end")
                })?;
            match kind {
                0 => {
                    let first = u64_at(input, file_len, start + 8)?;
                    let last = u64_at(input, file_len, start + 16)?;
                    header = Some((first, last));
                }
                1 | 5 | 8 => {
                    if length < 32 + 24 {
                        return Err(format!("a value-change block of {length} bytes"));
                    }
                    blocks.push(Block {
                        start,
                        end,
                        chain: if kind == 8 {
                            Chain::Alias2
                        } else {
                            Chain::Alias
                        },
                        start_time: u64_at(input, file_len, start + 8)?,
                    });
                }
                3 => geometry = Some(read_geometry(input, file_len, start, length)?),
                2 | 4 | 6 | 7 | 255 => {}
                _ => return Ok(None),
            }
            at = end;
        }
        let (Some((first, last)), Some(geometry)) = (header, geometry) else {
            return Ok(None);
        };
        // An unfinished file (its header never rewritten): fst-reader infers the times.
        if first == 0 && last == 0 && !blocks.is_empty() {
            return Ok(None);
        }
        Ok(Some(Layout {
            file_len,
            end_time: last,
            geometry,
            blocks,
        }))
    }
}

/// The geometry block: section length, unpacked length, signal count, then one varint per
/// signal (zlib-packed unless both lengths agree).
fn read_geometry(
    input: &mut (impl Read + Seek),
    file_len: u64,
    start: u64,
    length: u64,
) -> Result<Vec<Geometry>, String> {
    if length < 24 {
        return Err(format!("a geometry block of {length} bytes"));
    }
    let unpacked = u64_at(input, file_len, start + 8)?;
    let count = u64_at(input, file_len, start + 16)?;
    let mut packed = Vec::new();
    read_at(input, file_len, start + 24, length - 24, &mut packed)?;
    let mut bytes = Vec::new();
    let raw = unpacked == packed.len() as u64;
    let data: &[u8] = if raw {
        &packed
    } else {
        unpack(Packing::Zlib, &packed, unpacked, &mut bytes)?;
        &bytes
    };
    if count > data.len() as u64 {
        return Err(format!(
            "{count} signals in {} bytes of geometry",
            data.len()
        ));
    }
    let mut rest = data;
    (0..count)
        .map(|_| Geometry::from_file(varint(&mut rest)?))
        .collect()
}
