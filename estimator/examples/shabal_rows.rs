//! The Shabal model beside Table I of the Shabal unfolding paper:
//! `cargo run -p skeinhw-estimator --example shabal_rows`.

use skeinhw_estimator::{Constants, Flow};

fn main() {
    let c = Constants::built_in();
    println!("f  slices model  err%   MHz  model  err%   TP(model clock)  TP/slice");
    let paper = [
        (1, 1533, 247.0),
        (2, 1556, 144.0),
        (3, 1607, 101.0),
        (4, 1715, 76.0),
        (6, 1884, 50.0),
        (8, 1958, 37.0),
    ];
    for (f, slices, mhz) in paper {
        let s = skeinhw_sched::shabal::preset(&format!("shabal-unfold-{f}")).unwrap();
        let e = skeinhw_estimator::shabal::estimate(&s, Flow::Ise13, &c, None);
        println!(
            "{f}  {slices:>6} {:>5} {:+5.1}  {mhz:>5} {:>6.1} {:+5.1}   {:>7.0}  {:.3}  luts {} ffs {} pairs {}",
            e.slices,
            (f64::from(e.slices) / f64::from(slices) - 1.0) * 100.0,
            e.freq_mhz,
            (e.period_ns / (1000.0 / mhz) - 1.0) * 100.0,
            e.throughput_mbps,
            e.mbps_per_slice,
            e.luts,
            e.ffs,
            e.lut_ff_pairs
        );
    }
}
