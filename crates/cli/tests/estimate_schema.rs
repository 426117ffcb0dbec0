//! The JSON of `estimate --json` and `sweep --json` against their JSON Schemas
//! (estimator/schema/): real outputs validate, and every field they carry is documented.

use assert_cmd::Command;
use serde_json::Value;

fn schema_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../estimator/schema")
}

fn load(name: &str) -> Value {
    let path = schema_dir().join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A validator for `name`, with the estimate schema known by its `$id` (the sweep's refers
/// to its definitions).
fn validator(name: &str) -> jsonschema::Validator {
    let estimate = load("estimate.schema.json");
    let id = estimate["$id"].as_str().unwrap().to_owned();
    let registry = jsonschema::Registry::new()
        .add(id, estimate)
        .and_then(|r| r.prepare())
        .unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_registry(&registry)
        .build(&load(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, what: &str, json: &Value) {
    let errors: Vec<String> = v
        .iter_errors(json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(10)
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("skeinhw")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fixture(name: &str) -> String {
    format!(
        "{}/../../estimator/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn estimates() -> Vec<(String, Value)> {
    let tf256 = fixture("tf256_round.json");
    let cases: Vec<Vec<&str>> = vec![
        vec!["--schedule", "ath-8r-2fp"],
        vec!["--schedule", "long-iter-1024", "--freq-mhz", "100"],
        vec!["--schedule", "ath-1r", "--style", "generated"],
        vec!["--schedule", "ath-1r", "--netlist", &tf256],
        vec!["--schedule", "shabal-unfold-4"],
    ];
    cases
        .into_iter()
        .map(|args| {
            let mut full = vec!["estimate", "--json"];
            full.extend(args.iter().copied());
            (args.join(" "), run_json(&full))
        })
        .collect()
}

#[test]
fn estimate_outputs_validate_and_carry_their_provenance() {
    let v = validator("estimate.schema.json");
    for (what, json) in estimates() {
        assert_valid(&v, &what, &json);
        assert_eq!(json["schema_version"], 1, "{what}");
        assert_eq!(json["tool_version"], env!("CARGO_PKG_VERSION"), "{what}");
        assert_eq!(json["device"], "virtex5", "{what}");
        assert!(
            json["model_version"]
                .as_str()
                .unwrap()
                .starts_with("virtex5-")
        );
    }
}

#[test]
fn the_schema_rejects_what_it_should() {
    let v = validator("estimate.schema.json");
    let (_, good) = estimates().swap_remove(0);
    for field in [
        "schema_version",
        "model_version",
        "slices",
        "throughput_mbps",
    ] {
        let mut bad = good.clone();
        bad.as_object_mut().unwrap().remove(field);
        assert!(!v.is_valid(&bad), "valid without {field}");
    }
    let mut bad = good.clone();
    bad["slices"] = Value::from("1284");
    assert!(!v.is_valid(&bad), "valid with a string of slices");
    // A field added later (the device helper's interval) is allowed.
    let mut more = good;
    more["interval"] = serde_json::json!({"coverage": 0.9});
    more["something_new"] = Value::from(1);
    assert_valid(&v, "with new fields", &more);
}

#[test]
fn sweep_output_validates() {
    let json = run_json(&[
        "sweep",
        "--sizes",
        "256",
        "--styles",
        "hash_core",
        "--json",
        "-",
    ]);
    let v = validator("sweep.schema.json");
    assert_valid(&v, "sweep", &json);
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["device_capacity"]["slices"], 51_840);
    let points = json["points"].as_array().unwrap();
    assert!(points.iter().any(|p| p["pareto"] == true));
    assert!(points.iter().all(|p| p["exceeds_device"].is_boolean()));
}

/// Every key of `json` (nested, arrays entered) has a description in `schema`: the schema is
/// the fields' documentation.
fn undocumented(
    json: &Value,
    path: &str,
    documented: &std::collections::BTreeSet<String>,
    out: &mut Vec<String>,
) {
    match json {
        Value::Object(map) => {
            for (k, v) in map {
                if !documented.contains(k) {
                    out.push(format!("{path}/{k}"));
                }
                // The netlist's by_type keys are cell types, not fields.
                if k != "by_type" {
                    undocumented(v, &format!("{path}/{k}"), documented, out);
                }
            }
        }
        Value::Array(items) => {
            for v in items.iter().take(3) {
                undocumented(v, path, documented, out);
            }
        }
        _ => {}
    }
}

/// The names of every property the schemas describe.
fn described(schema: &Value, out: &mut std::collections::BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (k, p) in props {
                    let has = p.get("description").is_some() || p.get("$ref").is_some();
                    if has {
                        out.insert(k.clone());
                    }
                }
            }
            for v in map.values() {
                described(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| described(v, out)),
        _ => {}
    }
}

#[test]
fn every_field_of_the_outputs_is_described() {
    let mut documented = std::collections::BTreeSet::new();
    described(&load("estimate.schema.json"), &mut documented);
    described(&load("sweep.schema.json"), &mut documented);
    let mut missing = Vec::new();
    for (what, json) in estimates() {
        undocumented(&json, &what, &documented, &mut missing);
    }
    let sweep = run_json(&["sweep", "--sizes", "256", "--json", "-"]);
    undocumented(&sweep, "sweep", &documented, &mut missing);
    assert!(
        missing.is_empty(),
        "not described in estimator/schema: {missing:#?}"
    );
}

/// Issue 30's honest intervals: on Virtex-5 the estimate carries the "other implementations"
/// interval (wider, with a higher stated coverage); on a device without other teams' rows the
/// field is null, and both outputs validate.
#[test]
fn the_other_implementations_interval_is_in_the_json() {
    let v = validator("estimate.schema.json");
    let v5 = run_json(&["estimate", "--json", "--schedule", "ath-8r-2fp"]);
    assert_valid(&v, "virtex5", &v5);
    let own = &v5["interval"];
    let other = &v5["interval_other_implementations"];
    assert!(other["coverage"].as_f64().unwrap() > own["coverage"].as_f64().unwrap());
    assert!(other["period_ns"][1].as_f64().unwrap() > own["period_ns"][1].as_f64().unwrap());
    let ecp5 = run_json(&[
        "estimate",
        "--json",
        "--schedule",
        "ath-8r-2fp",
        "--device",
        "ecp5",
    ]);
    assert_valid(&v, "ecp5", &ecp5);
    assert!(ecp5["interval_other_implementations"].is_null());
    assert!(ecp5["interval"]["coverage"].as_f64().unwrap() > 0.5);
}
