//! Issue 30: devices, leave-one-out errors, intervals, the device-size check and a fit that
//! is not degenerate. Expected values come from the seed tables and the routed rows.

use skeinhw_estimator::calibrate::{on_bounds, seed_rows};
use skeinhw_estimator::count::Role;
use skeinhw_estimator::devices::calibration::calibration;
use skeinhw_estimator::{Constants, CoreStyle, DeviceId, Flow, Options, estimate, estimate_on};
use skeinhw_sched::{preset, preset_spec};

fn options(style: CoreStyle, flow: Flow) -> Options {
    Options {
        style: Some(style),
        flow,
    }
}

#[test]
fn virtex5_leave_one_out_meets_the_issue_goals() {
    let e = calibration(DeviceId::Virtex5).loo.errors();
    assert_eq!((e.area_rows, e.period_rows), (10, 10));
    assert!(e.area <= 10.0, "leave-one-out area {}", e.area);
    assert!(e.period <= 8.0, "leave-one-out period {}", e.period);
}

#[test]
fn other_devices_leave_one_out_errors() {
    let v6 = calibration(DeviceId::Virtex6).loo.errors();
    // Nine Virtex-6 rows print slices, ten a clock (Athanasiou 2013, Figs. 6-8).
    assert_eq!((v6.area_rows, v6.period_rows), (9, 10));
    assert!(v6.area <= 15.0 && v6.period <= 15.0, "{v6:?}");
    let ecp5 = calibration(DeviceId::Ecp5).loo.errors();
    // Nine full cores placed and routed (long-iter-1024 did not fit the LFE5UM-85F).
    assert_eq!((ecp5.area_rows, ecp5.period_rows), (9, 9));
    // Issue 30: 15% for both (LUT4s counted from the inventory, devices::lut4).
    assert!(ecp5.period <= 15.0 && ecp5.area <= 15.0, "{ecp5:?}");
    // Its two constants: positive, so neither kind of logic is free or a credit.
    let m = calibration(DeviceId::Ecp5)
        .lut4
        .expect("ECP5 counts its LUT4s");
    assert!(m.per_select_input_pow > 0.0 && m.per_ff > 0.0, "{m:?}");
    let k7 = calibration(DeviceId::Kintex7).loo.errors();
    assert!(k7.area <= 15.0 && k7.period <= 15.0, "{k7:?}");
}

#[test]
fn every_estimate_carries_an_interval_around_itself() {
    let c = Constants::built_in();
    for d in DeviceId::ALL {
        for name in ["long-iter-512", "ath-8r-2fp"] {
            let e = estimate_on(d, &preset(name).unwrap(), Options::default(), &c, None);
            let i = e.interval;
            assert_eq!(e.device, d);
            assert!(i.coverage > 0.5 && i.coverage < 1.0, "{d} {name} {i:?}");
            assert!(
                i.period_ns.0 <= e.period_ns && e.period_ns <= i.period_ns.1,
                "{d} {i:?}"
            );
            assert!(i.area.0 < i.area.1, "{d} {i:?}");
            assert!(i.throughput_mbps.0 < i.throughput_mbps.1, "{d} {i:?}");
            assert!(e.fits_device && e.exceeds.is_empty(), "{d} {name}");
        }
    }
}

#[test]
fn a_design_larger_than_the_device_is_flagged() {
    // A Skein-1024 design of 8 unrolled rounds, 8 functional and 10 structural stages.
    let mut spec = preset_spec("ath-8r-8fp-3sp").unwrap();
    spec.size = 1024;
    spec.structural_stages = 10;
    let s = spec.build().unwrap();
    let e = estimate(&s, Options::default(), &Constants::built_in(), None);
    // Larger than the largest Virtex-5 (51,840 slices, DS100).
    assert!(e.slices > 51_840, "{}", e.slices);
    assert!(!e.fits_device);
    assert!(
        e.exceeds.iter().any(|x| x.contains("slices")),
        "{:?}",
        e.exceeds
    );
}

/// Issue 30: the full hash core got about 0 control LUTs and came out smaller than Long's
/// bare UBI core (2,592 against 4,185 LUTs for long-iter-256). Its control is now at least the
/// UBI core's; at 1024 bits Long's 17:1 MuxSwitch costs more than the hash core's rotating
/// key registers, so only 256 and 512 bits compare the totals.
#[test]
fn a_hash_core_is_not_smaller_than_its_bare_ubi_core() {
    let c = Constants::built_in();
    let control = |e: &skeinhw_estimator::Estimate| {
        e.lut_breakdown
            .iter()
            .find(|r| r.role == Role::Control)
            .map_or(0, |r| r.luts)
    };
    for name in ["long-iter-256", "long-iter-512", "long-iter-1024", "ath-1r"] {
        let s = preset(name).unwrap();
        for flow in Flow::ALL {
            let ubi = estimate(&s, options(CoreStyle::UbiCore, flow), &c, None);
            let hash = estimate(&s, options(CoreStyle::HashCore, flow), &c, None);
            assert!(
                control(&hash) >= control(&ubi) && control(&ubi) > 0,
                "{name}"
            );
            if s.block_bits() < 1024 {
                assert!(
                    hash.luts > ubi.luts,
                    "{name} {flow:?}: {} vs {}",
                    hash.luts,
                    ubi.luts
                );
            }
        }
    }
}

#[test]
fn the_breakdown_holds_every_fitted_block() {
    let c = Constants::built_in();
    for style in [CoreStyle::UbiCore, CoreStyle::HashCore] {
        let e = estimate(
            &preset("long-iter-256").unwrap(),
            options(style, Flow::Ise9Default),
            &c,
            None,
        );
        let sum: i64 = e.lut_breakdown.iter().map(|r| i64::from(r.luts)).sum();
        assert_eq!(sum + e.overhead_luts, i64::from(e.luts), "{style:?}");
        assert!(
            e.lut_breakdown
                .iter()
                .any(|r| r.role == Role::Control && r.luts > 0)
        );
    }
}

#[test]
fn no_fitted_constant_rests_on_a_bound_without_a_reason() {
    for b in on_bounds(&Constants::built_in()) {
        assert!(b.note.is_some(), "{} = {} on a bound", b.name, b.value);
    }
}

#[test]
fn one_message_throughput_beside_blocks_in_flight() {
    let c = Constants::built_in();
    for name in ["long-iter-512", "ath-8r-8fp", "ath-8r-4fp-3sp"] {
        let s = preset(name).unwrap();
        let e = estimate(&s, Options::default(), &c, None);
        let ratio = e.throughput_mbps / e.throughput_one_message_mbps;
        assert!(
            (ratio - f64::from(s.blocks_in_flight())).abs() < 1e-9,
            "{name}"
        );
    }
}

#[test]
fn row_32_is_gmus_skein_256() {
    let rows = seed_rows();
    let r = rows
        .iter()
        .find(|r| r.source == "athanasiou2013 [32]")
        .unwrap();
    assert_eq!(r.size, Some(256));
    // GMU CHES 2010: 9 cycles per block; 256 x 49.79 / 9 = 1416.3 against the printed 1416.10.
    let implied = 256.0 * 49.79
        / r.throughput_mbps
            .as_deref()
            .unwrap()
            .parse::<f64>()
            .unwrap();
    assert!((implied - 9.0).abs() < 0.01, "{implied}");
    // Row [22]'s note, with its comma, parses as one cell.
    let r22 = rows
        .iter()
        .find(|r| r.source == "athanasiou2013 [22]")
        .unwrap();
    assert!(r22.note.contains("Tillich et al. 2009, Skein-512"));
}

#[test]
fn device_names_parse() {
    assert_eq!("kintex7".parse::<DeviceId>().unwrap(), DeviceId::Kintex7);
    assert!("virtex7".parse::<DeviceId>().is_err());
    assert_eq!(DeviceId::ALL.len(), 4);
}

/// Issue 30: "the measured value lies inside the printed interval about as often as its
/// stated coverage says". Each out-of-sample value is checked against the interval made of
/// the others' ratios (the interval a new design would get), and the count may fall short
/// of the stated coverage by two binomial standard deviations of a count of that many values
/// (sqrt(p (1 - p) / m)): with 8 to 30 values, a shortfall under that is what chance gives
/// an honest interval; an interval that states 87% and holds 40% (the own-flow interval on
/// other teams' rows) fails it.
#[test]
fn every_interval_holds_about_as_often_as_it_states() {
    use skeinhw_estimator::calibrate::Honesty;
    use skeinhw_estimator::devices::report::device_report;
    let honest = |what: &str, h: &Honesty| {
        let m = h.total as f64;
        let share = h.inside as f64 / m;
        let tolerance = 2.0 * (h.stated * (1.0 - h.stated) / m).sqrt();
        assert!(h.total >= 8, "{what}: {h}");
        assert!(
            share >= h.stated - tolerance,
            "{what}: {h} (tolerance {tolerance:.3})"
        );
    };
    let seed = seed_rows();
    for d in DeviceId::ALL {
        let r = device_report(d, &seed, &Constants::built_in());
        honest(&format!("{d} own flow"), &r.loo_honesty);
        if d == DeviceId::Virtex5 {
            // The own validation rows (ath-8r-*-3sp, 17% to 33% above the model) are in
            // the own-flow spread, so they are among the values checked.
            let validation = r.calibration.loo.points.iter().filter(|p| p.validation);
            assert_eq!(validation.count(), 8);
            let own = r
                .own_validation_honesty
                .expect("Virtex-5 has own validation rows");
            assert_eq!(own.total, 8);
            honest("virtex5 own validation rows", &own);
            let h = r
                .other_implementations_honesty
                .expect("Virtex-5 has other teams' rows");
            assert_eq!(h.total, 15, "9 areas and 6 clocks of other teams");
            honest("virtex5 other implementations", &h);
            // The own-flow interval does not cover other teams' designs, and says so.
            let own = r.validation_honesty.expect("counted");
            assert!((own.inside as f64) < own.stated * own.total as f64, "{own}");
        } else {
            assert!(r.other_implementations_honesty.is_none(), "{d}");
        }
    }
}

#[test]
fn the_other_implementations_interval_contains_the_own_one() {
    let c = Constants::built_in();
    for name in ["long-iter-512", "ath-8r-2fp", "ath-4r"] {
        let s = preset(name).unwrap();
        let e = estimate_on(DeviceId::Virtex5, &s, Options::default(), &c, None);
        let own = e.interval;
        let other = e.interval_other_implementations.expect("Virtex-5");
        assert!(
            other.area.0 <= own.area.0 && own.area.1 <= other.area.1,
            "{name}"
        );
        assert!(other.period_ns.0 <= own.period_ns.0 && own.period_ns.1 <= other.period_ns.1);
        assert!(
            other.coverage >= own.coverage,
            "{name}: more ratios, higher coverage"
        );
        let v6 = estimate_on(DeviceId::Virtex6, &s, Options::default(), &c, None);
        assert!(v6.interval_other_implementations.is_none(), "{name}");
    }
}

/// Issue 30, row [36] (+90%): its 788 slices hold at most 3,152 LUT6s, and the rounds and
/// feed-forward of a 4-round Skein-512 core alone count 3,072: the model cannot be near it
/// without a structure the paper does not publish. The check names that row and no other.
#[test]
fn other_team_rows_too_small_for_a_full_core_are_named() {
    use skeinhw_estimator::calibrate::{other_teams, report_on};
    let o = other_teams(&report_on(&seed_rows(), &Constants::built_in()));
    let named: Vec<&str> = o
        .rows
        .iter()
        .filter(|r| r.datapath_share().is_some_and(|s| s > 0.9))
        .map(|r| r.source.as_str())
        .collect();
    assert_eq!(named, ["athanasiou2013 [36]"]);
    let r36 = o.rows.iter().find(|r| r.source.ends_with("[36]")).unwrap();
    assert_eq!(r36.datapath_luts, Some(3072));
    // Every other team's row is still in the MAPE (none dropped or reweighted).
    assert_eq!(o.corrected.area_rows, 9);
}
