//! The envelope of the estimator commands' JSON: which schema, tool, device and model made an
//! output, so that a saved output can be read back and compared knowingly. The fields are
//! documented in estimator/schema/*.schema.json.

use serde::Serialize;
use skeinhw_estimator::Constants;
use skeinhw_estimator::netlist::summary::fnv1a64;

/// Version of the JSON outputs' schemas (estimator/schema/): raised when a field is removed or
/// changes meaning; a new field keeps it.
pub(super) const SCHEMA_VERSION: u32 = 1;

/// An output's body with its provenance first.
#[derive(Serialize)]
pub(super) struct Envelope<T> {
    schema_version: u32,
    tool_version: &'static str,
    device: String,
    model_version: String,
    #[serde(flatten)]
    body: T,
}

impl<T: Serialize> Envelope<T> {
    /// `body` as estimated on `device` with `constants`.
    pub(super) fn new(device: &str, constants: &Constants, body: T) -> Envelope<T> {
        Envelope {
            schema_version: SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION"),
            device: device.to_owned(),
            model_version: model_version(device, constants),
            body,
        }
    }

    /// Pretty JSON with a final newline.
    pub(super) fn to_json(&self) -> serde_json::Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

/// The model that made an output: the device and a hash of the constants' values (FNV-1a 64
/// of their JSON), so that two outputs of the same model, built-in or from a `--constants`
/// file, carry the same version, and a recalibration changes it.
pub(super) fn model_version(device: &str, constants: &Constants) -> String {
    let values = serde_json::to_string(constants).expect("constants serialize");
    format!("{device}-{:016x}", fnv1a64(values.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_version_follows_the_constants() {
        let built_in = Constants::built_in();
        let v = model_version("virtex5", &built_in);
        assert!(
            v.starts_with("virtex5-") && v.len() == "virtex5-".len() + 16,
            "{v}"
        );
        assert_eq!(v, model_version("virtex5", &built_in.clone()));
        let mut changed = built_in;
        changed.t_lut_ns += 0.01;
        assert_ne!(v, model_version("virtex5", &changed));
    }

    #[test]
    fn the_envelope_comes_first_and_the_body_stays_flat() {
        let e = Envelope::new(
            "virtex5",
            &Constants::built_in(),
            serde_json::json!({"luts": 1}),
        );
        let text = e.to_json().unwrap();
        assert!(text.starts_with("{\n  \"schema_version\": 1,"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["luts"], 1);
        assert_eq!(v["tool_version"], env!("CARGO_PKG_VERSION"));
    }
}
