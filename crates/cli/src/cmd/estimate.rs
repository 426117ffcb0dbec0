//! `skeinhw estimate`, `sweep` and `calibrate` (stub: being written).
use crate::Status;
use anyhow::{Result, bail};
use clap::Args;
/// Arguments of `estimate`.
#[derive(Args)]
pub struct EstimateArgs {}
/// Arguments of `sweep`.
#[derive(Args)]
pub struct SweepArgs {}
/// Arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {}
/// Estimates one schedule.
pub fn run_estimate(_: EstimateArgs) -> Result<Status> {
    bail!("not implemented yet")
}
/// Sweeps.
pub fn run_sweep(_: SweepArgs) -> Result<Status> {
    bail!("not implemented yet")
}
/// Calibrates.
pub fn run_calibrate(_: CalibrateArgs) -> Result<Status> {
    bail!("not implemented yet")
}
