//! Every rule of `skeinhw_sched::validate`, broken once: each error is one line that names the
//! field and says what is allowed.

use skeinhw_sched::{RoundDatapath, Schedule, ScheduleError, ScheduleSpec, preset_spec};

/// A preset's spec with `edits` applied, built.
fn build(preset: &str, edits: &[(&str, &str)]) -> Result<Schedule, ScheduleError> {
    let mut spec = preset_spec(preset).unwrap();
    for (field, value) in edits {
        spec.set(field, value).unwrap();
    }
    spec.build()
}

/// The error message of a schedule that must be rejected, checked for the field it names.
fn rejected(preset: &str, edits: &[(&str, &str)], field: &str) -> String {
    let err = build(preset, edits).expect_err("must be rejected");
    assert_eq!(err.field(), Some(field), "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("{field} = ")), "{msg}");
    assert!(msg.contains("; allowed: "), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn unknown_size() {
    assert_eq!(
        rejected("ath-1r", &[("size", "384")], "size"),
        "size = 384 is not a Skein state size; allowed: 256, 512, 1024"
    );
}

#[test]
fn unroll_factor_not_dividing_the_rounds() {
    assert_eq!(
        rejected("ath-8r", &[("rounds_per_cycle", "5")], "rounds_per_cycle"),
        "rounds_per_cycle = 5 does not divide the 72 rounds of Skein-512; \
         allowed: 1, 2, 3, 4, 6, 8, 9, 12, 18, 24, 36, 72"
    );
    // 3 divides 72 but not the 80 rounds of Skein-1024.
    assert_eq!(
        rejected(
            "ath-1r",
            &[("size", "1024"), ("rounds_per_cycle", "3")],
            "rounds_per_cycle"
        ),
        "rounds_per_cycle = 3 does not divide the 80 rounds of Skein-1024; \
         allowed: 1, 2, 4, 5, 8, 10, 16, 20, 40, 80"
    );
}

#[test]
fn zero_rounds_and_zero_stages() {
    let msg = rejected("ath-8r", &[("rounds_per_cycle", "0")], "rounds_per_cycle");
    assert!(msg.starts_with("rounds_per_cycle = 0 is zero"), "{msg}");
    let msg = rejected("ath-8r", &[("functional_stages", "0")], "functional_stages");
    assert_eq!(
        msg,
        "functional_stages = 0 is zero, but a datapath has at least one stage; \
         allowed: 1, 2, 4, 8"
    );
    let msg = rejected(
        "ath-8r-3sp",
        &[("structural_stages", "0")],
        "structural_stages",
    );
    assert_eq!(
        msg,
        "structural_stages = 0 is zero, but a design has at least one module; \
         allowed: 1, 3, 9"
    );
}

#[test]
fn too_many_stages() {
    let msg = rejected(
        "ath-8r",
        &[("functional_stages", "16")],
        "functional_stages",
    );
    assert!(msg.contains("is more than the 8 rounds"), "{msg}");
    let msg = rejected("ath-8r", &[("functional_stages", "3")], "functional_stages");
    assert!(
        msg.contains("does not divide rounds_per_cycle = 8"),
        "{msg}"
    );
    let msg = rejected(
        "ath-8r-3sp",
        &[("structural_stages", "18")],
        "structural_stages",
    );
    assert_eq!(
        msg,
        "structural_stages = 18 is more than the 9 passes of 8 rounds that make the 72 rounds \
         of Skein-512; allowed: 1, 3, 9"
    );
    let msg = rejected("ath-8r-3sp", &[("size", "1024")], "structural_stages");
    assert!(msg.contains("does not divide the 10 passes"), "{msg}");
    assert!(msg.ends_with("allowed: 1, 2, 5, 10"), "{msg}");
}

#[test]
fn round_pipeline_needs_a_register_after_every_round() {
    let msg = rejected(
        "long-pipe-512",
        &[("functional_stages", "8")],
        "round_pipeline",
    );
    assert!(
        msg.contains("functional_stages = 72 with round_pipeline = true"),
        "{msg}"
    );
    rejected(
        "long-iter-512",
        &[("round_pipeline", "true")],
        "round_pipeline",
    );
    rejected(
        "long-pipe-512",
        &[
            ("rounds_per_cycle", "8"),
            ("functional_stages", "8"),
            ("structural_stages", "3"),
        ],
        "round_pipeline",
    );
    // k = 8 with a register after each round is Athanasiou's 8r_8Fp shape: allowed.
    let s = build(
        "long-pipe-512",
        &[("rounds_per_cycle", "8"), ("functional_stages", "8")],
    )
    .unwrap();
    assert_eq!((s.cycles_per_block(), s.blocks_in_flight()), (72, 8));
}

#[test]
fn first_subkey_cycle_only_in_a_single_module() {
    let msg = rejected(
        "ath-8r-3sp",
        &[("first_subkey_cycle", "true")],
        "first_subkey_cycle",
    );
    assert!(msg.contains("Key Generation 0"), "{msg}");
    rejected(
        "long-pipe-512",
        &[("first_subkey_cycle", "true")],
        "first_subkey_cycle",
    );
}

#[test]
fn sharing_options_need_the_one_round_datapath() {
    for datapath in RoundDatapath::ALL.into_iter().skip(1) {
        let msg = rejected(
            "long-unroll4-512",
            &[("round_datapath", datapath.as_str())],
            "round_datapath",
        );
        assert!(msg.contains("rounds_per_cycle = 4"), "{msg}");
    }
    let msg = rejected(
        "ath-8r",
        &[("shared_key_schedule_adder", "true")],
        "shared_key_schedule_adder",
    );
    assert!(msg.contains("rounds_per_cycle = 8"), "{msg}");
    rejected(
        "long-iter-256",
        &[
            ("structural_stages", "2"),
            ("round_datapath", "split_round"),
        ],
        "round_datapath",
    );
}

#[test]
fn sharing_option_the_size_does_not_allow() {
    assert_eq!(
        rejected("long-overlap-256", &[("size", "512")], "round_datapath"),
        "round_datapath = mix_key_overlap is defined only for Skein-256 (Long 3.4.4, Fig. 15), \
         but size = 512; allowed: baseline, half_subkey_adders, half_mix_adders, split_round \
         for size = 512"
    );
    // The plain halvings of 3.4.2 and 3.4.3 apply to every size.
    for name in [
        "long-outshare-256",
        "long-inshare-256",
        "long-split-256",
        "long-ks1-256",
    ] {
        for size in ["512", "1024"] {
            build(name, &[("size", size)]).unwrap();
        }
    }
}

#[test]
fn set_rejects_unknown_fields_and_bad_text() {
    let mut spec: ScheduleSpec = preset_spec("ath-1r").unwrap();
    let err = spec.set("unroll", "4").unwrap_err().to_string();
    assert!(
        err.starts_with("unknown schedule field `unroll`; allowed: name, source, size, "),
        "{err}"
    );
    let err = spec.set("size", "big").unwrap_err().to_string();
    assert_eq!(
        err,
        "size = big is not a whole number; allowed: 0, 1, 2, ..."
    );
    let err = spec.set("round_pipeline", "yes").unwrap_err().to_string();
    assert_eq!(
        err,
        "round_pipeline = yes is not a boolean; allowed: true, false"
    );
    let err = spec
        .set("round_datapath", "quarter")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("round_datapath = quarter is not a round datapath"),
        "{err}"
    );
    // Nothing was changed by the failed calls.
    assert_eq!(spec, preset_spec("ath-1r").unwrap());
}

#[test]
fn unknown_preset_lists_the_names() {
    let err = skeinhw_sched::preset("ath-16r").unwrap_err().to_string();
    assert!(
        err.starts_with("unknown schedule preset `ath-16r`; known presets: long-iter-256, "),
        "{err}"
    );
    assert!(err.ends_with("ath-8r-8fp-3sp"), "{err}");
}
