//! Prints each device's leave-one-out errors (what `skeinhw calibrate --device` headlines).
use skeinhw_estimator::DeviceId;
use skeinhw_estimator::devices::calibration::calibration;

fn main() {
    for d in DeviceId::ALL {
        let c = calibration(d);
        let e = c.loo.errors();
        println!("{d}: {:?}", c.transfer);
        for p in &c.loo.points {
            println!(
                "  {:<20} {:<10} {:>10.2} {:>10.2} {:>+7.1}%",
                p.design,
                p.metric,
                p.measured,
                p.loo,
                p.error_pct()
            );
        }
        println!(
            "  LOO area {:.1}% ({}), period {:.1}% ({}), bias {:+.1}/{:+.1}",
            e.area, e.area_rows, e.period, e.period_rows, e.area_bias, e.period_bias
        );
    }
}
