//! Edits of a map file (JSON) that make the wrong maps of the tests.

use serde_json::Value;

/// The map with each field `prefix<i>` (i < n) moved to the slice of field `prefix<f(i)>`.
pub fn remap(map: &Value, prefix: &str, n: usize, f: impl Fn(usize) -> usize) -> Value {
    let mut out = map.clone();
    for i in 0..n {
        out["fields"][format!("{prefix}{i}")] = map["fields"][format!("{prefix}{}", f(i))].clone();
    }
    out
}

/// The map with only the fields `keep` says yes to.
pub fn only(map: &Value, keep: impl Fn(&str) -> bool) -> Value {
    let mut out = map.clone();
    out["fields"]
        .as_object_mut()
        .unwrap()
        .retain(|k, _| keep(k));
    out
}

/// The map with field names `from<w>` renamed `to<w>`.
pub fn rename(map: &Value, from: &str, to: &str) -> Value {
    let mut out = map.clone();
    let fields = out["fields"].as_object_mut().unwrap();
    let moved: Vec<(String, Value)> = fields
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix(from)
                .map(|w| (format!("{to}{w}"), v.clone()))
        })
        .collect();
    fields.retain(|k, _| !k.starts_with(from));
    fields.extend(moved);
    out
}

pub fn with(map: &Value, key: &str, value: &str) -> Value {
    let mut out = map.clone();
    out[key] = value.into();
    out
}
