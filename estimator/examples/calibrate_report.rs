//! The calibration table with the fitted constants, as `skeinhw calibrate` prints it (without
//! the CLI): `cargo run -p skeinhw-estimator --example calibrate_report`.

use skeinhw_estimator::Constants;
use skeinhw_estimator::calibrate::{describe_fitted, fit, report};

fn main() {
    let fitted = fit(&Constants::built_in());
    print!("{}", describe_fitted(&fitted));
    println!("{}", report(&fitted));
}
