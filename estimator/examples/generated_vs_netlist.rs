//! The `generated` model style beside the checked-in netlist summaries, per preset:
//! `cargo run -p skeinhw-estimator --example generated_vs_netlist [-- --breakdown] [--plan]`
//! (`--breakdown`: the model's LUTs by role; `--plan`: the slots' units and ROM values).
//! `loo%` is the LUT error with `lut_overhead_generated` fitted on every other preset's
//! netlist (leave-one-out): the error on a netlist the fit never saw.

use skeinhw_estimator::netlist::summary::NetlistSummary;
use skeinhw_estimator::{Constants, CoreStyle, Options, estimate};

fn main() {
    let breakdown = std::env::args().any(|a| a == "--breakdown");
    let c = Constants::built_in();
    match skeinhw_estimator::generated::fit_overhead(&c) {
        Ok(o) => println!(
            "lut_overhead_generated: checked in {}, fit on every preset's netlist: {o}",
            c.lut_overhead_generated
        ),
        Err(e) => println!("lut_overhead_generated: cannot fit yet: {e}"),
    }
    let options = Options {
        style: Some(CoreStyle::Generated),
        ..Options::default()
    };
    // Empty until every preset has a summary (the fit needs them all).
    let left_out = skeinhw_estimator::generated::left_out_luts(&c).unwrap_or_default();
    let (mut lut_abs, mut loo_abs, mut ff_abs, mut n) = (0.0, 0.0, 0.0, 0.0);
    println!(
        "{:<18} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6} {:>7} {:>7}",
        "preset", "LUT nl", "model", "err%", "loo%", "FF nl", "model", "err%", "period"
    );
    for s in skeinhw_sched::presets() {
        let Ok(sum) = NetlistSummary::load(s.name()) else {
            continue;
        };
        let e = estimate(&s, options, &c, None);
        let le = (f64::from(e.luts) / f64::from(sum.luts) - 1.0) * 100.0;
        let fe = (f64::from(e.ffs) / f64::from(sum.ffs) - 1.0) * 100.0;
        let loo = left_out
            .iter()
            .find(|(p, _)| p == s.name())
            .map_or(f64::NAN, |(_, luts)| {
                (f64::from(*luts) / f64::from(sum.luts) - 1.0) * 100.0
            });
        lut_abs += le.abs();
        loo_abs += loo.abs();
        ff_abs += fe.abs();
        n += 1.0;
        println!(
            "{:<18} {:>7} {:>7} {:>+7.1} {:>+7.1} {:>6} {:>6} {:>+7.1} {:>7.2}{}",
            s.name(),
            sum.luts,
            e.luts,
            le,
            loo,
            sum.ffs,
            e.ffs,
            fe,
            sum.period_ns,
            if sum.is_current().unwrap_or(false) {
                ""
            } else {
                "  (stale)"
            }
        );
        if std::env::args().any(|a| a == "--plan") {
            print!(
                "{}",
                skeinhw_estimator::generated::GeneratedPlan::new(&s).describe()
            );
        }
        if breakdown {
            for r in &e.lut_breakdown {
                println!("    {:?} {}", r.role, r.luts);
            }
        }
    }
    if n > 0.0 {
        println!(
            "MAPE: LUTs {:.1}% (leave-one-out {:.1}%), FFs {:.1}% over {n} presets",
            lut_abs / n,
            loo_abs / n,
            ff_abs / n
        );
    }
}
