//! Schedules as JSON: every field written, defaults for the optional ones, and errors that
//! name the missing, unknown or mistyped field.

use std::io::Write;

use skeinhw_sched::{FIELD_NAMES, Schedule, ScheduleError, preset, presets};

const MINIMAL: &str = r#"{"name": "mine", "size": 256, "rounds_per_cycle": 1,
    "first_subkey_cycle": false, "config_precomputed": true}"#;

#[test]
fn every_preset_round_trips() {
    for s in presets() {
        let json = s.to_json_pretty();
        assert_eq!(Schedule::from_json_str(&json).unwrap(), s, "{json}");
        // The serde path (a schedule embedded in a trace header) agrees.
        let via_serde: Schedule = serde_json::from_str(&json).unwrap();
        assert_eq!(via_serde, s);
        assert_eq!(serde_json::to_string_pretty(&s).unwrap() + "\n", json);
    }
}

#[test]
fn json_fields_are_field_names_in_order() {
    let json = preset("ath-8r-2fp").unwrap().to_json_pretty();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = FIELD_NAMES.to_vec();
    sorted.sort_unstable();
    // serde_json's map is sorted without the preserve_order feature; compare as sets, and the
    // order in the text separately.
    let mut keys_sorted = keys.clone();
    keys_sorted.sort_unstable();
    assert_eq!(keys_sorted, sorted);
    let positions: Vec<usize> = FIELD_NAMES
        .iter()
        .map(|f| json.find(&format!("\"{f}\"")).unwrap())
        .collect();
    assert!(positions.is_sorted(), "{json}");
}

#[test]
fn the_documented_json_shape() {
    let json = preset("ath-8r-2fp").unwrap().to_json_pretty();
    assert_eq!(
        json,
        r#"{
  "name": "ath-8r-2fp",
  "source": "Athanasiou et al. 2013, section 3.2.1, Fig. 4, Fig. 7 (8r_2Fp)",
  "size": 512,
  "rounds_per_cycle": 8,
  "functional_stages": 2,
  "structural_stages": 1,
  "round_pipeline": false,
  "round_datapath": "baseline",
  "shared_key_schedule_adder": false,
  "first_subkey_cycle": true,
  "config_precomputed": false
}
"#
    );
}

#[test]
fn optional_fields_default_to_the_feature_being_absent() {
    let s = Schedule::from_json_str(MINIMAL).unwrap();
    assert_eq!(s.source(), "");
    assert_eq!((s.functional_stages(), s.structural_stages()), (1, 1));
    assert!(!s.round_pipeline() && !s.shared_key_schedule_adder());
    assert_eq!(s.round_datapath(), skeinhw_sched::RoundDatapath::Baseline);
    assert_eq!(s.cycles_per_block(), 72);
}

fn json_error(json: &str) -> String {
    let err = Schedule::from_json_str(json).unwrap_err();
    assert!(matches!(
        err,
        ScheduleError::Json { .. } | ScheduleError::Invalid { .. }
    ));
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn missing_required_fields_are_named() {
    for field in [
        "name",
        "size",
        "rounds_per_cycle",
        "first_subkey_cycle",
        "config_precomputed",
    ] {
        let value: serde_json::Value = serde_json::from_str(MINIMAL).unwrap();
        let mut object = value.as_object().unwrap().clone();
        object.remove(field);
        let msg = json_error(&serde_json::to_string(&object).unwrap());
        assert!(msg.contains(&format!("missing field `{field}`")), "{msg}");
    }
}

#[test]
fn unknown_field_is_named() {
    let msg = json_error(&MINIMAL.replace("\"name\"", "\"unroll\": 4, \"name\""));
    assert!(
        msg.contains("unknown field `unroll`, expected one of `name`"),
        "{msg}"
    );
}

#[test]
fn mistyped_fields_are_named() {
    let msg = json_error(&MINIMAL.replace("\"size\": 256", "\"size\": \"256\""));
    assert!(
        msg.starts_with("schedule JSON: size: invalid type: string"),
        "{msg}"
    );
    let msg = json_error(&MINIMAL.replace("\"rounds_per_cycle\": 1", "\"rounds_per_cycle\": -1"));
    assert!(
        msg.starts_with("schedule JSON: rounds_per_cycle: invalid value"),
        "{msg}"
    );
    let msg = json_error(&MINIMAL.replace(
        "\"name\": \"mine\"",
        "\"round_datapath\": \"x\", \"name\": \"mine\"",
    ));
    assert!(
        msg.starts_with("schedule JSON: round_datapath: unknown variant `x`"),
        "{msg}"
    );
}

#[test]
fn syntax_errors_and_trailing_text() {
    let msg = json_error(&MINIMAL[..40]);
    assert!(msg.starts_with("schedule JSON: EOF while parsing"), "{msg}");
    let msg = json_error(&format!("{MINIMAL} {{}}"));
    assert!(msg.contains("trailing characters"), "{msg}");
    let msg = json_error("42");
    assert!(
        msg.contains("invalid type: integer `42`, expected struct"),
        "{msg}"
    );
}

#[test]
fn files_are_named_in_errors() {
    let dir = std::env::temp_dir().join(format!("skeinhw-sched-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.json");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(MINIMAL.replace("\"size\": 256", "\"size\": 384").as_bytes())
        .unwrap();
    drop(file);
    let msg = Schedule::from_json_file(&path).unwrap_err().to_string();
    assert_eq!(
        msg,
        format!(
            "{}: size = 384 is not a Skein state size; allowed: 256, 512, 1024",
            path.display()
        )
    );
    let missing = dir.join("missing.json");
    let msg = Schedule::from_json_file(&missing).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!(
            "cannot read schedule file {}: ",
            missing.display()
        )),
        "{msg}"
    );
    // NAME|FILE.json resolution of the command line.
    std::fs::write(&path, preset("ath-4r").unwrap().to_json_pretty()).unwrap();
    let from_file = Schedule::from_name_or_file(path.to_str().unwrap()).unwrap();
    assert_eq!(from_file, preset("ath-4r").unwrap());
    assert_eq!(Schedule::from_name_or_file("ath-4r").unwrap(), from_file);
    let msg = Schedule::from_name_or_file("ath-5r")
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("unknown schedule preset `ath-5r`"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn derived_numbers_serialize() {
    let d = serde_json::to_value(preset("ath-8r-2fp-3sp").unwrap().derived()).unwrap();
    assert_eq!(d["cycles_per_block"], 18);
    assert_eq!(d["blocks_in_flight"], 6);
    assert_eq!(d["issue_interval"], 3);
    assert_eq!(d["adders"]["mix"], 96);
}
