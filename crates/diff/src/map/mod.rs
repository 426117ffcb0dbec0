//! The signal map: which RTL signal (and bit slice) holds each trace field. The generated
//! Verilog writes one beside the design (`signal_map.json`); third-party RTL gets a small
//! hand-written one. The format only grows: every older map keeps its meaning.
//!
//! ```json
//! { "clock": "clk", "scope": "tb.dut", "reset_cycles": 2,
//!   "fields": { "slot0_state_0": "state_q[63:0]", "slot0_round": "rnd",
//!               "slot0_state_before_0": { "signal": "st[63:0]", "when": "busy" } },
//!   "digest_serial": { "data": "dout", "valid": "dout_valid", "byteswap": true },
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

mod part;
mod validate;

pub use part::Part;
pub use validate::{Alignment, Layout, slot_field, validate, validate_shabal_events};

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
    /// Each word's eight bytes are in the other order on the port (issue 33).
    #[serde(default)]
    byteswap: bool,
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
                 \"digest_serial\": {{\"data\": ..., \"valid\": ..., \"byteswap\": true}}, \
                 \"key_ring\": \
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
                let mut data = probe("digest_serial.data", &d.data)?;
                if d.byteswap {
                    if data.slice.is_some_and(|_| data.width(0) != 64) {
                        return Err(DiffError::Parse {
                            file: file.to_string(),
                            line: 0,
                            message: format!(
                                "digest_serial: byteswap swaps the bytes of a 64-bit word, not \
                                 {} bits",
                                data.width(0)
                            ),
                        });
                    }
                    data.byteswap = true;
                }
                Ok(DigestSerial {
                    data,
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

#[cfg(test)]
mod byteswap_tests {
    use super::*;

    /// Issue 33: a serial digest port may be byte-swapped, as a 64-bit word.
    #[test]
    fn digest_serial_takes_byteswap_on_a_64_bit_word() {
        let map = SignalMap::from_json(
            r#"{"digest_serial": {"data": "d[63:0]", "valid": "v", "byteswap": true}}"#,
            "m.json",
        )
        .unwrap();
        assert!(map.digest_serial.unwrap().data.byteswap);
        let err = SignalMap::from_json(
            r#"{"digest_serial": {"data": "d[31:0]", "valid": "v", "byteswap": true}}"#,
            "m.json",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("digest_serial") && err.contains("64-bit"),
            "{err}"
        );
    }

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

    /// Issue 33: the key and tweak alone are refused unless `--partial`, which names the state.
    #[test]
    fn event_alignment_needs_the_state_beside_the_rings() {
        let layout = Layout {
            signals: &[],
            words: 4,
            slots: 1,
        };
        let fields: Vec<String> = (0..4)
            .map(|w| format!("\"slot0_key_{w}\": \"k[{}:{}]\"", 64 * w + 63, 64 * w))
            .chain(
                (0..2).map(|t| format!("\"slot0_tweak_{t}\": \"t[{}:{}]\"", 64 * t + 63, 64 * t)),
            )
            .collect();
        let rings = SignalMap::from_json(
            &format!("{{\"fields\": {{{}}}}}", fields.join(", ")),
            "m.json",
        )
        .unwrap();
        let err = validate(&rings, Alignment::Event, &layout, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'slot0_state_0'") && err.contains("--partial"),
            "{err}"
        );
        let left_out = validate(&rings, Alignment::Event, &layout, true).unwrap();
        assert_eq!(left_out, vec!["slot0_state_*".to_string()]);
    }
}
