//! Model counts and sanity: Long's adder counts, rotation selects, monotonicity, the Pareto
//! front on a hand-made set, and the constants file's error handling.

use skeinhw_estimator::count::{inventory, rotation_sets};
use skeinhw_estimator::sweep::pareto_front;
use skeinhw_estimator::{Constants, CoreStyle, Options, estimate};
use skeinhw_sched::{Schedule, preset, preset_spec};

fn with(base: &str, field: &str, value: u32) -> Schedule {
    let mut spec = preset_spec(base).unwrap();
    spec.set(field, &value.to_string()).unwrap();
    spec.build().unwrap()
}

#[test]
fn long_baseline_round_has_9_15_27_adders() {
    // Long 3.3: nine, fifteen and twenty-seven 64-bit adders for Skein-256/512/1024.
    let c = Constants::built_in();
    for (name, total, mix, subkey) in [
        ("long-iter-256", 9, 2, 4),
        ("long-iter-512", 15, 4, 8),
        ("long-iter-1024", 27, 8, 16),
    ] {
        let e = estimate(&preset(name).unwrap(), Options::default(), &c, None);
        assert_eq!(e.style, CoreStyle::UbiCore, "{name}");
        assert_eq!(
            (
                e.adders.total,
                e.adders.mix,
                e.adders.subkey,
                e.adders.key_schedule
            ),
            (total, mix, subkey, 3),
            "{name}"
        );
    }
}

#[test]
fn long_unrolled_core_copies_the_round_circuit() {
    // Long 3.2.2 / Table 3: 4 copies of the Fig. 10 round, each with its subkey adders.
    let s = preset("long-unroll4-512").unwrap();
    assert_eq!(s.adders().subkey, 8);
    let inv = inventory(&s, CoreStyle::UbiCore);
    assert_eq!((inv.adders.mix, inv.adders.subkey), (16, 32));
    // Athanasiou's style keeps the schedule's one bank of subkey adders.
    assert_eq!(inventory(&s, CoreStyle::HashCore).adders.subkey, 8);
}

#[test]
fn rotation_sets_are_lcm_k_8_over_k() {
    for (k, sets) in [(1, 8), (2, 4), (3, 8), (4, 2), (6, 4), (8, 1), (24, 1)] {
        assert_eq!(
            rotation_sets(&with("ath-1r", "rounds_per_cycle", k)),
            sets,
            "k={k}"
        );
    }
    assert_eq!(rotation_sets(&preset("long-pipe-512").unwrap()), 1);
}

#[test]
fn more_unrolling_more_luts_longer_period() {
    let c = Constants::built_in();
    for base in ["ath-1r", "long-iter-512"] {
        let mut last = (0, 0.0);
        for k in [1, 2, 4, 8, 24, 72] {
            let e = estimate(
                &with(base, "rounds_per_cycle", k),
                Options::default(),
                &c,
                None,
            );
            assert!(
                e.luts > last.0,
                "{base} k={k}: {} LUTs after {}",
                e.luts,
                last.0
            );
            assert!(e.period_ns > last.1, "{base} k={k}: period {}", e.period_ns);
            last = (e.luts, e.period_ns);
        }
    }
}

#[test]
fn more_stages_more_ffs_shorter_period() {
    let c = Constants::built_in();
    let mut last = (0, f64::INFINITY);
    for p in [1, 2, 4, 8] {
        let e = estimate(
            &with("ath-8r", "functional_stages", p),
            Options::default(),
            &c,
            None,
        );
        assert!(e.ffs > last.0 && e.period_ns < last.1, "p={p}");
        last = (e.ffs, e.period_ns);
    }
}

#[test]
fn given_clock_sets_throughput() {
    let c = Constants::built_in();
    let s = preset("ath-8r-2fp").unwrap();
    let e = estimate(&s, Options::default(), &c, Some(162.3));
    assert!((e.throughput_mbps - 8309.76).abs() < 0.01);
    assert_eq!((e.cycles_per_block, e.blocks_in_flight), (20, 2));
    assert!((e.latency_ns - 20.0 * 1000.0 / 162.3).abs() < 1e-9);
}

#[test]
fn estimate_json_has_the_stable_fields() {
    let c = Constants::built_in();
    let e = estimate(&preset("ath-4r").unwrap(), Options::default(), &c, None);
    let v = serde_json::to_value(&e).unwrap();
    for field in [
        "luts",
        "ffs",
        "lut_ff_pairs",
        "slices",
        "period_ns",
        "cycles_per_block",
        "blocks_in_flight",
        "throughput_mbps",
    ] {
        assert!(v.get(field).is_some_and(|x| x.is_number()), "{field}");
    }
}

#[test]
fn pareto_front_of_a_hand_made_set() {
    // (area, throughput)
    let points = [
        (100.0, 10.0), // front: smallest
        (200.0, 5.0),  // dominated by the first
        (200.0, 30.0), // front
        (300.0, 30.0), // dominated: same throughput, more area
        (400.0, 50.0), // front
        (400.0, 50.0), // equal to a front point: also on it
        (500.0, 40.0), // dominated
        (50.0, 1.0),   // front: smallest area of all
    ];
    assert_eq!(
        pareto_front(&points),
        [true, false, true, false, true, true, false, true]
    );
    assert!(pareto_front(&[]).is_empty());
}

#[test]
fn constants_file_errors_name_the_constant() {
    let text = skeinhw_estimator::constants::BUILT_IN;
    let missing = text.replace("t_lut_ns = ", "t_lut_ns_x = ");
    let err = Constants::parse(&missing, "test").unwrap_err().to_string();
    assert_eq!(err, "constants test: missing `device.t_lut_ns`");
    let wrong = text.replace("t_lut_ns = 0.09", "t_lut_ns = \"fast\"");
    let err = Constants::parse(&wrong, "test").unwrap_err().to_string();
    assert_eq!(err, "constants test: `device.t_lut_ns` is not a number");
    let extra = format!("{text}\nbogus = 1\n");
    let err = Constants::parse(&extra, "test").unwrap_err().to_string();
    assert_eq!(err, "constants test: unknown constant `shabal.bogus`");
    assert!(Constants::parse("[device", "test").is_err());
}

#[test]
fn rewrite_keeps_comments_and_changes_values() {
    let text = skeinhw_estimator::constants::BUILT_IN;
    let mut c = Constants::built_in();
    c.slice_packing = 0.5;
    let new = c.rewrite(text).unwrap();
    assert_eq!(Constants::parse(&new, "new").unwrap(), c);
    let comments = |t: &str| t.lines().filter(|l| l.starts_with('#')).count();
    assert_eq!(comments(&new), comments(text));
    assert!(new.contains("slice_packing = 0.5"));
}
