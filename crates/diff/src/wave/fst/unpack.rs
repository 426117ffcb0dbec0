//! Unpacking a signal's wave data, the time table, the frame or the geometry into a reused
//! buffer: zlib (miniz_oxide), LZ4 (lz4_flex) or FastLZ (our own, below, ~60 lines: no
//! maintained crate decodes it). The unpacked length the file claims is checked against what
//! the packed bytes can hold before anything is allocated.

use std::iter;

/// The most bytes one packed byte unpacks to: zlib's limit is 1032, LZ4's and FastLZ's 255.
const MAX_EXPANSION: u64 = 1100;

/// How a value-change block packs its signals' data (the byte after its signal count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Packing {
    Zlib,
    FastLz,
    Lz4,
}

impl Packing {
    /// The pack type byte; `None` for one we do not know.
    pub(super) fn from_byte(b: u8) -> Option<Packing> {
        match b {
            b'Z' => Some(Packing::Zlib),
            b'F' => Some(Packing::FastLz),
            b'4' => Some(Packing::Lz4),
            _ => None,
        }
    }
}

/// Unpacks `packed` into `out` (cleared first), which must then hold exactly `len` bytes.
pub(super) fn unpack(
    packing: Packing,
    packed: &[u8],
    len: u64,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    if len > (packed.len() as u64).saturating_mul(MAX_EXPANSION) + 64 {
        return Err(format!(
            "{len} bytes claimed unpacked from {} packed",
            packed.len()
        ));
    }
    let len = len as usize;
    out.clear();
    let got = match packing {
        Packing::Zlib => {
            out.resize(len, 0);
            miniz_oxide::inflate::decompress_slice_iter_to_slice(
                out,
                iter::once(packed),
                true,
                false,
            )
            .map_err(|e| format!("zlib: {e:?}"))?
        }
        Packing::Lz4 => {
            out.resize(len, 0);
            lz4_flex::block::decompress_into(packed, out).map_err(|e| format!("LZ4: {e}"))?
        }
        Packing::FastLz => {
            fastlz(packed, len, out)?;
            out.len()
        }
    };
    if got != len {
        return Err(format!("{got} bytes unpacked where {len} were claimed"));
    }
    Ok(())
}

/// FastLZ (levels 1 and 2, the level in the first byte's top three bits) into `out`, at most
/// `limit` bytes. Instructions: a literal run (`ctrl < 32`: the next `ctrl + 1` bytes) or a
/// match (`ctrl >> 5` is the length - 2, 7 meaning more length bytes follow; the distance's
/// high bits are `ctrl & 31`, its low byte follows; level 2 adds 16-bit far distances).
fn fastlz(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), String> {
    const FAR: usize = 8191;
    let bad = |what: &str| Err(format!("FastLZ: {what}"));
    let Some(&first) = input.first() else {
        return bad("no input");
    };
    let level2 = match first >> 5 {
        0 => false,
        1 => true,
        l => return bad(&format!("level {}", l + 1)),
    };
    let mut ip = 1usize;
    let mut ctrl = usize::from(first & 31);
    let next = |ip: &mut usize| -> Result<usize, String> {
        let b = *input.get(*ip).ok_or("FastLZ: cut off")?;
        *ip += 1;
        Ok(usize::from(b))
    };
    loop {
        if ctrl >= 32 {
            let mut len = (ctrl >> 5) + 2;
            let high = (ctrl & 31) << 8;
            if len == 9 {
                loop {
                    let code = next(&mut ip)?;
                    len += code;
                    if !level2 || code != 255 {
                        break;
                    }
                }
            }
            let low = next(&mut ip)?;
            let mut distance = high + low + 1;
            if level2 && low == 255 && high == 31 << 8 {
                let far = (next(&mut ip)? << 8) + next(&mut ip)?;
                distance = far + FAR + 1;
            }
            let Some(from) = out.len().checked_sub(distance) else {
                return bad("a match before the start");
            };
            if out.len() + len > limit {
                return bad("more bytes than claimed");
            }
            for i in from..from + len {
                out.push(out[i]);
            }
        } else {
            let run = ctrl + 1;
            let Some(bytes) = input.get(ip..ip + run) else {
                return bad("a literal run cut off");
            };
            if out.len() + run > limit {
                return bad("more bytes than claimed");
            }
            out.extend_from_slice(bytes);
            ip += run;
        }
        if ip >= input.len() {
            return Ok(());
        }
        ctrl = next(&mut ip)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fastlz_literals_and_matches() {
        // "abc" literal, then a match of 6 at distance 3 (level 1), then "!" literal.
        let packed = [2, b'a', b'b', b'c', (4 << 5), 2, 0, b'!'];
        let mut out = Vec::new();
        unpack(Packing::FastLz, &packed, 10, &mut out).unwrap();
        assert_eq!(out, b"abcabcabc!");
        // A claimed length that is not what comes out, a match before the start.
        assert!(unpack(Packing::FastLz, &packed, 9, &mut out).is_err());
        assert!(unpack(Packing::FastLz, &[(4 << 5), 0], 6, &mut out).is_err());
    }

    #[test]
    fn claimed_lengths_beyond_the_packed_bytes_are_refused_unallocated() {
        let mut out = Vec::new();
        for p in [Packing::Zlib, Packing::Lz4, Packing::FastLz] {
            assert!(unpack(p, &[0; 10], 1 << 40, &mut out).is_err());
            assert!(out.capacity() < 1 << 20);
        }
    }

    #[test]
    fn zlib_and_lz4_round_trip() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let mut out = Vec::new();
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        unpack(Packing::Zlib, &z, data.len() as u64, &mut out).unwrap();
        assert_eq!(out, data);
        let l = lz4_flex::block::compress(&data);
        unpack(Packing::Lz4, &l, data.len() as u64, &mut out).unwrap();
        assert_eq!(out, data);
        assert!(unpack(Packing::Lz4, &l, data.len() as u64 + 1, &mut out).is_err());
    }
}
