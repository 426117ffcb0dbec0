//! Checks before a waveform reader sees the file (issue 16): an FST's block lengths and counts,
//! a VCD's time order and last line.

use std::io::{self, BufRead, Read, Seek, SeekFrom};

/// Checks what the waveform readers would loop on, allocate without bound for, or misread,
/// before they see the file: an FST whose block lengths leave the file (the format detection
/// walks them forever) or whose counts exceed what their bytes can hold; a VCD whose time goes
/// backwards, or whose last line is cut off (its last value would be read as a wrong value).
/// Answers whether the file is an FST. `times`: check a VCD's time order too (a pass over the
/// whole file; our own reader checks it as it reads).
pub(super) fn precheck(input: &mut (impl BufRead + Seek), times: bool) -> Result<bool, String> {
    let io = |e: io::Error| e.to_string();
    let len = input.seek(SeekFrom::End(0)).map_err(io)?;
    input.seek(SeekFrom::Start(0)).map_err(io)?;
    if len == 0 {
        return Err("empty file".into());
    }
    let mut first = [0u8; 1];
    input.read_exact(&mut first).map_err(io)?;
    let fst = is_fst_block_type(first[0]);
    if fst {
        check_fst_blocks(input, len)?;
    } else {
        if times {
            input.seek(SeekFrom::Start(0)).map_err(io)?;
            check_vcd_times(input)?;
        }
        let mut last = [0u8; 1];
        input.seek(SeekFrom::End(-1)).map_err(io)?;
        input.read_exact(&mut last).map_err(io)?;
        if last[0] != b'\n' {
            return Err(format!(
                "truncated: the last line (ending at byte {len}) is cut off before its newline"
            ));
        }
    }
    input.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(fst)
}

/// Refuses a VCD whose time goes backwards: wellen skips such a step with a warning on
/// standard output, and the diff would compare what is left as if the file were well formed.
/// One pass over the bytes, in constant memory: a `#` at the start of a line (after
/// `$enddefinitions`) starts a time stamp.
pub(super) fn check_vcd_times(input: &mut impl BufRead) -> Result<(), String> {
    const END_DEFS: &[u8] = b"$enddefinitions";
    let mut matched = 0; // bytes of END_DEFS matched so far
    let mut in_body = false;
    let mut line = 1u64;
    let mut line_start = true;
    let mut stamp: Option<u64> = None; // digits of the time stamp being read
    let mut previous: Option<u64> = None;
    loop {
        let chunk = input.fill_buf().map_err(|e| e.to_string())?;
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        let mut i = 0;
        while i < n {
            if in_body && stamp.is_none() && !line_start {
                // Inside a line that is not a time stamp: only its newline matters.
                match memchr::memchr(b'\n', &chunk[i..]) {
                    Some(k) => i += k,
                    None => break,
                }
            }
            let b = chunk[i];
            i += 1;
            if !in_body {
                matched = if b == END_DEFS[matched] {
                    matched + 1
                } else {
                    usize::from(b == END_DEFS[0])
                };
                in_body = matched == END_DEFS.len();
            } else if let Some(t) = stamp {
                if b.is_ascii_digit() {
                    stamp = t
                        .checked_mul(10)
                        .and_then(|t| t.checked_add(u64::from(b - b'0')));
                    if stamp.is_none() {
                        return Err(format!("line {line}: time stamp beyond 64 bits"));
                    }
                } else {
                    if let Some(p) = previous.filter(|&p| t < p) {
                        return Err(format!("line {line}: time goes backwards: #{t} after #{p}"));
                    }
                    previous = Some(t);
                    stamp = None;
                }
            } else if line_start && b == b'#' {
                stamp = Some(0);
            }
            if b == b'\n' {
                line += 1;
            }
            line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t' || b == b'\r'));
        }
        input.consume(n);
    }
    Ok(())
}

/// The counts and lengths fst-reader allocates from before it reads what they count, bounded
/// by what the block's bytes can hold: geometry and hierarchy (their unpacked length and the
/// geometry's signal count), the header's signal counts, the blackout count, and a value-change
/// block's time table (found by `fuzz/`'s `wave` target: 6 GB and 6 PB from 700-byte files).
fn check_fst_sizes(
    input: &mut (impl Read + Seek),
    block: u8,
    at: u64,
    section: u64,
    len: u64,
) -> Result<(), String> {
    let most = section.saturating_mul(MAX_EXPANSION);
    let mut u64_at = |offset: u64| -> Result<u64, String> {
        let mut b = [0u8; 8];
        input
            .seek(SeekFrom::Start(at + 1 + offset))
            .and_then(|_| input.read_exact(&mut b))
            .map_err(|_| "fields past the end of the file".to_string())?;
        Ok(u64::from_be_bytes(b))
    };
    let bounded = |what: &str, n: u64, limit: u64| {
        if n > limit {
            Err(format!("{n} {what} in {section} bytes"))
        } else {
            Ok(())
        }
    };
    match block {
        // Header: var_count and max_var_id_code size the signal tables; each signal needs
        // at least a byte of (compressed) hierarchy somewhere in the file.
        0 => {
            let file_most = len.saturating_mul(MAX_EXPANSION);
            bounded("signals", u64_at(48)?, file_most)?;
            bounded("signal ids", u64_at(56)?, file_most)?;
        }
        // Value changes: the time table's three lengths are the section's last 24 bytes.
        1 | 5 | 8 => {
            if section < 32 {
                return Err(format!("a value-change block of {section} bytes"));
            }
            let unpacked = u64_at(section - 24)?;
            let packed = u64_at(section - 16)?;
            let items = u64_at(section - 8)?;
            bounded("bytes of packed time table", packed, section - 32)?;
            bounded(
                "bytes of time table",
                unpacked,
                packed.saturating_mul(MAX_EXPANSION),
            )?;
            bounded("time steps", items, unpacked)?;
            // The chain of value-change offsets ends where the time table starts.
            let chain = u64_at(section - 24 - packed - 8)?;
            bounded("bytes of value-change chain", chain, section)?;
            // The frame (every signal's value at the block's start), then the signal count.
            input
                .seek(SeekFrom::Start(at + 1 + 32))
                .map_err(|e| e.to_string())?;
            let frame_unpacked = read_varint(input)?;
            let frame_packed = read_varint(input)?;
            let frame_signals = read_varint(input)?;
            bounded("bytes of packed frame", frame_packed, section)?;
            bounded(
                "bytes of frame",
                frame_unpacked,
                frame_packed.saturating_mul(MAX_EXPANSION),
            )?;
            bounded("frame signals", frame_signals, frame_unpacked)?;
            input
                .seek(SeekFrom::Current(frame_packed as i64))
                .map_err(|e| e.to_string())?;
            bounded("value-change signals", read_varint(input)?, most)?;
        }
        // A gzip-wrapped file: its unpacked length.
        254 => bounded("bytes unpacked", u64_at(8)?, most)?,
        // Blackout: a variable-length count of (at least two-byte) entries.
        2 => {
            input
                .seek(SeekFrom::Start(at + 9))
                .map_err(|e| e.to_string())?;
            bounded("blackouts", read_varint(input)?, section)?;
        }
        // Geometry and hierarchy: the unpacked length, then (geometry) the signal count.
        3 | 4 | 6 | 7 => {
            let unpacked = u64_at(8)?;
            bounded("bytes unpacked", unpacked, most)?;
            if block == 3 {
                bounded("signals", u64_at(16)?, unpacked)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// An FST variable-length integer (LEB128, at most 64 bits).
fn read_varint(input: &mut impl Read) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let mut b = [0u8; 1];
        input
            .read_exact(&mut b)
            .map_err(|_| "fields past the end of the file".to_string())?;
        value |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a number longer than 64 bits".into())
}

/// The block types of FST (fst-reader's `BlockType`): a VCD never starts with one of these bytes.
fn is_fst_block_type(b: u8) -> bool {
    matches!(b, 0..=8 | 254 | 255)
}

/// The most a compressed FST block can expand: zlib's limit is about 1032 to 1, LZ4's 255.
const MAX_EXPANSION: u64 = 1100;

/// Walks the FST blocks as the format detection does (type byte, big-endian length that counts
/// itself) and refuses a length that does not move forward, which would make it loop.
fn check_fst_blocks(input: &mut (impl Read + Seek), len: u64) -> Result<(), String> {
    let mut at = 0u64;
    while at < len {
        input.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
        let mut head = [0u8; 9];
        if input.read_exact(&mut head).is_err() || !is_fst_block_type(head[0]) {
            break;
        }
        let section = u64::from_be_bytes(head[1..].try_into().expect("8 bytes"));
        if head[0] == 254 || (head[0] == 255 && section == 0) {
            break;
        }
        if section < 8 || section > len {
            return Err(format!(
                "FST block at byte {at} has length {section}, outside the file's {len} bytes"
            ));
        }
        check_fst_sizes(input, head[0], at, section, len)
            .map_err(|what| format!("FST block at byte {at} declares {what}: corrupt"))?;
        at += 1 + section;
    }
    Ok(())
}
