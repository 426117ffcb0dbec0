//! Values and names as wellen gives them, decoded into our words.

use std::collections::HashMap;

use wellen::SignalValueRef;

use super::sampler::Names;
use super::{Bits, MAX_SIGNAL_WIDTH};

/// Decodes a value change into `b`, reusing its buffer.
pub(super) fn decode_into(v: SignalValueRef<'_>, b: &mut Bits) -> Result<(), String> {
    b.unknown = None;
    b.words.clear();
    match v {
        SignalValueRef::BitVec(bv) => {
            let width = bv.width();
            if width == 0 || width > MAX_SIGNAL_WIDTH {
                return Err(format!("a value of {width} bits"));
            }
            b.width = width;
            b.words.resize(width.div_ceil(64).max(1) as usize, 0);
            if let Some(bytes) = bv.be_bytes() {
                // Two-state values: packed big-endian bytes.
                for (i, byte) in bytes.iter().rev().enumerate() {
                    let pos = i * 8;
                    if pos < b.words.len() * 64 {
                        b.words[pos / 64] |= u64::from(*byte) << (pos % 64);
                    }
                }
                return Ok(());
            }
            for (i, bit) in bv.iter_msb_to_lsb().enumerate() {
                let Some(pos) = (width - 1).checked_sub(i as u32) else {
                    break;
                };
                match bit.as_ascii() {
                    '0' => {}
                    '1' => b.words[(pos / 64) as usize] |= 1 << (pos % 64),
                    c => {
                        b.unknown.get_or_insert(c);
                    }
                }
            }
        }
        SignalValueRef::Event => {
            b.width = 1;
            b.words.push(1);
        }
        SignalValueRef::String(_) | SignalValueRef::Real(_) => {
            b.width = 0;
            b.unknown = Some('?');
        }
    }
    Ok(())
}

/// Every variable's full name (with the prefix stripped) and its width.
pub(super) fn signal_names(h: &wellen::Hierarchy, strip: Option<&str>) -> Names {
    let mut out = HashMap::new();
    for var_ref in h.all_vars() {
        let var = &h[var_ref];
        let full = var.full_name(h);
        let name = match strip {
            Some(p) => full.strip_prefix(p).unwrap_or(&full).to_string(),
            None => full.clone(),
        };
        let width = var.length(h).unwrap_or(1);
        out.entry(name).or_insert((var.signal_ref().index(), width));
    }
    out
}

/// A hint listing signals whose names end like the one asked for.
pub(super) fn near_names(names: &Names, wanted: &str) -> String {
    let leaf = wanted.rsplit('.').next().unwrap_or(wanted);
    let mut near: Vec<&str> = names
        .keys()
        .filter(|n| n.rsplit('.').next() == Some(leaf))
        .map(String::as_str)
        .collect();
    near.sort();
    near.truncate(3);
    if near.is_empty() {
        format!("{} signals in the file", names.len())
    } else {
        format!("did you mean {}?", near.join(", "))
    }
}

/// Decodes a value change into little-endian words; `false` if it is not a known value.
pub(super) fn decode_words(v: SignalValueRef<'_>, words: &mut Vec<u64>) -> bool {
    words.clear();
    match v {
        SignalValueRef::BitVec(bv) => {
            let width = bv.width();
            words.resize(width.div_ceil(64).max(1) as usize, 0);
            if let Some(bytes) = bv.be_bytes() {
                for (i, byte) in bytes.iter().rev().enumerate() {
                    let pos = i * 8;
                    if pos < words.len() * 64 {
                        words[pos / 64] |= u64::from(*byte) << (pos % 64);
                    }
                }
                return true;
            }
            for (i, bit) in bv.iter_msb_to_lsb().enumerate() {
                let pos = width - 1 - i as u32;
                match bit.as_ascii() {
                    '0' => {}
                    '1' => words[(pos / 64) as usize] |= 1 << (pos % 64),
                    _ => return false,
                }
            }
            true
        }
        SignalValueRef::Event => {
            words.push(1);
            true
        }
        _ => false,
    }
}
