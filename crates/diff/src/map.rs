//! The signal map: which RTL signal (and bit slice) holds each trace field. The generated
//! Verilog writes one beside the design; third-party RTL gets a small hand-written one.
//!
//! ```json
//! { "clock": "clk", "scope": "tb.dut",
//!   "fields": { "slot0_state_0": "state_q[63:0]", "slot0_round": "rnd" } }
//! ```
//! `scope` is put in front of every signal name (and the clock's) with a dot.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::DiffError;
use crate::wave::Probe;

/// A parsed map file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignalMap {
    /// The clock's name (with the scope), if the map names one.
    pub clock: Option<String>,
    /// Trace field -> RTL probe, in field order.
    pub fields: BTreeMap<String, Probe>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    fields: BTreeMap<String, String>,
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
                "{e} (expected {{\"clock\": ..., \"scope\": ..., \"fields\": {{FIELD: \"SIGNAL[hi:lo]\"}}}})"
            ),
        })?;
        let scoped = |name: &str| match &raw.scope {
            Some(s) if !s.is_empty() => format!("{s}.{name}"),
            _ => name.to_string(),
        };
        let mut fields = BTreeMap::new();
        for (field, signal) in &raw.fields {
            let mut probe = Probe::parse(signal).map_err(|message| DiffError::Parse {
                file: file.to_string(),
                line: 0,
                message: format!("field {field}: {message}"),
            })?;
            probe.signal = scoped(&probe.signal);
            fields.insert(field.clone(), probe);
        }
        if fields.is_empty() {
            return Err(DiffError::Parse {
                file: file.to_string(),
                line: 0,
                message: "the map has no fields".into(),
            });
        }
        Ok(SignalMap {
            clock: raw.clock.as_deref().map(scoped),
            fields,
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
                    },
                )
            })
            .collect();
        SignalMap {
            clock: None,
            fields,
        }
    }
}
