//! Finding the signal map by itself (`skeinhw map`): which RTL signal (or word slice of a
//! wider vector) holds each state, key, tweak and digest word, found by searching the
//! waveform for the golden model's values.
//!
//! The golden run is reduced to a table of words, each tagged with what it is; the waveform is
//! then read once, every value change of every wide signal cut into word slices (at every bit
//! offset, both byte orders) and each slice looked up in the table ([`search`], shared by both
//! algorithms). A slice that takes golden values votes for the tags it hit; afterwards each
//! map field gets the slice with the best votes, the clock is the 1-bit signal with the most
//! regular rising edges ([`signals`]), and the map is written relative to the scope where the
//! state lives ([`scope`]). Skein ([`discover`], 64-bit words) and Shabal
//! (`discover_shabal`, 32-bit words) differ in their golden words and in how a field
//! is chosen from the votes.

use std::collections::{BTreeMap, BTreeSet};

use skeinhw_trace::names;

use crate::options::ReadProgress;

pub(crate) mod scope;
pub(crate) mod search;
pub mod shabal;
pub(crate) mod signals;
mod skein;
pub(crate) mod timing;
pub(crate) mod when;

pub use skein::discover;

use scope::relative;

/// How to search.
#[derive(Clone, Debug, Default)]
pub struct DiscoverOptions {
    /// The clock's full name (after the prefix is stripped); found when not given.
    pub clock: Option<String>,
    /// A prefix removed from every signal name first (Verilator adds `TOP.`).
    pub strip_prefix: Option<String>,
    /// Follows the reading of the waveform (read more than once: each reading starts at 0).
    pub progress: ReadProgress,
}

/// One map field found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The map field (`slot0_state_3`, `out_data_0`, ...).
    pub field: String,
    /// The full signal name and slice, e.g. `tb.dut.state[255:192]`.
    pub probe: String,
    /// Golden values it took.
    pub matched: u32,
    /// Distinct golden values of the field.
    pub expected: u32,
}

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// The clock's full name.
    pub clock: String,
    /// The scope every field (and the clock) is written relative to.
    pub scope: String,
    /// Map fields -> probes relative to the scope, as the map file writes them.
    pub fields: BTreeMap<String, String>,
    /// What each field matched, with full names.
    pub found: Vec<Found>,
    /// A serial digest port: (data probe, valid signal), relative to the scope.
    pub digest_serial: Option<(String, String)>,
    /// The serial port carries each word byte-swapped (`"byteswap": true`).
    pub digest_serial_byteswap: bool,
    /// RTL edges before golden cycle 0 when the state appears cycle for cycle as in the
    /// golden schedule (cycle alignment fits); `None` otherwise (use event alignment).
    pub reset_cycles: Option<u64>,
    /// Why cycle alignment does not fit (when `reset_cycles` is `None` and a state was found):
    /// where the RTL's state leaves the golden cycles.
    pub misfit: Option<String>,
    /// The event kinds the design was seen to register.
    pub kinds: Vec<String>,
    /// Fields that could not be found.
    pub missing: Vec<String>,
    /// Remarks: byte-swapped words, rotating key rings, ...
    pub notes: Vec<String>,
    /// Fields compared only where a 1-bit signal is 1 (`"when"`, relative to the scope): their
    /// register holds values that are no golden word between its golden ones.
    pub when: BTreeMap<String, String>,
    /// Fields whose word the RTL holds byte-swapped (written with `"byteswap": true`).
    pub byteswap: BTreeSet<String>,
    /// The key register is a ring rotating one word per subkey (`"key_ring": "rotating"`):
    /// `slot0_key_<p>` is ring position p.
    pub key_ring_rotating: bool,
    /// The tweak register is such a ring (`"tweak_ring": "rotating"`).
    pub tweak_ring_rotating: bool,
    /// Rising clock edges in the waveform.
    pub edges: u64,
    /// Golden cycles simulated.
    pub golden_cycles: u64,
}

impl Discovery {
    /// The map file: today's format (`clock`, `scope`, `fields`) with `reset_cycles` when
    /// cycle alignment fits and `digest_serial` for a serial digest port.
    pub fn to_json(&self) -> String {
        let mut map = serde_json::Map::new();
        map.insert("clock".into(), self.clock_in_scope().into());
        map.insert("scope".into(), self.scope.clone().into());
        if let Some(r) = self.reset_cycles {
            map.insert("reset_cycles".into(), r.into());
        }
        if let Some((data, valid)) = &self.digest_serial {
            map.insert(
                "digest_serial".into(),
                if self.digest_serial_byteswap {
                    serde_json::json!({ "data": data, "valid": valid, "byteswap": true })
                } else {
                    serde_json::json!({ "data": data, "valid": valid })
                },
            );
        }
        if self.key_ring_rotating {
            map.insert("key_ring".into(), "rotating".into());
        }
        if self.tweak_ring_rotating {
            map.insert("tweak_ring".into(), "rotating".into());
        }
        map.insert(
            "fields".into(),
            serde_json::Value::Object(
                self.fields
                    .iter()
                    .map(|(k, v)| {
                        let swap = self.byteswap.contains(k);
                        let entry = match self.when.get(k) {
                            Some(w) if swap => {
                                serde_json::json!({ "signal": v, "when": w, "byteswap": true })
                            }
                            Some(w) => serde_json::json!({ "signal": v, "when": w }),
                            None if swap => serde_json::json!({ "signal": v, "byteswap": true }),
                            None => v.clone().into(),
                        };
                        (k.clone(), entry)
                    })
                    .collect(),
            ),
        );
        let mut s = serde_json::to_string_pretty(&serde_json::Value::Object(map))
            .expect("strings and numbers only");
        s.push('\n');
        s
    }

    /// The clock's name relative to the scope.
    pub fn clock_in_scope(&self) -> String {
        relative(&self.scope, &self.clock)
    }

    /// Writes the parallel digest port's valid bit, `valid`; without one, the digest words
    /// cannot be compared and are left out.
    fn mark_digest(&mut self, full: &mut BTreeMap<String, String>, valid: Option<&str>) {
        match valid {
            Some(v) => {
                full.insert(names::OUT_VALID.to_string(), v.to_string());
            }
            None => {
                full.retain(|f, _| !f.starts_with("out_data_"));
                self.found.retain(|f| !f.field.starts_with("out_data_"));
                self.notes.push(
                    "a register holds the digest words, but no 1-bit signal marks when: not mapped"
                        .into(),
                );
            }
        }
    }
}
