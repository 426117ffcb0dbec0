//! The calibration's promises: the papers' throughputs follow from their clocks and our
//! cycle counts, the checked-in constants meet the error goals, and they are what the fit
//! produces (run `skeinhw calibrate --write` when this fails after a model change).

use skeinhw_estimator::Constants;
use skeinhw_estimator::calibrate::{arithmetic_checks, fit, goals_met, report, seed_rows};

#[test]
fn table_throughputs_follow_from_their_own_clocks() {
    let checks = arithmetic_checks();
    // Every own-design row of Long, Athanasiou and the Shabal paper on every family has a
    // check.
    let own = seed_rows().iter().filter(|r| r.is_own_design()).count();
    assert_eq!(checks.len(), own);
    for c in &checks {
        assert!(
            c.ok(),
            "{}: table {} vs computed {} (tolerance {})",
            c.design,
            c.paper,
            c.computed,
            c.tolerance
        );
    }
}

/// Shabal paper, Table I: throughput = 512 bits x f_clk / (48/f cycles), printed in Gbps with
/// three decimals, truncated (2.634 for 2634.67 Mbps); and TP/Area in Mbps per slice, also
/// truncated. Both follow exactly from the table's clocks and slices.
#[test]
fn shabal_table_i_throughputs_follow_exactly_from_its_clocks() {
    // (f, slices, MHz, TP Gbps, TP/Area Mbps/slice), Table I.
    let table = [
        (1, 1533.0, 247.0, "2.634", "1.718"),
        (2, 1556.0, 144.0, "3.072", "1.974"),
        (3, 1607.0, 101.0, "3.232", "2.011"),
        (4, 1715.0, 76.0, "3.242", "1.890"),
        (6, 1884.0, 50.0, "3.200", "1.698"),
        (8, 1958.0, 37.0, "3.157", "1.612"),
    ];
    for (f, slices, mhz, tp, per_slice) in table {
        let s = skeinhw_sched::shabal::preset(&format!("shabal-unfold-{f}")).unwrap();
        assert_eq!(s.cycles_per_block(), 48 / f);
        let mbps = s.throughput_mbps(mhz);
        let truncated = |x: f64| format!("{:.3}", (x * 1000.0).floor() / 1000.0);
        assert_eq!(truncated(mbps / 1000.0), tp, "f = {f}");
        assert_eq!(truncated(mbps.floor() / slices), per_slice, "f = {f}");
        // The seed table transcribes the same numbers.
        let row = seed_rows()
            .into_iter()
            .find(|r| r.design == format!("shabal-unfold-{f}"))
            .unwrap();
        assert_eq!(row.throughput_mbps.unwrap(), format!("{}", mbps.floor()));
    }
}

#[test]
fn checked_in_constants_meet_the_goals() {
    let r = report(&Constants::built_in());
    assert_eq!(r.fit.area_rows, 10);
    assert_eq!(r.fit.period_rows, 10);
    assert!(r.fit.area <= 15.0, "fit area MAPE {}", r.fit.area);
    assert!(r.fit.period <= 15.0, "fit period MAPE {}", r.fit.period);
    assert!(r.fit.worst <= 30.0, "worst fit row {}", r.fit.worst);
    // 30% since issue 30 (was 25%, met only by the degenerate fit that put a hash core's
    // control at 0 LUTs; see `goals_met`).
    assert!(
        r.validation.area <= 30.0,
        "validation area {}",
        r.validation.area
    );
    assert!(
        r.validation.period <= 25.0,
        "validation period {}",
        r.validation.period
    );
    assert!(goals_met(&r));
}

#[test]
fn every_virtex5_row_is_listed_with_shabal_modelled() {
    let r = report(&Constants::built_in());
    let listed = r.rows.len() + r.other_family_rows;
    assert_eq!(listed, seed_rows().len());
    let shabal: Vec<_> = r
        .rows
        .iter()
        .filter(|x| x.row.source.starts_with("shabal"))
        .collect();
    assert_eq!(shabal.len(), 6);
    // Slices and period beside the paper's, on every row.
    for x in &shabal {
        let metrics: Vec<_> = x.compared.iter().map(|c| c.metric).collect();
        assert!(
            metrics.contains(&"slices") && metrics.contains(&"period_ns"),
            "{}: {metrics:?}",
            x.row.design
        );
    }
    assert_eq!(r.shabal_fit.area_rows, 4);
    assert_eq!(r.shabal_validation.area_rows, 2);
    let text = r.to_string();
    assert!(text.contains("MAPE fit") && text.contains("MAPE Shabal fit"));
    assert!(text.contains("Shabal fit rows") && text.contains("best throughput"));
}

/// The Shabal paper's conclusion (section V.A): best throughput at f = 4, best throughput per
/// slice at f = 3. The report states the paper's choice from Table I and the model's, and
/// explains any disagreement.
#[test]
fn shabal_conclusion_is_reported_with_its_reason() {
    let r = report(&Constants::built_in());
    let c = &r.shabal_conclusion;
    assert_eq!((c.paper_best_throughput, c.paper_best_per_slice), (4, 3));
    assert_eq!(c.rows.len(), 6);
    if c.model_best_throughput != 4 || c.model_best_per_slice != 3 {
        assert!(c.explanation.contains("not the paper") || c.explanation.contains("the paper's"));
    }
    // The fit rows stay within the Skein goals: 15% MAPE, no row beyond 30%.
    assert!(r.shabal_fit.area <= 15.0 && r.shabal_fit.period <= 15.0);
    assert!(r.shabal_fit.worst <= 30.0);
}

#[test]
fn checked_in_constants_are_the_fit() {
    let built_in = Constants::built_in();
    assert_eq!(
        fit(&built_in),
        built_in,
        "estimator/data/virtex5.toml is stale: run `skeinhw calibrate --write`"
    );
}

#[test]
fn fit_is_deterministic() {
    let c = Constants::built_in();
    assert_eq!(fit(&c), fit(&c));
}
