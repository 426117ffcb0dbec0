//! The signal map: which RTL signal (and bit slice) holds each trace field. The generated
//! Verilog writes one beside the design (`signal_map.json`); third-party RTL gets a small
//! hand-written one. The format only grows: every older map keeps its meaning.
//!
//! ```json
//! { "clock": "clk", "scope": "tb.dut", "reset_cycles": 2,
//!   "fields": { "slot0_state_0": "state_q[63:0]", "slot0_round": "rnd",
//!               "slot0_state_before_0": { "signal": "st[63:0]", "when": "busy" } },
//!   "digest_serial": { "data": "dout", "valid": "dout_valid" },
//!   "key_ring": "rotating", "tweak_ring": "rotating" }
//! ```
//! `scope` is put in front of every signal name (and the clock's) with a dot. A field is a
//! signal (`"name[hi:lo]"`) or an object with the signal and a qualifier `when`: the field is
//! compared only on edges where that 1-bit signal is 1, and `"byteswap": true` for a word (64
//! bits for Skein, 32 for Shabal) whose bytes the RTL holds in the other order. See the crate README for every
//! field.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::DiffError;
use crate::wave::Probe;

/// How a design stores the extended key or tweak words across the subkeys of a block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ring {
    /// Word i of the register is always k_i (t_i).
    #[default]
    Fixed,
    /// The register turns by one word per subkey: at subkey s, word i holds k_{(s+i) mod
    /// (Nw+1)} (t_{(s+i) mod 3}), so that the subkey adder always reads the same words.
    Rotating,
}

/// A digest port that gives one 64-bit word per cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigestSerial {
    /// The word (64 bits, least significant digest word first).
    pub data: Probe,
    /// 1 on the edges that carry a word.
    pub valid: Probe,
}

/// A parsed map file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignalMap {
    /// The clock's name (with the scope), if the map names one.
    pub clock: Option<String>,
    /// The clock as the file spells it (without the scope), to check against `--clock`.
    pub clock_raw: Option<String>,
    /// Trace field -> RTL probe, in field order.
    pub fields: BTreeMap<String, Probe>,
    /// Trace field -> the 1-bit signal that must be 1 for the field to be compared.
    pub when: BTreeMap<String, Probe>,
    /// RTL rising edges before the golden trace's first cycle (as `--reset-cycles`).
    pub reset_cycles: Option<u64>,
    /// A serial digest port (event alignment).
    pub digest_serial: Option<DigestSerial>,
    /// How the key register's words move across subkeys.
    pub key_ring: Ring,
    /// How the tweak register's words move across subkeys.
    pub tweak_ring: Ring,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FieldEntry {
    Signal(String),
    Qualified(QualifiedField),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QualifiedField {
    signal: String,
    #[serde(default)]
    when: Option<String>,
    /// The word's eight bytes are in the other order in the RTL (a 64-bit slice).
    #[serde(default)]
    byteswap: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SerialFile {
    data: String,
    valid: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    reset_cycles: Option<u64>,
    /// Written by `skeinhw rtl` for the Verilator runner; informational here.
    #[serde(default)]
    #[allow(dead_code)]
    strip_prefix_verilator: Option<String>,
    #[serde(default)]
    fields: BTreeMap<String, FieldEntry>,
    #[serde(default)]
    digest_serial: Option<SerialFile>,
    #[serde(default)]
    key_ring: Ring,
    #[serde(default)]
    tweak_ring: Ring,
}

impl SignalMap {
    /// Reads a map file; errors name the file and the entry.
    pub fn from_file(path: &Path) -> Result<SignalMap, DiffError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| DiffError::Io {
            file: file.clone(),
            message: e.to_string(),
        })?;
        Self::from_json(&text, &file)
    }

    /// Parses map JSON; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<SignalMap, DiffError> {
        let raw: MapFile = serde_json::from_str(text).map_err(|e| DiffError::Parse {
            file: file.to_string(),
            line: e.line(),
            message: format!(
                "{e} (expected {{\"clock\": ..., \"scope\": ..., \"reset_cycles\": N, \
                 \"fields\": {{FIELD: \"SIGNAL[hi:lo]\" or {{\"signal\": ..., \"when\": ..., \
                 \"byteswap\": true}}}}, \
                 \"digest_serial\": {{\"data\": ..., \"valid\": ...}}, \"key_ring\": \
                 \"fixed\"|\"rotating\", \"tweak_ring\": ...}})"
            ),
        })?;
        let scoped = |name: &str| match &raw.scope {
            Some(s) if !s.is_empty() => format!("{s}.{name}"),
            _ => name.to_string(),
        };
        let probe = |what: &str, signal: &str| -> Result<Probe, DiffError> {
            let mut p = Probe::parse(signal).map_err(|message| DiffError::Parse {
                file: file.to_string(),
                line: 0,
                message: format!("{what}: {message}"),
            })?;
            p.signal = scoped(&p.signal);
            Ok(p)
        };
        let mut fields = BTreeMap::new();
        let mut when = BTreeMap::new();
        for (field, entry) in &raw.fields {
            let what = format!("field {field}");
            match entry {
                FieldEntry::Signal(s) => {
                    fields.insert(field.clone(), probe(&what, s)?);
                }
                FieldEntry::Qualified(q) => {
                    let mut p = probe(&what, &q.signal)?;
                    if q.byteswap {
                        if p.slice.is_some_and(|_| !matches!(p.width(0), 32 | 64)) {
                            return Err(DiffError::Parse {
                                file: file.to_string(),
                                line: 0,
                                message: format!(
                                    "{what}: byteswap needs a 64-bit (Skein) or 32-bit \
                                     (Shabal) slice, not {} bits",
                                    p.width(0)
                                ),
                            });
                        }
                        p.byteswap = true;
                    }
                    fields.insert(field.clone(), p);
                    if let Some(w) = &q.when {
                        when.insert(field.clone(), probe(&format!("{what} (when)"), w)?);
                    }
                }
            }
        }
        let digest_serial = raw
            .digest_serial
            .as_ref()
            .map(|d| -> Result<DigestSerial, DiffError> {
                Ok(DigestSerial {
                    data: probe("digest_serial.data", &d.data)?,
                    valid: probe("digest_serial.valid", &d.valid)?,
                })
            })
            .transpose()?;
        if fields.is_empty() && digest_serial.is_none() {
            return Err(DiffError::Parse {
                file: file.to_string(),
                line: 0,
                message: "the map has no fields".into(),
            });
        }
        Ok(SignalMap {
            clock: raw.clock.as_deref().map(scoped),
            clock_raw: raw.clock.clone(),
            fields,
            when,
            reset_cycles: raw.reset_cycles,
            digest_serial,
            key_ring: raw.key_ring,
            tweak_ring: raw.tweak_ring,
        })
    }

    /// The map of RTL whose registers carry the trace's own names under `scope` (our
    /// generated Verilog): every field maps to the signal of the same name.
    pub fn identity<'a>(
        fields: impl IntoIterator<Item = &'a str>,
        scope: Option<&str>,
    ) -> SignalMap {
        let fields = fields
            .into_iter()
            .map(|f| {
                let signal = match scope {
                    Some(s) if !s.is_empty() => format!("{s}.{f}"),
                    _ => f.to_string(),
                };
                (
                    f.to_string(),
                    Probe {
                        signal,
                        slice: None,
                        byteswap: false,
                    },
                )
            })
            .collect();
        SignalMap {
            fields,
            ..SignalMap::default()
        }
    }

    /// This map with every field `in_ready_<k>` moved onto bit k of the port `in_ready` under
    /// `scope`: the generated Verilog has the handshake as one port with a bit per stream,
    /// where the trace has a field per stream.
    pub fn in_ready_on_port(mut self, scope: Option<&str>) -> SignalMap {
        let port = match scope {
            Some(s) if !s.is_empty() => format!("{s}.in_ready"),
            _ => "in_ready".to_string(),
        };
        for (name, p) in self.fields.iter_mut() {
            if let Some(k) = name
                .strip_prefix("in_ready_")
                .and_then(|k| k.parse::<u32>().ok())
            {
                p.signal = port.clone();
                p.slice = Some((k, k));
            }
        }
        self
    }

    /// Checks the map's clock against the one asked for on the command line (`None`: not
    /// given) and returns the clock to sample: a disagreement is an error naming both.
    pub fn clock_for(&self, asked: Option<&str>, default: &str) -> Result<String, DiffError> {
        match (&self.clock, asked) {
            (Some(mine), Some(asked))
                if asked != mine.as_str() && Some(asked) != self.clock_raw.as_deref() =>
            {
                Err(DiffError::Invalid(format!(
                    "map field 'clock' is '{mine}' but --clock is '{asked}': give one or make \
                     them agree"
                )))
            }
            (Some(mine), _) => Ok(mine.clone()),
            (None, Some(asked)) => Ok(asked.to_string()),
            (None, None) => Ok(default.to_string()),
        }
    }

    /// The reset cycles: the map's `reset_cycles` and `--reset-cycles` (`None`: not given)
    /// must agree when both are given.
    pub fn reset_cycles_for(&self, asked: Option<u64>) -> Result<u64, DiffError> {
        match (self.reset_cycles, asked) {
            (Some(m), Some(a)) if m != a => Err(DiffError::Invalid(format!(
                "map field 'reset_cycles' is {m} but --reset-cycles is {a}: give one or make \
                 them agree"
            ))),
            (Some(m), _) => Ok(m),
            (None, a) => Ok(a.unwrap_or(0)),
        }
    }
}

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
    use crate::shabal_event::Part;
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

#[cfg(test)]
mod byteswap_tests {
    use super::*;

    #[test]
    fn byteswap_is_read_and_needs_a_64_bit_slice() {
        let map = SignalMap::from_json(
            r#"{"fields": {"slot0_state_0": {"signal": "x[127:64]", "byteswap": true},
                           "slot0_state_1": "x[63:0]"}}"#,
            "m.json",
        )
        .unwrap();
        assert!(map.fields["slot0_state_0"].byteswap);
        assert!(!map.fields["slot0_state_1"].byteswap);
        let err = SignalMap::from_json(
            r#"{"fields": {"slot0_state_0": {"signal": "x[15:0]", "byteswap": true}}}"#,
            "m.json",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("m.json") && err.contains("slot0_state_0"),
            "{err}"
        );
        assert!(err.contains("64-bit"), "{err}");
    }

    #[test]
    fn a_32_bit_slice_is_a_shabal_word_and_a_64_bit_one_a_skein_word() {
        let map = SignalMap::from_json(
            r#"{"fields": {"a_0": {"signal": "x[63:0]", "byteswap": true}}}"#,
            "m.json",
        )
        .unwrap();
        let err = validate_shabal_events(&map, 16, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("32 bits") && err.contains("a_0"), "{err}");
        let map = SignalMap::from_json(
            r#"{"fields": {"slot0_state_0": {"signal": "x[31:0]", "byteswap": true}}}"#,
            "m.json",
        )
        .unwrap();
        let layout = Layout {
            signals: &["slot0_state_0"],
            words: 4,
            slots: 1,
        };
        let err = validate(&map, Alignment::Event, &layout, true)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("64 bits") && err.contains("slot0_state_0"),
            "{err}"
        );
    }

    #[test]
    fn a_swapped_32_bit_sample_swaps_four_bytes() {
        let mut p = Probe::parse("x[31:0]").unwrap();
        p.byteswap = true;
        let mut b = crate::wave::Bits::known(vec![0x0102_0304], 32);
        p.unswap(&mut b);
        assert_eq!(b.words, [0x0403_0201]);
    }

    #[test]
    fn a_swapped_sample_is_given_back_in_trace_order() {
        let mut p = Probe::parse("x[63:0]").unwrap();
        p.byteswap = true;
        let mut b = crate::wave::Bits::known(vec![0x0102_0304_0506_0708], 64);
        p.unswap(&mut b);
        assert_eq!(b.words, [0x0807_0605_0403_0201]);
    }
}

#[cfg(test)]
mod in_ready_tests {
    use super::*;

    fn map() -> SignalMap {
        SignalMap::from_json(
            r#"{"fields": {"in_ready_0": "in_ready[0]", "in_ready_1": "in_ready[1]"}}"#,
            "m.json",
        )
        .unwrap()
    }

    #[test]
    fn cycle_alignment_takes_the_bits_the_golden_trace_has() {
        let map = map();
        assert_eq!(map.fields["in_ready_1"].slice, Some((1, 1)));
        let with = ["clk", "in_ready_0", "in_ready_1"];
        let layout = Layout {
            signals: &with,
            words: 8,
            slots: 2,
        };
        assert!(validate(&map, Alignment::Cycle, &layout, false).is_ok());
        // One bit of two mapped: the port is a register like any other, whole or --partial.
        let mut one = map.clone();
        one.fields.remove("in_ready_0");
        let err = validate(&one, Alignment::Cycle, &layout, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'in_ready_0'") && err.contains("--partial"),
            "{err}"
        );

        let without = ["clk"];
        let layout = Layout {
            signals: &without,
            ..layout
        };
        let err = validate(&map, Alignment::Cycle, &layout, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'in_ready_0'") && err.contains("models no in_ready"),
            "{err}"
        );
    }

    #[test]
    fn event_alignment_refuses_in_ready_naming_the_field() {
        let layout = Layout {
            signals: &[],
            words: 8,
            slots: 2,
        };
        let err = validate(&map(), Alignment::Event, &layout, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'in_ready_0'") && err.contains("cycle alignment only"),
            "{err}"
        );
    }
}
