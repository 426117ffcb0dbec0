//! `skeinhw schedules` and `skeinhw schedule show` (stub: being written).
use crate::Status;
use anyhow::{Result, bail};
use clap::Args;
/// Arguments of `schedules`.
#[derive(Args)]
pub struct SchedulesArgs {}
/// Arguments of `schedule`.
#[derive(Args)]
pub struct ScheduleArgs {}
/// Lists presets.
pub fn run_list(_: SchedulesArgs) -> Result<Status> {
    bail!("not implemented yet")
}
/// Shows one schedule.
pub fn run_show(_: ScheduleArgs) -> Result<Status> {
    bail!("not implemented yet")
}
