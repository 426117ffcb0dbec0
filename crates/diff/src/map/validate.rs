//! The one check of a map for each alignment: every field one the alignment and the schedule can
//! use, every register mapped whole unless `--partial`.

use std::collections::BTreeMap;

use super::{Part, Ring, SignalMap};
use crate::error::DiffError;

/// Which comparison a map is checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alignment {
    /// Every trace field on every cycle.
    Cycle,
    /// The state, key, tweak and digest at architectural events.
    Event,
}

/// What the golden trace offers a map: its signal names (cycle alignment), state words and
/// pipeline registers.
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    /// The golden trace's signals, by name.
    pub signals: &'a [&'a str],
    /// State words Nw (0 for a trace without Threefish state, e.g. Shabal).
    pub words: usize,
    /// Pipeline registers (slots) of the schedule.
    pub slots: usize,
}

/// A field `slot<i>_<register>_<w>` split into its parts.
pub fn slot_field(name: &str) -> Option<(usize, &str, usize)> {
    let rest = name.strip_prefix("slot")?;
    let (slot, rest) = rest.split_once('_')?;
    let slot = slot.parse().ok()?;
    let (register, word) = rest.rsplit_once('_')?;
    Some((slot, register, word.parse().ok()?))
}

/// The event-alignment registers of a slot and the words each must have to be whole (the
/// key's parity word and t2 may be left out of a fixed ring: designs compute them).
fn event_registers(
    words: usize,
    key_ring: Ring,
    tweak_ring: Ring,
) -> [(&'static str, usize, usize); 4] {
    let key_required = if key_ring == Ring::Rotating {
        words + 1
    } else {
        words
    };
    let tweak_required = if tweak_ring == Ring::Rotating { 3 } else { 2 };
    [
        ("state", words, words),
        ("state_before", words, words),
        ("key", words + 1, key_required),
        ("tweak", 3, tweak_required),
    ]
}

/// The one check of a map for both alignments: every field must be one the alignment and the
/// schedule can use, and a register must be mapped whole unless `partial`. Returns what a
/// partial map leaves out (for the verdict).
pub fn validate(
    map: &SignalMap,
    align: Alignment,
    layout: &Layout<'_>,
    partial: bool,
) -> Result<Vec<String>, DiffError> {
    let refuse =
        |field: &str, why: String| Err(DiffError::Invalid(format!("map field '{field}': {why}")));
    match layout.words {
        0 => byteswap_width(map, 32, "a Shabal word")?,
        _ => byteswap_width(map, 64, "a Skein word")?,
    }
    let mut left_out = Vec::new();
    match align {
        Alignment::Cycle => {
            if map.digest_serial.is_some() {
                return refuse(
                    "digest_serial",
                    "a serial digest port is compared by event alignment only (--align event)"
                        .into(),
                );
            }
            for (field, ring) in [("key_ring", map.key_ring), ("tweak_ring", map.tweak_ring)] {
                if ring == Ring::Rotating {
                    return refuse(
                        field,
                        "a rotating ring is compared by event alignment only (--align event)"
                            .into(),
                    );
                }
            }
            for field in map.fields.keys() {
                if !layout.signals.contains(&field.as_str()) {
                    let why = if field.starts_with("in_ready_") {
                        "the golden run models no in_ready bit of that stream (raw blocks, a \
                         trace written before the field, or a stream beyond the design's)"
                            .to_string()
                    } else if slot_field(field).is_some_and(|(_, r, _)| r == "state_before") {
                        "the state before injection is compared by event alignment only (--align event)".to_string()
                    } else if slot_field(field).is_some_and(|(s, _, _)| s >= layout.slots) {
                        format!("the schedule has {} pipeline register(s)", layout.slots)
                    } else {
                        "the golden trace has no such field".to_string()
                    };
                    return refuse(field, why);
                }
            }
            // A register is the fields NAME_0, NAME_1, ... of the trace.
            let mut groups: BTreeMap<&str, (Vec<&str>, usize)> = BTreeMap::new();
            for s in layout.signals {
                if let Some((stem, w)) = s.rsplit_once('_')
                    && w.parse::<usize>().is_ok()
                {
                    let g = groups.entry(stem).or_default();
                    g.0.push(s);
                    g.1 += usize::from(map.fields.contains_key(*s));
                }
            }
            for (stem, (members, mapped)) in groups {
                if mapped > 0 && mapped < members.len() {
                    let missing: Vec<&str> = members
                        .iter()
                        .copied()
                        .filter(|m| !map.fields.contains_key(*m))
                        .collect();
                    if !partial {
                        return refuse(
                            missing[0],
                            format!(
                                "not mapped, but {mapped} other word(s) of {stem}_* are: map the \
                                 whole register or give --partial"
                            ),
                        );
                    }
                    left_out.extend(missing.iter().map(|m| m.to_string()));
                }
            }
        }
        Alignment::Event => {
            let regs = event_registers(layout.words, map.key_ring, map.tweak_ring);
            let mut mapped: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
            let mut out_words = Vec::new();
            for field in map.fields.keys() {
                if field == "out_valid" {
                    continue;
                }
                if let Some(w) = field.strip_prefix("out_data_").and_then(|w| w.parse().ok()) {
                    if w >= layout.words {
                        return refuse(field, format!("the state has {} words", layout.words));
                    }
                    out_words.push(w);
                    continue;
                }
                if field.starts_with("in_ready_") {
                    return refuse(
                        field,
                        "in_ready is compared by cycle alignment only (--align cycle): event \
                         alignment has no cycles to compare a handshake at"
                            .into(),
                    );
                }
                let Some((slot, register, w)) = slot_field(field) else {
                    return refuse(
                        field,
                        "event alignment compares only slot<i>_state_<w>, \
                         slot<i>_state_before_<w>, slot<i>_key_<w>, slot<i>_tweak_<t>, \
                         out_valid and out_data_<w>"
                            .into(),
                    );
                };
                let Some(&(register, width, _)) = regs.iter().find(|r| r.0 == register) else {
                    return refuse(
                        field,
                        format!(
                            "event alignment does not compare slot registers '{register}' (only \
                             state, state_before, key, tweak)"
                        ),
                    );
                };
                if slot >= layout.slots {
                    return refuse(
                        field,
                        format!("the schedule has {} pipeline register(s)", layout.slots),
                    );
                }
                if w >= width {
                    return refuse(field, format!("{register} has {width} words"));
                }
                mapped.entry((slot, register)).or_default().push(w);
            }
            for ((slot, register), ws) in &mapped {
                let &(_, width, required) = regs.iter().find(|r| r.0 == *register).expect("known");
                let _ = width;
                let missing: Vec<String> = (0..required)
                    .filter(|w| !ws.contains(w))
                    .map(|w| format!("slot{slot}_{register}_{w}"))
                    .collect();
                if !missing.is_empty() {
                    if !partial {
                        return refuse(
                            &missing[0],
                            format!(
                                "not mapped, but {} other word(s) of slot{slot}_{register} are: \
                                 map the whole register or give --partial",
                                ws.len()
                            ),
                        );
                    }
                    left_out.extend(missing);
                }
            }
            // The key and tweak repeat every block's inputs: a map of them alone says nothing
            // of the state, so it must place the state too (issue 33) or say it is partial.
            let slots: std::collections::BTreeSet<usize> = mapped.keys().map(|k| k.0).collect();
            for slot in slots {
                let state = ["state", "state_before"]
                    .iter()
                    .any(|r| mapped.contains_key(&(slot, *r)));
                if !state {
                    if !partial {
                        return refuse(
                            &format!("slot{slot}_state_0"),
                            format!(
                                "not mapped: the map places the key or tweak of slot {slot} but                                  not its state (slot{slot}_state_<w> after injection or                                  slot{slot}_state_before_<w> before it); the rings alone say                                  nothing of the rounds: map the state or give --partial"
                            ),
                        );
                    }
                    left_out.push(format!("slot{slot}_state_*"));
                }
            }
            let has_valid = map.fields.contains_key("out_valid");
            if !out_words.is_empty() || has_valid {
                if !has_valid {
                    return refuse("out_data_0", "out_data_* needs out_valid".into());
                }
                if out_words.is_empty() {
                    return refuse("out_valid", "out_valid needs out_data_*".into());
                }
                let missing: Vec<String> = (0..layout.words)
                    .filter(|w| !out_words.contains(w))
                    .map(names_out)
                    .collect();
                if !missing.is_empty() {
                    if !partial {
                        return refuse(
                            &missing[0],
                            "not mapped, but other digest words are: map them all or give \
                             --partial"
                                .into(),
                        );
                    }
                    left_out.extend(missing);
                }
            }
            if has_valid && map.digest_serial.is_some() {
                return refuse(
                    "digest_serial",
                    "map either out_valid/out_data_* or digest_serial, not both".into(),
                );
            }
        }
    }
    for field in map.when.keys() {
        if !map.fields.contains_key(field) {
            return refuse(field, "a qualifier for an unmapped field".into());
        }
    }
    Ok(left_out)
}

/// The map check of Shabal event alignment: the state parts `a_<i>` (i < 12), `b_<i>` and
/// `c_<i>` (i < 16), whole unless `partial`, and `out_valid` with `out_data_<w>` (w <
/// `out_words`); anything else (the trace's other fields, the Skein views, a serial digest
/// port, a rotating ring) is refused naming the field. Returns what a partial map leaves out.
pub fn validate_shabal_events(
    map: &SignalMap,
    out_words: usize,
    partial: bool,
) -> Result<Vec<String>, DiffError> {
    let refuse =
        |field: &str, why: String| Err(DiffError::Invalid(format!("map field '{field}': {why}")));
    if map.digest_serial.is_some() {
        return refuse(
            "digest_serial",
            "a serial digest port (64-bit words) is compared for Skein only; map a Shabal \
             digest as out_valid and out_data_<w>"
                .into(),
        );
    }
    for (field, ring) in [("key_ring", map.key_ring), ("tweak_ring", map.tweak_ring)] {
        if ring == Ring::Rotating {
            return refuse(field, "Shabal has no key or tweak register".into());
        }
    }
    byteswap_width(map, 32, "a Shabal word")?;
    let trace = skeinhw_trace::shabal::signals(out_words);
    let mut mapped: BTreeMap<Part, Vec<usize>> = BTreeMap::new();
    let mut out_words_mapped = Vec::new();
    for field in map.fields.keys() {
        if field == "out_valid" {
            continue;
        }
        if let Some(w) = field.strip_prefix("out_data_").and_then(|w| w.parse().ok()) {
            if w >= out_words {
                return refuse(field, format!("the digest has {out_words} words"));
            }
            out_words_mapped.push(w);
            continue;
        }
        match Part::field(field) {
            Some((part, w)) if w < part.words() => mapped.entry(part).or_default().push(w),
            Some((part, _)) => {
                return refuse(
                    field,
                    format!(
                        "{} has {} words",
                        part.prefix().to_uppercase(),
                        part.words()
                    ),
                );
            }
            None => {
                let why = if trace.iter().any(|s| s.name == *field) {
                    "Shabal event alignment compares only the state after each round (a_<i>, \
                     b_<i>, c_<i>) and the digest (out_valid, out_data_<w>); this field is \
                     compared by cycle alignment only (--align cycle)"
                } else {
                    "not a field of a Shabal trace (event alignment compares a_<i>, b_<i>, \
                     c_<i>, out_valid and out_data_<w>)"
                };
                return refuse(field, why.into());
            }
        }
    }
    let mut left_out = Vec::new();
    for (part, ws) in &mapped {
        let missing: Vec<String> = (0..part.words())
            .filter(|w| !ws.contains(w))
            .map(|w| format!("{}_{w}", part.prefix()))
            .collect();
        if let Some(first) = missing.first() {
            if !partial {
                return refuse(
                    first,
                    format!(
                        "not mapped, but {} other word(s) of {} are: map the whole part or \
                         give --partial",
                        ws.len(),
                        part.prefix().to_uppercase()
                    ),
                );
            }
            left_out.extend(missing);
        }
    }
    let has_valid = map.fields.contains_key("out_valid");
    if !out_words_mapped.is_empty() || has_valid {
        if !has_valid {
            return refuse("out_data_0", "out_data_* needs out_valid".into());
        }
        if out_words_mapped.is_empty() {
            return refuse("out_valid", "out_valid needs out_data_*".into());
        }
        let missing: Vec<String> = (0..out_words)
            .filter(|w| !out_words_mapped.contains(w))
            .map(names_out)
            .collect();
        if let Some(first) = missing.first() {
            if !partial {
                return refuse(
                    first,
                    "not mapped, but other digest words are: map them all or give --partial".into(),
                );
            }
            left_out.extend(missing);
        }
    }
    for field in map.when.keys() {
        if !map.fields.contains_key(field) {
            return refuse(field, "a qualifier for an unmapped field".into());
        }
    }
    Ok(left_out)
}

/// A `byteswap` field given as a slice must be one word of the algorithm (`bits` wide): the
/// bytes swapped back are that word's.
fn byteswap_width(map: &SignalMap, bits: u32, what: &str) -> Result<(), DiffError> {
    match map
        .fields
        .iter()
        .find(|(_, p)| p.byteswap && p.slice.is_some() && p.width(0) != bits)
    {
        Some((field, p)) => Err(DiffError::Invalid(format!(
            "map field '{field}': byteswap swaps the bytes of {what} ({bits} bits), but \
             {} is {} bits",
            p.signal,
            p.width(0)
        ))),
        None => Ok(()),
    }
}

fn names_out(w: usize) -> String {
    format!("out_data_{w}")
}
